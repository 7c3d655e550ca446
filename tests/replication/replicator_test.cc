// Replication between the replicas of a global table, on storage: a change reaches the other
// replica once it is due by the clock, never comes back, and conflicting changes end the same
// everywhere — the later one, deletes included — however often a change is applied.
#include "replication/replicator.h"

#include <gtest/gtest.h>

#include <thread>

#include "replication/stamps_part.h"
#include "streams/records_part.h"
#include "tests/testing/temp_db.h"

namespace ddbd::replication {
namespace {

using ddbd::testing::TempDb;

constexpr int64_t kDelayMs = 1000;

class ReplicatorTest : public ::testing::Test {
 protected:
  ReplicatorTest() {
    temp_.db().SetClock(clock_);
    temp_.AddWritePart(&stamps_);
    temp_.AddWritePart(&records_);
    east_ = Create("us-east-1");
    west_ = Create("us-west-2");
  }

  std::shared_ptr<const TableDef> Create(std::string region) {
    TableDef table;
    table.name = "Music";
    table.scope = "/" + region;
    table.region = region;
    table.partition_key = {"pk", KeyAttributeType::kS};
    table.attribute_definitions = {{"pk", KeyAttributeType::kS}};
    auto stream_id = temp_.catalog().AllocateId();
    EXPECT_TRUE(stream_id.ok());
    table.streams = {StreamSpec{*stream_id, StreamViewType::kKeysOnly, clock_.NowMs(), true}};
    table.replication.emplace().replicas = {ReplicaSpec{.region = "us-east-1"},
                                            ReplicaSpec{.region = "us-west-2"}};
    auto created = temp_.catalog().Create(std::move(table));
    EXPECT_TRUE(created.ok());
    return *created;
  }

  void Put(const std::shared_ptr<const TableDef>& table, std::string pk, std::string value) {
    Item item{{"pk", AttributeValue::String(pk)}, {"v", AttributeValue::String(std::move(value))}};
    Write(table, std::move(pk), std::move(item));
  }
  void Delete(const std::shared_ptr<const TableDef>& table, std::string pk) {
    Write(table, std::move(pk), std::nullopt);
  }
  void Write(const std::shared_ptr<const TableDef>& table, std::string pk,
             std::optional<Item> item) {
    std::vector<storage::ItemWrite> writes;
    writes.push_back(
        storage::Replacement(*table, PrimaryKey{AttributeValue::String(pk), {}}, std::move(item)));
    ASSERT_TRUE(temp_.db().WriteItems(std::move(writes)).ok());
  }
  // The item's "v" in `table`, or "" when it is absent.
  std::string Read(const std::shared_ptr<const TableDef>& table, std::string pk) {
    auto item = temp_.db().GetItem(*table, PrimaryKey{AttributeValue::String(pk), {}});
    EXPECT_TRUE(item.ok());
    return *item ? (**item).at("v").scalar() : "";
  }
  std::vector<storage::StreamRecord> Records(const std::shared_ptr<const TableDef>& table) {
    auto records = temp_.db().ReadStream(table->streams.back().id, 0, 100);
    EXPECT_TRUE(records.ok());
    return *records;
  }
  void Pass() { ASSERT_TRUE(replicator_.RunOnce().ok()); }

