// Database and Catalog on a real on-disk RocksDB: item writes, statistics, O(1) table drop,
// ordered iteration, persistence across reopen, and serialized concurrent writers.
#include "storage/database.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <map>
#include <set>
#include <thread>

#include "model/number.h"
#include "storage/catalog.h"
#include "storage/internal/backup_codec.h"
#include "storage/internal/table_codec.h"
#include "tests/testing/temp_db.h"

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

ItemWrite Write(const TableDef& table, PrimaryKey key,
                std::function<Mutation(const std::optional<Item>&)> compute) {
  ItemWrite write;
  write.table = &table;
  write.key = std::move(key);
  write.compute = std::move(compute);
  return write;
}

Status Put(Database& db, const TableDef& table, Item item) {
  PrimaryKey key = KeyOf(table, item);
  std::vector<ItemWrite> writes;
  writes.push_back(Replacement(table, key, std::move(item)));
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

std::string Padded(int i) {
  std::string digits = std::to_string(i);
  return std::string(5 - digits.size(), '0') + digits;
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
  table.streams[1].policy =
      ResourcePolicy{R"({"Version":"2012-10-17"})", 1700000001000, 1700000001000};
  table.policy = ResourcePolicy{"", 1700000002000, 1700000002000};  // deleted
  table.kinesis_destinations = {
      {"arn:aws:kinesis:us-east-1:000000000000:stream/a", 60, false, KinesisChange::kDisable,
       1700000003000, std::nullopt},
      {"arn:aws:kinesis:us-east-1:000000000000:stream/b", 61, true, KinesisChange::kUpdate,
       1700000004000, KinesisPrecision::kMicrosecond}};
  IndexDef global;
  global.id = 43;
  global.name = "ByRegionAndDay";
  global.partition_keys = {{"region", KeyAttributeType::kS}, {"shard", KeyAttributeType::kN}};
  global.sort_keys = {{"day", KeyAttributeType::kS},
                      {"hour", KeyAttributeType::kN},
                      {"blob", KeyAttributeType::kB}};
  global.projection = ProjectionType::kInclude;
  global.non_key_attributes = {"a", "b"};
  global.status = IndexStatus::kCreating;
  global.backfilling = true;
  global.throughput = {1, 2, 3, 4, 5};
  global.on_demand = {-1, 70};
  global.contributor_insights = ContributorInsights{true, InsightsMode::kThrottledKeys, 17, 11};
  table.contributor_insights =
      ContributorInsights{false, InsightsMode::kAccessedAndThrottledKeys, 1700000000888, 5};
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
  deletes.push_back(Write(*table, KeyOf(*table, item), [](const std::optional<Item>& old) {
    EXPECT_TRUE(old.has_value());
    return Mutation::Store(std::nullopt);
  }));
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
  writes.push_back(Replacement(*table, KeyOf(*table, a), a));
  writes.push_back(Write(*table, KeyOf(*table, b), [](const std::optional<Item>&) {
    return Mutation::Fail(Error::ConditionalCheckFailed());
  }));
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

// A new database is created with its default family first and the others in a second step:
// a crash between the two leaves a database with the default family alone, which the next
// open completes.
TEST(DatabaseTest, ADatabaseWithOnlyItsDefaultFamilyGetsTheOthersWhenOpened) {
  TempDb temp;
  const std::string half_made = (temp.path() / "half-made").string();
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, half_made, &raw).ok());
    delete raw;
  }
  const PrimaryKey key{AttributeValue::String("p"), AttributeValue::String("1")};
  for (int open = 0; open < 2; ++open) {
    ASSERT_OK_AND_ASSIGN(auto db, Database::Open({half_made, false}));
    ASSERT_OK_AND_ASSIGN(auto catalog, Catalog::Load(*db));
    if (open == 0) {
      ASSERT_OK_AND_ASSIGN(auto table, catalog->Create(MakeTable("T")));
      ASSERT_OK(Put(*db, *table, MakeItem("p", AttributeValue::String("1"), "kept")));
    }
    const auto table = catalog->Find("", "T");
    ASSERT_NE(table, nullptr);
    ASSERT_OK_AND_ASSIGN(auto got, db->GetItem(*table, key));
    ASSERT_TRUE(got.has_value()) << "open " << open;
    EXPECT_EQ(got->at("payload").scalar(), "kept");
  }
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
    ASSERT_OK(
        Put(temp.db(), *table, MakeItem("p" + std::to_string(i), AttributeValue::String("s"))));
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
  std::vector<PrimaryKey> order;
  for (; first->Valid(); first->Next()) order.push_back(KeyOf(*table, *first->item()));
  auto resumed = temp.db().ScanHashRange(*table, 0, UINT64_MAX, StartKey{order[99], {}, {}});
  ASSERT_TRUE(resumed->Valid());
  EXPECT_EQ(KeyOf(*table, *resumed->item()), order[100]);
}

