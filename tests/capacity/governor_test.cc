// CapacityGovernor: burst and refill of provisioned buckets, reads in debt, GSI back-pressure,
// on-demand maximums and the account quota, partition limits, batches, and the memory bound.
#include "capacity/governor.h"

#include <gtest/gtest.h>

namespace ddbd::capacity {
namespace {

TableDef ProvisionedTable(int64_t rcu, int64_t wcu) {
  TableDef table;
  table.id = 7;
  table.name = "Orders";
  table.region = "us-east-1";
  table.billing_mode = BillingMode::kProvisioned;
  table.throughput.read_capacity_units = rcu;
  table.throughput.write_capacity_units = wcu;
  return table;
}

TableDef OnDemandTable() {
  TableDef table = ProvisionedTable(0, 0);
  table.billing_mode = BillingMode::kPayPerRequest;
  return table;
}

IndexDef Gsi(uint64_t id, std::string name, int64_t rcu, int64_t wcu) {
  IndexDef index;
  index.id = id;
  index.name = std::move(name);
  index.throughput.read_capacity_units = rcu;
  index.throughput.write_capacity_units = wcu;
  return index;
}

std::vector<Draw> OnTable(double units, std::optional<uint64_t> partition = std::nullopt) {
  return {Draw{nullptr, partition, units}};
}

// How many consecutive one-unit writes the table admits at `now_ms`.
int WritesAdmitted(CapacityGovernor& governor, const TableDef& table, int64_t now_ms) {
  int admitted = 0;
  while (governor.Take(table, Access::kWrite, OnTable(1), now_ms).ok()) ++admitted;
  return admitted;
}

TEST(CapacityGovernorTest, AProvisionedTableBurstsThreeHundredSecondsThenRefillsAtItsRate) {
  CapacityGovernor governor;
  const TableDef table = ProvisionedTable(5, 1);
  EXPECT_EQ(WritesAdmitted(governor, table, 1'000'000), 300);
  Status refused = governor.Take(table, Access::kWrite, OnTable(1), 1'000'000);
  ASSERT_FALSE(refused.ok());
  const Error& error = refused.error();
  EXPECT_EQ(error.name(), "ProvisionedThroughputExceededException");
  EXPECT_EQ(error.message(),
            "The level of configured provisioned throughput for the table was exceeded. "
            "Consider increasing your provisioning level with the UpdateTable API.");
  ASSERT_EQ(error.throttling_reasons().size(), 1u);
  EXPECT_EQ(error.throttling_reasons()[0].reason, "TableWriteProvisionedThroughputExceeded");
  EXPECT_EQ(error.throttling_reasons()[0].resource,
            "arn:aws:dynamodb:us-east-1:000000000000:table/Orders");
  // Half a second refills half a unit: not enough for a 1-unit write.
  EXPECT_EQ(WritesAdmitted(governor, table, 1'000'500), 0);
  EXPECT_EQ(WritesAdmitted(governor, table, 1'001'000), 1);
  EXPECT_EQ(WritesAdmitted(governor, table, 1'011'000), 10);
  // An hour idle refills the burst, never more than 300 seconds of it.
  EXPECT_EQ(WritesAdmitted(governor, table, 4'611'000), 300);
  // Reads have their own bucket: 5 RCU × 300 s.
  for (int i = 0; i < 1500; ++i) {
    ASSERT_TRUE(governor.Take(table, Access::kRead, OnTable(1), 4'611'000).ok()) << i;
  }
  EXPECT_FALSE(governor.Take(table, Access::kRead, OnTable(0.5), 4'611'000).ok());
}

TEST(CapacityGovernorTest, AReadIsAdmittedWhileCapacityRemainsAndItsCostCanLeaveDebt) {
  CapacityGovernor governor;
  const TableDef table = ProvisionedTable(1, 1);
  ASSERT_TRUE(governor.Admit(table, Access::kRead, OnTable(0), 0).ok());
  governor.Charge(table, Access::kRead, OnTable(400), 0);  // a 1.6 MB Scan: 100 units of debt
  EXPECT_FALSE(governor.Admit(table, Access::kRead, OnTable(0), 0).ok());
  EXPECT_FALSE(governor.Admit(table, Access::kRead, OnTable(0), 100'000).ok());  // at zero
  EXPECT_TRUE(governor.Admit(table, Access::kRead, OnTable(0), 100'500).ok());
}

TEST(CapacityGovernorTest, AnExhaustedGsiThrottlesTheTableWriteAndChargesNothing) {
  CapacityGovernor governor;
  TableDef table = ProvisionedTable(1, 2);
  table.indexes.push_back(Gsi(8, "ByDate", 1, 1));
  const IndexDef* gsi = &table.indexes[0];
  const std::vector<Draw> write = {{nullptr, std::nullopt, 1}, {gsi, std::nullopt, 1}};
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(governor.Take(table, Access::kWrite, write, 0).ok());
  Status refused = governor.Take(table, Access::kWrite, write, 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().name(), "ProvisionedThroughputExceededException");
  EXPECT_EQ(refused.error().message(),
            "The level of configured provisioned throughput for one or more global secondary "
            "indexes of the table was exceeded. Consider increasing your provisioning level for "
            "the under-provisioned global secondary indexes with the UpdateTable API.");
  EXPECT_EQ(refused.error().throttling_reasons()[0].reason,
            "IndexWriteProvisionedThroughputExceeded");
  EXPECT_EQ(refused.error().throttling_reasons()[0].resource,
            "arn:aws:dynamodb:us-east-1:000000000000:table/Orders/index/ByDate");
  // The table's own bucket kept the 300 units the refused writes did not take.
  EXPECT_EQ(WritesAdmitted(governor, table, 0), 300);
  // A Query of the GSI reads from the GSI's bucket, with the index's text.
  governor.Charge(table, Access::kRead, {{gsi, std::nullopt, 300}}, 0);
  Status read = governor.Admit(table, Access::kRead, {{gsi, std::nullopt, 0}}, 0);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(),
            "The level of configured provisioned throughput for the index was exceeded");
  EXPECT_EQ(read.error().throttling_reasons()[0].reason, "IndexReadProvisionedThroughputExceeded");
}

TEST(CapacityGovernorTest, OnDemandTablesMeetTheirMaximumOrTheAccountQuota) {
  Limits limits;
  limits.account_table_units = 20;
  CapacityGovernor governor(limits);
  TableDef table = OnDemandTable();
  table.on_demand.max_write_request_units = 5;
  EXPECT_EQ(WritesAdmitted(governor, table, 0), 5);  // one second deep, no burst
  Status refused = governor.Take(table, Access::kWrite, OnTable(1), 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().name(), "ThrottlingException");
  EXPECT_EQ(refused.error().message(),
            "Throughput exceeds the maximum OnDemandThroughput configured on table or index");
  EXPECT_EQ(refused.error().throttling_reasons()[0].reason,
            "TableWriteMaxOnDemandThroughputExceeded");
  EXPECT_EQ(WritesAdmitted(governor, table, 1000), 5);
  // Reads have no maximum: the account quota applies.
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(governor.Take(table, Access::kRead, OnTable(1), 0).ok());
  Status quota = governor.Take(table, Access::kRead, OnTable(1), 0);
  ASSERT_FALSE(quota.ok());
  EXPECT_EQ(quota.error().name(), "ThrottlingException");
  EXPECT_EQ(quota.error().throttling_reasons()[0].reason, "TableReadAccountLimitExceeded");
}

TEST(CapacityGovernorTest, APartitionKeyValueHasItsOwnLimit) {
  Limits limits;
  limits.partition_write_units = 10;
  CapacityGovernor governor(limits);
  const TableDef table = OnDemandTable();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(governor.Take(table, Access::kWrite, OnTable(1, 42), 0).ok());
  }
  Status hot = governor.Take(table, Access::kWrite, OnTable(1, 42), 0);
  ASSERT_FALSE(hot.ok());
  EXPECT_EQ(hot.error().name(), "ThrottlingException");
  EXPECT_EQ(hot.error().message().substr(0, 62),
            "Throughput exceeds the current capacity of your table or index");
  EXPECT_EQ(hot.error().throttling_reasons()[0].reason, "TableWriteKeyRangeThroughputExceeded");
  EXPECT_TRUE(governor.Take(table, Access::kWrite, OnTable(1, 43), 0).ok());
  EXPECT_TRUE(governor.Take(table, Access::kWrite, OnTable(1, 42), 100).ok());  // 1 unit/100 ms
  // A provisioned table's hot partition is a ProvisionedThroughputExceededException.
  TableDef provisioned = ProvisionedTable(100, 100);
  provisioned.id = 9;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(governor.Take(provisioned, Access::kWrite, OnTable(1, 42), 0).ok());
  }
  Status provisioned_hot = governor.Take(provisioned, Access::kWrite, OnTable(1, 42), 0);
  ASSERT_FALSE(provisioned_hot.ok());
  EXPECT_EQ(provisioned_hot.error().name(), "ProvisionedThroughputExceededException");
  EXPECT_EQ(provisioned_hot.error().throttling_reasons()[0].reason,
            "TableWriteKeyRangeThroughputExceeded");
}

TEST(CapacityGovernorTest, ABatchTakesWhatFitsInRequestOrder) {
  CapacityGovernor governor;
  const TableDef table = ProvisionedTable(1, 1);
  ASSERT_EQ(WritesAdmitted(governor, table, 0), 300);
  auto verdict = governor.TakeEach({&table, &table, &table}, Access::kWrite,
                                   {OnTable(1), OnTable(2), OnTable(1)}, 2000);
  EXPECT_EQ(verdict.admitted, (std::vector<bool>{true, false, true}));
  ASSERT_TRUE(verdict.first_refusal.has_value());
  EXPECT_EQ(verdict.first_refusal->name(), "ProvisionedThroughputExceededException");
  EXPECT_EQ(CapacityGovernor::CancellationCode(*verdict.first_refusal),
            "ProvisionedThroughputExceeded");
  EXPECT_EQ(CapacityGovernor::CancellationCode(
                Error::Throttled(ErrorCode::kThrottling, "x", ThrottlingReason{})),
            "ThrottlingError");
  EXPECT_FALSE(verdict.refusals[0].has_value());
  EXPECT_TRUE(verdict.refusals[1].has_value());
}

TEST(CapacityGovernorTest, ATransactionIsAdmittedWholeOrNotAtAll) {
  CapacityGovernor governor;
  const TableDef table = ProvisionedTable(1, 1);
  ASSERT_EQ(WritesAdmitted(governor, table, 0), 300);
  // Three units refilled; the transaction needs 2 + 2 + 2.
  auto verdict = governor.TakeEach({&table, &table, &table}, Access::kWrite,
                                   {OnTable(2), OnTable(2), OnTable(2)}, 3000,
                                   /*all_or_nothing=*/true);
  EXPECT_EQ(verdict.admitted, (std::vector<bool>{false, false, false}));
  EXPECT_FALSE(verdict.refusals[0].has_value());
  EXPECT_TRUE(verdict.refusals[1].has_value());
  EXPECT_TRUE(verdict.refusals[2].has_value());
  EXPECT_EQ(WritesAdmitted(governor, table, 3000), 3);  // nothing was kept
}

TEST(CapacityGovernorTest, BucketsOfIdlePartitionsAreForgotten) {
  CapacityGovernor governor;
  const TableDef table = OnDemandTable();
  int64_t now_ms = 0;
  for (uint64_t partition = 1; partition <= 100'000; ++partition) {
    if (partition % 1000 == 0) now_ms += 2000;  // 1,000 partitions written every two seconds
    ASSERT_TRUE(governor.Take(table, Access::kWrite, OnTable(1, partition), now_ms).ok());
  }
  EXPECT_LT(governor.BucketCount(), 4100u);
}

}  // namespace
}  // namespace ddbd::capacity
