// The control API's namespace paths: list, describe, drop.
#include <map>

#include "server/control/handlers.h"
#include "server/op_context.h"
#include "server/ops/transient_status.h"
#include "wire/json_writer.h"

namespace ddbd::server::control {
namespace {

struct NamespaceSummary {
  std::vector<std::string> tables;  // in ascending byte order (the catalog's)
  int64_t item_count = 0;
  int64_t snapshot_count = 0;
};

// Every namespace holding a table or a snapshot, by scope, plus the default one (always
// there). A namespace whose tables were dropped but whose snapshots remain is still listed:
// it can be restored.
Result<std::map<std::string, NamespaceSummary>> Summaries(Service& service) {
  std::map<std::string, NamespaceSummary> summaries;
  summaries[""];
  for (const auto& table : service.catalog().AllTables()) {
    NamespaceSummary& summary = summaries[table->scope];
    summary.tables.push_back(table->name);
    summary.item_count += service.db().Stats(table->id).item_count;
  }
  DDBD_ASSIGN_OR_RETURN(std::vector<storage::SnapshotRecord> snapshots, service.db().Snapshots());
  for (const storage::SnapshotRecord& snapshot : snapshots) {
    ++summaries[snapshot.scope].snapshot_count;
  }
  return summaries;
}

void WriteSummary(wire::JsonWriter& out, std::string_view scope, const NamespaceSummary& summary) {
  out.Key("Name").String(Service::NamespaceOfScope(scope));
  out.Key("TableCount").Int(static_cast<int64_t>(summary.tables.size()));
  out.Key("ItemCount").Int(summary.item_count);
  out.Key("SnapshotCount").Int(summary.snapshot_count);
}

}  // namespace

Result<std::string> ListNamespaces(Service& service) {
  DDBD_ASSIGN_OR_RETURN(auto summaries, Summaries(service));
  // By name as shown ("default" among the others, not first because its scope is "").
  std::map<std::string, std::map<std::string, NamespaceSummary>::const_iterator> by_name;
  for (auto it = summaries.cbegin(); it != summaries.cend(); ++it) {
    by_name.emplace(Service::NamespaceOfScope(it->first), it);
  }
  wire::JsonWriter out;
  out.BeginObject().Key("Namespaces").BeginArray();
  for (const auto& [name, entry] : by_name) {
    out.BeginObject();
    WriteSummary(out, entry->first, entry->second);
    out.EndObject();
  }
  out.EndArray().EndObject();
  return out.Take();
}

Result<std::string> DescribeNamespace(Service& service, std::string_view name) {
  DDBD_ASSIGN_OR_RETURN(std::string scope, Service::ScopeOfNamespace(name));
  DDBD_ASSIGN_OR_RETURN(auto summaries, Summaries(service));
  const NamespaceSummary summary = summaries[scope];  // empty when never used
  wire::JsonWriter out;
  out.BeginObject();
  WriteSummary(out, scope, summary);
  out.Key("Tables").BeginArray();
  for (const std::string& table_name : summary.tables) out.String(table_name);
  out.EndArray().EndObject();
  return out.Take();
}

Result<int64_t> DropNamespaceTables(Service& service, const std::string& scope) {
  OpContext ctx(service, scope, service.options().default_region);
  int64_t dropped_count = 0;
  for (const std::string& table_name : service.catalog().ListNames(scope)) {
    auto table = service.catalog().Find(scope, table_name);
    if (!table) continue;  // deleted meanwhile
    Status dropped = ops::DropTable(ctx, *table);
    if (!dropped.ok() && dropped.error().code() != ErrorCode::kResourceNotFound) {
      return dropped.error();
    }
    if (dropped.ok()) ++dropped_count;
  }
  return dropped_count;
}

// Each table goes as DeleteTable's does, whatever its status or deletion protection: a test
// resetting its namespace means all of it. Its backups go too; its snapshots stay (they are
// how a namespace comes back).
Result<std::string> DeleteNamespace(Service& service, std::string_view name) {
  DDBD_ASSIGN_OR_RETURN(std::string scope, Service::ScopeOfNamespace(name));
  DDBD_ASSIGN_OR_RETURN(int64_t tables_deleted, DropNamespaceTables(service, scope));
  DDBD_ASSIGN_OR_RETURN(std::vector<storage::BackupRecord> backups, service.db().Backups(scope));
  for (const storage::BackupRecord& backup : backups) {
    DDBD_RETURN_IF_ERROR(service.db().DeleteBackup(scope, backup.id));
  }
  wire::JsonWriter out;
  out.BeginObject().Key("Name").String(Service::NamespaceOfScope(scope));
  out.Key("TablesDeleted").Int(tables_deleted);
  out.Key("BackupsDeleted").Int(static_cast<int64_t>(backups.size()));
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::control
