// Catalog: in-memory index of table definitions over Database's catalog records.
#include "storage/catalog.h"

#include <mutex>

namespace ddbd::storage {

Result<std::unique_ptr<Catalog>> Catalog::Load(Database& db) {
  std::unique_ptr<Catalog> catalog(new Catalog(db));
  DDBD_ASSIGN_OR_RETURN(std::vector<TableDef> tables, db.LoadTables());
  for (auto& table : tables) {
    Key key{table.scope, table.name};
    auto stored = std::make_shared<const TableDef>(std::move(table));
    catalog->by_id_.emplace(stored->id, stored);
    catalog->tables_.emplace(std::move(key), std::move(stored));
  }
  return catalog;
}

std::shared_ptr<const TableDef> Catalog::Find(std::string_view scope, std::string_view name) const {
  std::shared_lock lock(mutex_);
  auto it = tables_.find(Key{std::string(scope), std::string(name)});
  return it == tables_.end() ? nullptr : it->second;
}

Result<std::shared_ptr<const TableDef>> Catalog::Create(TableDef table) {
  std::unique_lock lock(mutex_);
  Key key{table.scope, table.name};
  if (tables_.count(key)) {
    return Error::ResourceInUse("Table already exists: " + table.name);
  }
  DDBD_ASSIGN_OR_RETURN(table.id, db_.AllocateTableId());
  for (auto& index : table.indexes) {
    DDBD_ASSIGN_OR_RETURN(index.id, db_.AllocateTableId());
  }
  DDBD_RETURN_IF_ERROR(db_.PutTable(table));
  auto stored = std::make_shared<const TableDef>(std::move(table));
  by_id_.emplace(stored->id, stored);
  tables_.emplace(std::move(key), stored);
  return stored;
}

Result<std::shared_ptr<const TableDef>> Catalog::Modify(
    uint64_t table_id, const std::function<Status(TableDef&)>& change) {
  std::unique_lock lock(mutex_);
  auto by_id = by_id_.find(table_id);
  if (by_id == by_id_.end()) return Error::ResourceNotFound();
  TableDef table = *by_id->second;
  DDBD_RETURN_IF_ERROR(change(table));
  DDBD_RETURN_IF_ERROR(db_.PutTable(table));
  auto stored = std::make_shared<const TableDef>(std::move(table));
  tables_[Key{stored->scope, stored->name}] = stored;
  by_id->second = stored;
  return stored;
}

Status Catalog::Drop(const TableDef& table) {
  std::unique_lock lock(mutex_);
  auto it = tables_.find(Key{table.scope, table.name});
  if (it == tables_.end() || it->second->id != table.id) {
    return Error::ResourceNotFound("Requested resource not found: Table: " + table.name +
                                   " not found");
  }
  DDBD_RETURN_IF_ERROR(db_.DropTable(*it->second));
  by_id_.erase(table.id);
  tables_.erase(it);
  return OkStatus();
}

std::shared_ptr<const TableDef> Catalog::FindById(uint64_t table_id) const {
  std::shared_lock lock(mutex_);
  auto it = by_id_.find(table_id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<std::string> Catalog::ListNames(std::string_view scope) const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> names;
  for (auto it = tables_.lower_bound(Key{std::string(scope), std::string()});
       it != tables_.end() && it->first.first == scope; ++it) {
    names.push_back(it->first.second);
  }
  return names;
}

std::vector<std::shared_ptr<const TableDef>> Catalog::AllTables() const {
  std::shared_lock lock(mutex_);
  std::vector<std::shared_ptr<const TableDef>> tables;
  for (const auto& [key, table] : tables_) tables.push_back(table);
  return tables;
}

}  // namespace ddbd::storage