// Item keys share a 16-byte prefix (table id ‖ partition hash) that the table files' filters
// hold: a Query may skip files without its partition, but no read may miss an item. Items are
// spread over three table files and the memtable, partition "p" over all four.
TEST(DatabaseTest, ReadsSeeItemsInEveryFileWhateverTheirPartition) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("T")));
  std::map<std::string, std::vector<std::string>> expected;
  for (int wave = 0; wave < 4; ++wave) {
    for (int i = 0; i < 50; ++i) {
      const std::string pk = i % 5 == 0 ? "p" : "q" + std::to_string(wave * 50 + i);
      const std::string sk = Padded(wave * 50 + i);
      ASSERT_OK(Put(temp.db(), *table, MakeItem(pk, AttributeValue::String(sk))));
      expected[pk].push_back(sk);
    }
    if (wave < 3) ASSERT_OK(temp.db().Flush());
  }
  for (const auto& [pk, sort_keys] : expected) {
    auto forward = temp.db().ScanPartition(*table, AttributeValue::String(pk), {}, true);
    EXPECT_EQ(SortKeys(*forward), sort_keys) << pk;
    auto reverse = temp.db().ScanPartition(*table, AttributeValue::String(pk), {}, false);
    EXPECT_EQ(SortKeys(*reverse), std::vector<std::string>(sort_keys.rbegin(), sort_keys.rend()))
        << pk;
  }
  EXPECT_EQ(expected["p"].size(), 40u);
  auto scan = temp.db().ScanHashRange(*table, 0, UINT64_MAX, std::nullopt);
  EXPECT_EQ(SortKeys(*scan).size(), 200u);
  // A copy reads the table's whole range.
  ASSERT_OK_AND_ASSIGN(uint64_t copy_id, temp.db().AllocateTableId());
  TableDef copy = *table;
  copy.id = copy_id;
  ASSERT_OK_AND_ASSIGN(TableStats copied, temp.db().CloneTable(*table, copy));
  EXPECT_EQ(copied.item_count, 200);
  auto copied_p = temp.db().ScanPartition(copy, AttributeValue::String("p"), {}, true);
  EXPECT_EQ(SortKeys(*copied_p), expected["p"]);
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
        writes.push_back(Write(*table, key, [](const std::optional<Item>& old) {
          Item next = old ? *old : MakeItem("counter", AttributeValue::String("c"));
          Number count = old ? *Number::Parse(old->at("n").scalar()) : Number();
          auto one = *Number::Parse("1");
          next["n"] = AttributeValue::NumberText(Number::Add(count, one)->ToString());
          return Mutation::Store(next);
        }));
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
  writes.push_back(Replacement(table, std::move(key), std::nullopt));
  auto result = db.WriteItems(std::move(writes));
  if (!result.ok()) return std::move(result).error();
  return OkStatus();
}

// Sort keys "00000".."n-1" padded, so that their order is numeric.
// A long range (past the write-batch head) goes through an ingested table file: every entry
// arrives, in order, counted; the copy is independent of its source, survives a reopen, and
// no file is left in the ingestion directory. The same in memory (where RocksDB's memory Env
// cannot link the file and copies it).
void ExpectLongCopy(Database& db, const TableDef& table, uint64_t copy_id, int items,
                    int64_t size_bytes) {
  TableDef copy = table;
  copy.id = copy_id;
  auto cursor = db.ScanPartition(copy, AttributeValue::String("a"), {}, true);
  std::vector<std::string> keys = SortKeys(*cursor);
  ASSERT_EQ(keys.size(), static_cast<size_t>(items));
  for (int i = 0; i < items; ++i) ASSERT_EQ(keys[i], Padded(i));
  EXPECT_EQ(db.Stats(copy_id).item_count, items);
  EXPECT_EQ(db.Stats(copy_id).size_bytes, size_bytes);
}

