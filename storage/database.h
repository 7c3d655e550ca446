// Database: ddbd's RocksDB store: the catalog of tables, items, and live per-table
// statistics. The only place that includes RocksDB. Layout in storage/FORMAT.md.
//
// Entry points: Open; catalog records (AllocateTableId, PutTable, DropTable, LoadTables);
// GetItem; WriteItems (read-modify-write of one or more items, atomic, serialized per item);
// ScanPartition / ScanHashRange (ordered iteration for Query and Scan).
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/attribute_value.h"
#include "model/result.h"
#include "model/table_def.h"
#include "storage/stream_records.h"

namespace rocksdb {
class WriteBatch;
}

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
};

struct TableStats {
  int64_t item_count = 0;
  int64_t size_bytes = 0;  // Σ item sizes by DynamoDB's measure
};

// One item write of a WriteItems call. `compute` gets the current item (if any) and returns
// the item to store, or nullopt to delete it; it must be free of side effects because it
// runs under the item's lock and its result may be discarded. An error aborts the whole call.
struct ItemWrite {
  const TableDef* table = nullptr;
  PrimaryKey key;
  std::function<Result<std::optional<Item>>(const std::optional<Item>& old)> compute;
  // False when `compute` ignores the old item and the caller needs only its size: the old
  // item is then not decoded (`compute` gets nullopt).
  bool needs_old_item = true;
  // True when `compute` only inspects the item (a transaction's ConditionCheck): what it
  // returns is ignored and the item is not written.
  bool check_only = false;
  // A Time to Live deletion: its stream record names the service as its author.
  bool by_ttl = false;
};

struct WriteOutcome {
  std::optional<Item> old_item;  // only when the write asked for it (needs_old_item)
  std::optional<Item> new_item;
  bool existed = false;          // an item was there before
  size_t old_size = 0;           // DynamoDB's size of the old item (0 when none)
  size_t new_size = 0;           // of the new item (0 when deleted)
  // Tables with LSIs: the size of the item's collection after the write.
  std::optional<int64_t> collection_size;
};

// Bounds on the sort key inside one partition; absent bounds are open. `prefix` (S or B
// sort keys) selects the sort keys that begin with it, within the other bounds.
struct SortKeyRange {
  struct Bound {
    AttributeValue value;
    bool inclusive = true;
  };
  std::optional<Bound> lower;
  std::optional<Bound> upper;
  std::optional<std::string> prefix;
};

// One entry of a secondary index, derived from an item: the index key, the item's table key
// and the attributes the index projects (keys included).
struct IndexEntry {
  // The index, in the TableDef the entry was derived from. An LSI's entries count toward the
  // item collection; a backfilling index may not hold every item's entry yet.
  const IndexDef* index = nullptr;
  std::vector<AttributeValue> partition;  // the index key, attribute by attribute
  std::vector<AttributeValue> sort;
  PrimaryKey table_key;
  // The projected attributes; empty when derived without projection, and when the index
  // projects ALL: such an entry's value is the item's own encoding, so nothing is copied.
  Item projected;
  size_t projected_size = 0; // DynamoDB's size of the projected attributes
};

// A change to a vector index entry, reported after its batch is committed so that the
// in-memory vector index follows the stored entries (in commit order for each item).
struct VectorEntryChange {
  std::shared_ptr<const TableDef> table;  // the definition the entry was derived from
  const IndexDef* index = nullptr;        // in `table`
  std::string key;             // the entry's key in the index family
  std::optional<Item> entry;   // the new entry; nullopt when it was removed
};

