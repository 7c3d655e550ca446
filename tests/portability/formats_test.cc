// The export, import and bulk put formats: Ion text both ways, the three import formats, bulk
// put records, compressions, and the names and checksums of DynamoDB's export layout.
#include <gtest/gtest.h>

#include "portability/bulk_reader.h"
#include "portability/compression.h"
#include "portability/import_reader.h"
#include "portability/ion_text.h"
#include "portability/job_naming.h"

namespace ddbd::portability {
namespace {

constexpr const char* kBig = "1234567890123456789012345678901234567.8";

Item EveryType() {
  AttributeMap nested;
  nested["l"] = AttributeValue::List(
      {AttributeValue::String("deep"), AttributeValue::Null(), AttributeValue::Bool(false)});
  Item item;
  item["pk"] = AttributeValue::String("a1");
  item["n"] = AttributeValue::NumberText(kBig);
  item["b"] = AttributeValue::Binary(std::string("\x00\xff", 2));
  item["ss"] = AttributeValue::Set(AttributeType::kSS, {"x", "y"});
  item["ns"] = AttributeValue::Set(AttributeType::kNS, {"1", kBig, "-0.5"});
  item["bs"] = AttributeValue::Set(AttributeType::kBS, {"\x01", ""});
  item["doc"] = AttributeValue::Map(nested);
  item["quoted name"] = AttributeValue::String("it's \"x\"\n\t\u2603");
  item["true"] = AttributeValue::Bool(true);
  return item;
}

Item ReadOneIon(std::string_view text) {
  IonReader reader(text);
  auto value = reader.Next();
  EXPECT_TRUE(value.ok()) << (value.ok() ? "" : value.error().message());
  if (!value.ok() || !*value) return {};
  EXPECT_EQ((*value)->type(), AttributeType::kM);
  return Item((*value)->map());
}

TEST(IonText, WritesDynamoDbsMapping) {
  Item item;
  item["Id"] = AttributeValue::NumberText("103");
  item["Price"] = AttributeValue::NumberText("-2.5");
  item["Authors"] = AttributeValue::Set(AttributeType::kSS, {"Author1", "Author2"});
  item["B"] = AttributeValue::Binary("hi");
  item["Null"] = AttributeValue::Null();
  item["quoted name"] = AttributeValue::String("it's");
  std::string out;
  WriteIonStruct(item, out);
  EXPECT_EQ(out,
            "{Authors:$dynamodb_SS::[\"Author1\",\"Author2\"],B:{{aGk=}},Id:103.,Null:null,"
            "Price:-2.5,'quoted name':\"it's\"}");
}

TEST(IonText, EveryTypeRoundTrips) {
  std::string out = "$ion_1_0 ";
  WriteIonStruct(EveryType(), out);
  EXPECT_EQ(ReadOneIon(out), EveryType());
}

TEST(IonText, ReadsIonAsPeopleWriteIt) {
  const Item item = ReadOneIon(R"(
      // a comment
      /* another */ { 'pk' : "k", "sk": 6d2, f: 1.5e1, i: 1_000, s: sym, long: '''a''' '''b''',
                      n: null.string, nested: {list: [1, (2 3)]}, set: $dynamodb_NS::[1, 2.0] })");
  EXPECT_EQ(item.at("pk").scalar(), "k");
  EXPECT_EQ(item.at("sk").scalar(), "600");
  EXPECT_EQ(item.at("f").scalar(), "15");
  EXPECT_EQ(item.at("i").scalar(), "1000");
  EXPECT_EQ(item.at("s").scalar(), "sym");
  EXPECT_EQ(item.at("long").scalar(), "ab");
  EXPECT_EQ(item.at("n").type(), AttributeType::kNull);
  EXPECT_EQ(item.at("nested").map().at("list").list().size(), 2u);
  EXPECT_EQ(item.at("nested").map().at("list").list()[1].list().size(), 2u);
  EXPECT_EQ(item.at("set"), AttributeValue::Set(AttributeType::kNS, {"1", "2"}));
}

TEST(IonText, RefusesWhatNoDynamoDbTypeStandsFor) {
  for (std::string_view text : {"{t: 2007-01-01T00:00Z}", "{c: {{\"clob\"}}}",
                                "{s: $dynamodb_SS::[]}", "{s: $dynamodb_SS::[\"a\", \"a\"]}",
                                "{s: $dynamodb_NS::[\"a\"]}", "{a: \"open", "{a: 1", "[1, 2"}) {
    IonReader reader(text);
    EXPECT_FALSE(reader.Next().ok()) << text;
  }
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "[";
  IonReader reader(deep);
  EXPECT_FALSE(reader.Next().ok());
}

TEST(IonText, StringsAndNamesMustBeUtf8) {
  // Ion text is UTF-8, and DynamoDB strings are: a stray byte or an escaped surrogate is
  // refused, not carried into an item (or a bulk record's JSON).
  for (std::string_view text : {"{s: \"\x8f\"}", "{s: $dynamodb_SS::[\"\x8f\"]}", "{'\xc3': 1}",
                                "{s: \"\\ud800\"}", "{s: '''\xff'''}"}) {
    IonReader reader(text);
    EXPECT_FALSE(reader.Next().ok()) << text;
  }
  IonReader reader("{s: \"\xc3\xa9\\u00e9\"}");
  auto value = reader.Next();
  ASSERT_TRUE(value.ok() && *value);
  EXPECT_EQ((*value)->map().at("s").scalar(), "\xc3\xa9\xc3\xa9");
}

struct Collected {
  std::vector<Item> items;
  std::vector<std::pair<size_t, std::string>> errors;
  size_t records = 0;
  Status status = OkStatus();
};

Collected Read(const ImportFormat& format, std::string_view text) {
  Collected out;
  out.status = ReadObjectItems(
      format, text,
      [&](size_t index, Result<Item> item) {
        if (item.ok()) {
          out.items.push_back(*item);
        } else {
          out.errors.emplace_back(index, item.error().message());
        }
      },
      out.records);
  return out;
}

TEST(ImportReader, DynamoDbJsonLinesSkipBlankLinesAndStopAtABrokenOne) {
  const Collected read = Read({},
                              "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n\n"
                              "{\"Item\":{\"pk\":{\"N\":\"x\"}}}\n"
                              "{\"NotItem\":{}}\n{\"Item\":{\"pk\":{\"S\":\"never\"}}}\n");
  ASSERT_EQ(read.items.size(), 1u);
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].first, 1u);  // the bad number: an item error, reading goes on
  EXPECT_FALSE(read.status.ok());       // no Item: the rest of the object is skipped
  EXPECT_EQ(read.records, 3u);
}

