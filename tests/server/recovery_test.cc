// Start-up recovery of what a crash leaves behind, set up directly in storage: the states a
// kill -9 between two writes of an operation would leave.
#include "server/ops/recovery.h"

#include <gtest/gtest.h>

#include "backups/restore.h"
#include "server/control/handlers.h"
#include "tests/server/server_test_util.h"

namespace ddbd::server {
namespace {

using storage::BackupRecord;
using testing::Reply;
using testing::ServerHarness;

class RecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(server_
                  .Call("CreateTable", R"({"TableName": "Orders",
      "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
      "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
      "BillingMode": "PAY_PER_REQUEST"})")
                  .status,
              200);
    for (const char* id : {"a", "b", "c"}) {
      ASSERT_EQ(
          server_
              .Call("PutItem", std::string(R"({"TableName": "Orders", "Item": {"id": {"S": ")") +
                                   id + R"("}, "total": {"N": "7"}}})")
              .status,
          200);
    }
    orders_ = *server_.catalog().Find("", "Orders");
  }

  // A clone of Orders named only among the unowned copies of snapshot "base", as a save of
  // it killed after cloning the table leaves; returns the clone's id.
  uint64_t StrandedSnapshotCopy() {
    TableDef stranded = orders_;
    stranded.id = server_.catalog().AllocateId().value();
    const storage::BackupRecord copy{stranded.id, "Orders", 1'700'000'000'000, 0, 0, stranded};
    EXPECT_TRUE(server_.db().PutUnownedCopies({"", "base", 1'700'000'000'000, {copy}}).ok());
    EXPECT_EQ(server_.db().CloneTable(orders_, stranded).value().item_count, 3);
    return stranded.id;
  }

  // A copy of Orders' items under a new id with a record as an operation cut short leaves
  // it: marked point-in-time (a point-in-time restore's copy, or a backup not yet complete).
  BackupRecord StrandedCopy(std::string name) {
    BackupRecord copy;
    copy.id = server_.catalog().AllocateId().value();
    copy.name = std::move(name);
    copy.created_ms = 1'700'000'000'000;
    copy.source = orders_;
    copy.point_in_time = true;
    EXPECT_TRUE(server_.db().PutBackup("", copy).ok());
    EXPECT_EQ(server_.db().CopyItems(orders_.id, copy.id).value().item_count, 3);
    return copy;
  }

  // How many items are stored under `id` (copied out to a fresh id and counted).
  int64_t ItemsUnder(uint64_t id) {
    const uint64_t scratch = server_.catalog().AllocateId().value();
    const int64_t count = server_.db().CopyItems(id, scratch).value().item_count;
    EXPECT_TRUE(server_.db().DropItems(scratch).ok());
    return count;
  }

  ServerHarness server_;
  TableDef orders_;
};

TEST_F(RecoveryTest, CopiesNoRestoreReadsAreDeletedWithTheirItemsAtStartUp) {
  const BackupRecord point_in_time = StrandedCopy("point-in-time");
  const BackupRecord unfinished_backup = StrandedCopy("nightly");

  ops::ResumeInterruptedWork(server_.service());

  EXPECT_TRUE(server_.db().Backups("").value().empty());
  EXPECT_EQ(ItemsUnder(point_in_time.id), 0);
  EXPECT_EQ(ItemsUnder(unfinished_backup.id), 0);
  EXPECT_EQ(ItemsUnder(orders_.id), 3);
  const Reply listed = server_.Call("ListBackups", "{}");
  EXPECT_EQ(listed.body, R"({"BackupSummaries":[]})");
}

