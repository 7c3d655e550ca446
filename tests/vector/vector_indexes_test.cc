// VectorIndexes: the start-up load of stored vector entries runs in the background while
// writes go on; whichever order they meet in, the loaded index must hold the newest entries.
// Saved graphs are attached only to the state they were saved in.
#include "vector/vector_indexes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "tests/testing/assertions.h"
#include "vector/entry_codec.h"

namespace ddbd::vector {
namespace {

std::shared_ptr<const TableDef> VectorTable() {
  auto table = std::make_shared<TableDef>();
  table->name = "Vectors";
  table->region = "us-east-1";
  table->partition_key = {"id", KeyAttributeType::kS};
  table->attribute_definitions = {{"id", KeyAttributeType::kS}};
  IndexDef index;
  index.id = 2;
  index.name = "ByEmbedding";
  index.projection = ProjectionType::kKeysOnly;
  index.vector = VectorSpec{"v", 2, DistanceFunction::kEuclidean, {}};
  table->indexes = {index};
  return table;
}

// A stored entry, as the index module writes it: the key and the vector as floats.
Item Entry(int id, float x, float y) {
  return Item{{"id", AttributeValue::String("p" + std::to_string(id))},
              {"v", AttributeValue::Binary(EncodeFloats({x, y}))}};
}

PrimaryKey KeyOfPoint(int id) {
  return PrimaryKey{AttributeValue::String("p" + std::to_string(id))};
}

// Stored entries in memory. `midway`, when set, runs once half of them have been visited:
// the writes that reach the in-memory side while the load is under way. A load runs on the
// executor, so entries stored while one may be running go through Put, and a load visits a
// copy taken under the same lock (as RocksDB's iterators read a consistent view).
class FakeSource : public EntrySource {
 public:
  Status ForEachEntry(uint64_t, const std::function<void(Item)>& visit) override {
    std::map<int, Item> stored;
    {
      std::lock_guard lock(mutex_);
      stored = entries;
    }
    size_t visited = 0;
    for (const auto& [id, entry] : stored) {
      visit(entry);
      if (++visited == stored.size() / 2 && midway) midway();
    }
    return OkStatus();
  }
  uint64_t LatestSequence() const override { return sequence; }
  void Put(int id, Item entry) {
    std::lock_guard lock(mutex_);
    entries[id] = std::move(entry);
  }

  std::map<int, Item> entries;
  std::function<void()> midway;
  uint64_t sequence = 1;

 private:
  std::mutex mutex_;
};

TEST(VectorIndexesTest, WritesDuringTheStartUpLoadWinOverTheStoredEntries) {
  constexpr int kPoints = 2000;
  auto table = VectorTable();
  const IndexDef* index = &table->indexes[0];
  FakeSource source;
  for (int i = 0; i < kPoints; ++i) source.entries[i] = Entry(i, static_cast<float>(i), 0);
  Executor executor(2);
  VectorIndexes indexes(SearchTuning{.exact_only = true}, executor);
  // Halfway through the load: p0 (already loaded) moves far away and p1 is removed; p1999 (not
  // loaded yet) moves near the origin and p1998 is removed. The stored copies the load reads
  // afterwards are older than these changes and must lose.
  source.midway = [&] {
    indexes.Apply({table, index, KeyOfPoint(0), Entry(0, 1e6f, 0)});
    indexes.Apply({table, index, KeyOfPoint(1), std::nullopt});
    indexes.Apply({table, index, KeyOfPoint(kPoints - 1), Entry(kPoints - 1, -1, 0)});
    indexes.Apply({table, index, KeyOfPoint(kPoints - 2), std::nullopt});
  };
  indexes.Load(source, {table}, std::nullopt);
  auto memory = indexes.ForSearch(*index);
  EXPECT_EQ(memory->size(), static_cast<size_t>(kPoints - 2));
  const auto nearest = memory->Search(std::vector<float>{0, 0}, "", {}, 3);
  ASSERT_EQ(nearest.size(), 3u);
  // p1999 now at -1, then p2 (2), p3 (3): p0 moved away, p1 is gone.
  std::vector<std::string> ids;
  for (const auto& hit : nearest) {
    ASSERT_OK_AND_ASSIGN(PrimaryKey key, VectorIndexes::KeyOfHit(hit, *table));
    ids.push_back(key.partition.scalar());
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"p1999", "p2", "p3"}));
  const auto far = memory->Search(std::vector<float>{1e6f, 0}, "", {}, 1);
  ASSERT_EQ(far.size(), 1u);
  EXPECT_EQ(far[0].score, 0);
  executor.Stop();
}

TEST(VectorIndexesTest, SavedGraphsAreUsedOnlyForTheStateTheyWereSavedIn) {
  auto table = VectorTable();
  const IndexDef* index = &table->indexes[0];
  const SearchTuning tuning{.exact_threshold = 100};
  const std::string graphs =
      ::testing::TempDir() + "/ddbd-graphs-" + std::to_string(std::random_device{}());
  FakeSource source;
  source.sequence = 7;
  {
    Executor executor(2);
    VectorIndexes first(tuning, executor);
    first.Load(source, {table}, graphs);
    for (int i = 0; i < 1000; ++i) {
      Item entry = Entry(i, static_cast<float>(i % 37), i * 0.5f);
      source.Put(i, entry);  // the load may be reading the entries meanwhile
      first.Apply({table, index, KeyOfPoint(i), entry});
    }
    auto memory = first.ForSearch(*index);
    for (int wait = 0; wait < 500 && memory->NeedsBuild(); ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_FALSE(memory->NeedsBuild());
    ASSERT_TRUE(first.SaveGraphs(source.sequence, graphs).ok());
    executor.Stop();
  }
  ASSERT_TRUE(std::filesystem::exists(graphs + "/sequence"));
  {
    // Nothing written since: the graph is attached, not rebuilt, and the files are consumed.
    Executor executor(2);
    VectorIndexes second(tuning, executor);
    second.Load(source, {table}, graphs);
    auto memory = second.ForSearch(*index);
    EXPECT_EQ(memory->graphs_completed(), 1u);
    EXPECT_EQ(memory->size(), 1000u);
    for (int wait = 0; wait < 200 && std::filesystem::exists(graphs); ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_FALSE(std::filesystem::exists(graphs));  // used once
    ASSERT_TRUE(second.SaveGraphs(source.sequence, graphs).ok());
    const auto hits = memory->Search(std::vector<float>{36, 18}, "", {}, 1);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].score, 0);
    executor.Stop();
  }
  // A write after the save: the saved graph no longer describes the index and is ignored.
  source.entries[5000] = Entry(5000, 1, 1);
  source.sequence = 8;
  Executor executor(2);
  // (A threshold no partition reaches: any graph would have come from the files.)
  VectorIndexes third(SearchTuning{.exact_threshold = 1'000'000}, executor);
  third.Load(source, {table}, graphs);
  auto memory = third.ForSearch(*index);
  EXPECT_EQ(memory->size(), 1001u);
  EXPECT_EQ(memory->graphs_completed(), 0u);
  executor.Stop();
  std::filesystem::remove_all(graphs);
}

}  // namespace
}  // namespace ddbd::vector
