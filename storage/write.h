// The write path's vocabulary: what a caller asks of Database::WriteItems (ItemWrite), what
// each write decided and did (WriteOutcome), and the extension point through which the
// subsystems that follow item writes — secondary indexes, streams, Time to Live — add their
// records to the write's own batch (WritePart, WriteBatchBuilder).
//
// A part never sees a RocksDB key: it adds typed records (an index entry, a stream record, an
// expiry) and storage encodes them. Every record of one WriteItems call goes into one
// RocksDB WriteBatch, so an item and everything derived from it commit atomically.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/attribute_value.h"
#include "model/error.h"
#include "model/result.h"
#include "model/table_def.h"
#include "storage/stream_record.h"

namespace ddbd::storage {

struct TableStats {
  int64_t item_count = 0;
  int64_t size_bytes = 0;  // Σ item sizes by DynamoDB's measure
};

// What a write decides for its item, as a value: the item to store (nullopt deletes it, or
// leaves an absent item absent), or the write's own failure (a condition that does not hold,
// an item too large after an update, …). Under a transaction's verdict a failure cancels
// the whole call; otherwise the first failure is the call's error.
struct Mutation {
  std::optional<Item> item;
  std::optional<Error> failure;
  static Mutation Store(std::optional<Item> item) { return {std::move(item), std::nullopt}; }
  static Mutation Fail(Error error) { return {std::nullopt, std::move(error)}; }
  static Mutation From(Result<std::optional<Item>> result) {
    if (!result.ok()) return Fail(std::move(result).error());
    return Store(std::move(result).value());
  }
};

// Where and when a change of a global table's item was first made.
struct ReplicaOrigin {
  int64_t time_ms = 0;
  std::string region;
};

// One item write of a WriteItems call. `compute` gets the current item (if any) and decides;
// it must be free of side effects: it runs under the item's lock and storage may run it
// again or discard what it returns.
struct ItemWrite {
  const TableDef* table = nullptr;
  PrimaryKey key;
  std::function<Mutation(const std::optional<Item>& old)> compute;
  // False when `compute` ignores the old item and the caller needs only its size: the old
  // item is then not decoded unless a part needs it (`compute` may get nullopt).
  bool needs_old_item = true;
  // True when `compute` only inspects the item (a transaction's ConditionCheck): the item
  // it returns is ignored and nothing is written.
  bool check_only = false;
  // A Time to Live deletion: its stream record names the service as its author.
  bool by_ttl = false;
  // True when a failure `compute` decides (a condition that does not hold) skips this write
  // alone instead of failing the call: the other writes commit (a bulk put's conditional
  // records). A part's refusal still fails the call.
  bool failure_skips_write = false;
  // Set on a write that replicates another replica's change of a global table: when and in
  // which region the change was first made (what last-writer-wins compares).
  std::optional<ReplicaOrigin> replicated_from;
};

// A write that stores `item` (nullopt deletes) whatever was there, needing only the old
// item's size (BatchWriteItem, a restore).
ItemWrite Replacement(const TableDef& table, PrimaryKey key, std::optional<Item> item);

struct WriteOutcome {
  std::optional<Item> old_item;  // when the write or a part asked for it
  std::optional<Item> new_item;
  std::optional<Error> failure;  // the write's own failure, as `compute` (or a part) decided
  bool existed = false;          // an item was there before
  size_t old_size = 0;           // DynamoDB's size of the old item (0 when none)
  size_t new_size = 0;           // of the new item (0 when deleted)
  // Tables with LSIs: the size of the item's collection after the write.
  std::optional<int64_t> collection_size;
};

// A job record committed in the batch of a WriteItems call's items, so that a job's progress
// and the items it wrote are durable together (a bulk put's checkpoint). `encode` gets the
// outcomes once every write has computed and returns the record's bytes.
struct JobCheckpoint {
  char kind = 0;
  std::string id;
  std::function<std::string(const std::vector<WriteOutcome>& outcomes)> encode;
};

// Decides, once every write of a call has computed (before anything is written), whether the
// call commits: an error aborts it and is the call's answer (a transaction's cancellation).
// A call with a failed write never commits: when the verdict passes, the first failure is
// the answer.
using Verdict = std::function<Status(const std::vector<WriteOutcome>& outcomes)>;

// One entry of a secondary (or vector) index, derived from an item: the index key, the
// item's table key and the attributes the index projects (keys included).
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
  size_t projected_size = 0;  // DynamoDB's size of the projected attributes
};