TEST(ImportReader, CsvTypesKeyColumnsAndQuotes) {
  ImportFormat format;
  format.kind = ImportFormat::Kind::kCsv;
  format.key_types = {
      {"pk", KeyAttributeType::kS}, {"sk", KeyAttributeType::kN}, {"bin", KeyAttributeType::kB}};
  const Collected read = Read(format,
                              "pk,sk,bin,note\r\n"
                              "a,01.50,AP8=,\"x, \"\"y\"\"\nz\"\r\n"
                              "b,2,,\n"
                              "c,notanumber,,\n");
  ASSERT_EQ(read.items.size(), 2u);
  EXPECT_EQ(read.items[0].at("sk").scalar(), "1.5");
  EXPECT_EQ(read.items[0].at("bin").scalar(), std::string("\x00\xff", 2));
  EXPECT_EQ(read.items[0].at("note").scalar(), "x, \"y\"\nz");
  EXPECT_EQ(read.items[1].size(), 2u);  // empty fields are no attributes
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].first, 2u);
  EXPECT_TRUE(read.status.ok());
}

TEST(ImportReader, IonValuesNeedAnItem) {
  ImportFormat format;
  format.kind = ImportFormat::Kind::kIon;
  const Collected read = Read(format, "$ion_1_0 {Item:{pk:\"a\"}} {Item:{pk:\"b\"}} 5 {Item:{}}");
  EXPECT_EQ(read.items.size(), 2u);
  EXPECT_FALSE(read.status.ok());
  EXPECT_EQ(read.records, 3u);
}

// Every record a reader hands on (its index, its JSON minified or error message), in order.
std::vector<std::pair<size_t, std::string>> BulkRecords(BulkRecordReader::Format format,
                                                        std::string_view text) {
  std::vector<std::pair<size_t, std::string>> records;
  BulkRecordReader reader(format, text);
  while (auto record = reader.Next()) {
    records.emplace_back(record->index, record->json.ok() ? simdjson::minify(*record->json)
                                                          : "! " + record->json.error().message());
  }
  return records;
}

