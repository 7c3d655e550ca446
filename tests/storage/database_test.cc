// Database and Catalog on a real on-disk RocksDB: item writes, statistics, O(1) table drop,
// ordered iteration, persistence across reopen, and serialized concurrent writers.
#include "storage/database.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "model/number.h"
#include "storage/catalog.h"
#include "storage/internal/key_codec.h"
#include "storage/internal/table_codec.h"
#include "tests/testing/test_util.h"

namespace ddbd::storage {
namespace {

using testing::TempDb;

TableDef MakeTable(std::string name, KeyAttributeType sort_type = KeyAttributeType::kS) {
  TableDef table;
  table.name = std::move(name);
  table.region = "us-east-1";
  table.partition_key = {"pk", KeyAttributeType::kS};
  table.sort_key = KeyElement{"sk", sort_type};
  table.attribute_definitions = {{"pk", KeyAttributeType::kS}, {"sk", sort_type}};
  return table;
}

Item MakeItem(std::string pk, AttributeValue sk, std::string payload = "v") {
  Item item;
  item["pk"] = AttributeValue::String(std::move(pk));
  item["sk"] = std::move(sk);
  item["payload"] = AttributeValue::String(std::move(payload));
  return item;
}

Status Put(Database& db, const TableDef& table, Item item) {
  PrimaryKey key = KeyOf(table, item);
  std::vector<ItemWrite> writes;
  writes.push_back({&table, key, [item](const std::optional<Item>&) -> Result<std::optional<Item>> {
                      return std::optional<Item>(item);
                    }});
  auto result = db.WriteItems(std::move(writes));
  if (!result.ok()) return std::move(result).error();
  return OkStatus();
}

std::vector<std::string> SortKeys(ItemCursor& cursor) {
  std::vector<std::string> keys;
  for (; cursor.Valid(); cursor.Next()) {
    auto item = cursor.item();
    EXPECT_TRUE(item.ok());
    keys.push_back(item->at("sk").scalar());
  }
  EXPECT_TRUE(cursor.status().ok());
  return keys;
}

TEST(CatalogTest, CreateFindReplaceDropAndPersist) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto created, temp.catalog().Create(MakeTable("Users")));
  EXPECT_GT(created->id, 0u);
  auto again = temp.catalog().Create(MakeTable("Users"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code(), ErrorCode::kResourceInUse);
  EXPECT_EQ(again.error().message(), "Table already exists: Users");

  TableDef changed = *created;
  changed.deletion_protection = true;
  ASSERT_OK(temp.catalog().Modify(created->id, [&](TableDef& table) {
    table = changed;
    return OkStatus();
  }));
  temp.Reopen();
  auto found = temp.catalog().Find("", "Users");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(*found, changed);
  ASSERT_OK(temp.catalog().Drop(*found));
  EXPECT_EQ(temp.catalog().Find("", "Users"), nullptr);
  temp.Reopen();
  EXPECT_EQ(temp.catalog().Find("", "Users"), nullptr);
}

TEST(CatalogTest, ModifyIsAtomicAndAFailedChangeStoresNothing) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto created, temp.catalog().Create(MakeTable("Counters")));
  // Two writers each add 100 tags: with read-modify-write under one lock none is lost.
  auto add_tags = [&](const std::string& prefix) {
    for (int i = 0; i < 100; ++i) {
      auto changed = temp.catalog().Modify(created->id, [&](TableDef& table) {
        table.tags.push_back({prefix + std::to_string(i), "v"});
        return OkStatus();
      });
      ASSERT_TRUE(changed.ok());
    }
  };
  std::thread first(add_tags, "a"), second(add_tags, "b");
  first.join();
  second.join();
  EXPECT_EQ(temp.catalog().FindById(created->id)->tags.size(), 200u);
  auto refused = temp.catalog().Modify(created->id, [](TableDef& table) -> Status {
    table.tags.clear();
    return Error::Validation("no");
  });
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(temp.catalog().Find("", "Counters")->tags.size(), 200u);
  temp.Reopen();
  EXPECT_EQ(temp.catalog().Find("", "Counters")->tags.size(), 200u);
  EXPECT_EQ(temp.catalog().Modify(999999, [](TableDef&) { return OkStatus(); }).error().code(),
            ErrorCode::kResourceNotFound);
}

