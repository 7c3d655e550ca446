// The control API's snapshots: save a namespace, list, delete, restore it, fork it into
// another namespace. A snapshot keeps each table's definition (keys, indexes, billing, stream
// and TTL settings) and a raw copy of its data under fresh ids (Database::CloneTable: items,
// index entries, item collections, statistics, as of one moment); restoring copies them back
// under the new table's ids. Tables with vector indexes are restored through the write path
// instead, so that their in-memory graphs are filled as for any write.
#include <algorithm>
#include <mutex>

#include "backups/restore.h"
#include "model/log.h"
#include "model/utf8.h"
#include "server/control/handlers.h"
#include "server/op_context.h"
#include "server/ops/transient_status.h"
#include "wire/json_writer.h"

namespace ddbd::server::control {
namespace {

// Snapshot changes and restores are serialised, so two of them never interleave on one
// namespace; requests to tables are not blocked by it.
std::mutex& SnapshotMutex() {
  static std::mutex mutex;
  return mutex;
}

Status CheckSnapshotName(std::string_view name) {
  Result<std::string> checked = Service::ScopeOfNamespace(name);
  if (!checked.ok()) {
    return Error::Validation("Invalid snapshot name '" + QuotableUtf8(name, 64) +
                             "': a snapshot name is 1 to 64 characters of A-Z, a-z, 0-9, '_', "
                             "'.' and '-'");
  }
  return OkStatus();
}

Result<std::optional<storage::SnapshotRecord>> FindSnapshot(Service& service,
                                                            std::string_view scope,
                                                            std::string_view name) {
  DDBD_ASSIGN_OR_RETURN(std::vector<storage::SnapshotRecord> all, service.db().Snapshots());
  for (storage::SnapshotRecord& snapshot : all) {
    if (snapshot.scope == scope && snapshot.name == name) return {std::move(snapshot)};
  }
  return std::optional<storage::SnapshotRecord>();
}

Result<storage::SnapshotRecord> RequireSnapshot(Service& service, std::string_view scope,
                                                std::string_view name) {
  DDBD_ASSIGN_OR_RETURN(std::optional<storage::SnapshotRecord> found,
                        FindSnapshot(service, scope, name));
  if (!found) {
    return Error::ControlNotFound("No snapshot '" + QuotableUtf8(name, 64) + "' of namespace '" +
                                  Service::NamespaceOfScope(scope) + "'");
  }
  return std::move(*found);
}

// A saved table's copy: its definition with the copy's ids (its streams are the live
// table's, kept only for their settings).
Status DropSnapshotItems(Service& service, const storage::SnapshotRecord& snapshot) {
  for (const storage::BackupRecord& table : snapshot.tables) {
    TableDef copy = table.source;
    copy.streams.clear();
    copy.kinesis_destinations.clear();
    DDBD_RETURN_IF_ERROR(service.db().DropTableData(copy));
  }
  return OkStatus();
}

// Drops the data of `copies`' tables, then their record among the unowned copies.
Status ReleaseCopies(Service& service, const storage::SnapshotRecord& copies) {
  DDBD_RETURN_IF_ERROR(DropSnapshotItems(service, copies));
  return service.db().DeleteUnownedCopies(copies.scope, copies.name);
}

// Releases copies of (scope, name) still unowned because an earlier release failed, before
// a save or a delete of that snapshot writes its own unowned-copies record over them.
Status ReleaseEarlierCopies(Service& service, std::string_view scope, std::string_view name) {
  DDBD_ASSIGN_OR_RETURN(std::vector<storage::SnapshotRecord> unowned, service.db().UnownedCopies());
  for (const storage::SnapshotRecord& copies : unowned) {
    if (copies.scope == scope && copies.name == name) {
      DDBD_RETURN_IF_ERROR(ReleaseCopies(service, copies));
    }
  }
  return OkStatus();
}

// `table` with fresh ids for itself and its indexes: where its copy is kept.
Result<TableDef> CopyDefinition(Service& service, const TableDef& table) {
  TableDef copy = table;
  copy.pitr_history_id = 0;           // the history stays the live table's
  copy.kinesis_destinations.clear();  // and so do its Kinesis destinations
  DDBD_ASSIGN_OR_RETURN(copy.id, service.catalog().AllocateId());
  for (IndexDef& index : copy.indexes) {
    DDBD_ASSIGN_OR_RETURN(index.id, service.catalog().AllocateId());
  }
  return copy;
}

bool HasVectorIndex(const TableDef& table) {
  return std::any_of(table.indexes.begin(), table.indexes.end(),
                     [](const IndexDef& index) { return index.IsVector(); });
}

void WriteSnapshot(wire::JsonWriter& out, const storage::SnapshotRecord& snapshot) {
  int64_t items = 0, bytes = 0;
  for (const storage::BackupRecord& table : snapshot.tables) {
    items += table.item_count;
    bytes += table.size_bytes;
  }
  out.BeginObject().Key("Namespace").String(Service::NamespaceOfScope(snapshot.scope));
  out.Key("Name").String(snapshot.name);
  out.Key("CreationDateTime").EpochSeconds(snapshot.created_ms);
  out.Key("TableCount").Int(static_cast<int64_t>(snapshot.tables.size()));
  out.Key("ItemCount").Int(items);
  out.Key("SizeBytes").Int(bytes);
  out.EndObject();
}

std::string RenderSnapshot(const storage::SnapshotRecord& snapshot) {
  wire::JsonWriter out;
  WriteSnapshot(out, snapshot);
  return out.Take();
}

// The definition of `saved` as a live table of `scope`: CREATING (invisible) until its items
// are in, marked as a restore so that a crash meanwhile rolls it back at the next start, and
// without a stream while its items are written (restored items are not changes); its TTL
// settings kept, the expiry keyspace rebuilt afterwards.
TableDef LiveDefinition(const storage::BackupRecord& saved, const std::string& scope,
                        int64_t now_ms) {
  TableDef definition = saved.source;
  definition.scope = scope;
  definition.status = TableStatus::kCreating;
  definition.restored_from = TableRestoreSource{"snapshot", definition.Arn(), now_ms};
  definition.ttl_indexed = false;
  for (IndexDef& index : definition.indexes) {
    index.status = IndexStatus::kActive;
    index.backfilling = false;
  }
  definition.streams.clear();
  return definition;
}

// The stream the restored table gets once its items are in: a new one (its records are not
// part of a snapshot) with the saved one's view type, if it was enabled.
Result<std::optional<StreamSpec>> NewStream(Service& service, const storage::BackupRecord& saved,
                                            int64_t now_ms) {
  const std::vector<StreamSpec>& streams = saved.source.streams;
  if (streams.empty() || !streams.back().enabled) return std::optional<StreamSpec>();
  StreamSpec stream = streams.back();
  DDBD_ASSIGN_OR_RETURN(stream.id, service.catalog().AllocateId());
  stream.created_ms = now_ms;
  return std::optional<StreamSpec>(stream);
}

Status RestoreTable(Service& service, OpContext& ctx, const storage::BackupRecord& saved) {
  DDBD_ASSIGN_OR_RETURN(std::optional<StreamSpec> stream, NewStream(service, saved, ctx.NowMs()));
  DDBD_ASSIGN_OR_RETURN(auto created,
                        service.catalog().Create(LiveDefinition(saved, ctx.scope(), ctx.NowMs())));
  // Point-in-time recovery starts over with a history of its own, from the restore.
  uint64_t history = 0;
  if (saved.source.pitr_enabled_ms != 0) {
    DDBD_ASSIGN_OR_RETURN(history, service.catalog().AllocateId());
  }
  auto fill = [&]() -> Status {
    if (HasVectorIndex(saved.source)) {
      DDBD_RETURN_IF_ERROR(backups::RestoreItems(service.db(), saved, *created));
    } else {
      DDBD_ASSIGN_OR_RETURN(storage::TableStats copied,
                            service.db().CloneTable(saved.source, *created));
      (void)copied;  // the statistics are written with the copy
    }
    auto activated = service.catalog().Modify(created->id, [&](TableDef& complete) {
      complete.status = TableStatus::kActive;
      complete.restored_from = saved.source.restored_from;
      if (history != 0) {
        complete.pitr_enabled_ms = ctx.NowMs();
        complete.pitr_history_id = history;
      }
      if (stream) complete.streams.push_back(*stream);
      return OkStatus();
    });
    return activated.ok() ? OkStatus() : Status(activated.error());
  };
  if (Status filled = fill(); !filled.ok()) {
    ops::DropTable(ctx, *created).IgnoreError();  // no half-restored table is left behind
    return filled;
  }
  if (created->ttl_attribute) service.ttl().IndexTable(created->id);
  return OkStatus();
}

// Replaces every table of `scope` with the snapshot's.
Result<std::string> RestoreInto(Service& service, const storage::SnapshotRecord& snapshot,
                                const std::string& scope) {
  DDBD_ASSIGN_OR_RETURN(int64_t dropped, DropNamespaceTables(service, scope));
  (void)dropped;  // the answer names the snapshot, not what it replaced
  OpContext ctx(service, scope, service.options().default_region);
  for (const storage::BackupRecord& table : snapshot.tables) {
    DDBD_RETURN_IF_ERROR(RestoreTable(service, ctx, table));
  }
  wire::JsonWriter out;
  out.BeginObject().Key("Namespace").String(Service::NamespaceOfScope(scope));
  out.Key("Snapshot");
  WriteSnapshot(out, snapshot);
  out.EndObject();
  return out.Take();
}

}  // namespace

Result<std::string> SaveSnapshot(Service& service, std::string_view name_space,
                                 std::string_view name) {
  DDBD_ASSIGN_OR_RETURN(std::string scope, Service::ScopeOfNamespace(name_space));
  DDBD_RETURN_IF_ERROR(CheckSnapshotName(name));
  std::lock_guard lock(SnapshotMutex());
  DDBD_RETURN_IF_ERROR(ReleaseEarlierCopies(service, scope, name));
  storage::SnapshotRecord snapshot{scope, std::string(name), service.clock().NowMs(), {}};
  // Each copy is named among the unowned copies before its data is written, and the copies
  // become the snapshot's in one batch with the replaced snapshot's becoming unowned: a
  // crash leaves nothing stored that no record names (DropUnownedSnapshotCopies).
  auto drop_partial = [&] { ReleaseCopies(service, snapshot).IgnoreError(); };
  for (const std::string& table_name : service.catalog().ListNames(scope)) {
    auto table = service.catalog().Find(scope, table_name);
    if (!table || table->status == TableStatus::kCreating) continue;  // not there yet
    Result<TableDef> copy = CopyDefinition(service, *table);
    if (!copy.ok()) return drop_partial(), copy.error();
    snapshot.tables.push_back({copy->id, table->name, snapshot.created_ms, 0, 0, *copy});
    if (Status named = service.db().PutUnownedCopies(snapshot); !named.ok()) {
      return drop_partial(), named.error();
    }
    Result<storage::TableStats> copied = service.db().CloneTable(*table, *copy);
    if (!copied.ok()) return drop_partial(), copied.error();
    snapshot.tables.back().item_count = copied->item_count;
    snapshot.tables.back().size_bytes = copied->size_bytes;
  }
  DDBD_ASSIGN_OR_RETURN(std::optional<storage::SnapshotRecord> replaced,
                        FindSnapshot(service, scope, name));
  if (Status committed = service.db().CommitSnapshot(
          scope, name, snapshot,
          replaced ? replaced->tables : std::vector<storage::BackupRecord>{});
      !committed.ok()) {
    return drop_partial(), committed.error();
  }
  if (replaced) ReleaseCopies(service, *replaced).IgnoreError();  // else the next start does
  return RenderSnapshot(snapshot);
}

void DropUnownedSnapshotCopies(Service& service) {
  Result<std::vector<storage::SnapshotRecord>> unowned = service.db().UnownedCopies();
  if (!unowned.ok()) return;  // the next start tries again
  for (const storage::SnapshotRecord& copies : *unowned) {
    log::Warning("dropping the copies of %zu tables that no snapshot owns (snapshot %s)",
                 copies.tables.size(), copies.name.c_str());
    ReleaseCopies(service, copies).IgnoreError();  // the next start tries again
  }
}

Result<std::string> ListSnapshots(Service& service) {
  DDBD_ASSIGN_OR_RETURN(std::vector<storage::SnapshotRecord> all, service.db().Snapshots());
  wire::JsonWriter out;
  out.BeginObject().Key("Snapshots").BeginArray();
  for (const storage::SnapshotRecord& snapshot : all) WriteSnapshot(out, snapshot);
  out.EndArray().EndObject();
  return out.Take();
}

Result<std::string> DeleteSnapshot(Service& service, std::string_view name_space,
                                   std::string_view name) {
  DDBD_ASSIGN_OR_RETURN(std::string scope, Service::ScopeOfNamespace(name_space));
  std::lock_guard lock(SnapshotMutex());
  DDBD_ASSIGN_OR_RETURN(storage::SnapshotRecord snapshot, RequireSnapshot(service, scope, name));
  DDBD_RETURN_IF_ERROR(ReleaseEarlierCopies(service, scope, name));
  DDBD_RETURN_IF_ERROR(service.db().CommitSnapshot(scope, name, std::nullopt, snapshot.tables));
  DDBD_RETURN_IF_ERROR(ReleaseCopies(service, snapshot));
  return RenderSnapshot(snapshot);
}

Result<std::string> RestoreSnapshot(Service& service, std::string_view name_space,
                                    std::string_view name) {
  DDBD_ASSIGN_OR_RETURN(std::string scope, Service::ScopeOfNamespace(name_space));
  std::lock_guard lock(SnapshotMutex());
  DDBD_ASSIGN_OR_RETURN(storage::SnapshotRecord snapshot, RequireSnapshot(service, scope, name));
  return RestoreInto(service, snapshot, scope);
}

Result<std::string> ForkSnapshot(Service& service, std::string_view name_space,
                                 std::string_view name, const ControlBody& body) {
  DDBD_ASSIGN_OR_RETURN(std::string scope, Service::ScopeOfNamespace(name_space));
  std::optional<std::string_view> to;
  if (body) {
    auto member = wire::Member(*body, "To");
    std::string_view text;
    if (member && member->get_string().get(text) == simdjson::SUCCESS) to = text;
  }
  if (!to || !body || wire::MemberCount(*body) != 1) {
    return Error::Validation("fork takes {\"To\": \"<namespace>\"}");
  }
  DDBD_ASSIGN_OR_RETURN(std::string target, Service::ScopeOfNamespace(*to));
  std::lock_guard lock(SnapshotMutex());
  DDBD_ASSIGN_OR_RETURN(storage::SnapshotRecord snapshot, RequireSnapshot(service, scope, name));
  if (!service.catalog().ListNames(target).empty()) {
    return Error::ResourceInUse("Namespace '" + std::string(*to) +
                                "' has tables: fork makes a new namespace (delete it first, or "
                                "restore a snapshot of its own)");
  }
  return RestoreInto(service, snapshot, target);
}

}  // namespace ddbd::server::control
