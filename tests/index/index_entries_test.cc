// Index rules: sparse membership, projections, key checks; and the maintained entries in
// storage through the EntriesPart, including the backfill.
#include "index/index_entries.h"

#include <gtest/gtest.h>

#include <memory>

#include "index/entries_part.h"
#include "index/gsi_lag.h"
#include "model/clock.h"
#include "tests/testing/temp_db.h"

namespace ddbd::index {
namespace {

using testing::TempDb;

TableDef OrdersTable() {
  TableDef table;
  table.name = "Orders";
  table.region = "us-east-1";
  table.partition_key = {"id", KeyAttributeType::kS};
  table.attribute_definitions = {{"id", KeyAttributeType::kS},
                                 {"status", KeyAttributeType::kS},
                                 {"total", KeyAttributeType::kN}};
  IndexDef by_status;
  by_status.name = "ByStatus";
  by_status.partition_keys = {{"status", KeyAttributeType::kS}};
  by_status.sort_keys = {{"total", KeyAttributeType::kN}};
  by_status.projection = ProjectionType::kInclude;
  by_status.non_key_attributes = {"customer"};
  IndexDef keys_only = by_status;
  keys_only.name = "KeysOnly";
  keys_only.projection = ProjectionType::kKeysOnly;
  keys_only.non_key_attributes.clear();
  table.indexes = {by_status, keys_only};
  return table;
}

Item Order(std::string id, std::optional<std::string> status, std::optional<std::string> total) {
  Item item;
  item["id"] = AttributeValue::String(std::move(id));
  if (status) item["status"] = AttributeValue::String(*status);
  if (total) item["total"] = AttributeValue::NumberText(*total);
  item["customer"] = AttributeValue::String("c1");
  item["note"] = AttributeValue::String("not projected");
  return item;
}

TEST(IndexEntriesTest, SparseMembershipAndProjection) {
  TableDef table = OrdersTable();
  EXPECT_FALSE(EntryFor(table, table.indexes[0], Order("o1", std::nullopt, "5")).has_value());
  EXPECT_FALSE(EntryFor(table, table.indexes[0], Order("o1", "paid", std::nullopt)).has_value());
  auto entry = EntryFor(table, table.indexes[0], Order("o1", "paid", "5"));
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->partition, std::vector<AttributeValue>{AttributeValue::String("paid")});
  EXPECT_EQ(entry->sort, std::vector<AttributeValue>{AttributeValue::NumberText("5")});
  EXPECT_EQ(entry->table_key.partition, AttributeValue::String("o1"));
  EXPECT_EQ(entry->projected.count("customer"), 1u);
  EXPECT_EQ(entry->projected.count("note"), 0u);
  EXPECT_EQ(entry->projected_size, ItemSize(entry->projected));
  auto keys =
      EntryFor(table, table.indexes[1], Order("o1", "paid", "5"), /*with_projection=*/false);
  ASSERT_TRUE(keys.has_value());
  EXPECT_TRUE(keys->projected.empty());
  EXPECT_EQ(keys->projected_size,
            ItemSize(Project(table, table.indexes[1], Order("o1", "paid", "5"))));
}

TEST(IndexEntriesTest, KeyChecksOnWrites) {
  TableDef table = OrdersTable();
  Item wrong_type = Order("o1", "paid", std::nullopt);
  wrong_type["total"] = AttributeValue::String("lots");
  Status status = CheckIndexKeys(table, wrong_type);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "One or more parameter values were invalid: Type mismatch for Index Key total "
            "Expected: N Actual: S IndexName: ByStatus");
  Status empty = CheckIndexKeys(table, Order("o1", "", "1"));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message(),
            "One or more parameter values are not valid. A value specified for a secondary index "
            "key is not supported. The AttributeValue for a key attribute cannot contain an empty "
            "string value. IndexName: ByStatus, IndexKey: status");
  EXPECT_TRUE(CheckIndexKeys(table, Order("o1", std::nullopt, std::nullopt)).ok());
}

