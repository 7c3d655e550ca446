// RecordsPart: every change of an item of a table with an enabled stream gets one record, in
// the write's batch, in commit order, with the images the view type asks for; writes that
// change nothing get none. Storage numbers, reads and trims them.
#include "streams/records_part.h"

#include <gtest/gtest.h>

#include "tests/testing/temp_db.h"

namespace ddbd::streams {
namespace {

using ddbd::testing::TempDb;
using storage::StreamEvent;
using storage::StreamRecord;

TableDef MakeTable(std::string name) {
  TableDef table;
  table.name = std::move(name);
  table.region = "us-east-1";
  table.partition_key = {"pk", KeyAttributeType::kS};
  table.sort_key = KeyElement{"sk", KeyAttributeType::kS};
  table.attribute_definitions = {{"pk", KeyAttributeType::kS}, {"sk", KeyAttributeType::kS}};
  return table;
}

Item MakeItem(std::string pk, AttributeValue sk, std::string payload = "v") {
  Item item;
  item["pk"] = AttributeValue::String(std::move(pk));
  item["sk"] = std::move(sk);
  item["payload"] = AttributeValue::String(std::move(payload));
  return item;
}

Status Write(storage::Database& db, const TableDef& table, PrimaryKey key,
             std::optional<Item> item) {
  std::vector<storage::ItemWrite> writes;
  writes.push_back(storage::Replacement(table, std::move(key), std::move(item)));
  auto result = db.WriteItems(std::move(writes));
  if (!result.ok()) return std::move(result).error();
  return OkStatus();
}

Status Put(storage::Database& db, const TableDef& table, Item item) {
  PrimaryKey key = KeyOf(table, item);
  return Write(db, table, std::move(key), std::move(item));
}

Status Delete(storage::Database& db, const TableDef& table, PrimaryKey key) {
  return Write(db, table, std::move(key), std::nullopt);
}

class RecordsPartTest : public ::testing::Test {
 protected:
  RecordsPartTest() {
    temp.db().SetClock(clock);
    temp.AddWritePart(&part);
  }
  ManualClock clock{1'700'000'000'000};
  RecordsPart part;
  TempDb temp;
};

TEST_F(RecordsPartTest, EveryChangeIsRecordedInOrderWithTheImagesItsViewAsksFor) {
  TableDef definition = MakeTable("Streamed");
  definition.streams = {{777, StreamViewType::kNewAndOldImages, 1, true}};
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(definition));
  const AttributeValue one = AttributeValue::String("1");
  ASSERT_OK(Put(temp.db(), *table, MakeItem("a", one, "first")));
  ASSERT_OK(Put(temp.db(), *table, MakeItem("a", one, "first")));  // unchanged: no record
  Item with_set = MakeItem("c", one);
  with_set["tags"] = AttributeValue::Set(AttributeType::kSS, {"x", "y"});
  ASSERT_OK(Put(temp.db(), *table, with_set));
  with_set["tags"] = AttributeValue::Set(AttributeType::kSS, {"y", "x"});  // the same set
  ASSERT_OK(Put(temp.db(), *table, with_set));
  ASSERT_OK(Delete(temp.db(), *table, {AttributeValue::String("c"), one}));
  ASSERT_OK(Put(temp.db(), *table, MakeItem("a", one, "second")));
  ASSERT_OK(Delete(temp.db(), *table, {AttributeValue::String("b"), one}));  // absent: none
  ASSERT_OK(Delete(temp.db(), *table, {AttributeValue::String("a"), one}));

