// Sweeper: a pass deletes exactly the expired items of tables with Time to Live enabled —
// found through the expiry keyspace the ExpiryPart keeps — and enabling TTL on a table that
// has items backfills that keyspace.
#include "ttl/sweeper.h"

#include <gtest/gtest.h>

#include <thread>

#include "tests/testing/temp_db.h"
#include "ttl/expiry_part.h"

namespace ddbd::ttl {
namespace {

using ddbd::testing::TempDb;

constexpr int64_t kNowMs = 1'764'470'000'500;  // 2025-11-30T02:33:20.5Z

AttributeValue N(std::string text) { return AttributeValue::NumberText(std::move(text)); }

TableDef Table(std::string name, std::optional<std::string> ttl) {
  TableDef table;
  table.name = std::move(name);
  table.region = "us-east-1";
  table.partition_key = {"id", KeyAttributeType::kS};
  table.attribute_definitions = {{"id", KeyAttributeType::kS}};
  table.ttl_attribute = std::move(ttl);
  return table;
}

Status Put(storage::Database& db, const TableDef& table, std::string id, AttributeValue expiry) {
  Item item{{"id", AttributeValue::String(id)}, {"exp", std::move(expiry)}};
  std::vector<storage::ItemWrite> writes;
  writes.push_back(storage::Replacement(table, PrimaryKey{AttributeValue::String(id)}, item));
  auto written = db.WriteItems(std::move(writes));
  if (!written.ok()) return std::move(written).error();
  return OkStatus();
}

bool Exists(storage::Database& db, const TableDef& table, std::string id) {
  auto got = db.GetItem(table, PrimaryKey{AttributeValue::String(std::move(id))});
  return got.ok() && got->has_value();
}

class SweeperTest : public ::testing::Test {
 protected:
  SweeperTest() : part_(temp_.catalog()) { temp_.AddWritePart(&part_); }
  ~SweeperTest() override { executor_.Stop(); }

  TempDb temp_;
  ExpiryPart part_;
  ManualClock clock_{kNowMs};
  Executor executor_{2};
  Sweeper sweeper_{temp_.db(), temp_.catalog(), clock_, executor_, std::chrono::hours(1)};
};

TEST_F(SweeperTest, APassDeletesExpiredItemsOfTtlTablesOnly) {
  ASSERT_OK_AND_ASSIGN(auto ttl_table, temp_.catalog().Create(Table("Ttl", "exp")));
  ASSERT_OK_AND_ASSIGN(auto plain, temp_.catalog().Create(Table("Plain", {})));
  for (const auto& table : {ttl_table, plain}) {
    ASSERT_OK(Put(temp_.db(), *table, "old", N("1764469000")));
    ASSERT_OK(Put(temp_.db(), *table, "new", N("1764471000")));
    ASSERT_OK(Put(temp_.db(), *table, "text", AttributeValue::String("1764469000")));
    ASSERT_OK(Put(temp_.db(), *table, "ancient", N("1")));  // beyond five years: left alone
  }
  ASSERT_OK_AND_ASSIGN(uint64_t deleted, sweeper_.SweepOnce(clock_.NowMs()));
  EXPECT_EQ(deleted, 1u);
  EXPECT_FALSE(Exists(temp_.db(), *ttl_table, "old"));
  EXPECT_TRUE(Exists(temp_.db(), *ttl_table, "new"));
  EXPECT_TRUE(Exists(temp_.db(), *ttl_table, "text"));
  EXPECT_TRUE(Exists(temp_.db(), *ttl_table, "ancient"));
  EXPECT_TRUE(Exists(temp_.db(), *plain, "old"));
  EXPECT_EQ(temp_.db().Stats(ttl_table->id).item_count, 3);
  EXPECT_EQ(temp_.db().Stats(plain->id).item_count, 4);

  // A second pass at the same moment finds nothing more; time passing expires "new".
  ASSERT_OK_AND_ASSIGN(deleted, sweeper_.SweepOnce(clock_.NowMs()));
  EXPECT_EQ(deleted, 0u);
  clock_.Advance(1000 * 1000);
  ASSERT_OK_AND_ASSIGN(deleted, sweeper_.SweepOnce(clock_.NowMs()));
  EXPECT_EQ(deleted, 1u);
  EXPECT_FALSE(Exists(temp_.db(), *ttl_table, "new"));
}

TEST_F(SweeperTest, AnItemWhoseExpiryMovedIsDeletedAtItsNewTime) {
  ASSERT_OK_AND_ASSIGN(auto table, temp_.catalog().Create(Table("Moved", "exp")));
  ASSERT_OK(Put(temp_.db(), *table, "a", N("1764469000")));
  ASSERT_OK(Put(temp_.db(), *table, "a", N("1764472000")));  // extended before the pass
  ASSERT_OK_AND_ASSIGN(uint64_t deleted, sweeper_.SweepOnce(clock_.NowMs()));
  EXPECT_EQ(deleted, 0u);
  EXPECT_TRUE(Exists(temp_.db(), *table, "a"));
  clock_.Advance(2000 * 1000);
  ASSERT_OK_AND_ASSIGN(deleted, sweeper_.SweepOnce(clock_.NowMs()));
  EXPECT_EQ(deleted, 1u);
}

TEST_F(SweeperTest, EnablingTtlOnATableWithItemsIndexesThem) {
  // Items written before TTL was enabled have no expiry records...
  ASSERT_OK_AND_ASSIGN(auto table, temp_.catalog().Create(Table("Later", {})));
  for (int i = 0; i < 2500; ++i) {
    ASSERT_OK(
        Put(temp_.db(), *table, "i" + std::to_string(i), N(i % 2 ? "1764469000" : "1764471000")));
  }
  ASSERT_OK(temp_.catalog().Modify(table->id, [](TableDef& current) {
    current.ttl_attribute = "exp";
    return OkStatus();
  }));
  ASSERT_OK_AND_ASSIGN(uint64_t deleted, sweeper_.SweepOnce(clock_.NowMs()));
  EXPECT_EQ(deleted, 0u);
  // ... until the backfill has run; then the table is marked indexed and a pass finds them.
  sweeper_.IndexTable(table->id);
  for (int wait = 0; wait < 1000 && !temp_.catalog().FindById(table->id)->ttl_indexed; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(temp_.catalog().FindById(table->id)->ttl_indexed);
  ASSERT_OK_AND_ASSIGN(deleted, sweeper_.SweepOnce(clock_.NowMs()));
  EXPECT_EQ(deleted, 1250u);
  EXPECT_EQ(temp_.db().Stats(table->id).item_count, 1250);
}

}  // namespace
}  // namespace ddbd::ttl