TEST(CatalogTest, ScopesSeparateTablesOfTheSameName) {
  TempDb temp;
  TableDef a = MakeTable("T");
  a.scope = "keyA/";
  TableDef b = MakeTable("T");
  b.scope = "keyB/";
  ASSERT_OK_AND_ASSIGN(auto ta, temp.catalog().Create(a));
  ASSERT_OK_AND_ASSIGN(auto tb, temp.catalog().Create(b));
  EXPECT_NE(ta->id, tb->id);
  EXPECT_EQ(temp.catalog().ListNames("keyA/"), std::vector<std::string>{"T"});
  EXPECT_TRUE(temp.catalog().ListNames("").empty());
}

TEST(CatalogTest, TableIdsAreNeverReused) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto first, temp.catalog().Create(MakeTable("T")));
  uint64_t first_id = first->id;
  ASSERT_OK(temp.catalog().Drop(*first));
  temp.Reopen();
  ASSERT_OK_AND_ASSIGN(auto second, temp.catalog().Create(MakeTable("T")));
  EXPECT_GT(second->id, first_id);
}

TEST(TableCodecTest, RoundTripsEveryField) {
  TableDef table = MakeTable("Orders", KeyAttributeType::kN);
  table.id = 42;
  table.scope = "AKID/eu-west-1";
  table.table_uuid = "uuid";
  table.billing_mode = BillingMode::kProvisioned;
  table.throughput = {5, 7, 100, 200, 3};
  table.creation_time_ms = 1234567;
  table.deletion_protection = true;
  table.table_class = "STANDARD_INFREQUENT_ACCESS";
  table.sse = {true, "KMS", "arn:key"};
  table.tags = {{"env", "dev"}, {"team", ""}};
  table.on_demand = {900, -1};
  table.ttl_attribute = "expiresAt";
  table.pitr_enabled_ms = 1700000000555;
  table.pitr_recovery_days = 7;
  table.restored_from = TableDef::RestoreSource{"arn:backup", "arn:table", 1700000000777};
  table.streams = {{50, StreamViewType::kOldImage, 1700000000123, false},
                   {51, StreamViewType::kNewAndOldImages, 1700000000999, true}};
  IndexDef global;
  global.id = 43;
  global.name = "ByRegionAndDay";
  global.partition_keys = {{"region", KeyAttributeType::kS}, {"shard", KeyAttributeType::kN}};
  global.sort_keys = {{"day", KeyAttributeType::kS}, {"hour", KeyAttributeType::kN},
                      {"blob", KeyAttributeType::kB}};
  global.projection = ProjectionType::kInclude;
  global.non_key_attributes = {"a", "b"};
  global.status = IndexStatus::kCreating;
  global.backfilling = true;
  global.throughput = {1, 2, 3, 4, 5};
  global.on_demand = {-1, 70};
  IndexDef local;
  local.id = 44;
  local.name = "ByPrice";
  local.local = true;
  local.partition_keys = {{"pk", KeyAttributeType::kS}};
  local.sort_keys = {{"price", KeyAttributeType::kN}};
  local.projection = ProjectionType::kKeysOnly;
  table.indexes = {global, local};
  ASSERT_OK_AND_ASSIGN(TableDef decoded, DecodeTableDef(EncodeTableDef(table)));
  EXPECT_EQ(decoded, table);
  table.ttl_attribute.reset();  // TTL disabled: no field, and none decoded
  ASSERT_OK_AND_ASSIGN(decoded, DecodeTableDef(EncodeTableDef(table)));
  EXPECT_EQ(decoded, table);
  EXPECT_FALSE(DecodeTableDef("\x03\x05zz").ok());
}