TEST(TableCopyTest, LongRangesAreCopiedThroughIngestedFiles) {
  constexpr int kItems = 2500;
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("Long")));
  for (int i = 0; i < kItems; ++i) {
    ASSERT_OK(Put(temp.db(), *table,
                  MakeItem("a", AttributeValue::String(Padded(i)), std::string(300, 'x'))));
  }
  ASSERT_OK_AND_ASSIGN(uint64_t copy_id, temp.db().AllocateTableId());
  TableDef copy = *table;
  copy.id = copy_id;
  ASSERT_OK_AND_ASSIGN(TableStats copied, temp.db().CloneTable(*table, copy));
  EXPECT_EQ(copied.item_count, kItems);
  const int64_t size = temp.db().Stats(table->id).size_bytes;
  EXPECT_EQ(copied.size_bytes, size);
  ExpectLongCopy(temp.db(), *table, copy_id, kItems, size);
  // Writes to the source do not reach the copy.
  ASSERT_OK(
      Delete(temp.db(), *table, KeyOf(*table, MakeItem("a", AttributeValue::String(Padded(0))))));
  ExpectLongCopy(temp.db(), *table, copy_id, kItems, size);
  EXPECT_TRUE(std::filesystem::is_empty(temp.path() / "ingest"));
  temp.Reopen();
  auto cursor = temp.db().ScanPartition(copy, AttributeValue::String("a"), {}, true);
  EXPECT_EQ(SortKeys(*cursor).size(), static_cast<size_t>(kItems));

  ASSERT_OK_AND_ASSIGN(auto memory, Database::Open({"", true}));
  ASSERT_OK_AND_ASSIGN(auto catalog, Catalog::Load(*memory));
  ASSERT_OK_AND_ASSIGN(auto in_memory, catalog->Create(MakeTable("Long")));
  for (int i = 0; i < kItems; ++i) {
    ASSERT_OK(Put(*memory, *in_memory, MakeItem("a", AttributeValue::String(Padded(i)))));
  }
  ASSERT_OK_AND_ASSIGN(uint64_t memory_copy_id, memory->AllocateTableId());
  TableDef memory_copy = *in_memory;
  memory_copy.id = memory_copy_id;
  ASSERT_OK_AND_ASSIGN(TableStats cloned, memory->CloneTable(*in_memory, memory_copy));
  EXPECT_EQ(cloned.item_count, kItems);
  ExpectLongCopy(*memory, *in_memory, memory_copy_id, kItems,
                 memory->Stats(in_memory->id).size_bytes);
  // A backup's copy of the items takes the same path (its statistics are the backup's own).
  ASSERT_OK_AND_ASSIGN(uint64_t backup_id, memory->AllocateTableId());
  ASSERT_OK_AND_ASSIGN(TableStats backed_up, memory->CopyItems(in_memory->id, backup_id));
  EXPECT_EQ(backed_up.item_count, kItems);
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

  BackupRecord first{backup_id, "first", 1000, 10, 5, *table};
  BackupRecord second{backup_id + 1, "second", 2000, 20, 6, *table};
  ASSERT_OK(temp.db().PutBackup("keyA/", first));
  ASSERT_OK(temp.db().PutBackup("keyA/", second));
  ASSERT_OK(temp.db().PutBackup("keyB/", BackupRecord{backup_id, "elsewhere", 0, 0, 0, *table}));
  ASSERT_OK_AND_ASSIGN(auto records, temp.db().Backups("keyA/"));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].name, "first");
  EXPECT_EQ(records[0].created_ms, 1000);
  EXPECT_EQ(records[0].size_bytes, 10);
  EXPECT_EQ(records[0].item_count, 5);
  EXPECT_EQ(records[0].source, *table);
  EXPECT_EQ(records[1].name, "second");
  ASSERT_OK(temp.db().DeleteBackup("keyA/", backup_id));
  ASSERT_OK_AND_ASSIGN(records, temp.db().Backups("keyA/"));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].name, "second");

  ASSERT_OK(temp.db().DropItems(backup_id));
  auto emptied = temp.db().ScanPartition(copy, AttributeValue::String("a"), {}, true);
  EXPECT_TRUE(SortKeys(*emptied).empty());
}

