// VectorIndex: scores per distance function, exact search with scopes and filters, and the
// HNSW path (graph built in steps, kept current by upserts and removals) against exact
// search on the same data.
#include "vector/vector_index.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cstdio>
#include <random>
#include <set>

namespace ddbd::vector {
namespace {

std::vector<float> RandomVector(std::mt19937& random, size_t dims) {
  std::normal_distribution<float> normal;
  std::vector<float> v(dims);
  for (float& x : v) x = normal(random);
  return v;
}

std::vector<std::string> Keys(const std::vector<VectorIndex::Hit>& hits) {
  std::vector<std::string> keys;
  for (const auto& hit : hits) keys.push_back(hit.key);
  return keys;
}

// Fills `index` (one scope) with `count` random entries k0, k1, … and builds its graphs.
std::vector<std::vector<float>> FillAndBuild(VectorIndex& index, std::mt19937& random, int count,
                                             size_t dims) {
  std::vector<std::vector<float>> data;
  for (int i = 0; i < count; ++i) {
    data.push_back(RandomVector(random, dims));
    index.Upsert("k" + std::to_string(i), "", {}, data.back());
  }
  while (index.BuildStep()) {
  }
  return data;
}

// The share of the exact top 10 that `graph` finds, over `queries` in `scope`.
double RecallAt10(const VectorIndex& graph, const VectorIndex& exact,
                  const std::vector<std::vector<float>>& queries, std::string_view scope) {
  size_t found = 0, wanted = 0;
  for (const auto& query : queries) {
    const auto truth = Keys(exact.Search(query, scope, {}, 10));
    const std::set<std::string> truth_set(truth.begin(), truth.end());
    for (const auto& hit : graph.Search(query, scope, {}, 10)) found += truth_set.count(hit.key);
    wanted += truth.size();
  }
  return static_cast<double>(found) / static_cast<double>(wanted);
}

TEST(ScoreTest, CosineDistanceWithDynamoDBsSpecialCases) {
  const std::vector<float> x{1, 0, 0, 0};
  EXPECT_EQ(Score(DistanceFunction::kCosine, x, std::vector<float>{10, 0, 0, 0}), 0.0);
  EXPECT_EQ(Score(DistanceFunction::kCosine, x, std::vector<float>{-3, 0, 0, 0}), 2.0);
  EXPECT_EQ(Score(DistanceFunction::kCosine, x, std::vector<float>{0, 5, 0, 0}), 1.0);
  EXPECT_EQ(Score(DistanceFunction::kCosine, x, std::vector<float>{0, 0, 0, 0}), 1.0);
  // Delivered with float precision.
  const double s = Score(DistanceFunction::kCosine, x, std::vector<float>{1, 1, 0, 0});
  EXPECT_EQ(s, static_cast<double>(static_cast<float>(1 - 1 / std::sqrt(2.0))));
}

TEST(ScoreTest, EuclideanIsTheDistanceNotItsSquare) {
  EXPECT_EQ(Score(DistanceFunction::kEuclidean, std::vector<float>{1, 0, 0, 0},
                  std::vector<float>{10, 0, 0, 0}),
            9.0);
  // Overflowing distances saturate at the float range.
  EXPECT_EQ(Score(DistanceFunction::kEuclidean, std::vector<float>{FLT_MAX, FLT_MAX},
                  std::vector<float>{-FLT_MAX, -FLT_MAX}),
            static_cast<double>(FLT_MAX));
}

TEST(ScoreTest, DotProductAccumulatesInDouble) {
  // Each product overflows a float; the sum cancels exactly in double.
  EXPECT_EQ(Score(DistanceFunction::kDotProduct, std::vector<float>{1e30f, 1e30f},
                  std::vector<float>{1e30f, -1e30f}),
            0.0);
  EXPECT_EQ(Score(DistanceFunction::kDotProduct, std::vector<float>{1, 2, 3},
                  std::vector<float>{-1, 0, 2}),
            5.0);
  EXPECT_TRUE(Better(DistanceFunction::kDotProduct, 5, 1));
  EXPECT_TRUE(Better(DistanceFunction::kCosine, 0.1, 0.2));
}

TEST(VectorIndexTest, ExactSearchRanksByScoreThenKeyWithinOneScope) {
  VectorIndex index(2, DistanceFunction::kEuclidean, 1, SearchTuning{.exact_only = true});
  index.Upsert("b", "t1", {"en"}, std::vector<float>{1, 0});
  index.Upsert("a", "t1", {"de"}, std::vector<float>{1, 0});  // a tie with b: key order
  index.Upsert("c", "t1", {"en"}, std::vector<float>{3, 0});
  index.Upsert("d", "t2", {"en"}, std::vector<float>{0, 0});  // another scope
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "t1", {}, 10)),
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "t1", {{0, "en"}}, 10)),
            (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "t1", {{0, "fr"}}, 10)),
            std::vector<std::string>{});
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "t3", {}, 10)), std::vector<std::string>{});
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "t1", {}, 1)),
            std::vector<std::string>{"a"});
}