TEST_F(RecoveryTest, TheCopyAnUnfinishedRestoreReadsIsKept) {
  const BackupRecord copy = StrandedCopy("point-in-time");
  TableDef restoring = orders_;
  restoring.id = server_.catalog().AllocateId().value();
  restoring.name = "OrdersThen";
  restoring.status = TableStatus::kCreating;
  restoring.restored_from =
      TableRestoreSource{std::string(backups::kPointInTimeSource) + backups::BackupArn(copy),
                         orders_.Arn(), copy.created_ms};
  ASSERT_TRUE(server_.catalog().Create(restoring).ok());

  ops::DropUnusedPointInTimeCopies(server_.service());

  const std::vector<BackupRecord> kept = server_.db().Backups("").value();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].id, copy.id);
  EXPECT_EQ(ItemsUnder(copy.id), 3);
}

TEST_F(RecoveryTest, UsersBackupsAreKept) {
  ASSERT_EQ(
      server_.Call("CreateBackup", R"({"TableName": "Orders", "BackupName": "nightly"})").status,
      200);

  ops::ResumeInterruptedWork(server_.service());

  const std::vector<BackupRecord> kept = server_.db().Backups("").value();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].name, "nightly");
  EXPECT_FALSE(kept[0].point_in_time);  // the in-progress marking does not outlive the copy
  EXPECT_EQ(kept[0].item_count, 3);
  EXPECT_EQ(ItemsUnder(kept[0].id), 3);
}

// The snapshot saved as "base" of the default namespace.
storage::SnapshotRecord SavedSnapshot(storage::Database& db) {
  std::vector<storage::SnapshotRecord> all = db.Snapshots().value();
  EXPECT_EQ(all.size(), 1u);
  return all.empty() ? storage::SnapshotRecord{} : all[0];
}

TEST_F(RecoveryTest, SnapshotCopiesNoSnapshotOwnsAreDroppedAtStartUp) {
  ASSERT_TRUE(control::SaveSnapshot(server_.service(), "default", "base").ok());
  const uint64_t saved_copy = SavedSnapshot(server_.db()).tables.at(0).id;
  const uint64_t stranded = StrandedSnapshotCopy();

  ops::ResumeInterruptedWork(server_.service());

  EXPECT_TRUE(server_.db().UnownedCopies().value().empty());
  EXPECT_EQ(ItemsUnder(stranded), 0);
  EXPECT_EQ(SavedSnapshot(server_.db()).tables.at(0).id, saved_copy);  // the saved one stays
  EXPECT_EQ(ItemsUnder(saved_copy), 3);
}

TEST_F(RecoveryTest, ReplacedAndDeletedSnapshotsLeaveNoCopies) {
  ASSERT_TRUE(control::SaveSnapshot(server_.service(), "default", "base").ok());
  const uint64_t first = SavedSnapshot(server_.db()).tables.at(0).id;
  ASSERT_TRUE(control::SaveSnapshot(server_.service(), "default", "base").ok());
  const uint64_t second = SavedSnapshot(server_.db()).tables.at(0).id;
  EXPECT_NE(first, second);
  EXPECT_EQ(ItemsUnder(first), 0);
  EXPECT_EQ(ItemsUnder(second), 3);
  EXPECT_TRUE(server_.db().UnownedCopies().value().empty());

  ASSERT_TRUE(control::DeleteSnapshot(server_.service(), "default", "base").ok());
  EXPECT_TRUE(server_.db().Snapshots().value().empty());
  EXPECT_EQ(ItemsUnder(second), 0);
  EXPECT_TRUE(server_.db().UnownedCopies().value().empty());
}

TEST_F(RecoveryTest, CopiesLeftUnownedAreReleasedBeforeTheSnapshotIsSavedAgain) {
  const uint64_t left = StrandedSnapshotCopy();

  ASSERT_TRUE(control::SaveSnapshot(server_.service(), "default", "base").ok());

  EXPECT_EQ(ItemsUnder(left), 0);
  EXPECT_TRUE(server_.db().UnownedCopies().value().empty());
  EXPECT_EQ(ItemsUnder(SavedSnapshot(server_.db()).tables.at(0).id), 3);
}

}  // namespace
}  // namespace ddbd::server
