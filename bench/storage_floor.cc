// The storage floor of bench/items.py's write and read workloads: RocksDB alone, in process,
// with the options of ddbd's items column family (32 MB memtable with a prefix bloom, 16-byte
// key prefixes with filters, 10-bit blooms, index and filters partitioned in a 64 MB block
// cache, two background jobs, the write-ahead log on and not synced per write), storing
// items.py's values under keys shaped like ddbd's (8-byte table id, 8-byte partition hash, the
// key). Prints the process's CPU time (every thread: flushes and compactions included) per
// operation, for:
//   get     Get of random keys among 20,000 preloaded
//   put     Get (absent) then Put of a new key: what a correct PutItem must at least do
//   batch   25 Gets then one WriteBatch of 25 Puts, per item
//   query   an iterator over one of 1,000 partitions of 20 items (bounded to the partition,
//           prefix filters on, as a Query's), its Seek and 20 steps, each value copied out
//   query-files   the same once the partitions sit in table files under 1 GB of other
//           items of 1 KB, compactions finished: where bench/items.py's Query row reads them,
//           after its write rows (the partitions in the memtable is the state before them)
// Run it pinned to one core to compare with the servers' figures:
//   c++ -O2 -std=c++20 -o storage_floor bench/storage_floor.cc -lrocksdb
//   taskset -c 0 ./storage_floor DIR get|put|batch|query|query-files SECONDS VALUE_BYTES
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>

namespace {

constexpr int kPreloaded = 20'000;
constexpr int kPartitions = 1'000, kPartitionItems = 20;
constexpr int kOtherItems = 1'000'000;  // of 1 KB, written after the partitions by query-files

// The key of item `n` of table `table` (the partitions' table is 7).
std::string Key(uint64_t n, uint64_t table = 7) {
  char key[64];
  const uint64_t hash = n * 0x9E3779B97F4A7C15ULL;
  std::memcpy(key, &table, 8);
  std::memcpy(key + 8, &hash, 8);
  const int text =
      std::snprintf(key + 16, sizeof key - 16, "item#%llu", static_cast<unsigned long long>(n));
  return std::string(key, 16 + static_cast<size_t>(text));
}

// The 16-byte prefix of a partition's keys (table id, partition hash).
std::string PartitionPrefix(uint64_t partition) {
  char prefix[16];
  const uint64_t table = 7, hash = partition * 0x9E3779B97F4A7C15ULL;
  std::memcpy(prefix, &table, 8);
  std::memcpy(prefix + 8, &hash, 8);
  return std::string(prefix, 16);
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

void Check(const rocksdb::Status& status) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    std::exit(1);
  }
}

// Returns once no flush or compaction is running or due.
void WaitUntilIdle(rocksdb::DB& db) {
  for (;;) {
    uint64_t busy = 0, value = 0;
    for (const char* property : {"rocksdb.mem-table-flush-pending", "rocksdb.num-running-flushes",
                                 "rocksdb.compaction-pending", "rocksdb.num-running-compactions"}) {
      if (db.GetIntProperty(property, &value)) busy += value;
    }
    if (busy == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: storage_floor DIR get|put|batch|query|query-files SECONDS VALUE_BYTES\n");
    return 2;
  }
  const std::string workload = argv[2];
  const double seconds = std::atof(argv[3]);
  std::string value;
  while (value.size() < static_cast<size_t>(std::atoi(argv[4]))) {
    value += "abcdefghijklmnopqrstuvwxyz012345";
  }
  value.resize(static_cast<size_t>(std::atoi(argv[4])));

  rocksdb::Options options;
  options.create_if_missing = true;
  options.max_background_jobs = 2;
  options.write_buffer_size = 32 << 20;
  options.memtable_prefix_bloom_size_ratio = 0.02;
  options.memtable_whole_key_filtering = true;
  options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(16));
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(64 << 20);
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table.whole_key_filtering = false;
  table.cache_index_and_filter_blocks = true;
  table.index_type = rocksdb::BlockBasedTableOptions::IndexType::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.pin_top_level_index_and_filter = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  Check(rocksdb::DB::Open(options, argv[1], &raw));
  std::unique_ptr<rocksdb::DB> db(raw);
  const rocksdb::WriteOptions write;
  const rocksdb::ReadOptions read;
  const bool query = workload == "query" || workload == "query-files";
  if (query) {
    for (int partition = 0; partition < kPartitions; ++partition) {
      for (int n = 0; n < kPartitionItems; ++n) {
        Check(db->Put(write, PartitionPrefix(partition) + "pk" + std::to_string(100 + n), value));
      }
    }
  } else {
    for (int n = 0; n < kPreloaded; ++n) Check(db->Put(write, Key(n), value));
  }
  if (workload == "query-files") {
    const std::string other(1024, 'x');
    for (int n = 0; n < kOtherItems; ++n) Check(db->Put(write, Key(n, 8), other));
    WaitUntilIdle(*db);
  }

  std::mt19937_64 random(42);
  uint64_t next_key = kPreloaded, operations = 0;
  rocksdb::PinnableSlice found;
  const double cpu_before = CpuSeconds();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 100; ++i) {
      if (workload == "get") {
        found.Reset();
        Check(db->Get(read, db->DefaultColumnFamily(), Key(random() % kPreloaded), &found));
        ++operations;
      } else if (workload == "put") {
        const std::string key = Key(next_key++);
        found.Reset();
        if (!db->Get(read, db->DefaultColumnFamily(), key, &found).IsNotFound()) return 1;
        Check(db->Put(write, key, value));
        ++operations;
      } else if (query) {
        const std::string lower = PartitionPrefix(random() % kPartitions);
        std::string upper = lower;
        upper.back() = static_cast<char>(upper.back() + 1);  // the hash's low byte, wrapping aside
        if (upper < lower) continue;
        rocksdb::ReadOptions bounded;
        bounded.auto_prefix_mode = true;
        const rocksdb::Slice lower_bound(lower), upper_bound(upper);
        bounded.iterate_lower_bound = &lower_bound;
        bounded.iterate_upper_bound = &upper_bound;
        std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(bounded));
        int seen = 0;
        for (it->Seek(lower_bound); it->Valid(); it->Next()) {
          std::string copy(it->value().data(), it->value().size());
          seen += copy.size() > 0;
        }
        if (seen != kPartitionItems) return 1;
        ++operations;
      } else {
        rocksdb::WriteBatch batch;
        for (int item = 0; item < 25; ++item) {
          const std::string key = Key(next_key++);
          found.Reset();
          if (!db->Get(read, db->DefaultColumnFamily(), key, &found).IsNotFound()) return 1;
          Check(batch.Put(key, value));
        }
        Check(db->Write(write, &batch));
        operations += 25;
      }
    }
  }
  const double cpu = CpuSeconds() - cpu_before;
  std::printf("%s %zu B: %llu operations, %.2f us CPU each\n", workload.c_str(), value.size(),
              static_cast<unsigned long long>(operations),
              cpu / static_cast<double>(operations) * 1e6);
  return 0;
}