// Backup records written by earlier versions were JSON; they still read.
TEST(BackupStorageTest, RecordsOfEarlierVersionsStillRead) {
  TableDef table = MakeTable("Old");
  table.id = 9;
  const std::string definition = EncodeTableDef(table);
  // The table record as base64, as earlier versions wrote it.
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  auto byte = [&](size_t i) -> uint32_t {
    return i < definition.size() ? static_cast<uint8_t>(definition[i]) : 0;
  };
  std::string base64;
  for (size_t i = 0; i < definition.size(); i += 3) {
    const uint32_t bits = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    const size_t present = std::min<size_t>(3, definition.size() - i);
    for (size_t k = 0; k < 4; ++k) {
      base64 += k <= present ? kAlphabet[(bits >> (18 - 6 * k)) & 63] : '=';
    }
  }
  const std::string json = R"({"id":42,"name":"nightly","created":1700000000000,"size":123,)"
                           R"("count":7,"table":")" +
                           base64 + R"("})";
  ASSERT_OK_AND_ASSIGN(BackupRecord decoded, DecodeBackup(json));
  EXPECT_EQ(decoded.id, 42u);
  EXPECT_EQ(decoded.name, "nightly");
  EXPECT_EQ(decoded.created_ms, 1700000000000);
  EXPECT_EQ(decoded.size_bytes, 123);
  EXPECT_EQ(decoded.item_count, 7);
  EXPECT_EQ(decoded.source, table);
  ASSERT_OK_AND_ASSIGN(BackupRecord again, DecodeBackup(EncodeBackup(decoded)));
  EXPECT_EQ(again.source, table);
  EXPECT_EQ(again.name, "nightly");
  EXPECT_FALSE(DecodeBackup(R"({"id":1})").ok());
}

// A part that records what it saw and adds an expiry for items with an "exp" number; one
// that fails for items whose payload is "refuse".
class RecordingPart : public WritePart {
 public:
  bool NeedsOldItem(const ItemWrite&) const override { return true; }
  Status Contribute(const ItemChange& change, WriteBatchBuilder& batch) const override {
    const WriteOutcome& outcome = change.outcome;
    seen.push_back(change.Unchanged() ? "unchanged" : outcome.new_item ? "stored" : "deleted");
    if (outcome.new_item && outcome.new_item->at("payload").scalar() == "refuse") {
      return Error::Validation("refused by the part");
    }
    if (outcome.old_item && outcome.old_item->count("exp")) {
      batch.DeleteExpiry(outcome.old_item->at("exp"));
    }
    if (outcome.new_item && outcome.new_item->count("exp")) {
      batch.PutExpiry(outcome.new_item->at("exp"));
    }
    return OkStatus();
  }
  mutable std::vector<std::string> seen;
};

TEST(WritePathTest, PartsSeeEveryChangeAndTheirRefusalAbortsTheWholeCall) {
  TempDb temp;
  RecordingPart part;
  temp.AddWritePart(&part);
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("Parts")));
  Item a = MakeItem("a", AttributeValue::String("1"));
  ASSERT_OK(Put(temp.db(), *table, a));
  ASSERT_OK(Put(temp.db(), *table, a));
  std::vector<ItemWrite> writes;
  writes.push_back(Replacement(*table, KeyOf(*table, a), std::nullopt));
  ASSERT_TRUE(temp.db().WriteItems(std::move(writes)).ok());
  EXPECT_EQ(part.seen, (std::vector<std::string>{"stored", "unchanged", "deleted"}));

  // A part's refusal is its write's failure: nothing of the call is written.
  Item b = MakeItem("b", AttributeValue::String("1"));
  Item refused = MakeItem("c", AttributeValue::String("1"), "refuse");
  writes.clear();
  writes.push_back(Replacement(*table, KeyOf(*table, b), b));
  writes.push_back(Replacement(*table, KeyOf(*table, refused), refused));
  auto result = temp.db().WriteItems(std::move(writes));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(), "refused by the part");
  ASSERT_OK_AND_ASSIGN(auto got, temp.db().GetItem(*table, KeyOf(*table, b)));
  EXPECT_FALSE(got.has_value());
  EXPECT_EQ(temp.db().Stats(table->id).item_count, 0);
}

