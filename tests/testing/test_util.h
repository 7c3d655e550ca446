// Test helpers shared by the GoogleTest suites: Result assertions and a fresh on-disk
// database per test.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "model/result.h"
#include "storage/catalog.h"
#include "storage/database.h"

#define DDBD_TEST_CONCAT_INNER_(a, b) a##b
#define DDBD_TEST_CONCAT_(a, b) DDBD_TEST_CONCAT_INNER_(a, b)

#define ASSERT_OK(expr)                                              \
  do {                                                               \
    const auto& ddbd_status_ = (expr);                               \
    ASSERT_TRUE(ddbd_status_.ok()) << ddbd_status_.error().message(); \
  } while (false)

#define ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr)          \
  auto tmp = (expr);                                        \
  ASSERT_TRUE(tmp.ok()) << std::move(tmp).error().message(); \
  lhs = std::move(tmp).value()

#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(DDBD_TEST_CONCAT_(ddbd_result_, __LINE__), lhs, expr)

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
  // Closes and reopens the same directory, as a restart would.
  void Reopen() {
    catalog_.reset();
    db_.reset();
    auto db = storage::Database::Open({path_.string(), false});
    if (!db.ok()) throw std::runtime_error(db.error().message());
    db_ = std::move(db).value();
    auto catalog = storage::Catalog::Load(*db_);
    if (!catalog.ok()) throw std::runtime_error(catalog.error().message());
    catalog_ = std::move(catalog).value();
  }
  storage::Database& db() { return *db_; }
  storage::Catalog& catalog() { return *catalog_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<storage::Catalog> catalog_;
};

}  // namespace ddbd::testing