// Knows which tables have indexes and derives an item's index entries from the table's
// current definition. Installed once at start-up by the module that knows index rules
// (index/). Called under the item's lock, so a write always maintains the indexes the table
// has when the write commits — also one created while the write was in flight.
class IndexMaintainer {
 public:
  virtual ~IndexMaintainer() = default;
  // The table's current definition when it has secondary indexes, else nullptr.
  virtual std::shared_ptr<const TableDef> IndexedTable(uint64_t table_id) const = 0;
  // Entries of every index of `table` (or only `only_index`, when non-zero). Without
  // `with_projection` the projected attributes are only measured, not copied.
  virtual std::vector<IndexEntry> Derive(const TableDef& table, const AttributeMap& item,
                                         uint64_t only_index, bool with_projection) const = 0;
  // Whether `index` projects the same attributes with the same values from both images of
  // an item (whose entry keys are equal): then the entry need not be written again.
  virtual bool SameProjection(const TableDef& table, const IndexDef& index,
                              const AttributeMap& before, const AttributeMap& after) const = 0;
  // Called with the vector entry changes of a batch once it is committed, while the items'
  // locks are still held.
  virtual void VectorEntriesCommitted(std::vector<VectorEntryChange> changes) const = 0;
};

class ItemCursor;

class Database {
 public:
  static Result<std::unique_ptr<Database>> Open(const OpenOptions& options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // REQUIRES: called before any write; `maintainer` outlives the database.
  void SetIndexMaintainer(const IndexMaintainer* maintainer);

  // Catalog.
  Result<std::vector<TableDef>> LoadTables();
  Result<uint64_t> AllocateTableId();
  Status PutTable(const TableDef& table);
  // Removes the table's record, items, index entries and statistics in O(1) (range deletion).
  Status DropTable(const TableDef& table);
  // Removes one index's entries and statistics (the table record is the caller's).
  Status DropIndex(const TableDef& table, uint64_t index_id);
  // Statistics of a table or of an index (by id).
  TableStats Stats(uint64_t id) const;

  // Items.
  Result<std::optional<Item>> GetItem(const TableDef& table, const PrimaryKey& key);
  // Applies all writes atomically in one batch, holding every item's lock meanwhile.
  // `before_commit`, when given, runs after every compute and before anything is written; an
  // error from it aborts the call (a transaction's verdict over all its conditions).
  // REQUIRES: no two writes name the same item.
  Result<std::vector<WriteOutcome>> WriteItems(
      std::vector<ItemWrite> writes, const std::function<Status()>& before_commit = nullptr);

  // Items of one partition in sort-key order (`forward`) or reverse, within `range`, after
  // `exclusive_start` (an ItemKey, in the direction of travel) when given.
  std::unique_ptr<ItemCursor> ScanPartition(const TableDef& table, const AttributeValue& partition,
                                            const SortKeyRange& range, bool forward,
                                            const std::optional<std::string>& exclusive_start =
                                                std::nullopt);
  // Items whose partition hash lies in [hash_begin, hash_end] (inclusive), in Scan order,
  // starting after `exclusive_start` (an ItemKey) when given.
  std::unique_ptr<ItemCursor> ScanHashRange(const TableDef& table, uint64_t hash_begin,
                                            uint64_t hash_end,
                                            const std::optional<std::string>& exclusive_start);

  // Index entries of one index partition, in index sort-key order (or reverse); `range`
  // bounds the index sort key; `exclusive_start` is an IndexEntryKey.
  // `sort_prefix` fixes the leading sort attributes (multi-attribute keys); `range` bounds
  // the next one.
  std::unique_ptr<ItemCursor> ScanIndexPartition(uint64_t index_id,
                                                 const std::vector<AttributeValue>& partition,
                                                 const std::vector<AttributeValue>& sort_prefix,
                                                 const SortKeyRange& range, bool forward,
                                                 const std::optional<std::string>& exclusive_start);
  // Entries of an index whose partition hash lies in [hash_begin, hash_end].
  std::unique_ptr<ItemCursor> ScanIndexHashRange(uint64_t index_id, uint64_t hash_begin,
                                                 uint64_t hash_end,
                                                 const std::optional<std::string>& exclusive_start);

  // A stored index entry by its key (the projected attributes), or nullopt.
  Result<std::optional<Item>> GetIndexEntry(std::string_view key);
  // Every stored entry of one index, in key order: `visit(key, entry)`.
  Status ForEachIndexEntry(uint64_t index_id,
                           const std::function<void(std::string_view, Item)>& visit);

  // Writes the entries of `index_id` for every item of `table` (a new index's backfill).
  // Each item is re-read under its lock, so writes racing with the backfill end up in the
  // index exactly once. Returns the number of items visited.
  Result<uint64_t> BackfillIndex(const TableDef& table, uint64_t index_id);

  // On-demand backups. A backup's items are a raw copy of the table's under an id of their
  // own; its record (opaque to storage) lives in the catalog under (scope, backup id).
  // Copies the items of `from_id` to `to_id`; returns their count and DynamoDB size.
  Result<TableStats> CopyItems(uint64_t from_id, uint64_t to_id);
  // Removes every item stored under `id` (a deleted backup's copy).
  Status DropItems(uint64_t id);
  Status PutBackupRecord(std::string_view scope, uint64_t backup_id, std::string_view record);
  Status DeleteBackupRecord(std::string_view scope, uint64_t backup_id);
  // The backup records of `scope`, oldest first (ids are allocated in creation order).
  Result<std::vector<std::string>> BackupRecords(std::string_view scope);

  // The sequence number of the last write: equal at two moments only if nothing was written
  // in between (also across a restart).
  uint64_t LatestSequence() const;

  // Streams. Every write to a table whose current stream is enabled appends a record to it
  // in the write's own batch (none when the item does not change). Records are numbered
  // across all streams in commit order.
  // Records of stream `stream_id` numbered above `after`, at most `limit` of them.
  Result<std::vector<StreamRecord>> ReadStream(uint64_t stream_id, uint64_t after, size_t limit);
  // The sequence numbers of a stream's first and last records; nullopt when it has none.
  Result<std::optional<std::pair<uint64_t, uint64_t>>> StreamBounds(uint64_t stream_id);
  // The number of the last record of any stream: a reader starting after it sees only
  // changes made from now on.
  uint64_t LastStreamSequence();
  // Removes the records of stream `stream_id` written before `before_ms` (DynamoDB keeps
  // stream records for 24 hours). Returns how many went.
  Result<uint64_t> TrimStream(uint64_t stream_id, int64_t before_ms);

  // OK, or the background error that makes RocksDB refuse writes (an I/O error, a full
  // disk), as the message of an Internal error. Recovery from it is retried in the
  // background (DB::Resume, with back-off) until it succeeds.
  Status Health() const;

  // Syncs the WAL and writes the memtables out (on disk only); called on clean shutdown, so
  // that the next start-up has no log to replay.
  Status Flush();

 private:
  struct Impl;
  explicit Database(std::unique_ptr<Impl> impl);
  // Adds the change of an item collection's size to `batch`; fails when it would pass the
  // limit. `pending` carries sizes between writes of one batch.
  Result<int64_t> UpdateCollection(uint64_t table_id, const AttributeValue& partition,
                                   int64_t delta, rocksdb::WriteBatch& batch,
                                   std::map<std::string, int64_t>& pending);
  // Adds the index changes of one item write to `batch`; returns the change in size of the
  // item's LSI entries. `new_item_encoding` is the new item as stored (ALL-projected entries
  // reuse it).
  template <typename AddDelta>
  int64_t AddIndexChanges(const TableDef& table, const WriteOutcome& outcome,
                          std::string_view new_item_encoding, rocksdb::WriteBatch& batch,
                          AddDelta&& add_delta, std::vector<VectorEntryChange>& vector_changes);
  std::unique_ptr<Impl> impl_;
};

// Ordered iteration over items. Not thread-safe; use from one thread.
class ItemCursor {
 public:
  virtual ~ItemCursor() = default;
  virtual bool Valid() const = 0;
  virtual void Next() = 0;
  // The current item, decoded. REQUIRES: Valid().
  virtual Result<Item> item() const = 0;
  // The current storage key (ItemKey layout). REQUIRES: Valid().
  virtual std::string key() const = 0;
  // An I/O error that ended the iteration early, if any.
  virtual Status status() const = 0;
};

}  // namespace ddbd::storage
