// Replication between a global table's replicas.
#include "replication/replicator.h"

#include <cinttypes>
#include <cstdio>

#include "model/log.h"
#include "replication/regions.h"
#include "replication/stamps_part.h"

namespace ddbd::replication {
namespace {

// Job records of kind 'G' (storage/FORMAT.md): "<source stream id>-<target table id>" (16 hex
// digits each) → the sequence number of the last record applied.
constexpr char kPositionKind = 'G';
constexpr size_t kRecordsPerRead = 500;

std::string PositionId(uint64_t stream_id, uint64_t target_id) {
  char id[40];
  std::snprintf(id, sizeof id, "%016" PRIx64 "-%016" PRIx64, stream_id, target_id);
  return id;
}

// The same change, written to `target` as a change first made in `source`'s region.
storage::ItemWrite ReplicatedWrite(const TableDef& source, const TableDef& target,
                                   const storage::StreamRecord& record) {
  storage::ItemWrite write;
  write.table = &target;
  write.key = KeyOf(target, record.keys);
  std::optional<Item> image;
  if (record.event != storage::StreamEvent::kRemove) image = record.new_image;
  write.compute = [image = std::move(image)](const std::optional<Item>&) {
    return storage::Mutation::Store(image);
  };
  write.needs_old_item = false;
  write.replicated_from = storage::ReplicaOrigin{record.time_ms, source.region};
  return write;
}

}  // namespace

void Replicator::Start(std::chrono::milliseconds interval) {
  std::lock_guard lock(mutex_);
  interval_ = interval;
  StartPasses({});
}

void Replicator::StartPasses(std::chrono::milliseconds first) {
  scheduled_ = true;
  RunWhile(
      executor_, interval_, "global table replication",
      [this]() -> Result<bool> {
        DDBD_RETURN_IF_ERROR(RunOnce());  // active_ stays true: retried at the next pass
        std::lock_guard lock(mutex_);
        scheduled_ = active_;
        return scheduled_;
      },
      first);
}

Status Replicator::RunOnce() {
  std::lock_guard lock(mutex_);
  if (!active_) return OkStatus();
  const int64_t due_before_ms = clock_.NowMs() - delay_.count();
  bool any = false;
  for (const auto& source : catalog_.AllTables()) {
    if (executor_.stopping()) return OkStatus();
    if (!Replicated(*source)) continue;
    any = true;
    DDBD_RETURN_IF_ERROR(ReplicateFrom(*source, due_before_ms));
  }
  active_ = any;
  return OkStatus();
}

Status Replicator::CatchUp(const TableDef& table) {
  std::lock_guard lock(mutex_);
  return ReplicateFrom(table, INT64_MAX);
}

Status Replicator::ApplyBefore(const TableDef& table, int64_t before_ms) {
  std::lock_guard lock(mutex_);
  return ReplicateFrom(table, before_ms - 1);
}

Status Replicator::Exclusive(const std::function<Status()>& change) {
  std::lock_guard lock(mutex_);
  active_ = true;
  if (!scheduled_ && interval_.count() > 0) StartPasses(interval_);
  return change();
}

Status Replicator::ReplicateFrom(const TableDef& table, int64_t due_before_ms) {
  // The current definition: the caller's may predate a change of the group.
  auto source = catalog_.FindById(table.id);
  if (!source || !Replicated(*source) || source->status == TableStatus::kDeleting) {
    return OkStatus();
  }
  const StreamSpec* stream = source->EnabledStream();
  if (!stream) return OkStatus();
  // Strongly consistent groups replicate at once (and synchronously: CatchUp).
  const int64_t due = source->replication->strong_consistency ? INT64_MAX : due_before_ms;
  for (const ReplicaSpec& replica : source->replication->replicas) {
    if (replica.region == source->region) continue;
    auto target = catalog_.Find(ScopeInRegion(source->scope, replica.region), source->name);
    if (!target || !target->replication || target->status == TableStatus::kDeleting) continue;
    DDBD_RETURN_IF_ERROR(Replicate(*source, *stream, *target, due));
  }
  return OkStatus();
}

Status Replicator::Replicate(const TableDef& source, const StreamSpec& stream,
                             const TableDef& target, int64_t due_before_ms) {
  const Pair pair{stream.id, target.id};
  DDBD_ASSIGN_OR_RETURN(const uint64_t start, Position(pair));
  uint64_t after = start;
  for (;;) {
    DDBD_ASSIGN_OR_RETURN(auto records, db_.ReadStream(stream.id, after, kRecordsPerRead));
    bool pending = false;
    for (const auto& record : records) {
      if (record.time_ms > due_before_ms) {
        pending = true;
        break;
      }
      if (!record.replicated) {
        auto written = db_.WriteItems({ReplicatedWrite(source, target, record)});
        if (!written.ok() && !IsSuperseded(written.error())) {
          if (written.error().code() == ErrorCode::kInternal) return std::move(written).error();
          // A change the target cannot take (none is expected: the replicas share their
          // schema) is logged and passed over rather than holding replication back.
          log::Warning("global table %s: a change to %s could not be replicated: %s",
                       source.name.c_str(), target.region.c_str(),
                       written.error().message().c_str());
        }
      }
      after = record.sequence;
    }
    if (pending || records.size() < kRecordsPerRead) break;
  }
  if (after == start) return OkStatus();
  return SetPosition(pair, after);
}

Status Replicator::Seed(const TableDef& seed_from, const TableDef& target) {
  const StreamSpec* stream = seed_from.EnabledStream();
  if (stream) DDBD_RETURN_IF_ERROR(SetPosition({stream->id, target.id}, db_.LastStreamSequence()));
  if (!seed_from.replication) return OkStatus();
  for (const ReplicaSpec& replica : seed_from.replication->replicas) {
    if (replica.region == seed_from.region || replica.region == target.region) continue;
    auto other = catalog_.Find(ScopeInRegion(seed_from.scope, replica.region), seed_from.name);
    const StreamSpec* other_stream = other ? other->EnabledStream() : nullptr;
    if (!other_stream) continue;
    DDBD_ASSIGN_OR_RETURN(uint64_t reached, Position({other_stream->id, seed_from.id}));
    DDBD_RETURN_IF_ERROR(SetPosition({other_stream->id, target.id}, reached));
  }
  return OkStatus();
}

Result<uint64_t> Replicator::Position(const Pair& pair) {
  if (auto cached = positions_.find(pair); cached != positions_.end()) return cached->second;
  DDBD_ASSIGN_OR_RETURN(auto stored,
                        db_.GetJob(kPositionKind, PositionId(pair.first, pair.second)));
  const uint64_t after = stored ? std::strtoull(stored->c_str(), nullptr, 10) : 0;
  positions_[pair] = after;
  return after;
}

Status Replicator::SetPosition(const Pair& pair, uint64_t after) {
  DDBD_RETURN_IF_ERROR(
      db_.PutJob(kPositionKind, PositionId(pair.first, pair.second), std::to_string(after)));
  positions_[pair] = after;
  return OkStatus();
}

}  // namespace ddbd::replication