TEST(DatabaseTest, PutGetReplaceDeleteAndStats) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("T")));
  Item item = MakeItem("a", AttributeValue::String("1"));
  ASSERT_OK(Put(temp.db(), *table, item));
  ASSERT_OK_AND_ASSIGN(auto got, temp.db().GetItem(*table, KeyOf(*table, item)));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, item);
  EXPECT_EQ(temp.db().Stats(table->id).item_count, 1);
  EXPECT_EQ(temp.db().Stats(table->id).size_bytes, static_cast<int64_t>(ItemSize(item)));

  Item bigger = MakeItem("a", AttributeValue::String("1"), "a much longer payload");
  ASSERT_OK(Put(temp.db(), *table, bigger));
  EXPECT_EQ(temp.db().Stats(table->id).item_count, 1);
  EXPECT_EQ(temp.db().Stats(table->id).size_bytes, static_cast<int64_t>(ItemSize(bigger)));

  std::vector<ItemWrite> deletes;
  deletes.push_back({table.get(), KeyOf(*table, item),
                     [](const std::optional<Item>& old) -> Result<std::optional<Item>> {
                       EXPECT_TRUE(old.has_value());
                       return std::optional<Item>();
                     }});
  ASSERT_OK_AND_ASSIGN(auto outcomes, temp.db().WriteItems(std::move(deletes)));
  ASSERT_TRUE(outcomes[0].old_item.has_value());
  EXPECT_EQ(*outcomes[0].old_item, bigger);
  ASSERT_OK_AND_ASSIGN(auto gone, temp.db().GetItem(*table, KeyOf(*table, item)));
  EXPECT_FALSE(gone.has_value());
  EXPECT_EQ(temp.db().Stats(table->id).item_count, 0);
  EXPECT_EQ(temp.db().Stats(table->id).size_bytes, 0);
}

TEST(DatabaseTest, FailedComputeWritesNothing) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("T")));
  Item a = MakeItem("a", AttributeValue::String("1"));
  Item b = MakeItem("b", AttributeValue::String("1"));
  std::vector<ItemWrite> writes;
  writes.push_back({table.get(), KeyOf(*table, a),
                    [a](const std::optional<Item>&) -> Result<std::optional<Item>> { return std::optional<Item>(a); }});
  writes.push_back({table.get(), KeyOf(*table, b),
                    [](const std::optional<Item>&) -> Result<std::optional<Item>> {
                      return Error::ConditionalCheckFailed();
                    }});
  auto result = temp.db().WriteItems(std::move(writes));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code(), ErrorCode::kConditionalCheckFailed);
  ASSERT_OK_AND_ASSIGN(auto got, temp.db().GetItem(*table, KeyOf(*table, a)));
  EXPECT_FALSE(got.has_value());
  EXPECT_EQ(temp.db().Stats(table->id).item_count, 0);
}

TEST(DatabaseTest, DataAndStatsSurviveReopen) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("T")));
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK(Put(temp.db(), *table, MakeItem("p", AttributeValue::String(std::to_string(i)))));
  }
  uint64_t id = table->id;
  temp.Reopen();
  auto reopened = temp.catalog().Find("", "T");
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(temp.db().Stats(id).item_count, 10);
  ASSERT_OK_AND_ASSIGN(auto got,
                       temp.db().GetItem(*reopened, PrimaryKey{AttributeValue::String("p"),
                                                               AttributeValue::String("7")}));
  EXPECT_TRUE(got.has_value());
}

TEST(DatabaseTest, DropTableRemovesItemsButNotOtherTables) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto t1, temp.catalog().Create(MakeTable("One")));
  ASSERT_OK_AND_ASSIGN(auto t2, temp.catalog().Create(MakeTable("Two")));
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(Put(temp.db(), *t1, MakeItem(std::to_string(i), AttributeValue::String("x"))));
    ASSERT_OK(Put(temp.db(), *t2, MakeItem(std::to_string(i), AttributeValue::String("x"))));
  }
  ASSERT_OK(temp.catalog().Drop(*t1));
  auto all1 = temp.db().ScanHashRange(*t1, 0, UINT64_MAX, std::nullopt);
  EXPECT_FALSE(all1->Valid());
  auto all2 = temp.db().ScanHashRange(*t2, 0, UINT64_MAX, std::nullopt);
  EXPECT_EQ(SortKeys(*all2).size(), 100u);
  EXPECT_EQ(temp.db().Stats(t1->id).item_count, 0);
}

