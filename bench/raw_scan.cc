// The storage limit of a Scan: iterates every entry of ddbd's "items" column family of the
// database at argv[1] (opened read-only, the server stopped), as fast as RocksDB can, and
// prints "<entries> <key+value bytes> <seconds>". bench/scale.py builds and runs it:
//   c++ -O2 -std=c++17 bench/raw_scan.cc -lrocksdb -o raw_scan && ./raw_scan DATA_DIR/db
#include <rocksdb/db.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: raw_scan DB_DIR\n");
    return 2;
  }
  rocksdb::Options options;
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {"items", rocksdb::ColumnFamilyOptions()}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status = rocksdb::DB::OpenForReadOnly(options, argv[1], families, &handles, &raw);
  if (!status.ok()) {
    std::fprintf(stderr, "open: %s\n", status.ToString().c_str());
    return 1;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  const auto started = std::chrono::steady_clock::now();
  uint64_t entries = 0, bytes = 0;
  {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), handles[1]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ++entries;
      bytes += it->key().size() + it->value().size();
    }
    if (!it->status().ok()) {
      std::fprintf(stderr, "scan: %s\n", it->status().ToString().c_str());
      return 1;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%llu %llu %.6f\n", static_cast<unsigned long long>(entries),
              static_cast<unsigned long long>(bytes), seconds);
  for (rocksdb::ColumnFamilyHandle* handle : handles) db->DestroyColumnFamilyHandle(handle);
  return 0;
}