  ASSERT_OK_AND_ASSIGN(auto all, temp.db().ReadStream(777, 0, 100));
  ASSERT_EQ(all.size(), 5u);  // a's three changes; c inserted once (the reordered set is no
                              // change) and removed
  EXPECT_EQ(all[1].event, StreamEvent::kInsert);
  EXPECT_EQ(all[2].event, StreamEvent::kRemove);
  EXPECT_EQ(all[1].keys.at("pk"), AttributeValue::String("c"));
  std::vector<StreamRecord> records = {all[0], all[3], all[4]};
  ASSERT_OK_AND_ASSIGN(auto bounds, temp.db().StreamBounds(777));
  EXPECT_EQ(bounds, std::optional(std::pair(all.front().sequence, all.back().sequence)));
  EXPECT_EQ(records[0].event, StreamEvent::kInsert);
  EXPECT_EQ(records[1].event, StreamEvent::kModify);
  EXPECT_EQ(records[2].event, StreamEvent::kRemove);
  EXPECT_LT(records[0].sequence, records[1].sequence);
  EXPECT_LT(records[1].sequence, records[2].sequence);
  const Item keys{{"pk", AttributeValue::String("a")}, {"sk", one}};
  for (const auto& record : records) EXPECT_EQ(record.keys, keys);
  EXPECT_FALSE(records[0].old_image);
  EXPECT_EQ(records[0].new_image->at("payload").scalar(), "first");
  EXPECT_EQ(records[1].old_image->at("payload").scalar(), "first");
  EXPECT_EQ(records[1].new_image->at("payload").scalar(), "second");
  EXPECT_EQ(records[2].old_image->at("payload").scalar(), "second");
  EXPECT_FALSE(records[2].new_image);
  EXPECT_EQ(records[1].size_bytes,
            ItemSize(keys) + ItemSize(*records[1].old_image) + ItemSize(*records[1].new_image));

  // Paging from a position, and the numbering survives a restart.
  ASSERT_OK_AND_ASSIGN(auto after_first, temp.db().ReadStream(777, records[0].sequence, 1));
  ASSERT_EQ(after_first.size(), 1u);
  EXPECT_EQ(after_first[0].sequence, all[1].sequence);
  const uint64_t last = temp.db().LastStreamSequence();
  EXPECT_EQ(last, records[2].sequence);
  temp.Reopen();
  EXPECT_EQ(temp.db().LastStreamSequence(), last);

  // Records carry the clock's time; those older than the cut-off go.
  EXPECT_EQ(records[0].time_ms, 1'700'000'000'000);
  ASSERT_OK_AND_ASSIGN(uint64_t trimmed, temp.db().TrimStream(777, records[0].time_ms));
  EXPECT_EQ(trimmed, 0u);
  ASSERT_OK_AND_ASSIGN(uint64_t trim_point, temp.db().StreamTrimPoint(777));
  EXPECT_EQ(trim_point, 0u);
  ASSERT_OK_AND_ASSIGN(trimmed, temp.db().TrimStream(777, records[2].time_ms + 1));
  EXPECT_EQ(trimmed, 5u);
  ASSERT_OK_AND_ASSIGN(auto rest, temp.db().ReadStream(777, 0, 100));
  EXPECT_TRUE(rest.empty());
  // The trim point is the last record removed, durable with the removal.
  temp.Reopen();
  ASSERT_OK_AND_ASSIGN(trim_point, temp.db().StreamTrimPoint(777));
  EXPECT_EQ(trim_point, last);
}

TEST_F(RecordsPartTest, KeysOnlyAndDisabledStreams) {
  TableDef definition = MakeTable("KeysOnly");
  definition.streams = {{801, StreamViewType::kKeysOnly, 1, false},
                        {802, StreamViewType::kKeysOnly, 2, true}};
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(definition));
  ASSERT_OK(Put(temp.db(), *table, MakeItem("a", AttributeValue::String("1"))));
  ASSERT_OK_AND_ASSIGN(auto old_stream, temp.db().ReadStream(801, 0, 100));
  EXPECT_TRUE(old_stream.empty());  // only the current, enabled stream records
  ASSERT_OK_AND_ASSIGN(auto no_bounds, temp.db().StreamBounds(801));
  EXPECT_FALSE(no_bounds);
  ASSERT_OK_AND_ASSIGN(auto records, temp.db().ReadStream(802, 0, 100));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].new_image);
  EXPECT_FALSE(records[0].old_image);
  ASSERT_OK(temp.catalog().Drop(*table));
  ASSERT_OK_AND_ASSIGN(records, temp.db().ReadStream(802, 0, 100));
  EXPECT_TRUE(records.empty());
}

}  // namespace
}  // namespace ddbd::streams
