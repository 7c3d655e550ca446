#include "insight/access_patterns.h"

#include <gtest/gtest.h>

#include <numeric>

namespace ddbd::insight {
namespace {

TEST(TopKeysTest, KeepsTheHeaviestKeysWithinCapacityAndReportsCertainWeights) {
  TopKeys top(3);
  int labels_made = 0;
  auto add = [&](uint64_t key, double weight) {
    top.Add(key, weight, [&] {
      ++labels_made;
      return "k" + std::to_string(key);
    });
  };
  for (int i = 0; i < 10; ++i) add(1, 1);  // heavy
  add(2, 1);
  add(3, 1);
  add(4, 1);  // replaces a lightest (weight 1), inheriting it as its error
  for (int i = 0; i < 5; ++i) add(5, 1);
  EXPECT_DOUBLE_EQ(top.total(), 18);
  const auto heaviest = top.Top(2);
  ASSERT_EQ(heaviest.size(), 2u);
  EXPECT_EQ(heaviest[0].label, "k1");
  EXPECT_DOUBLE_EQ(heaviest[0].weight, 10);
  EXPECT_EQ(heaviest[1].label, "k5");
  EXPECT_GE(heaviest[1].weight, 1);  // a lower bound of its true 5
  EXPECT_LE(heaviest[1].weight, 5);
  // A label is made when a key is newly kept, never for a key already kept.
  EXPECT_EQ(labels_made, 5);
}

std::vector<std::string> Codes(const TableReport& table) {
  std::vector<std::string> codes;
  for (const Finding& finding : Findings(table)) codes.push_back(finding.code);
  return codes;
}

TEST(FindingsTest, EachRuleFiresAtItsThresholdAndNotBelow) {
  TableReport table;
  table.name = "Orders";
  table.sites.push_back(EmptySiteReport("TABLE"));
  SiteReport& base = table.sites.back();
  EXPECT_EQ(Codes(table), std::vector<std::string>{});

  base.scans = 9;  // fewer than 10
  EXPECT_EQ(Codes(table), std::vector<std::string>{});
  base.scans = 10;
  base.gets = 41;  // 10 of 51 reads: under a fifth
  EXPECT_EQ(Codes(table), std::vector<std::string>{});
  base.gets = 40;  // 10 of 50: a fifth
  EXPECT_EQ(Codes(table), std::vector<std::string>{"scan-on-frequent-path"});
  base.scans = 0;

  base.hot_partitions_by_writes = {{1, "tenant#1", 10, 0}};
  base.partition_write_total = 20;
  base.writes = 9;  // fewer than 10 requests
  EXPECT_EQ(Codes(table), std::vector<std::string>{});
  base.writes = 10;
  base.partition_write_total = 19;  // under 20 units
  EXPECT_EQ(Codes(table), std::vector<std::string>{});
  base.partition_write_total = 20;  // 10 of 20: half
  const std::vector<Finding> hot = Findings(table);
  ASSERT_EQ(hot.size(), 1u);
  EXPECT_EQ(hot[0].message,
            "Partition key value \"tenant#1\" took 50% of the write units of table Orders (10 of "
            "20): one partition key value serves at most 1,000 write units a second however "
            "much capacity the table has. Spread this traffic over more key values (a suffix, "
            "a finer key).");
  base.partition_write_total = 21;
  EXPECT_EQ(Codes(table), std::vector<std::string>{});

  base.filtered_items_read = 100;
  base.filtered_items_returned = 20;  // a fifth: not wasteful yet
  EXPECT_EQ(Codes(table), std::vector<std::string>{});
  base.filtered_items_returned = 19;
  EXPECT_EQ(Codes(table), std::vector<std::string>{"wasteful-filter"});
  base.filtered_items_read = 0;
  base.filtered_items_returned = 0;

  base.largest_item = 300 * 1024 - 1;
  EXPECT_EQ(Codes(table), std::vector<std::string>{});
  base.largest_item = 300 * 1024;
  EXPECT_EQ(Codes(table), std::vector<std::string>{"large-items"});
  base.largest_item = 0;

  table.sites.push_back(EmptySiteReport("GSI", "ByStatus", "ALL"));
  SiteReport& gsi = table.sites.back();
  gsi.writes = 10;
  EXPECT_EQ(Codes(table), std::vector<std::string>{"unused-index"});
  gsi.any_read = true;
  gsi.queries = 5;
  gsi.widest_read = 3;  // every read asked for 3 attributes or fewer
  EXPECT_EQ(Codes(table), std::vector<std::string>{"over-projected-index"});
  gsi.widest_read.reset();  // a read asked for everything
  EXPECT_EQ(Codes(table), std::vector<std::string>{});
  gsi.widest_read = 4;
  EXPECT_EQ(Codes(table), std::vector<std::string>{});
  table.sites.pop_back();

  SiteReport& writes = table.sites.front();  // `base` went with the push_back
  writes.read_modify_writes = 25;            // unguarded, but none seen to lose an update
  EXPECT_EQ(Codes(table), std::vector<std::string>{});
  writes.lost_updates = 1;
  writes.lost_update_item = "tenant#1 / 7";
  const std::vector<Finding> racing = Findings(table);
  ASSERT_EQ(racing.size(), 1u);
  EXPECT_EQ(racing[0].code, "racing-writes");
  EXPECT_EQ(racing[0].message,
            "1 unconditional write to table Orders replaced an item that another write had "
            "changed after it was read (last: \"tenant#1 / 7\"), so that change was lost; 25 "
            "writes in all overwrote an item just read with no condition. Make them conditional "
            "— check a version attribute in a ConditionExpression and retry on "
            "ConditionalCheckFailedException — or atomic (UpdateItem with ADD, or SET a = a + "
            ":n).");
}

TEST(CostTest, OnDemandAtTheAverageRateProvisionedForTheBusiestSecond) {
  TableReport table;
  table.size_bytes = 2LL * 1024 * 1024 * 1024;  // 2 GB
  table.sites.push_back(EmptySiteReport("TABLE"));
  SiteReport& base = table.sites.back();
  base.read_units = 1000;
  base.write_units = 500;
  base.observed_seconds = 100;  // 10 read units and 5 write units a second on average
  base.peak_read_units_per_second = 20.5;
  base.peak_write_units_per_second = 7;
  const Cost cost = CostOf(table, Prices{});
  const double month = 730.0 * 3600;
  EXPECT_NEAR(cost.on_demand_per_month, (10 * 0.125 + 5 * 0.625) / 1e6 * month, 1e-9);
  EXPECT_NEAR(cost.provisioned_per_month, (21 * 0.00013 + 7 * 0.00065) * 730, 1e-9);
  EXPECT_NEAR(cost.storage_per_month, 0.5, 1e-12);
}

// Table 7, "Orders", and the report of it `patterns` gives.
std::shared_ptr<TableDef> Orders() {
  auto table = std::make_shared<TableDef>();
  table->id = 7;
  table->name = "Orders";
  return table;
}

SiteReport TableSiteOf(AccessPatterns& patterns, const std::shared_ptr<TableDef>& table) {
  const auto report = patterns.Report(
      {table}, {{1, 100}}, [](std::string_view) { return std::string("default"); }, Prices{});
  return report.at(0).tables.at(0).sites.at(0);
}

TEST(AccessPatternsTest, ADroppedTablesFiguresAreForgotten) {
  AccessPatterns patterns;
  const auto table = Orders();
  const AttributeValue key = AttributeValue::String("tenant#1");
  patterns.RecordWrite({7, &key, nullptr, 42, 100, 1, {}});
  const uint64_t id = 7;
  patterns.RecordRequest({&id, 1}, "PutItem", false);
  auto writes = [&] { return TableSiteOf(patterns, table).writes; };
  EXPECT_EQ(writes(), 1u);
  patterns.ForgetTable(7);
  EXPECT_EQ(writes(), 0u);  // a table of that id starts from nothing
}

TEST(AccessPatternsTest, TheTimelineCountsATablesRequestsAndUnitsIndexesIncluded) {
  AccessPatterns patterns;
  const auto table = Orders();
  const AttributeValue key = AttributeValue::String("tenant#1");
  const uint64_t id = 7;
  const int64_t before = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  for (int i = 0; i < 3; ++i) patterns.RecordRequest({&id, 1}, "PutItem", false);
  patterns.RecordWrite({7, &key, nullptr, 42, 100, 2, {{9, 1.0}}});
  ReadEvent read;
  read.table_id = 7;
  read.index_id = 9;  // a GSI's read is the table's traffic too
  read.kind = ReadKind::kQuery;
  read.units = 0.5;
  patterns.RecordRead(read);
  const Timeline timeline = TableSiteOf(patterns, table).timeline;
  ASSERT_EQ(timeline.requests.size(), kTimelineSeconds);
  ASSERT_EQ(timeline.read_units.size(), kTimelineSeconds);
  ASSERT_EQ(timeline.write_units.size(), kTimelineSeconds);
  EXPECT_GE(timeline.end_epoch_second, before);
  EXPECT_LE(timeline.end_epoch_second, before + 5);
  auto sum = [](const auto& values) { return std::accumulate(values.begin(), values.end(), 0.0); };
  EXPECT_EQ(sum(timeline.requests), 3);     // the seconds they fell in are within the window
  EXPECT_EQ(sum(timeline.write_units), 3);  // the table's 2 and its GSI's 1
  EXPECT_EQ(sum(timeline.read_units), 0.5);
}

}  // namespace
}  // namespace ddbd::insight
