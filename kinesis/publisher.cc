// Delivery of Kinesis destination records.
#include "kinesis/publisher.h"

#include <algorithm>
#include <set>
#include <string>

#include "kinesis/destinations.h"
#include "model/log.h"

namespace ddbd::kinesis {
namespace {

using SteadyClock = std::chrono::steady_clock;

// A pass delivers at most this many batches of one destination before moving on, so that a
// busy table does not hold up the others.
constexpr int kBatchesPerPass = 20;

std::chrono::milliseconds BackOff(int failures) {
  const int64_t ms = int64_t{100} << std::min(failures, 7);  // 200 ms … 12.8 s
  return std::chrono::milliseconds(std::min<int64_t>(ms, 10'000));
}

}  // namespace

void Publisher::Start(std::chrono::milliseconds delivery_interval,
                      std::chrono::milliseconds retention_interval) {
  if (transport_) {
    RunEvery(executor_, delivery_interval, "Kinesis delivery", [this] {
      Result<uint64_t> delivered = DeliverOnce();
      return delivered.ok() ? OkStatus() : Status(delivered.error());
    });
  }
  RunEvery(executor_, retention_interval, "Kinesis destination retention", [this] {
    Result<uint64_t> trimmed = TrimOnce(clock_.NowMs());
    return trimmed.ok() ? OkStatus() : Status(trimmed.error());
  });
}

Result<uint64_t> Publisher::DeliverOnce() {
  uint64_t delivered = 0;
  std::set<uint64_t> seen;
  for (const auto& table : catalog_.AllTables()) {
    for (const KinesisDestination& destination : table->kinesis_destinations) {
      if (executor_.stopping()) return delivered;
      seen.insert(destination.records_id);
      DDBD_ASSIGN_OR_RETURN(uint64_t count, DeliverDestination(*table, destination));
      delivered += count;
    }
  }
  // Batches of destinations whose table is gone are dropped with it.
  std::erase_if(pending_, [&](const auto& entry) { return !seen.contains(entry.first); });
  return delivered;
}

Result<uint64_t> Publisher::DeliverDestination(const TableDef& table,
                                               const KinesisDestination& destination) {
  const std::string stream_name = StreamNameOf(destination.stream_arn);
  if (stream_name.empty()) return uint64_t{0};  // not a stream: kept until retention
  uint64_t delivered = 0;
  for (int batch = 0; batch < kBatchesPerPass && !executor_.stopping(); ++batch) {
    auto found = pending_.find(destination.records_id);
    if (found == pending_.end()) {
      DDBD_ASSIGN_OR_RETURN(std::optional<Pending> next, NextBatch(table, destination));
      if (!next) break;
      found = pending_.emplace(destination.records_id, std::move(*next)).first;
    }
    Pending& pending = found->second;
    if (SteadyClock::now() < pending.retry_at) break;
    Result<uint64_t> stored = Send(stream_name, pending);
    if (stored.ok()) delivered += *stored;
    if (!stored.ok() || !pending.records.empty()) {
      ++pending.failures;
      pending.retry_at = SteadyClock::now() + BackOff(pending.failures);
      if (pending.failures == 1 || pending.failures % 50 == 0) {
        const std::string why = stored.ok()
                                    ? std::to_string(pending.records.size()) + " records not stored"
                                    : stored.error().message();
        log::Warning("Kinesis delivery to %s (%s) failed %d times, retrying: %s",
                     stream_name.c_str(), transport_->Describe().c_str(), pending.failures,
                     why.c_str());
      }
      break;
    }
    // The whole batch is stored: its removal is the checkpoint.
    Result<bool> trimmed = db_.TrimStreamThrough(destination.records_id, pending.through);
    pending_.erase(found);
    if (!trimmed.ok()) return std::move(trimmed).error();
  }
  return delivered;
}

Result<std::optional<Publisher::Pending>> Publisher::NextBatch(
    const TableDef& table, const KinesisDestination& destination) {
  DDBD_ASSIGN_OR_RETURN(uint64_t after, db_.StreamTrimPoint(destination.records_id));
  DDBD_ASSIGN_OR_RETURN(std::vector<storage::StreamRecord> records,
                        db_.ReadStream(destination.records_id, after, kMaxBatchRecords));
  if (records.empty()) return std::optional<Pending>();
  const KinesisPrecision precision = destination.precision.value_or(KinesisPrecision::kMillisecond);
  Pending pending;
  std::set<std::string> keys;
  size_t bytes = 0;
  for (const storage::StreamRecord& record : records) {
    OutgoingRecord outgoing = RenderRecord(table, destination.records_id, record, precision);
    const size_t size = outgoing.data.size() + outgoing.partition_key.size();
    // One record per item in a batch (so that an item's records are stored in order), and
    // the request's size limit; a batch always takes its first record.
    if (!pending.records.empty() &&
        (keys.contains(outgoing.partition_key) || bytes + size > kMaxBatchBytes)) {
      break;
    }
    keys.insert(outgoing.partition_key);
    bytes += size;
    pending.through = record.sequence;
    pending.records.push_back(std::move(outgoing));
  }
  return std::optional(std::move(pending));
}

Result<uint64_t> Publisher::Send(std::string_view stream_name, Pending& pending) {
  const std::string body = EncodePutRecords(stream_name, pending.records);
  DDBD_ASSIGN_OR_RETURN(KinesisReply reply, transport_->Call("PutRecords", body));
  DDBD_ASSIGN_OR_RETURN(std::vector<std::string> outcomes,
                        DecodePutRecordsReply(reply, pending.records.size()));
  std::vector<OutgoingRecord> failed;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].empty()) failed.push_back(std::move(pending.records[i]));
  }
  const uint64_t stored = pending.records.size() - failed.size();
  pending.records = std::move(failed);  // in their order: sent again before anything later
  return stored;
}

Result<uint64_t> Publisher::TrimOnce(int64_t now_ms) {
  uint64_t trimmed = 0;
  for (const auto& table : catalog_.AllTables()) {
    for (const KinesisDestination& destination : table->kinesis_destinations) {
      if (executor_.stopping()) return trimmed;
      DDBD_ASSIGN_OR_RETURN(uint64_t count,
                            db_.TrimStream(destination.records_id, now_ms - kRetentionMs));
      trimmed += count;
    }
  }
  return trimmed;
}

}  // namespace ddbd::kinesis
