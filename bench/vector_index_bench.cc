// Micro-benchmark of one VectorIndex (hnswlib graph), in process: insert rate (Upsert, then
// BuildStep until the graph holds every vector), search rate through the graph (TopK 10) and
// recall@10 against the same index searched exactly — mean, 1st percentile and minimum over
// the queries, since a mean hides the queries a graph strands. Data sets:
//   random   independent N(0, 1) coordinates
//   gauss64  64 clusters: centres N(0, 1) per coordinate, members centre + N(0, 0.5)
//   box100   100 clusters: centres N(0, 1), members centre + U(-0.35, 0.35) (bench/vector.py)
// Build (twice, to measure what hnswlib's hand-written SIMD is worth; see docs/PERFORMANCE.md
// "hnswlib without manual vectorization"):
//   g++ -O2 -std=c++20 -I. [-DNO_MANUAL_VECTORIZATION] bench/vector_index_bench.cc \
//       vector/vector_index.cc vector/vector_index_files.cc vector/hnsw_graph.cc \
//       vector/distance.cc model/*.cc -lpthread -o /tmp/vector_index_bench
//   /tmp/vector_index_bench [count] [dimensions] [searches] [data] [M] [ef_construction]
//                           [ef_search]
// Environment: DDBD_BENCH_BUILD_AT_END (one build from all entries), DDBD_BENCH_EXACT (no
// graphs: every search exact).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "vector/vector_index.h"

namespace {

using Vector = std::vector<float>;

// A generator of `dimensions`-long vectors drawn from the named data set.
struct DataSet {
  std::string kind;
  uint32_t dimensions;
  std::mt19937 random{42};
  std::vector<Vector> centres;

  DataSet(std::string kind_, uint32_t dimensions_)
      : kind(std::move(kind_)), dimensions(dimensions_) {
    const size_t clusters = kind == "gauss64" ? 64 : kind == "box100" ? 100 : 0;
    std::normal_distribution<float> normal;
    for (size_t c = 0; c < clusters; ++c) {
      Vector centre(dimensions);
      for (float& f : centre) f = normal(random);
      centres.push_back(std::move(centre));
    }
  }

  Vector Next() {
    std::normal_distribution<float> normal;
    Vector v(dimensions);
    if (centres.empty()) {
      for (float& f : v) f = normal(random);
      return v;
    }
    const Vector& centre = centres[random() % centres.size()];
    std::normal_distribution<float> gauss(0, 0.5);
    std::uniform_real_distribution<float> box(-0.35f, 0.35f);
    for (uint32_t i = 0; i < dimensions; ++i) {
      v[i] = centre[i] + (kind == "gauss64" ? gauss(random) : box(random));
    }
    return v;
  }
};

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int i, size_t fallback) {
    return argc > i ? std::strtoul(argv[i], nullptr, 10) : fallback;
  };
  const size_t count = arg(1, 20000);
  const auto dimensions = static_cast<uint32_t>(arg(2, 768));
  const size_t searches = arg(3, 2000);
  DataSet data(argc > 4 ? argv[4] : "random", dimensions);
  ddbd::vector::SearchTuning tuning;  // as the server's: graphs from 4,096 entries at 128
  // DDBD_BENCH_EXACT: no graphs, every search exact (what --exact-vector-search costs).
  tuning.exact_only = std::getenv("DDBD_BENCH_EXACT") != nullptr;
  tuning.graph_degree = arg(5, tuning.graph_degree);
  tuning.ef_construction = arg(6, tuning.ef_construction);
  tuning.ef_search = arg(7, tuning.ef_search);
  ddbd::vector::VectorIndex index(dimensions, ddbd::DistanceFunction::kEuclidean, 0, tuning);
  ddbd::vector::VectorIndex exact(dimensions, ddbd::DistanceFunction::kEuclidean, 0,
                                  {.exact_only = true});
  const double insert_start = CpuSeconds();
  // As in the server, graph work is interleaved with the writes (every 1,000 of them),
  // unless DDBD_BENCH_BUILD_AT_END is set: then the graph is built once from all of them.
  const bool build_at_end = std::getenv("DDBD_BENCH_BUILD_AT_END") != nullptr;
  for (size_t i = 0; i < count; ++i) {
    const Vector v = data.Next();
    index.Upsert("k" + std::to_string(i), "", {}, v);
    exact.Upsert("k" + std::to_string(i), "", {}, v);
    if (!build_at_end && i % 1000 == 999) {
      while (index.BuildStep()) {
      }
    }
  }
  while (index.BuildStep()) {
  }
  const double insert_seconds = CpuSeconds() - insert_start;
  std::vector<Vector> queries;
  for (size_t i = 0; i < searches; ++i) queries.push_back(data.Next());
  std::vector<std::vector<ddbd::vector::VectorIndex::Hit>> answers;
  const double search_start = CpuSeconds();
  for (const auto& query : queries) answers.push_back(index.Search(query, "", {}, 10));
  const double search_seconds = CpuSeconds() - search_start;
  std::vector<double> recalls;
  for (size_t q = 0; q < searches; ++q) {
    std::set<std::string> truth;
    for (const auto& hit : exact.Search(queries[q], "", {}, 10)) truth.insert(hit.key);
    size_t found = 0;
    for (const auto& hit : answers[q]) found += truth.count(hit.key);
    recalls.push_back(static_cast<double>(found) / static_cast<double>(truth.size()));
  }
  std::sort(recalls.begin(), recalls.end());
  double mean = 0;
  for (double r : recalls) mean += r / static_cast<double>(recalls.size());
  std::printf(
      "%zu x %u %s M %zu efC %zu ef %zu: insert %.0f vectors/s (%.1f s), search %.0f/s; "
      "recall@10 mean %.4f p1 %.2f min %.2f\n",
      count, dimensions, data.kind.c_str(), tuning.graph_degree, tuning.ef_construction,
      tuning.ef_search, count / insert_seconds, insert_seconds, searches / search_seconds, mean,
      recalls[recalls.size() / 100], recalls.front());
  return 0;
}