// One item's change as the parts see it, after its write computed and before the batch is
// committed.
struct ItemChange {
  ItemChange(const ItemWrite& write, const WriteOutcome& outcome, int64_t time_ms,
             std::string_view old_encoding, std::string_view new_encoding)
      : write(write),
        outcome(outcome),
        time_ms(time_ms),
        old_encoding(old_encoding),
        new_encoding(new_encoding) {}

  const ItemWrite& write;
  const WriteOutcome& outcome;
  // The time of the whole WriteItems call (the database's clock, read once): every record of
  // one call carries the same time.
  int64_t time_ms;
  // The stored encodings of the old and the new item: opaque bytes a part may store again
  // (an ALL-projected index entry, a stream image) without encoding the item twice. Empty
  // when there is no such item.
  std::string_view old_encoding;
  std::string_view new_encoding;

  // Whether a replacement leaves the item as it was, by value (equal bytes, or equal items:
  // sets in another order). Computed on first use (write_path.cc).
  bool Unchanged() const;

 private:
  mutable std::optional<bool> unchanged_;
};

// The records a part adds to the batch of the change it is given. Not thread-safe: one
// builder belongs to one WriteItems call.
class WriteBatchBuilder {
 public:
  virtual ~WriteBatchBuilder() = default;
  // Whether the entry is stored already (an index being backfilled may not hold it yet).
  virtual Result<bool> IndexEntryStored(const IndexEntry& entry) = 0;
  // `item_encoding`: the item's encoding, stored as the value of an ALL-projected entry.
  virtual void PutIndexEntry(const IndexEntry& entry, std::string_view item_encoding) = 0;
  virtual void DeleteIndexEntry(const IndexEntry& entry) = 0;
  // A change of the statistics of the change's table, or of one of its indexes (by id).
  virtual void AddStatistics(uint64_t id, TableStats delta) = 0;
  // Changes the size of the change's item collection (tables with LSIs) by `delta` bytes;
  // ItemCollectionSizeLimitExceededException when a growth would pass the limit. Returns
  // the collection's size after the change.
  virtual Result<int64_t> AddToItemCollection(int64_t delta) = 0;
  // Appends a record to a stream; records are numbered at commit, in append order.
  virtual void AppendStreamRecord(uint64_t stream_id, const StreamRecordDraft& record) = 0;
  // Records (or forgets) that the change's item expires at `expiry`, a Number of epoch
  // seconds (Time to Live's attribute).
  virtual void PutExpiry(const AttributeValue& expiry) = 0;
  virtual void DeleteExpiry(const AttributeValue& expiry) = 0;
  // Records the change's item as it was before the change (`old_encoding`, empty when
  // absent) at `at_ms` in the point-in-time recovery history `history_id`.
  virtual void AppendHistory(uint64_t history_id, int64_t at_ms, std::string_view old_encoding) = 0;
  // The last-writer-wins stamp of the change's item in a global table (opaque bytes the
  // replication module owns; kept after the item is deleted), or nullopt when it has none.
  virtual Result<std::optional<std::string>> ReplicaStamp() = 0;
  virtual void PutReplicaStamp(std::string_view stamp) = 0;
  // Runs `notify` once the batch is committed, while the items' locks are still held (so
  // listeners see changes of one item in commit order). Dropped when the call aborts.
  virtual void AfterCommit(std::function<void()> notify) = 0;
};

// A subsystem that follows item writes. Parts are registered once, before any write, and
// run in registration order for every item a write stores or deletes.
class WritePart {
 public:
  virtual ~WritePart() = default;
  // Whether the part needs the old item decoded for writes to this table.
  virtual bool NeedsOldItem(const ItemWrite& write) const = 0;
  // Adds what the part keeps for `change`. An error becomes the write's failure.
  virtual Status Contribute(const ItemChange& change, WriteBatchBuilder& batch) const = 0;
};

}  // namespace ddbd::storage