TEST(DatabaseTest, ScanPartitionHonoursRangesAndDirection) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("T", KeyAttributeType::kN)));
  for (std::string_view n : {"-5", "1", "2", "10", "2.5", "100"}) {
    ASSERT_OK(Put(temp.db(), *table, MakeItem("p", AttributeValue::NumberText(std::string(n)))));
  }
  ASSERT_OK(Put(temp.db(), *table, MakeItem("other", AttributeValue::NumberText("3"))));
  const AttributeValue p = AttributeValue::String("p");
  auto all = temp.db().ScanPartition(*table, p, {}, true);
  EXPECT_EQ(SortKeys(*all), (std::vector<std::string>{"-5", "1", "2", "2.5", "10", "100"}));
  auto reverse = temp.db().ScanPartition(*table, p, {}, false);
  EXPECT_EQ(SortKeys(*reverse), (std::vector<std::string>{"100", "10", "2.5", "2", "1", "-5"}));

  SortKeyRange between;
  between.lower = SortKeyRange::Bound{AttributeValue::NumberText("2"), true};
  between.upper = SortKeyRange::Bound{AttributeValue::NumberText("10"), true};
  auto inclusive = temp.db().ScanPartition(*table, p, between, true);
  EXPECT_EQ(SortKeys(*inclusive), (std::vector<std::string>{"2", "2.5", "10"}));
  auto inclusive_reverse = temp.db().ScanPartition(*table, p, between, false);
  EXPECT_EQ(SortKeys(*inclusive_reverse), (std::vector<std::string>{"10", "2.5", "2"}));

  SortKeyRange open;
  open.lower = SortKeyRange::Bound{AttributeValue::NumberText("2"), false};
  open.upper = SortKeyRange::Bound{AttributeValue::NumberText("10"), false};
  auto exclusive = temp.db().ScanPartition(*table, p, open, true);
  EXPECT_EQ(SortKeys(*exclusive), (std::vector<std::string>{"2.5"}));
  auto exclusive_reverse = temp.db().ScanPartition(*table, p, open, false);
  EXPECT_EQ(SortKeys(*exclusive_reverse), (std::vector<std::string>{"2.5"}));
}

TEST(DatabaseTest, HashRangesPartitionTheTable) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("T")));
  for (int i = 0; i < 200; ++i) {
    ASSERT_OK(Put(temp.db(), *table, MakeItem("p" + std::to_string(i), AttributeValue::String("s"))));
  }
  // Four segments, as a parallel scan would use them: every item in exactly one.
  std::multiset<std::string> seen;
  const uint64_t quarter = UINT64_MAX / 4;
  for (uint64_t s = 0; s < 4; ++s) {
    uint64_t begin = s * (quarter + 1);
    uint64_t end = s == 3 ? UINT64_MAX : begin + quarter;
    auto cursor = temp.db().ScanHashRange(*table, begin, end, std::nullopt);
    for (; cursor->Valid(); cursor->Next()) seen.insert(cursor->item()->at("pk").scalar());
  }
  EXPECT_EQ(seen.size(), 200u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 200u);

  // Resuming after a key continues exactly where the first page stopped.
  auto first = temp.db().ScanHashRange(*table, 0, UINT64_MAX, std::nullopt);
  std::vector<std::string> order;
  for (; first->Valid(); first->Next()) order.push_back(first->key());
  auto resumed = temp.db().ScanHashRange(*table, 0, UINT64_MAX, order[99]);
  ASSERT_TRUE(resumed->Valid());
  EXPECT_EQ(resumed->key(), order[100]);
}

TEST(DatabaseTest, ConcurrentReadModifyWriteLosesNoUpdate) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("T", KeyAttributeType::kS)));
  const PrimaryKey key{AttributeValue::String("counter"), AttributeValue::String("c")};
  constexpr int kThreads = 4, kIncrements = 250;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        std::vector<ItemWrite> writes;
        writes.push_back({table.get(), key,
                          [](const std::optional<Item>& old) -> Result<std::optional<Item>> {
                            Item next = old ? *old : MakeItem("counter", AttributeValue::String("c"));
                            Number count = old ? *Number::Parse(old->at("n").scalar()) : Number();
                            auto one = *Number::Parse("1");
                            next["n"] = AttributeValue::NumberText(Number::Add(count, one)->ToString());
                            return std::optional<Item>(next);
                          }});
        auto result = temp.db().WriteItems(std::move(writes));
        EXPECT_TRUE(result.ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_OK_AND_ASSIGN(auto item, temp.db().GetItem(*table, key));
  EXPECT_EQ(item->at("n").scalar(), std::to_string(kThreads * kIncrements));
}

TEST(DatabaseTest, InMemoryDatabaseWorks) {
  ASSERT_OK_AND_ASSIGN(auto db, Database::Open({"", true}));
  ASSERT_OK_AND_ASSIGN(auto catalog, Catalog::Load(*db));
  ASSERT_OK_AND_ASSIGN(auto table, catalog->Create(MakeTable("M")));
  ASSERT_OK(Put(*db, *table, MakeItem("a", AttributeValue::String("b"))));
  EXPECT_EQ(db->Stats(table->id).item_count, 1);
}

