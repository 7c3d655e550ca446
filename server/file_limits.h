// The process's file-descriptor budget, split between storage and connections so that idle
// connections can never take the descriptors RocksDB needs to open its files.
// Entry points: RaiseOpenFileLimit (start-up), SplitFileLimit (pure).
#pragma once

#include <cstdint>

namespace ddbd::server {

struct FileBudget {
  int storage_files = 0;    // RocksDB's max_open_files (table files kept open)
  int max_connections = 0;  // the default of --max-connections
};

// Descriptors kept for everything else: the WAL, MANIFEST, LOG and directories, vector
// graph files, the listening socket, and the connections being refused.
inline constexpr int kSpareFiles = 64;
inline constexpr int kMaxStorageFiles = 512;
inline constexpr int kMaxDefaultConnections = 4096;

// For a limit of `open_files` descriptors: a quarter for RocksDB's table files (16 to 512),
// kSpareFiles spare, the rest for connections (at least 1, at most 4,096).
FileBudget SplitFileLimit(uint64_t open_files);

// Raises the soft RLIMIT_NOFILE to the hard limit (at most 1,048,576), as many servers do;
// returns the soft limit then in force.
uint64_t RaiseOpenFileLimit();

}  // namespace ddbd::server
