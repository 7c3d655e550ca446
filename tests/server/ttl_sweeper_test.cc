// TtlSweeper: which items count as expired, and a pass that deletes exactly those — with their
// GSI entries and statistics — from tables with Time to Live enabled.
#include "server/ttl_sweeper.h"

#include <gtest/gtest.h>

#include "index/index_entries.h"
#include "tests/testing/test_util.h"

namespace ddbd::server {
namespace {

using ddbd::testing::TempDb;

constexpr int64_t kNowMs = 1'764'470'000'500;  // 2025-11-30T02:33:20.5Z
constexpr int64_t kYearSeconds = 31'557'600;   // 365.25 days

AttributeMap WithExpiry(AttributeValue value) { return {{"exp", std::move(value)}}; }
AttributeValue N(std::string text) { return AttributeValue::NumberText(std::move(text)); }

TEST(TtlSweeperTest, ExpiryFollowsDynamoDBsRules) {
  EXPECT_TRUE(IsExpired(WithExpiry(N("1764469999")), "exp", kNowMs));
  EXPECT_TRUE(IsExpired(WithExpiry(N("1764470000")), "exp", kNowMs));      // 0.5 s ago
  EXPECT_TRUE(IsExpired(WithExpiry(N("1764470000.4")), "exp", kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(N("1764470000.5")), "exp", kNowMs));   // not before now
  EXPECT_FALSE(IsExpired(WithExpiry(N("1764470001")), "exp", kNowMs));
  // Five years back is the limit; beyond it items are left alone.
  const int64_t now_s = kNowMs / 1000;
  EXPECT_TRUE(IsExpired(WithExpiry(N(std::to_string(now_s - 5 * kYearSeconds + 1))), "exp", kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(N(std::to_string(now_s - 5 * kYearSeconds - 1))), "exp", kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(N("0")), "exp", kNowMs));
  // Only a top-level Number counts.
  EXPECT_FALSE(IsExpired(WithExpiry(AttributeValue::String("1")), "exp", kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(AttributeValue::Set(AttributeType::kNS, {"1764469999"})),
                         "exp", kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(AttributeValue::Map({{"exp", N("1764469999")}})), "exp",
                         kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(N("1764469999")), "other", kNowMs));
}

TableDef TableWithOwnerIndex(std::string name, std::optional<std::string> ttl) {
  TableDef table;
  table.name = std::move(name);
  table.region = "us-east-1";
  table.partition_key = {"id", KeyAttributeType::kS};
  table.attribute_definitions = {{"id", KeyAttributeType::kS}, {"owner", KeyAttributeType::kS}};
  IndexDef index;
  index.name = "ByOwner";
  index.partition_keys = {{"owner", KeyAttributeType::kS}};
  index.projection = ProjectionType::kKeysOnly;
  table.indexes = {index};
  table.ttl_attribute = std::move(ttl);
  return table;
}

Status Put(storage::Database& db, const TableDef& table, std::string id, AttributeValue expiry) {
  Item item{{"id", AttributeValue::String(id)}, {"owner", AttributeValue::String("ann")},
            {"exp", std::move(expiry)}};
  std::vector<storage::ItemWrite> writes;
  writes.push_back({&table, PrimaryKey{AttributeValue::String(id)},
                    [item](const std::optional<Item>&) -> Result<std::optional<Item>> {
                      return std::optional<Item>(item);
                    }});
  auto written = db.WriteItems(std::move(writes));
  if (!written.ok()) return std::move(written).error();
  return OkStatus();
}

TEST(TtlSweeperTest, APassDeletesExpiredItemsOfTtlTablesOnly) {
  TempDb temp;
  index::Maintainer maintainer(temp.catalog());
  temp.db().SetIndexMaintainer(&maintainer);
  ASSERT_OK_AND_ASSIGN(auto ttl_table, temp.catalog().Create(TableWithOwnerIndex("Ttl", "exp")));
  ASSERT_OK_AND_ASSIGN(auto plain, temp.catalog().Create(TableWithOwnerIndex("Plain", {})));
  for (const auto& table : {ttl_table, plain}) {
    ASSERT_OK(Put(temp.db(), *table, "old", N("1764469000")));
    ASSERT_OK(Put(temp.db(), *table, "new", N("1764471000")));
    ASSERT_OK(Put(temp.db(), *table, "text", AttributeValue::String("1764469000")));
  }
  TtlSweeper sweeper(temp.db(), temp.catalog(), std::chrono::milliseconds(1000));
  ASSERT_OK_AND_ASSIGN(uint64_t deleted, sweeper.SweepOnce(kNowMs));
  EXPECT_EQ(deleted, 1u);

  ASSERT_OK_AND_ASSIGN(auto gone, temp.db().GetItem(*ttl_table, {AttributeValue::String("old")}));
  EXPECT_FALSE(gone.has_value());
  ASSERT_OK_AND_ASSIGN(auto kept, temp.db().GetItem(*ttl_table, {AttributeValue::String("new")}));
  EXPECT_TRUE(kept.has_value());
  ASSERT_OK_AND_ASSIGN(auto other, temp.db().GetItem(*plain, {AttributeValue::String("old")}));
  EXPECT_TRUE(other.has_value());
  EXPECT_EQ(temp.db().Stats(ttl_table->id).item_count, 2);
  EXPECT_EQ(temp.db().Stats(ttl_table->indexes[0].id).item_count, 2);
  EXPECT_EQ(temp.db().Stats(plain->id).item_count, 3);

  // A second pass at the same moment finds nothing more.
  ASSERT_OK_AND_ASSIGN(deleted, sweeper.SweepOnce(kNowMs));
  EXPECT_EQ(deleted, 0u);
}

}  // namespace
}  // namespace ddbd::server