  ManualClock clock_{1'700'000'000'000};
  StampsPart stamps_;
  streams::RecordsPart records_;
  TempDb temp_;
  Executor executor_{1};
  Replicator replicator_{temp_.db(), temp_.catalog(), clock_, executor_,
                         std::chrono::milliseconds(kDelayMs)};
  std::shared_ptr<const TableDef> east_, west_;
};

TEST_F(ReplicatorTest, AChangeReachesTheOtherReplicaOnceDueAndNeverComesBack) {
  Put(east_, "a", "1");
  Pass();
  EXPECT_EQ(Read(west_, "a"), "");
  clock_.Advance(kDelayMs - 1);
  Pass();
  EXPECT_EQ(Read(west_, "a"), "");
  clock_.Advance(1);
  Pass();
  EXPECT_EQ(Read(west_, "a"), "1");
  // The replica's stream has the change, marked as received (with the new image even for a
  // KEYS_ONLY stream); the source's stream gets nothing back.
  auto received = Records(west_);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_TRUE(received[0].replicated);
  EXPECT_TRUE(received[0].new_image.has_value());
  clock_.Advance(kDelayMs);
  Pass();
  ASSERT_EQ(Records(east_).size(), 1u);
  EXPECT_FALSE(Records(east_)[0].replicated);
}

TEST_F(ReplicatorTest, TheLaterOfTwoConflictingChangesWinsEverywhere) {
  Put(east_, "j", "first");
  clock_.Advance(kDelayMs);
  Pass();
  ASSERT_EQ(Read(west_, "j"), "first");
  Put(west_, "k", "west, earlier");
  Put(east_, "j", "east, earlier");
  clock_.Advance(10);
  Put(east_, "k", "east, later");
  Delete(west_, "j");
  clock_.Advance(kDelayMs);
  Pass();
  Pass();
  EXPECT_EQ(Read(east_, "k"), "east, later");
  EXPECT_EQ(Read(west_, "k"), "east, later");
  EXPECT_EQ(Read(east_, "j"), "");
  EXPECT_EQ(Read(west_, "j"), "");
}

TEST_F(ReplicatorTest, TwoChangesInOneMillisecondAreOrderedByRegion) {
  Put(east_, "k", "east");
  Put(west_, "k", "west");
  clock_.Advance(kDelayMs);
  Pass();
  EXPECT_EQ(Read(east_, "k"), "west");  // "us-west-2" > "us-east-1"
  EXPECT_EQ(Read(west_, "k"), "west");
}

TEST_F(ReplicatorTest, AChangeAppliedAgainAfterARestartChangesNothing) {
  Put(east_, "a", "1");
  clock_.Advance(kDelayMs);
  Pass();
  ASSERT_EQ(Records(west_).size(), 1u);
  // A replicator that lost its positions (a crash before they were stored) applies the change
  // again: the replica already has it, so nothing is written.
  auto positions = temp_.db().Jobs('G');
  ASSERT_TRUE(positions.ok());
  ASSERT_FALSE(positions->empty());
  for (const auto& job : *positions) ASSERT_TRUE(temp_.db().DeleteJob('G', job.id).ok());
  Replicator again{temp_.db(), temp_.catalog(), clock_, executor_,
                   std::chrono::milliseconds(kDelayMs)};
  ASSERT_TRUE(again.RunOnce().ok());
  EXPECT_EQ(Records(west_).size(), 1u);
  EXPECT_EQ(Read(west_, "a"), "1");
}

TEST_F(ReplicatorTest, ApplyBeforeAppliesTheChangesOlderThanATime) {
  Put(east_, "old", "1");
  clock_.Advance(10);
  Put(east_, "new", "2");
  // Before stream retention removes the records older than a time, their changes are applied
  // (due or not by the delay); the later ones wait.
  ASSERT_TRUE(replicator_.ApplyBefore(*east_, clock_.NowMs()).ok());
  EXPECT_EQ(Read(west_, "old"), "1");
  EXPECT_EQ(Read(west_, "new"), "");
}

TEST_F(ReplicatorTest, CatchUpAppliesEveryChangeAtOnce) {
  Put(east_, "a", "1");
  ASSERT_TRUE(replicator_.CatchUp(*east_).ok());
  EXPECT_EQ(Read(west_, "a"), "1");
}

// Without replicated tables the periodic passes stop instead of waking the server forty times
// a second; adding a replica (Exclusive) starts them again, and they stop again once a pass
// finds nothing to replicate.
TEST(ReplicatorIdleTest, PassesStopWhileNothingIsReplicated) {
  ManualClock clock{1'700'000'000'000};
  TempDb temp;
  Executor executor{1};
  Replicator replicator{temp.db(), temp.catalog(), clock, executor, std::chrono::milliseconds(0)};
  const auto settled = [&executor] {
    for (int wait = 0; wait < 400 && executor.pending() > 0; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return executor.pending();
  };
  replicator.Start(std::chrono::milliseconds(100));
  EXPECT_EQ(settled(), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(executor.pending(), 0u);  // no pass scheduled since

  ASSERT_TRUE(replicator.Exclusive([] { return OkStatus(); }).ok());
  EXPECT_EQ(executor.pending(), 1u);  // the next pass
  EXPECT_EQ(settled(), 0u);
  executor.Stop();
}

}  // namespace
}  // namespace ddbd::replication
