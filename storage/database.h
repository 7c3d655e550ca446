// Database: ddbd's RocksDB store — the only module that includes RocksDB or builds its keys
// (layout in storage/FORMAT.md). One class, implemented by concern the way RocksDB splits
// its DBImpl: database_open.cc (open, tuning, health, flush), catalog_store.cc (table
// records, ids, drops), statistics.cc (live item counts and sizes), write_path.cc
// (WriteItems and backfills), cursors.cc (ordered reads of items and index entries),
// stream_store.cc, backup_store.cc and expiry_store.cc.
//
// Callers speak in typed keys (PrimaryKey, index key values, StartKey); storage encodes them.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/attribute_value.h"
#include "model/clock.h"
#include "model/key_range.h"
#include "model/result.h"
#include "model/table_def.h"
#include "storage/backup_record.h"
#include "storage/stream_record.h"
#include "storage/write.h"

namespace ddbd::storage {

struct OpenOptions {
  std::string path;        // data directory; ignored when in_memory
  bool in_memory = false;  // everything in RAM, nothing on disk
  // Largest item collection (a partition's items plus their LSI entries) of a table with
  // local secondary indexes: DynamoDB's 10 GB, lowered in tests.
  int64_t item_collection_limit_bytes = int64_t{10} << 30;
  // Compact every column family before serving (DynamoDB Local's -optimizeDbBeforeStartup):
  // a slower start, then reads that find each key in the fewest files.
  bool compact_on_open = false;
  // The write-ahead log's bound: past it, the column families holding the oldest log's
  // writes are flushed so that log can go. Also bounds the replay at the next start.
  uint64_t max_wal_bytes = uint64_t{64} << 20;
  // Table files RocksDB keeps open at most (its max_open_files): bounded so that, with the
  // connections, the process stays within its file-descriptor limit.
  int max_open_files = 512;
  // The block cache, shared by every column family, which also holds the table files' index
  // and filter blocks: with the memtables' fixed budget, it bounds the memory the stored data
  // takes however large the store grows.
  uint64_t block_cache_bytes = uint64_t{64} << 20;
};

// Where an ordered read resumes: after the item with `table_key` (table reads), or after the
// index entry with this index key and `table_key` (index reads).
struct StartKey {
  PrimaryKey table_key;
  std::vector<AttributeValue> index_partition;
  std::vector<AttributeValue> index_sort;
};

// Ordered iteration over items or index entries. Not thread-safe; use from one thread.
class ItemCursor {
 public:
  virtual ~ItemCursor() = default;
  virtual bool Valid() const = 0;
  virtual void Next() = 0;
  // The current item (or index entry's projected attributes), decoded. REQUIRES: Valid().
  virtual Result<Item> item() const = 0;
  // The current entry as stored (for StoredItemSize and VisitStoredItem), valid until Next;
  // nullopt when the entry does not come from storage (an --gsi-lag-ms overlay's). Reads that
  // return whole items render them from this without decoding. REQUIRES: Valid().
  virtual std::optional<std::string_view> stored_encoding() const { return std::nullopt; }
  // An I/O error that ended the iteration early, if any.
  virtual Status status() const = 0;
};

// DynamoDB's size of a stored item (or index entry), read from its encoding's header.
// Fails on a corrupt record.
Result<size_t> StoredItemSize(std::string_view encoding);
// (VisitStoredItem, which hands a stored item's attributes to a sink without building the
// Item, is in storage/stored_item.h.)
// The item (or index entry's attributes) a stored encoding holds. Fails on a corrupt record.
Result<Item> DecodeStoredItem(std::string_view encoding);

// Writes a backfilled record for one item (an index entry, an expiry): `encoding` is the
// item's stored encoding.
using BackfillFunction =
    std::function<Status(const Item& item, std::string_view encoding, WriteBatchBuilder& batch)>;

// Index entries as a reader should see them instead of the stored ones (GSI propagation
// lag, index/gsi_lag.h): at an entry's storage key (Database::IndexEntryKeyOf), the entry to
// show there, or nullopt to hide what is stored there.
struct EntryOverlay {
  std::map<std::string, std::optional<Item>> entries;
};

class Database {
 public:
  static Result<std::unique_ptr<Database>> Open(const OpenOptions& options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Registers a subsystem that follows item writes (indexes, streams, Time to Live).
  // REQUIRES: called before any write; `part` outlives the database.
  void AddWritePart(const WritePart* part);
  // The clock whose reading is each WriteItems call's time (ItemChange::time_ms); the
  // system's by default. REQUIRES: called before any write; `clock` outlives the database.
  void SetClock(const Clock& clock);

  // ---- Catalog.
  Result<std::vector<TableDef>> LoadTables();
  Result<uint64_t> AllocateTableId();
  Status PutTable(const TableDef& table);
  // Removes the table's record, items, index entries, stream records, expiries and
  // statistics in O(1) (range deletions).
  Status DropTable(const TableDef& table);
  // The same without the table's record: the data kept under a definition that is not in the
  // catalog (a snapshot's copy of a table).
  Status DropTableData(const TableDef& table);
  // Copies the items, index entries, item collections and statistics of `from` to the ids of
  // `to`, as of one moment; index i of `from` goes to index i of `to`. Not atomic: a copy cut
  // short leaves data under `to`'s ids that DropTableData(to) removes. Returns the table's
  // count and size. REQUIRES: nothing is stored under `to`'s ids yet.
  Result<TableStats> CloneTable(const TableDef& from, const TableDef& to);
  // Removes one index's entries and statistics (the table record is the caller's).
  Status DropIndex(const TableDef& table, uint64_t index_id);

  // ---- Statistics of a table or of an index (by id): live, exact at every call.
  TableStats Stats(uint64_t id) const;

  // ---- Figures of the storage engine, for metrics: RocksDB's memtables, block cache,
  // compactions, table files and write-ahead log. `name` is a metric name without prefix.
  struct EngineFigure {
    std::string_view name;
    std::string_view help;
    uint64_t value = 0;
  };
  std::vector<EngineFigure> EngineFigures() const;

  // ---- Items.
  Result<std::optional<Item>> GetItem(const TableDef& table, const PrimaryKey& key);
  // The item's stored encoding (for StoredItemSize, VisitStoredItem and DecodeStoredItem), or
  // nullopt when there is none: reads that return whole items render it without decoding.
  Result<std::optional<std::string>> GetStoredItem(const TableDef& table, const PrimaryKey& key);
  // The write path, in phases: takes every item's lock (in one global order, so concurrent
  // calls cannot deadlock), reads the old images, runs each write's compute, lets every
  // registered part add its records, asks `verdict` (default: the first failure aborts),
  // commits everything in one batch, then runs the parts' after-commit notifications.
  // With a `checkpoint`, its record commits in the same batch (also when `writes` is empty).
  // REQUIRES: no two writes name the same item.
  Result<std::vector<WriteOutcome>> WriteItems(std::vector<ItemWrite> writes,
                                               const Verdict& verdict = nullptr,
                                               const JobCheckpoint* checkpoint = nullptr);
  // Items of one partition in sort-key order (`forward`) or reverse, within `range`, after
  // `start` when given.
  std::unique_ptr<ItemCursor> ScanPartition(const TableDef& table, const AttributeValue& partition,
                                            const SortKeyRange& range, bool forward,
                                            const std::optional<StartKey>& start = std::nullopt);
  // Items whose partition hash lies in [hash_begin, hash_end] (inclusive), in Scan order,
  // after `start` when given.
  std::unique_ptr<ItemCursor> ScanHashRange(const TableDef& table, uint64_t hash_begin,
                                            uint64_t hash_end,
                                            const std::optional<StartKey>& start);
  // A partition's position in Scan order, from its key values (one for a table, several
  // for a multi-attribute index key).
  static uint64_t PartitionHash(std::span<const AttributeValue> partition);
  // Runs `backfill` for up to `max_items` items of `table` that follow `after` (from the
  // first item when nullopt), each re-read under its lock, so that writes racing with the
  // backfill are never undone. Returns the key of the last item visited, or nullopt when the
  // table has no more items.
  Result<std::optional<PrimaryKey>> BackfillSlice(const TableDef& table,
                                                  const std::optional<PrimaryKey>& after,
                                                  size_t max_items,
                                                  const BackfillFunction& backfill);

  // ---- Index entries.
  // Entries of one index partition, in index sort-key order (or reverse); `sort_prefix`
  // fixes the leading sort attributes (multi-attribute keys), `range` bounds the next one.
  // With `overlay`, its entries replace or hide the stored ones within the bounds.
  std::unique_ptr<ItemCursor> ScanIndexPartition(uint64_t index_id,
                                                 const std::vector<AttributeValue>& partition,
                                                 const std::vector<AttributeValue>& sort_prefix,
                                                 const SortKeyRange& range, bool forward,
                                                 const std::optional<StartKey>& start,
                                                 const EntryOverlay* overlay = nullptr);
  // Entries of an index whose partition hash lies in [hash_begin, hash_end].
  std::unique_ptr<ItemCursor> ScanIndexHashRange(uint64_t index_id, uint64_t hash_begin,
                                                 uint64_t hash_end,
                                                 const std::optional<StartKey>& start,
                                                 const EntryOverlay* overlay = nullptr);
  // The storage key of an index entry: the order index reads visit entries in.
  static std::string IndexEntryKeyOf(const IndexEntry& entry);
  // A stored index entry (its projected attributes), or nullopt.
  Result<std::optional<Item>> GetIndexEntry(uint64_t index_id,
                                            const std::vector<AttributeValue>& partition,
                                            const std::vector<AttributeValue>& sort,
                                            const PrimaryKey& table_key);
  // Every stored entry of one index, in key order.
  Status ForEachIndexEntry(uint64_t index_id, const std::function<void(Item entry)>& visit);

  // ---- Streams. Records are appended by write parts, in the write's own batch.
  // Records of stream `stream_id` numbered above `after`, at most `limit` of them.
  Result<std::vector<StreamRecord>> ReadStream(uint64_t stream_id, uint64_t after, size_t limit);
  // The sequence numbers of a stream's first and last records; nullopt when it has none.
  Result<std::optional<std::pair<uint64_t, uint64_t>>> StreamBounds(uint64_t stream_id);
  // The number of the last record of any stream: a reader starting after it sees only
  // changes made from now on.
  uint64_t LastStreamSequence();
  // Removes the records of stream `stream_id` written before `before_ms`, and marks the last
  // one removed as the stream's trim point (in the same batch). Returns how many went.
  Result<uint64_t> TrimStream(uint64_t stream_id, int64_t before_ms);
  // Removes the records of stream `stream_id` numbered up to `last` and marks `last` as its
  // trim point, in one batch (a consumer's durable checkpoint: what it has delivered). False
  // when the trim point was there already.
  Result<bool> TrimStreamThrough(uint64_t stream_id, uint64_t last);
  // The sequence number of the last record retention removed from the stream (0: none): a
  // reader positioned before it has missed records (TrimmedDataAccessException).
  Result<uint64_t> StreamTrimPoint(uint64_t stream_id);

  // ---- Point-in-time recovery history: for each write of a table with PITR, the item as it
  // was before, at the write's time (appended by a write part, in the write's own batch,
  // under the table's `pitr_history_id`).
  // Visits each item written after `after_ms` once, with its state at `after_ms`: the old
  // image of its first write after then (nullopt: absent), in key order of the history.
  Status ReadHistoryAfter(uint64_t history_id, int64_t after_ms,
                          const std::function<Status(PrimaryKey, std::optional<Item>)>& visit);
  // One item's writes in a span of the history (after_ms, through_ms].
  struct HistoryChange {
    PrimaryKey key;
    std::optional<Item> before;  // its state when the span began (nullopt: absent)
    // Written again after the span: `after` is its state when the span ended. Otherwise its
    // state then is its live one.
    bool written_since = false;
    std::optional<Item> after;
    int64_t last_write_ms = 0;  // the time of its last write in the span
  };
  // Visits each item written in (after_ms, through_ms] once, in key order of the history.
  Status ReadHistoryBetween(uint64_t history_id, int64_t after_ms, int64_t through_ms,
                            const std::function<Status(HistoryChange)>& visit);
  // Removes the history written before `before_ms` (no restore to a time before it can be
  // asked for). Returns how many records went.
  Result<uint64_t> TrimHistory(uint64_t history_id, int64_t before_ms);
  // Removes all of it (PITR disabled, table dropped): O(1).
  Status DropHistory(uint64_t history_id);
  // Rewinds `copy`, a raw copy of `table`'s items (CopyItems), to the table's state at
  // `at_ms` by its history: each item written since then becomes its old image then. Returns
  // the rewound copy's count and size, given the copy's own (`copied`).
  Result<TableStats> RewindCopy(const TableDef& table, uint64_t copy_id, int64_t at_ms,
                                TableStats copied);

  // ---- Time to Live's expiry keyspace (expiry time ‖ item, per table), kept by a part.
  // Keys of items of `table_id` whose expiry lies in [earliest, latest) — Numbers of epoch
  // seconds — earliest expiry first, at most `limit`.
  Result<std::vector<PrimaryKey>> ExpiredItems(uint64_t table_id, const AttributeValue& earliest,
                                               const AttributeValue& latest, size_t limit);
  // Forgets every expiry of a table (Time to Live disabled).
  Status DropExpiries(uint64_t table_id);

  // ---- On-demand backups. A backup's items are a raw copy of the table's under the
  // backup's own id; its record lives in the catalog under (scope, backup id).
  // Copies the items of `from_id` to `to_id`; returns their count and DynamoDB size.
  Result<TableStats> CopyItems(uint64_t from_id, uint64_t to_id);
  // Removes every item stored under `id` (a copy no record names yet).
  Status DropItems(uint64_t id);
  Status PutBackup(std::string_view scope, const BackupRecord& backup);
  // Removes a backup's record and its items, in one batch.
  Status DeleteBackup(std::string_view scope, uint64_t backup_id);
  // The backups of `scope`, oldest first (ids are allocated in creation order).
  Result<std::vector<BackupRecord>> Backups(std::string_view scope);
  struct ScopedBackup {
    std::string scope;
    BackupRecord backup;
  };
  // Every scope's backups, by scope, then oldest first.
  Result<std::vector<ScopedBackup>> AllBackups();
  // Snapshots of namespaces, by (scope, name); their tables' items are stored under the ids
  // of their backup records. Written and removed only by CommitSnapshot (below).
  // Copies that no snapshot owns, yet or any longer, by (scope, name of the snapshot): the
  // tables of one being saved, or of one replaced or deleted while their data is dropped.
  // Each is recorded before its data is written or its owner goes, so what a crash leaves
  // here is what the next start drops. Put replaces.
  Status PutUnownedCopies(const SnapshotRecord& copies);
  Status DeleteUnownedCopies(std::string_view scope, std::string_view name);
  Result<std::vector<SnapshotRecord>> UnownedCopies();
  // In one batch: (scope, name)'s snapshot becomes `snapshot` (nullopt: none) and its
  // unowned copies become `released` (the tables of the snapshot it replaces; none: none).
  Status CommitSnapshot(std::string_view scope, std::string_view name,
                        const std::optional<SnapshotRecord>& snapshot,
                        const std::vector<BackupRecord>& released);
  // Every snapshot, by scope then name.
  Result<std::vector<SnapshotRecord>> Snapshots();

  // ---- Records of data-movement jobs (exports, imports, bulk operations), by kind (one
  // byte) and id (unique, ordered by start time). Their bytes belong to the job's module.
  struct JobRecord {
    std::string id;
    std::string bytes;
  };
  Status PutJob(char kind, std::string_view id, std::string_view bytes);
  Result<std::optional<std::string>> GetJob(char kind, std::string_view id);
  // Every record of `kind`, in id order.
  Result<std::vector<JobRecord>> Jobs(char kind);
  Status DeleteJob(char kind, std::string_view id);

  // ---- The database as a whole.
  // The sequence number of the last write: equal at two moments only if nothing was written
  // in between (also across a restart).
  uint64_t LatestSequence() const;
  // OK, or the background error that makes RocksDB refuse writes (an I/O error, a full
  // disk), as the message of an Internal error. Recovery from it is retried in the
  // background (DB::Resume, with back-off) until it succeeds.
  Status Health() const;
  // Syncs the WAL and writes the memtables out (on disk only); called on clean shutdown, so
  // that the next start-up has no log to replay.
  Status Flush();

  struct Impl;  // storage/internal/database_impl.h

 private:
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ddbd::storage