TEST(WritePathTest, AVerdictDecidesBeforeAnythingIsWrittenAndSeesEveryFailure) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("Verdict")));
  Item a = MakeItem("a", AttributeValue::String("1"));
  Item b = MakeItem("b", AttributeValue::String("1"));
  std::vector<ItemWrite> writes;
  writes.push_back(Replacement(*table, KeyOf(*table, a), a));
  writes.push_back(Write(*table, KeyOf(*table, b), [](const std::optional<Item>&) {
    return Mutation::Fail(Error::ConditionalCheckFailed());
  }));
  size_t failures = 0;
  auto result = temp.db().WriteItems(std::move(writes), [&](const auto& outcomes) -> Status {
    for (const auto& outcome : outcomes) failures += outcome.failure ? 1 : 0;
    return Error::TransactionCanceled({});
  });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code(), ErrorCode::kTransactionCanceled);
  EXPECT_EQ(failures, 1u);
  ASSERT_OK_AND_ASSIGN(auto got, temp.db().GetItem(*table, KeyOf(*table, a)));
  EXPECT_FALSE(got.has_value());

  // A verdict that passes a call with a failure does not make it commit.
  writes.clear();
  writes.push_back(Replacement(*table, KeyOf(*table, a), a));
  writes.push_back(Write(*table, KeyOf(*table, b), [](const std::optional<Item>&) {
    return Mutation::Fail(Error::ConditionalCheckFailed());
  }));
  result = temp.db().WriteItems(std::move(writes), [](const auto&) { return OkStatus(); });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code(), ErrorCode::kConditionalCheckFailed);
  ASSERT_OK_AND_ASSIGN(got, temp.db().GetItem(*table, KeyOf(*table, a)));
  EXPECT_FALSE(got.has_value());
}

TEST(WritePathTest, AFailureThatSkipsItsWriteLetsTheOthersCommitWithTheCheckpoint) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("Skips")));
  Item a = MakeItem("a", AttributeValue::String("1"));
  Item b = MakeItem("b", AttributeValue::String("1"), "old");
  ASSERT_TRUE(Put(temp.db(), *table, b).ok());
  std::vector<ItemWrite> writes;
  writes.push_back(Replacement(*table, KeyOf(*table, a), a));
  writes.push_back(Write(*table, KeyOf(*table, b), [](const std::optional<Item>&) {
    return Mutation::Fail(Error::ConditionalCheckFailed());
  }));
  writes.back().failure_skips_write = true;
  JobCheckpoint checkpoint{'T', "job-1", [](const std::vector<WriteOutcome>& outcomes) {
                             return std::string(outcomes[1].failure ? "a written, b skipped" : "");
                           }};
  ASSERT_OK_AND_ASSIGN(auto outcomes,
                       temp.db().WriteItems(std::move(writes), nullptr, &checkpoint));
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_FALSE(outcomes[0].failure.has_value());
  ASSERT_TRUE(outcomes[1].failure.has_value());
  EXPECT_EQ(outcomes[1].failure->code(), ErrorCode::kConditionalCheckFailed);
  ASSERT_OK_AND_ASSIGN(auto got, temp.db().GetItem(*table, KeyOf(*table, a)));
  EXPECT_EQ(got, a);
  ASSERT_OK_AND_ASSIGN(got, temp.db().GetItem(*table, KeyOf(*table, b)));
  EXPECT_EQ(got, b);  // left as it was
  EXPECT_EQ(temp.db().Stats(table->id).item_count, 2);
  ASSERT_OK_AND_ASSIGN(auto record, temp.db().GetJob('T', "job-1"));
  EXPECT_EQ(record, std::optional<std::string>("a written, b skipped"));

  // A checkpoint commits without items, and not at all when the call fails.
  JobCheckpoint alone{'T', "job-1", [](const auto&) { return std::string("nothing written"); }};
  ASSERT_TRUE(temp.db().WriteItems({}, nullptr, &alone).ok());
  ASSERT_OK_AND_ASSIGN(record, temp.db().GetJob('T', "job-1"));
  EXPECT_EQ(record, std::optional<std::string>("nothing written"));
  writes.clear();
  writes.push_back(Write(*table, KeyOf(*table, a), [](const std::optional<Item>&) {
    return Mutation::Fail(Error::ConditionalCheckFailed());
  }));
  JobCheckpoint failed{'T', "job-1", [](const auto&) { return std::string("must not commit"); }};
  EXPECT_FALSE(temp.db().WriteItems(std::move(writes), nullptr, &failed).ok());
  ASSERT_OK_AND_ASSIGN(record, temp.db().GetJob('T', "job-1"));
  EXPECT_EQ(record, std::optional<std::string>("nothing written"));
}