Status Delete(Database& db, const TableDef& table, PrimaryKey key) {
  std::vector<ItemWrite> writes;
  writes.push_back({&table, std::move(key),
                    [](const std::optional<Item>&) -> Result<std::optional<Item>> {
                      return std::optional<Item>();
                    }});
  auto result = db.WriteItems(std::move(writes));
  if (!result.ok()) return std::move(result).error();
  return OkStatus();
}

TEST(StreamRecordsTest, EveryChangeIsRecordedInOrderWithTheImagesItsViewAsksFor) {
  TempDb temp;
  TableDef definition = MakeTable("Streamed");
  definition.streams = {{777, StreamViewType::kNewAndOldImages, 1, true}};
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(definition));
  const AttributeValue one = AttributeValue::String("1");
  ASSERT_OK(Put(temp.db(), *table, MakeItem("a", one, "first")));
  ASSERT_OK(Put(temp.db(), *table, MakeItem("a", one, "first")));   // unchanged: no record
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
  EXPECT_EQ(records[1].size_bytes, ItemSize(keys) + ItemSize(*records[1].old_image) +
                                       ItemSize(*records[1].new_image));

  // Paging from a position, and the numbering survives a restart.
  ASSERT_OK_AND_ASSIGN(auto after_first, temp.db().ReadStream(777, records[0].sequence, 1));
  ASSERT_EQ(after_first.size(), 1u);
  EXPECT_EQ(after_first[0].sequence, all[1].sequence);
  const uint64_t last = temp.db().LastStreamSequence();
  EXPECT_EQ(last, records[2].sequence);
  temp.Reopen();
  EXPECT_EQ(temp.db().LastStreamSequence(), last);

  // Records older than the cut-off go; the stream goes with its table.
  ASSERT_OK_AND_ASSIGN(uint64_t trimmed, temp.db().TrimStream(777, records[1].time_ms));
  EXPECT_LE(trimmed, 3u);
  ASSERT_OK_AND_ASSIGN(trimmed, temp.db().TrimStream(777, records[2].time_ms + 1));
  ASSERT_OK_AND_ASSIGN(auto rest, temp.db().ReadStream(777, 0, 100));
  EXPECT_TRUE(rest.empty());
}

TEST(StreamRecordsTest, KeysOnlyAndDisabledStreams) {
  TempDb temp;
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

TEST(BackupStorageTest, CopiedItemsOutliveTheirTableAndRecordsAreScoped) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("Backed")));
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(Put(temp.db(), *table, MakeItem("a", AttributeValue::String(std::to_string(i)))));
  }
  ASSERT_OK_AND_ASSIGN(uint64_t backup_id, temp.db().AllocateTableId());
  ASSERT_OK_AND_ASSIGN(TableStats copied, temp.db().CopyItems(table->id, backup_id));
  EXPECT_EQ(copied.item_count, 5);
  EXPECT_EQ(copied.size_bytes, temp.db().Stats(table->id).size_bytes);
  ASSERT_OK(temp.catalog().Drop(*table));

  TableDef copy = *table;
  copy.id = backup_id;
  auto cursor = temp.db().ScanPartition(copy, AttributeValue::String("a"), {}, true);
  EXPECT_EQ(SortKeys(*cursor), (std::vector<std::string>{"0", "1", "2", "3", "4"}));

  ASSERT_OK(temp.db().PutBackupRecord("keyA/", backup_id, "first"));
  ASSERT_OK(temp.db().PutBackupRecord("keyA/", backup_id + 1, "second"));
  ASSERT_OK(temp.db().PutBackupRecord("keyB/", backup_id, "elsewhere"));
  ASSERT_OK_AND_ASSIGN(auto records, temp.db().BackupRecords("keyA/"));
  EXPECT_EQ(records, (std::vector<std::string>{"first", "second"}));
  ASSERT_OK(temp.db().DeleteBackupRecord("keyA/", backup_id));
  ASSERT_OK_AND_ASSIGN(records, temp.db().BackupRecords("keyA/"));
  EXPECT_EQ(records, (std::vector<std::string>{"second"}));

  ASSERT_OK(temp.db().DropItems(backup_id));
  auto emptied = temp.db().ScanPartition(copy, AttributeValue::String("a"), {}, true);
  EXPECT_TRUE(SortKeys(*emptied).empty());
}

}  // namespace
}  // namespace ddbd::storage