TEST(IndexEntriesTest, SameProjectionComparesOnlyWhatTheIndexHolds) {
  TableDef table = OrdersTable();
  const IndexDef& include = table.indexes[0];  // projects customer
  const IndexDef& keys_only = table.indexes[1];
  Item before = Order("o1", "paid", "5");
  Item note_changed = before;
  note_changed["note"] = AttributeValue::String("edited");
  Item customer_changed = before;
  customer_changed["customer"] = AttributeValue::String("c2");
  Item customer_removed = before;
  customer_removed.erase("customer");
  EXPECT_TRUE(SameProjection(table, include, before, note_changed));
  EXPECT_FALSE(SameProjection(table, include, before, customer_changed));
  EXPECT_FALSE(SameProjection(table, include, before, customer_removed));
  EXPECT_FALSE(SameProjection(table, include, customer_removed, before));
  EXPECT_TRUE(SameProjection(table, keys_only, before, customer_changed));
  IndexDef all = include;
  all.projection = ProjectionType::kAll;
  all.non_key_attributes.clear();
  EXPECT_TRUE(SameProjection(table, all, before, Item(before)));
  EXPECT_FALSE(SameProjection(table, all, before, note_changed));
}

Status Put(storage::Database& db, const TableDef& table, const Item& item) {
  std::vector<storage::ItemWrite> writes;
  writes.push_back(storage::Replacement(table, KeyOf(table, item), item));
  auto result = db.WriteItems(std::move(writes));
  if (!result.ok()) return std::move(result).error();
  return OkStatus();
}

std::vector<std::string> IndexIds(storage::Database& db, uint64_t index_id, std::string status) {
  std::vector<std::string> ids;
  auto cursor = db.ScanIndexPartition(index_id, {AttributeValue::String(std::move(status))}, {}, {},
                                      true, std::nullopt);
  for (; cursor->Valid(); cursor->Next()) ids.push_back(cursor->item()->at("id").scalar());
  return ids;
}

TEST(EntriesPartTest, EntriesFollowWritesAndBackfillFillsNewIndexes) {
  TempDb temp;
  EntriesPart part(temp.catalog());
  temp.db().AddWritePart(&part);
  TableDef definition = OrdersTable();
  definition.indexes.pop_back();  // KeysOnly is added later, as UpdateTable would
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(definition));
  const uint64_t by_status = table->indexes[0].id;
  ASSERT_OK(Put(temp.db(), *table, Order("o1", "paid", "30")));
  ASSERT_OK(Put(temp.db(), *table, Order("o2", "paid", "5")));
  ASSERT_OK(Put(temp.db(), *table, Order("o3", "open", "7")));
  EXPECT_EQ(IndexIds(temp.db(), by_status, "paid"), (std::vector<std::string>{"o2", "o1"}));
  ASSERT_OK(Put(temp.db(), *table, Order("o2", "open", "5")));  // index key changes
  EXPECT_EQ(IndexIds(temp.db(), by_status, "paid"), (std::vector<std::string>{"o1"}));
  EXPECT_EQ(IndexIds(temp.db(), by_status, "open"), (std::vector<std::string>{"o2", "o3"}));
  EXPECT_EQ(temp.db().Stats(by_status).item_count, 3);
  // Same index key, new value of a projected attribute: the entry is rewritten.
  Item recustomered = Order("o1", "paid", "30");
  recustomered["customer"] = AttributeValue::String("c9");
  ASSERT_OK(Put(temp.db(), *table, recustomered));
  auto cursor = temp.db().ScanIndexPartition(by_status, {AttributeValue::String("paid")}, {}, {},
                                             true, std::nullopt);
  ASSERT_TRUE(cursor->Valid());
  EXPECT_EQ(cursor->item()->at("customer"), AttributeValue::String("c9"));
  EXPECT_EQ(temp.db().Stats(by_status).item_count, 3);

  TableDef with_new_index = *table;
  IndexDef added = OrdersTable().indexes[1];
  ASSERT_OK_AND_ASSIGN(added.id, temp.catalog().AllocateId());
  added.status = IndexStatus::kCreating;
  added.backfilling = true;
  with_new_index.indexes.push_back(added);
  ASSERT_OK(temp.catalog().Modify(table->id, [&](TableDef& current) {
    current = with_new_index;
    return OkStatus();
  }));
  ASSERT_OK(Put(temp.db(), with_new_index, Order("o4", "paid", "1")));  // written during backfill
  size_t visited = 0;
  std::optional<PrimaryKey> after;
  do {
    ASSERT_OK_AND_ASSIGN(
        after,
        temp.db().BackfillSlice(
            with_new_index, after, 3,
            [&](const Item& item, std::string_view encoding, storage::WriteBatchBuilder& batch) {
              ++visited;
              return part.BackfillEntry(with_new_index, added.id, item, encoding, batch);
            }));
  } while (after);
  EXPECT_EQ(visited, 4u);
  EXPECT_EQ(IndexIds(temp.db(), added.id, "paid"), (std::vector<std::string>{"o4", "o1"}));
  EXPECT_EQ(temp.db().Stats(added.id).item_count, 4);  // o4 counted once
}

