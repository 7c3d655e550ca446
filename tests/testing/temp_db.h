// TempDb: a fresh on-disk database (and its catalog) per test, for the suites of storage and
// of the modules built on it.
#pragma once

#include <filesystem>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "storage/catalog.h"
#include "storage/database.h"
#include "tests/testing/assertions.h"

namespace ddbd::testing {

// A database in a fresh temporary directory, removed when the TempDb goes away.
class TempDb {
 public:
  TempDb() {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("ddbd-test-" + std::to_string(random()) + std::to_string(random()));
    Reopen();
  }
  ~TempDb() {
    catalog_.reset();
    db_.reset();
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  // Closes and reopens the same directory, as a restart would (the write parts added are
  // registered again).
  void Reopen() {
    catalog_.reset();
    db_.reset();
    auto db = storage::Database::Open({path_.string(), false});
    if (!db.ok()) throw std::runtime_error(db.error().message());
    db_ = std::move(db).value();
    for (const storage::WritePart* part : parts_) db_->AddWritePart(part);
    auto catalog = storage::Catalog::Load(*db_);
    if (!catalog.ok()) throw std::runtime_error(catalog.error().message());
    catalog_ = std::move(catalog).value();
  }
  // Registers a write part now and at every reopen. REQUIRES: `part` outlives the TempDb.
  void AddWritePart(const storage::WritePart* part) {
    parts_.push_back(part);
    db_->AddWritePart(part);
  }
  storage::Database& db() { return *db_; }
  storage::Catalog& catalog() { return *catalog_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<storage::Catalog> catalog_;
  std::vector<const storage::WritePart*> parts_;
};

}  // namespace ddbd::testing