TEST(ExpiryStoreTest, ExpiriesAreReadInTimeOrderWithinBoundsAndGoWithTheirItems) {
  TempDb temp;
  RecordingPart part;
  temp.AddWritePart(&part);
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("Expiring")));
  auto item = [](std::string pk, std::string exp) {
    Item item = MakeItem(std::move(pk), AttributeValue::String("s"));
    item["exp"] = AttributeValue::NumberText(std::move(exp));
    return item;
  };
  for (auto [pk, exp] : {std::pair{"late", "300"},
                         {"early", "100"},
                         {"middle", "200.5"},
                         {"negative", "-5"},
                         {"also-early", "100"}}) {
    ASSERT_OK(Put(temp.db(), *table, item(pk, exp)));
  }
  auto keys = [&](std::string from, std::string to) {
    auto expired = temp.db().ExpiredItems(table->id, AttributeValue::NumberText(from),
                                          AttributeValue::NumberText(to), 10);
    EXPECT_TRUE(expired.ok());
    std::vector<std::string> names;
    for (const PrimaryKey& key : *expired) names.push_back(key.partition.scalar());
    return names;
  };
  EXPECT_EQ(keys("0", "300"), (std::vector<std::string>{"also-early", "early", "middle"}));
  EXPECT_EQ(keys("-10", "200.5"), (std::vector<std::string>{"negative", "also-early", "early"}));
  // Moving an item's expiry moves its record; deleting the item removes it.
  ASSERT_OK(Put(temp.db(), *table, item("early", "400")));
  EXPECT_EQ(keys("0", "1000"), (std::vector<std::string>{"also-early", "middle", "late", "early"}));
  ASSERT_OK(Delete(temp.db(), *table, KeyOf(*table, item("late", "0"))));
  EXPECT_EQ(keys("250", "1000"), (std::vector<std::string>{"early"}));
  ASSERT_OK(temp.db().DropExpiries(table->id));
  EXPECT_TRUE(keys("-1000", "1000").empty());
}

TEST(WritePathTest, BackfillSlicesVisitEveryItemOnceUnderItsLock) {
  TempDb temp;
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(MakeTable("Backfilled")));
  for (int i = 0; i < 25; ++i) {
    ASSERT_OK(
        Put(temp.db(), *table, MakeItem("p" + std::to_string(i), AttributeValue::String("s"))));
  }
  std::vector<std::string> visited;
  std::optional<PrimaryKey> after;
  int slices = 0;
  do {
    ASSERT_OK_AND_ASSIGN(
        after, temp.db().BackfillSlice(
                   *table, after, 10,
                   [&](const Item& item, std::string_view encoding, WriteBatchBuilder& batch) {
                     EXPECT_FALSE(encoding.empty());
                     visited.push_back(item.at("pk").scalar());
                     batch.PutExpiry(AttributeValue::NumberText("1"));
                     return OkStatus();
                   }));
    ++slices;
  } while (after);
  EXPECT_EQ(slices, 4);  // 10, 10, 5, then an empty slice that says it is done
  EXPECT_EQ(visited.size(), 25u);
  EXPECT_EQ(std::set<std::string>(visited.begin(), visited.end()).size(), 25u);
  ASSERT_OK_AND_ASSIGN(auto expired,
                       temp.db().ExpiredItems(table->id, AttributeValue::NumberText("0"),
                                              AttributeValue::NumberText("2"), 100));
  EXPECT_EQ(expired.size(), 25u);
}

}  // namespace
}  // namespace ddbd::storage