TEST(EntriesPartTest, IndexStatisticsSurviveReopenAndDropIndexClearsThem) {
  TempDb temp;
  auto part = std::make_unique<EntriesPart>(temp.catalog());
  temp.db().AddWritePart(part.get());
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(OrdersTable()));
  const uint64_t by_status = table->indexes[0].id;
  const uint64_t keys_only = table->indexes[1].id;
  ASSERT_OK(Put(temp.db(), *table, Order("o1", "paid", "30")));
  ASSERT_OK(Put(temp.db(), *table, Order("o2", "paid", std::nullopt)));  // in no index
  ASSERT_OK(Put(temp.db(), *table, Order("o3", "open", "7")));
  // An index's size is the sum of its entries' sizes: the table key, the index keys and,
  // for ByStatus (INCLUDE), "customer" — never "note". o2 has no total, so it is in neither.
  auto entry_of = [](std::string id, std::string status, std::string total, bool customer) {
    Item entry;
    entry["id"] = AttributeValue::String(std::move(id));
    entry["status"] = AttributeValue::String(std::move(status));
    entry["total"] = AttributeValue::NumberText(std::move(total));
    if (customer) entry["customer"] = AttributeValue::String("c1");
    return static_cast<int64_t>(ItemSize(entry));
  };
  const int64_t by_status_bytes =
      entry_of("o1", "paid", "30", true) + entry_of("o3", "open", "7", true);
  EXPECT_EQ(temp.db().Stats(by_status).size_bytes, by_status_bytes);
  EXPECT_EQ(temp.db().Stats(keys_only).size_bytes,
            entry_of("o1", "paid", "30", false) + entry_of("o3", "open", "7", false));
  ASSERT_OK(temp.db().DropIndex(*table, keys_only));
  EXPECT_EQ(temp.db().Stats(keys_only).item_count, 0);

  const uint64_t table_id = table->id;
  temp.Reopen();
  part = std::make_unique<EntriesPart>(temp.catalog());  // over the reopened catalog
  temp.db().AddWritePart(part.get());
  EXPECT_EQ(temp.db().Stats(table_id).item_count, 3);
  EXPECT_EQ(temp.db().Stats(by_status).item_count, 2);
  EXPECT_EQ(temp.db().Stats(by_status).size_bytes, by_status_bytes);
  EXPECT_EQ(temp.db().Stats(keys_only).item_count, 0);
  EXPECT_EQ(temp.db().Stats(keys_only).size_bytes, 0);
}

TEST(GsiLagTest, EntriesShowLateAndForgottenChangesDoNotAccumulate) {
  TempDb temp;
  EntriesPart part(temp.catalog());
  ManualClock clock(1'000'000);
  GsiLag lag(temp.catalog(), clock, 1000);
  temp.db().AddWritePart(&part);
  temp.db().AddWritePart(&lag);
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(OrdersTable()));
  const uint64_t by_status = table->indexes[0].id;
  ASSERT_OK(Put(temp.db(), *table, Order("o1", "paid", "30")));
  auto lagged = lag.Overlay(by_status);
  ASSERT_TRUE(lagged.has_value());
  auto cursor = temp.db().ScanIndexPartition(by_status, {AttributeValue::String("paid")}, {}, {},
                                             true, std::nullopt, &*lagged);
  EXPECT_FALSE(cursor->Valid());  // stored, not visible yet
  clock.Advance(1000);
  EXPECT_FALSE(lag.Overlay(by_status).has_value());
  EXPECT_EQ(IndexIds(temp.db(), by_status, "paid"), (std::vector<std::string>{"o1"}));

  // An index nobody reads again (its table dropped) lets its changes go with the next sweep.
  ASSERT_OK(Put(temp.db(), *table, Order("o2", "paid", "5")));
  EXPECT_EQ(lag.PendingCount(), 2u);  // o2's entry in both indexes
  ASSERT_OK(temp.catalog().Drop(*table));
  clock.Advance(1000);
  TableDef other_definition = OrdersTable();
  other_definition.name = "Other";
  ASSERT_OK_AND_ASSIGN(auto other, temp.catalog().Create(other_definition));
  for (size_t i = 0; i < GsiLag::kSweepEvery / 2; ++i) {
    ASSERT_OK(Put(temp.db(), *other, Order("x" + std::to_string(i), "open", "1")));
  }
  // 2,048 items × 2 indexes recorded, all still pending; the dropped table's changes are gone.
  EXPECT_EQ(lag.PendingCount(), GsiLag::kSweepEvery);
}

}  // namespace
}  // namespace ddbd::index
