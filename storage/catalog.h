// Catalog: the tables that exist, by isolation scope and name, kept in memory and persisted
// through Database. Table definitions are immutable snapshots (shared_ptr<const TableDef>);
// a change replaces the snapshot, so a request keeps a consistent view while it runs.
//
// Entry points: Load, Find, Create, Modify, Drop, ListNames. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/result.h"
#include "model/table_def.h"
#include "storage/database.h"

namespace ddbd::storage {

class Catalog {
 public:
  static Result<std::unique_ptr<Catalog>> Load(Database& db);

  // nullptr when no such table exists in `scope`.
  std::shared_ptr<const TableDef> Find(std::string_view scope, std::string_view name) const;
  // The current definition of the table with this storage id; nullptr when dropped.
  std::shared_ptr<const TableDef> FindById(uint64_t table_id) const;
  // A fresh storage id (for an index added to an existing table).
  Result<uint64_t> AllocateId() { return db_.AllocateTableId(); }
  // Assigns the ids of the table and its indexes and stores the table.
  // ResourceInUseException if the name is taken.
  Result<std::shared_ptr<const TableDef>> Create(TableDef table);
  // Read-modify-write of the table with this id, atomic with respect to every other change
  // of the catalog (background backfills, delayed status changes, concurrent requests):
  // `change` edits a copy of the current definition, which is stored unless it fails.
  // ResourceNotFoundException when the table is gone.
  Result<std::shared_ptr<const TableDef>> Modify(uint64_t table_id,
                                                 const std::function<Status(TableDef&)>& change);
  // Removes the table and all its items.
  Status Drop(const TableDef& table);
  // Every table of every scope.
  std::vector<std::shared_ptr<const TableDef>> AllTables() const;
  // Table names of `scope` in ascending byte order.
  std::vector<std::string> ListNames(std::string_view scope) const;

 private:
  explicit Catalog(Database& db) : db_(db) {}
  using Key = std::pair<std::string, std::string>;  // scope, name

  Database& db_;
  mutable std::shared_mutex mutex_;
  std::map<Key, std::shared_ptr<const TableDef>, std::less<>> tables_;
  std::unordered_map<uint64_t, std::shared_ptr<const TableDef>> by_id_;
};

}  // namespace ddbd::storage
