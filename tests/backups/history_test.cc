// Point-in-time recovery history: what the write part records, each item's state at a time
// read back from it (same-millisecond writes in order), trimming, the rewind of a raw copy,
// and dropping it.
#include <gtest/gtest.h>

#include <map>

#include "backups/history_part.h"
#include "backups/history_retention.h"
#include "model/clock.h"
#include "tests/testing/assertions.h"
#include "tests/testing/temp_db.h"

namespace ddbd::backups {
namespace {

using ddbd::testing::TempDb;

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    temp_.db().SetClock(clock_);
    temp_.AddWritePart(&part_);
    TableDef table;
    ASSERT_OK_AND_ASSIGN(table.id, temp_.catalog().AllocateId());
    table.name = "Ledger";
    table.partition_key = {"id", KeyAttributeType::kS};
    table.attribute_definitions = {{"id", KeyAttributeType::kS}};
    table.pitr_enabled_ms = 1000;
    table.pitr_recovery_days = 1;
    ASSERT_OK_AND_ASSIGN(table.pitr_history_id, temp_.catalog().AllocateId());
    ASSERT_OK_AND_ASSIGN(table_, temp_.catalog().Create(std::move(table)));
  }

  // Stores `id` with v = `version` (0 deletes it) at `at_ms`.
  void Write(const std::string& id, int version, int64_t at_ms) {
    clock_.Set(at_ms);
    std::optional<Item> item;
    if (version > 0) {
      item = Item{{"id", AttributeValue::String(id)},
                  {"v", AttributeValue::NumberText(std::to_string(version))}};
    }
    ASSERT_OK(temp_.db().WriteItems(
        {storage::Replacement(*table_, PrimaryKey{AttributeValue::String(id)}, item)}));
  }

  // Each item written after `after_ms`, with its version then (0: absent).
  std::map<std::string, int> StateAfter(int64_t after_ms) {
    std::map<std::string, int> state;
    Status read = temp_.db().ReadHistoryAfter(
        table_->pitr_history_id, after_ms, [&](PrimaryKey key, std::optional<Item> old) {
          state[key.partition.scalar()] = old ? std::stoi(old->at("v").scalar()) : 0;
          return OkStatus();
        });
    EXPECT_TRUE(read.ok());
    return state;
  }

  ManualClock clock_{1000};
  HistoryPart part_;
  TempDb temp_;
  std::shared_ptr<const TableDef> table_;
};

TEST_F(HistoryTest, EachItemsStateAtATimeIsTheOldImageOfItsFirstWriteAfter) {
  Write("a", 1, 2000);
  Write("b", 1, 2000);
  Write("a", 2, 3000);
  Write("a", 3, 3000);  // the same millisecond: after the write before it
  Write("b", 0, 4000);
  EXPECT_EQ(StateAfter(1500), (std::map<std::string, int>{{"a", 0}, {"b", 0}}));
  EXPECT_EQ(StateAfter(2500), (std::map<std::string, int>{{"a", 1}, {"b", 1}}));
  EXPECT_EQ(StateAfter(3500), (std::map<std::string, int>{{"b", 1}}));
  EXPECT_EQ(StateAfter(4000), (std::map<std::string, int>{}));
  Write("a", 3, 5000);  // leaves the item as it is: nothing recorded
  EXPECT_EQ(StateAfter(4500), (std::map<std::string, int>{}));
}

TEST_F(HistoryTest, TrimmingKeepsWhatRestoresInTheWindowNeed) {
  Write("a", 1, 2000);
  Write("b", 1, 2000);
  Write("a", 2, 3000);
  ASSERT_OK_AND_ASSIGN(uint64_t trimmed, temp_.db().TrimHistory(table_->pitr_history_id, 3000));
  EXPECT_EQ(trimmed, 2u);  // the two records of 2000
  EXPECT_EQ(StateAfter(2500), (std::map<std::string, int>{{"a", 1}}));
  // The periodic pass trims to the earliest restorable time: a day back, or enabling.
  constexpr int64_t kDay = 24 * 3600 * 1000;
  EXPECT_EQ(EarliestRestorableMs(*table_, 3000), 1000);
  EXPECT_EQ(EarliestRestorableMs(*table_, 3500 + kDay), 3500);
  ASSERT_OK_AND_ASSIGN(trimmed, TrimHistories(temp_.db(), temp_.catalog(), 3500 + kDay));
  EXPECT_EQ(trimmed, 1u);
  EXPECT_EQ(StateAfter(0), (std::map<std::string, int>{}));
}

TEST_F(HistoryTest, ARawCopyIsRewoundToTheTablesStateThen) {
  Write("a", 1, 2000);
  Write("b", 1, 2000);
  Write("a", 2, 3000);
  Write("b", 0, 3000);
  Write("c", 1, 3000);
  ASSERT_OK_AND_ASSIGN(uint64_t copy_id, temp_.catalog().AllocateId());
  ASSERT_OK_AND_ASSIGN(storage::TableStats copied, temp_.db().CopyItems(table_->id, copy_id));
  EXPECT_EQ(copied.item_count, 2);  // a (v2), c
  ASSERT_OK_AND_ASSIGN(storage::TableStats rewound,
                       temp_.db().RewindCopy(*table_, copy_id, 2500, copied));
  EXPECT_EQ(rewound.item_count, 2);  // a (v1), b (v1)
  TableDef copy = *table_;
  copy.id = copy_id;
  std::map<std::string, int> items;
  auto cursor = temp_.db().ScanHashRange(copy, 0, UINT64_MAX, std::nullopt);
  for (; cursor->Valid(); cursor->Next()) {
    ASSERT_OK_AND_ASSIGN(Item item, cursor->item());
    items[item.at("id").scalar()] = std::stoi(item.at("v").scalar());
  }
  EXPECT_EQ(items, (std::map<std::string, int>{{"a", 1}, {"b", 1}}));
  EXPECT_EQ(rewound.size_bytes, copied.size_bytes);  // the same sizes: "a"+v, "b"+v
}

TEST_F(HistoryTest, DroppingRemovesAllOfIt) {
  Write("a", 1, 2000);
  ASSERT_OK(temp_.db().DropHistory(table_->pitr_history_id));
  EXPECT_EQ(StateAfter(0), (std::map<std::string, int>{}));
}

}  // namespace
}  // namespace ddbd::backups