TEST(VectorIndexTest, UpsertReplacesAndRemoveForgets) {
  VectorIndex index(2, DistanceFunction::kEuclidean, 1, SearchTuning{.exact_only = true});
  index.Upsert("a", "", {"en"}, std::vector<float>{0, 0});
  index.Upsert("b", "", {"en"}, std::vector<float>{5, 5});
  index.Upsert("a", "", {"de"}, std::vector<float>{9, 9});  // moved and refiltered
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "", {}, 1)), std::vector<std::string>{"b"});
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "", {{0, "en"}}, 5)),
            std::vector<std::string>{"b"});
  index.Remove("b");
  index.Remove("missing");
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "", {}, 5)), std::vector<std::string>{"a"});
  // An entry whose scope changes leaves its old partition.
  index.Upsert("a", "other", {std::nullopt}, std::vector<float>{0, 0});
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "", {}, 5)), std::vector<std::string>{});
  EXPECT_EQ(Keys(index.Search(std::vector<float>{0, 0}, "other", {{0, "de"}}, 5)),
            std::vector<std::string>{});
}

// Builds the same data into an exact and an HNSW index and measures recall@10 of the graph.
double GraphRecall(DistanceFunction function, const std::vector<std::vector<float>>& data,
                   const std::vector<std::vector<float>>& queries,
                   const std::vector<std::optional<std::string>>& filters,
                   const std::vector<VectorIndex::FilterCondition>& condition) {
  SearchTuning graph_tuning;
  graph_tuning.exact_threshold = 100;
  VectorIndex graph(static_cast<uint32_t>(data[0].size()), function, 1, graph_tuning);
  VectorIndex exact(static_cast<uint32_t>(data[0].size()), function, 1,
                    SearchTuning{.exact_only = true});
  for (size_t i = 0; i < data.size(); ++i) {
    const std::string key = "k" + std::to_string(100000 + i);
    graph.Upsert(key, "", {filters[i]}, data[i]);
    exact.Upsert(key, "", {filters[i]}, data[i]);
  }
  EXPECT_TRUE(graph.NeedsBuild());
  while (graph.BuildStep()) {
  }
  EXPECT_FALSE(graph.NeedsBuild());
  size_t found = 0, wanted = 0;
  for (const auto& query : queries) {
    const auto truth = Keys(exact.Search(query, "", condition, 10));
    const auto approximate = graph.Search(query, "", condition, 10);
    const std::set<std::string> truth_set(truth.begin(), truth.end());
    for (const auto& hit : approximate) found += truth_set.count(hit.key);
    wanted += truth.size();
    // Scores are exact whichever path found the entries.
    for (const auto& hit : approximate) {
      const size_t i = std::stoul(hit.key.substr(1)) - 100000;
      EXPECT_EQ(hit.score, Score(function, query, data[i]));
    }
  }
  return static_cast<double>(found) / static_cast<double>(wanted);
}

TEST(VectorIndexTest, GraphSearchAgreesWithExactSearch) {
  std::mt19937 random(7);
  std::vector<std::vector<float>> data, queries;
  std::vector<std::optional<std::string>> filters;
  for (int i = 0; i < 3000; ++i) {
    data.push_back(RandomVector(random, 16));
    filters.emplace_back(i % 10 == 0 ? "rare" : "common");
  }
  for (int i = 0; i < 50; ++i) queries.push_back(RandomVector(random, 16));
  for (auto function :
       {DistanceFunction::kCosine, DistanceFunction::kEuclidean, DistanceFunction::kDotProduct}) {
    EXPECT_GE(GraphRecall(function, data, queries, filters, {}), 0.95);
    // A selective filter (10%): over-fetching, then the exact fallback, keep results right.
    EXPECT_GE(GraphRecall(function, data, queries, filters, {{0, "rare"}}), 0.95);
  }
}

