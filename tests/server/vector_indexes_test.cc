// VectorIndexes: the start-up load of stored vector entries runs in the background while
// writes go on; whichever order they meet in, the loaded index must hold the newest entries.
#include "server/vector_indexes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "index/index_entries.h"
#include "tests/testing/test_util.h"

namespace ddbd::server {
namespace {

using ddbd::testing::TempDb;

TableDef VectorTable() {
  TableDef table;
  table.name = "Vectors";
  table.region = "us-east-1";
  table.partition_key = {"id", KeyAttributeType::kS};
  table.attribute_definitions = {{"id", KeyAttributeType::kS}};
  IndexDef index;
  index.name = "ByEmbedding";
  index.projection = ProjectionType::kKeysOnly;
  index.vector = VectorSpec{"v", 2, DistanceFunction::kEuclidean, {}};
  table.indexes = {index};
  return table;
}

Item Point(int id, float x, float y) {
  return Item{{"id", AttributeValue::String("p" + std::to_string(id))},
              {"v", AttributeValue::List({AttributeValue::NumberText(std::to_string(x)),
                                          AttributeValue::NumberText(std::to_string(y))})}};
}

Status Write(storage::Database& db, const TableDef& table, int id, std::optional<Item> item) {
  std::vector<storage::ItemWrite> writes;
  writes.push_back({&table, PrimaryKey{AttributeValue::String("p" + std::to_string(id))},
                    [item](const std::optional<Item>&) -> Result<std::optional<Item>> {
                      return item;
                    }});
  auto written = db.WriteItems(std::move(writes));
  if (!written.ok()) return std::move(written).error();
  return OkStatus();
}

TEST(VectorIndexesTest, WritesDuringTheStartUpLoadWinOverTheStoredEntries) {
  constexpr int kPoints = 20000;
  TempDb temp;
  index::Maintainer maintainer(temp.catalog());
  temp.db().SetIndexMaintainer(&maintainer);
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(VectorTable()));
  {
    VectorIndexes first(vector::SearchTuning{.exact_only = true});
    maintainer.SetVectorListener([&](auto changes) { first.Apply(std::move(changes)); });
    for (int i = 0; i < kPoints; i += 100) {
      std::vector<storage::ItemWrite> batch;
      std::vector<Item> items;
      for (int j = i; j < i + 100; ++j) items.push_back(Point(j, static_cast<float>(j), 0));
      for (auto& item : items) {
        batch.push_back({table.get(), KeyOf(*table, item),
                         [item](const std::optional<Item>&) -> Result<std::optional<Item>> {
                           return std::optional<Item>(item);
                         }});
      }
      ASSERT_OK(temp.db().WriteItems(std::move(batch)));
    }
  }
  // A restart: a fresh in-memory side loads while writes move p0 far away, delete p1 and
  // add p-new near the origin — the last entries of the key order and the first, so that
  // some land before the load reaches them and some after.
  VectorIndexes second(vector::SearchTuning{.exact_only = true});
  maintainer.SetVectorListener([&](auto changes) { second.Apply(std::move(changes)); });
  second.Load(temp.db(), temp.catalog(), std::nullopt);
  ASSERT_OK(Write(temp.db(), *table, 0, Point(0, 1e6f, 0)));
  ASSERT_OK(Write(temp.db(), *table, 1, std::nullopt));
  ASSERT_OK(Write(temp.db(), *table, kPoints - 1, Point(kPoints - 1, -1, 0)));
  ASSERT_OK(Write(temp.db(), *table, kPoints - 2, std::nullopt));
  auto memory = second.ForSearch(table->indexes[0]);
  EXPECT_EQ(memory->size(), static_cast<size_t>(kPoints - 2));
  const auto nearest = memory->Search(std::vector<float>{0, 0}, "", {}, 3);
  ASSERT_EQ(nearest.size(), 3u);
  // p19999 now at -1, then p2 (2), p3 (3): p0 moved away, p1 is gone.
  std::vector<double> scores;
  for (const auto& hit : nearest) scores.push_back(hit.score);
  EXPECT_EQ(scores, (std::vector<double>{1, 2, 3}));
  const auto far = memory->Search(std::vector<float>{1e6f, 0}, "", {}, 1);
  EXPECT_EQ(far[0].score, 0);
}

TEST(VectorIndexesTest, SavedGraphsAreUsedOnlyForTheStateTheyWereSavedIn) {
  TempDb temp;
  index::Maintainer maintainer(temp.catalog());
  temp.db().SetIndexMaintainer(&maintainer);
  ASSERT_OK_AND_ASSIGN(auto table, temp.catalog().Create(VectorTable()));
  const vector::SearchTuning tuning{.exact_threshold = 100};
  const std::string graphs = ::testing::TempDir() + "/ddbd-graphs-" + std::to_string(table->id) +
                             "-" + std::to_string(std::random_device{}());
  {
    VectorIndexes first(tuning);
    maintainer.SetVectorListener([&](auto changes) { first.Apply(std::move(changes)); });
    first.Load(temp.db(), temp.catalog(), graphs);
    for (int i = 0; i < 1000; ++i) {
      ASSERT_OK(Write(temp.db(), *table, i, Point(i, static_cast<float>(i % 37), i * 0.5f)));
    }
    auto memory = first.ForSearch(table->indexes[0]);
    for (int wait = 0; wait < 500 && memory->NeedsBuild(); ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_FALSE(memory->NeedsBuild());
    ASSERT_OK(first.SaveGraphs(temp.db(), graphs));
    maintainer.SetVectorListener(nullptr);  // `first` ends here; writes must not reach it
  }
  ASSERT_TRUE(std::filesystem::exists(graphs + "/sequence"));
  {
    // Nothing written since: the graph is attached, not rebuilt, and the files are consumed.
    VectorIndexes second(tuning);
    maintainer.SetVectorListener([&](auto changes) { second.Apply(std::move(changes)); });
    second.Load(temp.db(), temp.catalog(), graphs);
    auto memory = second.ForSearch(table->indexes[0]);
    EXPECT_EQ(memory->graphs_completed(), 1u);
    EXPECT_EQ(memory->size(), 1000u);
    for (int wait = 0; wait < 200 && std::filesystem::exists(graphs); ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_FALSE(std::filesystem::exists(graphs));  // used once
    ASSERT_OK(second.SaveGraphs(temp.db(), graphs));
    const auto hits = memory->Search(std::vector<float>{36, 18}, "", {}, 1);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].score, 0);
    maintainer.SetVectorListener(nullptr);  // the write below must not reach `second`
  }
  // A write after the save: the saved graph no longer describes the index and is ignored.
  ASSERT_OK(Write(temp.db(), *table, 5000, Point(5000, 1, 1)));
  // (A threshold no partition reaches: any graph would have come from the files.)
  VectorIndexes third(vector::SearchTuning{.exact_threshold = 1'000'000});
  maintainer.SetVectorListener([&](auto changes) { third.Apply(std::move(changes)); });
  third.Load(temp.db(), temp.catalog(), graphs);
  auto memory = third.ForSearch(table->indexes[0]);
  EXPECT_EQ(memory->size(), 1001u);
  EXPECT_EQ(memory->graphs_completed(), 0u);
}

}  // namespace
}  // namespace ddbd::server
