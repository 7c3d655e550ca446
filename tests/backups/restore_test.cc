// Backups: the ARN of a backup, what a restored table keeps of the backed-up one, and the
// restore of its items through the write path.
#include "backups/restore.h"

#include <gtest/gtest.h>

#include "tests/testing/temp_db.h"

namespace ddbd::backups {
namespace {

using ddbd::testing::TempDb;

TableDef Source() {
  TableDef table;
  table.id = 7;
  table.name = "Orders";
  table.region = "eu-west-1";
  table.partition_key = {"id", KeyAttributeType::kS};
  table.attribute_definitions = {{"id", KeyAttributeType::kS}};
  table.billing_mode = BillingMode::kProvisioned;
  table.throughput.read_capacity_units = 5;
  table.throughput.write_capacity_units = 5;
  table.ttl_attribute = "expires";
  table.streams.push_back(StreamSpec{});
  table.tags = {{"team", "a"}};
  table.pitr_enabled_ms = 1;
  table.deletion_protection = true;
  return table;
}

storage::BackupRecord Backup(TableDef source) {
  storage::BackupRecord backup;
  backup.id = 0x1234abcd9;
  backup.name = "nightly";
  backup.created_ms = 1764658327123;
  backup.source = std::move(source);
  return backup;
}

TEST(RestoreTest, BackupArnsNameTheSourceTableTimeAndId) {
  EXPECT_EQ(BackupArn(Backup(Source())),
            "arn:aws:dynamodb:eu-west-1:000000000000:table/Orders/backup/"
            "1764658327123-1234abcd9");
}

TEST(RestoreTest, ARestoredTableKeepsKeysAndBillingButNotStreamsTtlTagsOrProtection) {
  const storage::BackupRecord backup = Backup(Source());
  Result<TableDef> restored = RestoredDefinition(
      backup, {"scope", "Copy", "us-east-1", "uuid", 1764700000000}, std::nullopt);
  ASSERT_TRUE(restored.ok());
  EXPECT_EQ(restored->name, "Copy");
  EXPECT_EQ(restored->scope, "scope");
  EXPECT_EQ(restored->region, "us-east-1");
  EXPECT_EQ(restored->status, TableStatus::kCreating);
  EXPECT_EQ(restored->partition_key.name, "id");
  EXPECT_EQ(restored->billing_mode, BillingMode::kProvisioned);
  EXPECT_EQ(restored->throughput.read_capacity_units, 5);
  EXPECT_FALSE(restored->ttl_attribute.has_value());
  EXPECT_TRUE(restored->streams.empty());
  EXPECT_TRUE(restored->tags.empty());
  EXPECT_EQ(restored->pitr_enabled_ms, 0);
  EXPECT_FALSE(restored->deletion_protection);
  ASSERT_TRUE(restored->restored_from.has_value());
  EXPECT_EQ(restored->restored_from->backup_arn, BackupArn(backup));
  EXPECT_EQ(restored->restored_from->table_arn,
            "arn:aws:dynamodb:eu-west-1:000000000000:table/Orders");
  EXPECT_EQ(restored->restored_from->restored_ms, 1764700000000);
}

TEST(RestoreTest, BillingOverrides) {
  const storage::BackupRecord provisioned = Backup(Source());
  Result<TableDef> on_demand = RestoredDefinition(provisioned, {"", "Copy", "us-east-1", "uuid", 5},
                                                  BillingMode::kPayPerRequest);
  ASSERT_TRUE(on_demand.ok());
  EXPECT_EQ(on_demand->billing_mode, BillingMode::kPayPerRequest);
  EXPECT_EQ(on_demand->billing_mode_updated_ms, 5);
  EXPECT_EQ(on_demand->throughput.read_capacity_units, 0);

  TableDef source = Source();
  source.billing_mode = BillingMode::kPayPerRequest;
  source.throughput = {};
  Result<TableDef> refused = RestoredDefinition(
      Backup(source), {"", "Copy", "us-east-1", "uuid", 5}, BillingMode::kProvisioned);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            "ProvisionedThroughputOverride is required to restore a PAY_PER_REQUEST backup as "
            "PROVISIONED");
}

// A table of `count` items (id "item<i>", n 1), backed up; and the table restored from it,
// still empty.
struct BackedUp {
  std::shared_ptr<const TableDef> table;
  storage::BackupRecord backup;
  std::shared_ptr<const TableDef> restored;
};
void BackUp(TempDb& temp, int count, BackedUp& made) {
  ASSERT_OK_AND_ASSIGN(made.table, temp.catalog().Create(Source()));
  std::vector<storage::ItemWrite> writes;
  for (int i = 0; i < count; ++i) {
    const std::string id = "item" + std::to_string(i);
    writes.push_back(storage::Replacement(
        *made.table, PrimaryKey{AttributeValue::String(id)},
        Item{{"id", AttributeValue::String(id)}, {"n", AttributeValue::NumberText("1")}}));
  }
  ASSERT_OK(temp.db().WriteItems(std::move(writes)));
  made.backup = Backup(*made.table);
  ASSERT_OK_AND_ASSIGN(made.backup.id, temp.catalog().AllocateId());
  ASSERT_OK(temp.db().CopyItems(made.table->id, made.backup.id));
  ASSERT_OK_AND_ASSIGN(
      TableDef definition,
      RestoredDefinition(made.backup, {"", "Copy", "us-east-1", "uuid", 5}, std::nullopt));
  ASSERT_OK_AND_ASSIGN(made.restored, temp.catalog().Create(std::move(definition)));
}

TEST(RestoreTest, RestoreSlicesResumeAfterTheLastItemWrittenAndEndWithNone) {
  TempDb temp;
  BackedUp made;
  ASSERT_NO_FATAL_FAILURE(BackUp(temp, 250, made));
  std::optional<PrimaryKey> after;
  uint64_t written = 0;
  std::vector<uint64_t> counts;
  for (int slice = 0; slice < 10; ++slice) {
    ASSERT_OK_AND_ASSIGN(after, RestoreSlice(temp.db(), made.backup, *made.restored, after,
                                             /*max_items=*/120, written));
    counts.push_back(written);
    if (!after) break;
  }
  // 120 + 120 + 10 items, then a slice that finds none left.
  EXPECT_EQ(counts, (std::vector<uint64_t>{120, 240, 250, 250}));
  EXPECT_EQ(temp.db().Stats(made.restored->id).item_count, 250);
  // Starting over writes the same items again: nothing is added.
  ASSERT_OK(RestoreItems(temp.db(), made.backup, *made.restored));
  EXPECT_EQ(temp.db().Stats(made.restored->id).item_count, 250);
  EXPECT_EQ(temp.db().Stats(made.restored->id).size_bytes,
            temp.db().Stats(made.table->id).size_bytes);
}

TEST(RestoreTest, RestoreItemsWritesEveryBackedUpItemIntoTheNewTable) {
  TempDb temp;
  BackedUp made;
  ASSERT_NO_FATAL_FAILURE(BackUp(temp, 250, made));  // more than one restore batch
  const auto& table = made.table;
  const auto& restored = made.restored;
  ASSERT_OK(RestoreItems(temp.db(), made.backup, *restored));
  EXPECT_EQ(temp.db().Stats(restored->id).item_count, 250);
  EXPECT_EQ(temp.db().Stats(restored->id).size_bytes, temp.db().Stats(table->id).size_bytes);
  auto got = temp.db().GetItem(*restored, PrimaryKey{AttributeValue::String("item249")});
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((**got).at("n"), AttributeValue::NumberText("1"));
}

}  // namespace
}  // namespace ddbd::backups