TEST(VectorIndexTest, ClusteredDataLeavesNoQueryStranded) {
  // 64 Gaussian clusters of 80 vectors of 128 dimensions. With a sparse graph (degree 8,
  // small candidate lists: the stranding of 100k vectors at degree 32, at a small size),
  // hnswlib's descent alone ended in another cluster for 9 of 400 queries, which then found
  // none of their ten neighbours (measured). Starting from the closest entry point, every
  // query finds at least half of them.
  std::mt19937 random(17);
  std::normal_distribution<float> normal, spread(0, 0.5f);
  std::vector<std::vector<float>> centres(64, std::vector<float>(128));
  for (auto& centre : centres) {
    for (float& x : centre) x = normal(random);
  }
  auto member = [&](size_t cluster) {
    std::vector<float> v(centres[cluster]);
    for (float& x : v) x += spread(random);
    return v;
  };
  const SearchTuning tuning{
      .exact_threshold = 1, .ef_search = 16, .ef_construction = 32, .graph_degree = 8};
  VectorIndex graph(128, DistanceFunction::kEuclidean, 0, tuning);
  VectorIndex exact(128, DistanceFunction::kEuclidean, 0, SearchTuning{.exact_only = true});
  for (size_t i = 0; i < 64 * 80; ++i) {
    const auto v = member(i % 64);
    graph.Upsert("k" + std::to_string(i), "", {}, v);
    exact.Upsert("k" + std::to_string(i), "", {}, v);
  }
  while (graph.BuildStep()) {
  }
  for (size_t q = 0; q < 400; ++q) {
    const auto query = member(q % 64);
    EXPECT_GE(RecallAt10(graph, exact, {query}, ""), 0.5) << "query " << q;
  }
}

TEST(VectorIndexTest, GraphFollowsRemovalsAndUpdates) {
  std::mt19937 random(11);
  SearchTuning tuning;
  tuning.exact_threshold = 50;
  VectorIndex index(8, DistanceFunction::kEuclidean, 0, tuning);
  const auto data = FillAndBuild(index, random, 500, 8);
  // Removed entries never come back; a moved entry is found at its new place; freed slots
  // are reused by new entries.
  for (int i = 0; i < 250; ++i) index.Remove("k" + std::to_string(i));
  for (const auto& hit : index.Search(data[0], "", {}, 100)) {
    EXPECT_GE(std::stoi(hit.key.substr(1)), 250) << hit.key;
  }
  const std::vector<float> far(8, 50.0f);
  index.Upsert("k400", "", {}, far);
  index.Upsert("fresh", "", {}, std::vector<float>(8, -50.0f));
  EXPECT_EQ(Keys(index.Search(far, "", {}, 1)), std::vector<std::string>{"k400"});
  EXPECT_EQ(Keys(index.Search(std::vector<float>(8, -50.0f), "", {}, 1)),
            std::vector<std::string>{"fresh"});
  EXPECT_EQ(index.size(), 251u);
}

TEST(VectorIndexTest, EntriesWrittenAfterTheGraphIsBuiltAreSearched) {
  // Two scopes written in turn, the graphs built while writes go on: every later write
  // must reach its partition's graph.
  std::mt19937 random(3);
  SearchTuning tuning;
  tuning.exact_threshold = 50;
  VectorIndex graph(16, DistanceFunction::kEuclidean, 0, tuning);
  VectorIndex exact(16, DistanceFunction::kEuclidean, 0, SearchTuning{.exact_only = true});
  for (int n = 0; n < 1200; ++n) {
    const auto v = RandomVector(random, 16);
    const std::string key = "i" + std::to_string(1000 + n), scope = n % 2 ? "odd" : "even";
    graph.Upsert(key, scope, {}, v);
    exact.Upsert(key, scope, {}, v);
    if (n % 100 == 0) {
      while (graph.BuildStep()) {
      }
    }
  }
  std::vector<std::vector<float>> queries;
  for (int q = 0; q < 20; ++q) queries.push_back(RandomVector(random, 16));
  EXPECT_GE(RecallAt10(graph, exact, queries, "even"), 0.98);
}

