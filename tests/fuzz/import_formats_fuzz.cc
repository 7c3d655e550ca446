// Fuzz target: the import and bulk put formats (portability/import_reader, bulk_reader,
// ion_text, compression). The first byte picks the format (DYNAMODB_JSON, ION, CSV) and the
// compression; any input reads or fails with an Error — no crash, no UB, bounded recursion and
// memory — every Ion item read, written back as DynamoDB's Ion and read again, equals itself,
// and every bulk record handed on is a JSON object with an Item object.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "portability/bulk_reader.h"
#include "portability/compression.h"
#include "portability/import_reader.h"
#include "portability/ion_text.h"

namespace {

using namespace ddbd;
using namespace ddbd::portability;

void CheckIonRoundTrip(const Item& item) {
  std::string written;
  WriteIonStruct(item, written);
  IonReader reader(written);
  auto again = reader.Next();
  if (!again.ok() || !*again || (*again)->type() != AttributeType::kM ||
      Item((*again)->map()) != item) {
    std::abort();
  }
}

void CheckBulkRecords(BulkRecordReader::Format format, std::string_view text) {
  BulkRecordReader reader(format, text);
  while (auto record = reader.Next()) {
    simdjson::dom::object item;
    if (record->json.ok() && (*record->json)["Item"].get(item) != simdjson::SUCCESS) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t choice = data[0];
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string text(input);
  if (choice & 0x10) {  // the input as a compressed object
    auto decompressed =
        Decompress((choice & 0x20) ? Compression::kZstd : Compression::kGzip, input, 1 << 20);
    if (!decompressed.ok()) return 0;
    text = std::move(*decompressed);
  }
  ImportFormat format;
  format.kind = static_cast<ImportFormat::Kind>(choice % 3);
  format.key_types = {
      {"pk", KeyAttributeType::kS}, {"n", KeyAttributeType::kN}, {"b", KeyAttributeType::kB}};
  size_t records = 0;
  ReadObjectItems(
      format, text,
      [&](size_t, Result<Item> item) {
        if (item.ok() && format.kind == ImportFormat::Kind::kIon) CheckIonRoundTrip(*item);
      },
      records)
      .IgnoreError();
  if (format.kind != ImportFormat::Kind::kCsv) {
    CheckBulkRecords(format.kind == ImportFormat::Kind::kIon
                         ? BulkRecordReader::Format::kIon
                         : BulkRecordReader::Format::kDynamoDbJson,
                     text);
  }
  return 0;
}