TEST(BulkReader, JsonLinesAreHandedOnAsTheyAreUntilAnUnreadableOne) {
  const std::string conditional =
      R"j({"Item":{"pk":{"S":"b"}},"ConditionExpression":"attribute_not_exists(pk)"})j";
  const auto records = BulkRecords(BulkRecordReader::Format::kDynamoDbJson,
                                   "{\"Item\":{\"pk\":{\"N\":\"x\"}}}\n\r\n" + conditional +
                                       "\n[1]\n{\"Item\":{\"pk\":{\"S\":\"never\"}}}\n");
  const std::vector<std::pair<size_t, std::string>> expected = {
      {0, R"({"Item":{"pk":{"N":"x"}}})"},  // checked later, as a PutItem is
      {1, conditional},
      {2, "! Unexpected record format: the line is not a JSON object"}};
  EXPECT_EQ(records, expected);
}

TEST(BulkReader, IonRecordsBecomeDynamoDbJsonWithTheirConditionMembers) {
  const auto records = BulkRecords(
      BulkRecordReader::Format::kIon,
      "$ion_1_0 {Item:{pk:\"a\", n:12.5, ss:$dynamodb_SS::[\"x\"]}, ConditionExpression:\"#k <> "
      ":v\","
      " ExpressionAttributeNames:{'#k':\"pk\"}, ExpressionAttributeValues:{':v':\"z\"}, Other:1}"
      " {Item:{pk:\"b\"}, ConditionExpression:5} {NoItem:{}} {Item:{pk:\"never\"}}");
  const std::vector<std::pair<size_t, std::string>> expected = {
      {0, R"({"ConditionExpression":"#k <> :v","ExpressionAttributeNames":{"#k":"pk"},)"
          R"("ExpressionAttributeValues":{":v":{"S":"z"}},)"
          R"("Item":{"n":{"N":"12.5"},"pk":{"S":"a"},"ss":{"SS":["x"]}}})"},
      {1, R"({"ConditionExpression":{"N":"5"},"Item":{"pk":{"S":"b"}}})"},  // refused later
      {2, "! Unexpected record format: the struct has no Item"}};
  EXPECT_EQ(records, expected);
}

TEST(Compression, GzipAndZstdAreReadBackAndBombsRefused) {
  const std::string data(100000, 'x');
  const std::string gz = GzipCompress(data);
  EXPECT_EQ(gz.substr(0, 10), std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10));
  EXPECT_EQ(*Decompress(Compression::kGzip, gz + gz, 1 << 20), data + data);  // two members
  EXPECT_FALSE(Decompress(Compression::kGzip, gz, 1000).ok());
  EXPECT_FALSE(Decompress(Compression::kGzip, "plain text", 1000).ok());
  EXPECT_FALSE(Decompress(Compression::kGzip, gz.substr(0, gz.size() / 2), 1 << 20).ok());
  EXPECT_FALSE(Decompress(Compression::kZstd, "plain text", 1000).ok());
  // "hello\n" as `zstd` writes it.
  const std::string zst(
      "\x28\xb5\x2f\xfd\x04\x58\x31\x00\x00\x68\x65\x6c\x6c\x6f\x0a\x53\x88\xbd\x91", 19);
  EXPECT_EQ(*Decompress(Compression::kZstd, zst, 100), "hello\n");
  EXPECT_EQ(GzipCompress("").size(), 20u);  // an empty data file, as DynamoDB's
}

TEST(JobNaming, IdsTimesAndChecksums) {
  const std::string id = NewJobId(1800000000123);
  EXPECT_TRUE(IsJobId(id));
  EXPECT_EQ(JobIdTime(id), 1800000000123);
  EXPECT_EQ(id.substr(0, 15), "01800000000123-");
  EXPECT_FALSE(IsJobId("01800000000123-ABCDEF12"));
  EXPECT_FALSE(IsJobId("1800000000123-abcdef12"));
  EXPECT_EQ(IsoTime(1604474914028), "2020-11-04T07:28:34.028Z");
  EXPECT_EQ(Md5Base64(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
  // S3's ETag of a one-part multipart upload of "": MD5 of the MD5, "-1".
  EXPECT_EQ(SinglePartEtag(""), "59adb24ef3cdbe0297f05b395827453f-1");
  const std::string name = DataFileName("x/0");
  EXPECT_EQ(name.size(), 26u);
  EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz234567"), std::string::npos);
  EXPECT_EQ(name, DataFileName("x/0"));
  EXPECT_NE(name, DataFileName("x/1"));
}

}  // namespace
}  // namespace ddbd::portability