TEST(VectorIndexTest, GraphsAreRebuiltWhenDeletesDominateAndDroppedWhenSmall) {
  std::mt19937 random(9);
  SearchTuning tuning;
  tuning.exact_threshold = 300;
  VectorIndex index(8, DistanceFunction::kEuclidean, 0, tuning);
  const auto data = FillAndBuild(index, random, 4000, 8);
  EXPECT_EQ(index.graphs_completed(), 1u);
  // 2,500 removals: deleted elements outnumber the 1,500 live ones, so the graph is rebuilt.
  for (int i = 0; i < 2500; ++i) index.Remove("k" + std::to_string(i));
  EXPECT_TRUE(index.NeedsBuild());
  // Meanwhile (exact search) and afterwards (new graph) the answers hold only live entries.
  for (const auto& hit : index.Search(data[0], "", {}, 50)) {
    EXPECT_GE(std::stoi(hit.key.substr(1)), 2500);
  }
  while (index.BuildStep()) {
  }
  EXPECT_EQ(index.graphs_completed(), 2u);
  EXPECT_EQ(Keys(index.Search(data[3000], "", {}, 1)), std::vector<std::string>{"k3000"});
  // Down to half the threshold: the graph is dropped and exact search takes over.
  for (int i = 2500; i < 3860; ++i) index.Remove("k" + std::to_string(i));
  EXPECT_FALSE(index.NeedsBuild());
  EXPECT_EQ(Keys(index.Search(data[3900], "", {}, 1)), std::vector<std::string>{"k3900"});
  EXPECT_EQ(index.size(), 140u);
}

TEST(VectorIndexTest, GraphsStayAccurateWhenVectorsAreUpdated) {
  // Half the vectors move far away: hnswlib's in-place updates alone leave recall near 0.7
  // (measured); the churn-triggered rebuild must bring it back.
  std::mt19937 random(13);
  SearchTuning tuning;
  tuning.exact_threshold = 200;
  VectorIndex graph(16, DistanceFunction::kEuclidean, 0, tuning);
  VectorIndex exact(16, DistanceFunction::kEuclidean, 0, SearchTuning{.exact_only = true});
  std::vector<std::vector<float>> centres;
  for (int c = 0; c < 20; ++c) centres.push_back(RandomVector(random, 16));
  auto near = [&](const std::vector<float>& centre) {
    std::uniform_real_distribution<float> noise(-0.3f, 0.3f);
    std::vector<float> v(centre);
    for (float& x : v) x += noise(random);
    return v;
  };
  auto both = [&](const std::string& key, const std::vector<float>& v) {
    graph.Upsert(key, "", {}, v);
    exact.Upsert(key, "", {}, v);
  };
  for (int i = 0; i < 4000; ++i) both("k" + std::to_string(i), near(centres[i % 20]));
  while (graph.BuildStep()) {
  }
  for (int i = 0; i < 2000; ++i) {
    std::vector<float> far = RandomVector(random, 16);
    for (float& x : far) x *= 10;
    both("k" + std::to_string(i), far);
    if (i % 200 == 0) {
      while (graph.BuildStep()) {
      }
    }
  }
  while (graph.BuildStep()) {
  }
  EXPECT_GE(graph.graphs_completed(), 2u);  // rebuilt at least once
  std::vector<std::vector<float>> queries;
  for (int q = 0; q < 50; ++q) queries.push_back(near(centres[q % 20]));
  EXPECT_GE(RecallAt10(graph, exact, queries, ""), 0.95);
}

