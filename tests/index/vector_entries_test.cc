// Vector index entries: float conversion and rendering, membership, entry sizes and write
// metering (spec/vector-search.md §5, §9.2), and the order of write checks.
#include "index/vector_entries.h"

#include <gtest/gtest.h>

#include "vector/entry_codec.h"

namespace ddbd::index {
namespace {

AttributeValue Vec(std::initializer_list<const char*> numbers) {
  AttributeList list;
  for (const char* n : numbers) list.push_back(AttributeValue::NumberText(n));
  return AttributeValue::List(std::move(list));
}

IndexDef VectorIndex(std::string name, ProjectionType projection = ProjectionType::kAll) {
  IndexDef index;
  index.name = std::move(name);
  index.projection = projection;
  index.vector =
      VectorSpec{"embedding", 3, DistanceFunction::kCosine, {{"lang", KeyAttributeType::kS}}};
  index.partition_keys = {{"tenant", KeyAttributeType::kS}};
  return index;
}

TableDef Table(std::vector<IndexDef> indexes) {
  TableDef table;
  table.partition_key = {"pk", KeyAttributeType::kS};
  table.indexes = std::move(indexes);
  return table;
}

TEST(VectorEntriesTest, FloatConversionAcceptsTheFloatRangeOnly) {
  EXPECT_EQ(ToFloat32("0.5"), 0.5f);
  EXPECT_EQ(ToFloat32("340282350000000000000000000000000000000"), 3.4028235e38f);
  EXPECT_EQ(ToFloat32("350000000000000000000000000000000000000"), std::nullopt);
  EXPECT_EQ(ToFloat32("-350000000000000000000000000000000000000"), std::nullopt);
  EXPECT_EQ(ToFloat32("0.00000000000000000000000000000000000000000000000001"), 0.0f);
}

TEST(VectorEntriesTest, FloatsRenderAsShortestPlainDecimals) {
  EXPECT_EQ(FormatFloat32(1.0f), "1.0");
  EXPECT_EQ(FormatFloat32(0.5f), "0.5");
  EXPECT_EQ(FormatFloat32(-2.0f), "-2.0");
  EXPECT_EQ(FormatFloat32(0.1f), "0.1");
  EXPECT_EQ(FormatFloat32(-0.0f), "0.0");
  EXPECT_EQ(FormatFloat32(1e-3f), "0.001");
  EXPECT_EQ(FormatFloat32(1e20f), "100000000000000000000.0");
  EXPECT_EQ(FormatFloat32(123.25f), "123.25");
  EXPECT_EQ(FormatFloat32(-0.0625f), "-0.0625");
  EXPECT_EQ(FormatFloat32(3.4028235e38f), "340282350000000000000000000000000000000.0");
}

TEST(VectorEntriesTest, EntrySizeFollowsDynamoDBsMeasure) {
  // 3 dimensions, attribute "embedding", key pk="a", a 1,500-character "blob" under ALL:
  // 12 + 9 + 3 + 1,504 = 1,528.
  IndexDef index = VectorIndex("Semantic");
  index.partition_keys.clear();
  index.vector->filters.clear();
  TableDef table = Table({index});
  Item item{{"pk", AttributeValue::String("a")},
            {"blob", AttributeValue::String(std::string(1500, 'x'))},
            {"embedding", Vec({"1", "2", "3"})}};
  auto entry = VectorEntryFor(table, table.indexes[0], item);
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->projected_size, 1528u);
  ddbd::vector::DecodedVectorEntry decoded =
      ddbd::vector::DecodeVectorEntry(table.indexes[0], entry->projected);
  EXPECT_EQ(decoded.vector, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(decoded.attributes.count("embedding"), 0u);
  EXPECT_EQ(decoded.attributes.at("blob").scalar().size(), 1500u);
}

TEST(VectorEntriesTest, MembershipNeedsAValidVectorAndTheHashAttribute) {
  TableDef table = Table({VectorIndex("Semantic", ProjectionType::kKeysOnly)});
  const IndexDef& index = table.indexes[0];
  Item item{{"pk", AttributeValue::String("a")},
            {"tenant", AttributeValue::String("acme")},
            {"lang", AttributeValue::String("en")},
            {"note", AttributeValue::String("n")},
            {"embedding", Vec({"1", "0", "0"})}};
  auto entry = VectorEntryFor(table, index, item);
  ASSERT_TRUE(entry);
  // KEYS_ONLY: the keys, the schema attributes and the vector (kept for rebuilding).
  std::vector<std::string> names;
  for (const auto& [name, value] : entry->projected) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"embedding", "lang", "pk", "tenant"}));
  Item no_tenant = item;
  no_tenant.erase("tenant");
  EXPECT_FALSE(VectorEntryFor(table, index, no_tenant));
  Item short_vector = item;
  short_vector["embedding"] = Vec({"1", "0"});
  EXPECT_FALSE(VectorEntryFor(table, index, short_vector));
}

TEST(VectorEntriesTest, WriteChecksGoByIndexNameAndOnlyWhatTheWriteSets) {
  TableDef table = Table({VectorIndex("Zeta"), VectorIndex("Alpha")});
  Item item{{"pk", AttributeValue::String("a")},
            {"tenant", AttributeValue::NumberText("1")},
            {"embedding", Vec({"1", "0"})}};
  Status status = CheckVectorAttributes(table, item, EveryAttribute);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "One or more parameter values are not valid. One or more parameter values were "
            "invalid . Invalid size for parameter embedding, Expected: 3, Actual: 2. IndexName: "
            "Alpha");
  // The vector first, then the schema attributes.
  item["embedding"] = Vec({"1", "0", "0"});
  status = CheckVectorAttributes(table, item, EveryAttribute);
  EXPECT_EQ(status.error().message(),
            "One or more parameter values were invalid. Attribute 'tenant' type mismatch. "
            "Expected: S, Actual: N. IndexName: Alpha");
  // An update that does not touch the tenant is not held to it.
  EXPECT_TRUE(CheckVectorAttributes(table, item, [](std::string_view name) {
                return name == "embedding";
              }).ok());
}

TEST(VectorEntriesTest, WriteMeteringChargesChangedEntriesOnly) {
  TableDef table = Table({VectorIndex("Semantic", ProjectionType::kKeysOnly)});
  Item item{{"pk", AttributeValue::String("a")},
            {"tenant", AttributeValue::String("acme")},
            {"embedding", Vec({"1", "0", "0"})}};
  EXPECT_EQ(VectorWriteBytes(table, std::nullopt, item),
            (std::map<std::string, int64_t>{{"Semantic", 1024}}));
  EXPECT_TRUE(VectorWriteBytes(table, item, item).empty());
  Item unprojected = item;
  unprojected["note"] = AttributeValue::String("not in a KEYS_ONLY index");
  EXPECT_TRUE(VectorWriteBytes(table, item, unprojected).empty());
  Item moved = item;
  moved["tenant"] = AttributeValue::String("globex");  // another partition: both entries
  EXPECT_EQ(VectorWriteBytes(table, item, moved),
            (std::map<std::string, int64_t>{{"Semantic", 2048}}));
  EXPECT_EQ(VectorWriteBytes(table, item, std::nullopt),
            (std::map<std::string, int64_t>{{"Semantic", 1024}}));
}

}  // namespace
}  // namespace ddbd::index
