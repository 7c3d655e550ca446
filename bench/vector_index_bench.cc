// Micro-benchmark of one VectorIndex (hnswlib graph): insert rate (Upsert, then BuildStep
// until the graph holds every vector) and search rate (graph search, TopK 10) for random
// vectors. Built twice to measure what hnswlib's hand-written SIMD is worth, with and without
// -DNO_MANUAL_VECTORIZATION (see docs/PERFORMANCE.md "hnswlib without manual vectorization"):
//   g++ -O2 -std=c++20 -I. [-DNO_MANUAL_VECTORIZATION] bench/vector_index_bench.cc \
//       vector/vector_index.cc model/*.cc -lpthread -o /tmp/vector_index_bench
//   /tmp/vector_index_bench [count] [dimensions] [searches]
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "vector/vector_index.h"

int main(int argc, char** argv) {
  const size_t count = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 20000;
  const uint32_t dimensions = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 768;
  const size_t searches = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 2000;
  std::mt19937 random(42);
  std::normal_distribution<float> normal;
  auto make_vector = [&] {
    std::vector<float> v(dimensions);
    for (float& f : v) f = normal(random);
    return v;
  };
  // exact_threshold 1: every search goes through the graph.
  ddbd::vector::VectorIndex index(dimensions, ddbd::DistanceFunction::kEuclidean, 0,
                                  {.exact_threshold = 1, .graph_degree = 32});
  // CPU time of this (single-threaded) process, so that a busy machine skews less.
  auto cpu_seconds = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
  };
  const double insert_start = cpu_seconds();
  for (size_t i = 0; i < count; ++i) {
    index.Upsert("k" + std::to_string(i), "", {}, make_vector());
  }
  while (index.BuildStep()) {
  }
  const double insert_seconds = cpu_seconds() - insert_start;
  std::vector<std::vector<float>> queries;
  for (size_t i = 0; i < searches; ++i) queries.push_back(make_vector());
  const double search_start = cpu_seconds();
  size_t hits = 0;
  for (const auto& query : queries) hits += index.Search(query, "", {}, 10).size();
  const double search_seconds = cpu_seconds() - search_start;
  std::printf(
      "%zu vectors x %u dims, CPU time: insert %.0f vectors/s (%.1f s), search %.0f/s "
      "(%zu hits)\n",
      count, dimensions, count / insert_seconds, insert_seconds, searches / search_seconds, hits);
  return 0;
}