TEST(VectorIndexTest, SavedGraphsAttachToTheSameEntriesLoadedInAnotherOrder) {
  std::mt19937 random(5);
  SearchTuning tuning;
  tuning.exact_threshold = 50;
  VectorIndex original(8, DistanceFunction::kCosine, 0, tuning);
  std::vector<std::pair<std::string, std::vector<float>>> entries;
  for (int n = 0; n < 600; ++n) {
    entries.emplace_back("k" + std::to_string(n), RandomVector(random, 8));
    original.Upsert(entries.back().first, n % 2 ? "odd" : "even", {}, entries.back().second);
  }
  while (original.BuildStep()) {
  }
  original.Remove("k10");  // a deleted element in the saved graph
  while (original.BuildStep()) {
  }
  const std::string prefix = ::testing::TempDir() + "/graphs-" + std::to_string(random()) + "-";
  EXPECT_EQ(original.SaveGraphs(prefix), 2u);

  // A restart: the same entries (minus one removed since) arrive in another order, so every
  // entry has another slot than when the graph was saved.
  VectorIndex restarted(8, DistanceFunction::kCosine, 0, tuning);
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (it->first == "k10" || it->first == "k11") continue;
    const int n = std::stoi(it->first.substr(1));
    restarted.Upsert(it->first, n % 2 ? "odd" : "even", {}, it->second);
  }
  EXPECT_EQ(restarted.LoadGraphs(prefix), 2u);
  EXPECT_EQ(restarted.graphs_completed(), 2u);
  EXPECT_FALSE(restarted.NeedsBuild());  // nothing to build: both graphs are in place
  for (int q = 0; q < 20; ++q) {
    const auto query = RandomVector(random, 8);
    const auto a = Keys(original.Search(query, "odd", {}, 10));
    auto b = Keys(restarted.Search(query, "odd", {}, 10));
    std::erase(b, "k11");
    auto a_without = a;
    std::erase(a_without, "k11");
    EXPECT_EQ(std::vector<std::string>(b.begin(), b.begin() + std::min(b.size(), a_without.size())),
              std::vector<std::string>(a_without.begin(),
                                       a_without.begin() + std::min(b.size(), a_without.size())));
    for (const auto& key : Keys(restarted.Search(query, "odd", {}, 100))) {
      EXPECT_NE(key, "k11");  // gone before the restart: never found
    }
  }
  // The attached graph takes new writes like any other.
  restarted.Upsert("fresh", "even", {}, std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(Keys(restarted.Search(std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0}, "even", {}, 1)),
            std::vector<std::string>{"fresh"});
  // Files that are not there attach nothing.
  VectorIndex empty(8, DistanceFunction::kCosine, 0, tuning);
  EXPECT_EQ(empty.LoadGraphs(prefix + "missing-"), 0u);
  for (const char* suffix : {"0.hnsw", "0.keys", "1.hnsw", "1.keys"}) {
    std::remove((prefix + suffix).c_str());
  }
}

TEST(VectorIndexTest, SavedElementsOfAChangedVectorAreNotAttached) {
  // A graph element holds its entry's only in-memory vector, so an element saved with a
  // vector the entry no longer has must not stand for it after a restart.
  std::mt19937 random(23);
  SearchTuning tuning;
  tuning.exact_threshold = 50;
  VectorIndex original(8, DistanceFunction::kEuclidean, 0, tuning);
  std::vector<std::vector<float>> vectors;
  for (int n = 0; n < 300; ++n) {
    vectors.push_back(RandomVector(random, 8));
    original.Upsert("k" + std::to_string(n), "", {}, vectors.back());
  }
  while (original.BuildStep()) {
  }
  const std::string prefix = ::testing::TempDir() + "/changed-" + std::to_string(random()) + "-";
  ASSERT_EQ(original.SaveGraphs(prefix), 1u);

  VectorIndex restarted(8, DistanceFunction::kEuclidean, 0, tuning);
  const std::vector<float> moved(8, 40.0f);
  for (int n = 0; n < 300; ++n) {
    restarted.Upsert("k" + std::to_string(n), "", {}, n == 7 ? moved : vectors[n]);
  }
  EXPECT_EQ(restarted.LoadGraphs(prefix), 1u);
  EXPECT_TRUE(restarted.NeedsBuild());  // k7 waits to be inserted with its new vector
  const auto at_moved = restarted.Search(moved, "", {}, 1);
  ASSERT_EQ(Keys(at_moved), std::vector<std::string>{"k7"});
  EXPECT_EQ(at_moved[0].score, 0.0);
  for (const auto& hit : restarted.Search(vectors[7], "", {}, 5)) EXPECT_NE(hit.key, "k7");
  while (restarted.BuildStep()) {
  }
  EXPECT_EQ(Keys(restarted.Search(moved, "", {}, 1)), std::vector<std::string>{"k7"});
  EXPECT_EQ(Keys(restarted.Search(vectors[8], "", {}, 1)), std::vector<std::string>{"k8"});
  for (const char* suffix : {"0.hnsw", "0.keys"}) std::remove((prefix + suffix).c_str());
}

}  // namespace
}  // namespace ddbd::vector
