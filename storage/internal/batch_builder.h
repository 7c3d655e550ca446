// BatchBuilder: the WriteBatchBuilder of one WriteItems call (or backfill slice) — the
// RocksDB batch under construction, the statistics deltas, item-collection sizes, stream
// records and after-commit notifications it has gathered — and its commit. Internal to
// storage/.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/internal/database_impl.h"

namespace ddbd::storage {

class BatchBuilder : public WriteBatchBuilder {
 public:
  explicit BatchBuilder(Database::Impl& impl) : impl_(impl) {}

  // The item the next records belong to. REQUIRES: called before each item's records.
  void BeginItem(const TableDef& table, const PrimaryKey& key);

  Result<bool> IndexEntryStored(const IndexEntry& entry) override;
  void PutIndexEntry(const IndexEntry& entry, std::string_view item_encoding) override;
  void DeleteIndexEntry(const IndexEntry& entry) override;
  void AddStatistics(uint64_t id, TableStats delta) override;
  Result<int64_t> AddToItemCollection(int64_t delta) override;
  void AppendStreamRecord(uint64_t stream_id, const StreamRecordDraft& record) override;
  void PutExpiry(const AttributeValue& expiry) override;
  void DeleteExpiry(const AttributeValue& expiry) override;
  void AppendHistory(uint64_t history_id, int64_t at_ms, std::string_view old_encoding) override;
  Result<std::optional<std::string>> ReplicaStamp() override;
  void PutReplicaStamp(std::string_view stamp) override;
  void AfterCommit(std::function<void()> notify) override;

  // The collection size AddToItemCollection reported for the current item, if any.
  std::optional<int64_t> TakeCollectionSize() { return std::exchange(collection_size_, {}); }

  // Puts a job's record (a checkpoint) in the batch.
  void PutJob(char kind, std::string_view id, std::string_view bytes);

  // Puts or deletes the current item itself.
  void PutItem(const std::string& item_key, std::string_view encoding);
  void DeleteItem(const std::string& item_key);

  // Numbers the stream records, adds the statistics merges, writes the batch, then updates
  // the live statistics and runs the notifications. REQUIRES: the items' locks are held.
  Status Commit();

 private:
  std::string ExpiryKey(const AttributeValue& expiry) const;
  std::string StampKey() const;

  Database::Impl& impl_;
  rocksdb::WriteBatch batch_;
  const TableDef* table_ = nullptr;  // of the current item
  const PrimaryKey* key_ = nullptr;
  std::map<uint64_t, StatsEntries> deltas_;                // table → id → delta
  std::map<std::string, int64_t> collections_;             // collection key → size so far
  std::vector<std::pair<uint64_t, std::string>> records_;  // stream id, encoded record
  std::vector<std::function<void()>> notifications_;
  std::optional<int64_t> collection_size_;
};

}  // namespace ddbd::storage
