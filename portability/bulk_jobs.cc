// The background side of bulk operations.
#include "portability/bulk_jobs.h"

#include <unordered_set>

#include "model/log.h"
#include "portability/bulk_reader.h"
#include "portability/bulk_report.h"
#include "portability/compression.h"

namespace ddbd::portability {
namespace {

// Records per write batch (each batch commits with a checkpoint).
constexpr size_t kBatchItems = 100;
// An object is read whole: one that decompresses to more is an error of the operation.
constexpr size_t kMaxObjectBytes = size_t{1} << 30;
// DynamoDB's limits on one operation's input.
constexpr size_t kMaxInputObjects = 50000;
constexpr uint64_t kMaxInputObjectBytes = uint64_t{5} << 30;

Compression CompressionOf(const BulkRecord& record) {
  return record.compression == "GZIP"   ? Compression::kGzip
         : record.compression == "ZSTD" ? Compression::kZstd
                                        : Compression::kNone;
}

}  // namespace

struct BulkJobs::Run {
  explicit Run(BulkRecord r) : record(std::move(r)) {}

  BulkRecord record;  // as of the last checkpoint, plus the records read since
  std::vector<objects::ObjectEntry> objects;
  bool listed = false;
  std::string text;  // the open object, decompressed
  std::optional<BulkRecordReader> reader;
  // Pacing by MaxWriteRequestUnits: units written since `since`.
  std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
  double units = 0;
};

struct BulkJobs::Batch {
  struct Entry {
    PreparedPut put;
    std::string object_key;
    size_t index = 0;
  };
  std::vector<Entry> entries;
  std::unordered_set<PrimaryKey, PrimaryKeyHash> keys;

  bool Takes(const PrimaryKey& key) const {
    return entries.size() < kBatchItems && !keys.contains(key);
  }
  void Clear() {
    entries.clear();
    keys.clear();
  }
};

Status BulkJobs::Start(const BulkRecord& record) {
  DDBD_RETURN_IF_ERROR(db_.PutJob(kBulkJob, record.id, EncodeBulk(record)));
  if (record.status == JobStatus::kInProgress) Schedule(std::make_shared<Run>(record), {});
  return OkStatus();
}

Result<std::optional<BulkRecord>> BulkJobs::Cancel(std::string_view id) {
  std::lock_guard lock(mutex_);
  DDBD_ASSIGN_OR_RETURN(std::optional<BulkRecord> record, Find(id));
  if (!record || record->status != JobStatus::kInProgress) return record;
  record->status = JobStatus::kCancelling;
  DDBD_RETURN_IF_ERROR(db_.PutJob(kBulkJob, record->id, EncodeBulk(*record)));
  cancelling_.insert(record->id);
  return record;
}

void BulkJobs::ResumeInterrupted() {
  auto records = All();
  if (!records.ok()) return;
  for (BulkRecord& record : *records) {
    if (JobEnded(record.status)) continue;
    log::Info("resuming bulk operation %s", BulkArn(record).c_str());
    if (record.status == JobStatus::kCancelling) {
      std::lock_guard lock(mutex_);
      cancelling_.insert(record.id);
    }
    Schedule(std::make_shared<Run>(std::move(record)), {});
  }
}

Result<std::optional<BulkRecord>> BulkJobs::Find(std::string_view id) {
  return FindJob(db_, kBulkJob, id, &DecodeBulk);
}

Result<std::vector<BulkRecord>> BulkJobs::All() { return AllJobs(db_, kBulkJob, &DecodeBulk); }

bool BulkJobs::CancelRequested(std::string_view id) {
  std::lock_guard lock(mutex_);
  return cancelling_.contains(id);
}

void BulkJobs::Schedule(std::shared_ptr<Run> run, Executor::Duration delay) {
  auto step = [this, run = std::move(run)] { Step(run); };
  if (delay <= Executor::Duration::zero()) {
    executor_.Run(std::move(step));
  } else {
    executor_.RunAfter(delay, std::move(step));
  }
}

void BulkJobs::Step(std::shared_ptr<Run> run) {
  if (executor_.stopping()) return;  // runs again at the next start
  BulkRecord& record = run->record;
  const auto table = catalog_.FindById(record.table_id);
  if (!table || table->table_uuid != record.table_uuid || table->status == TableStatus::kDeleting) {
    return Finish(run, JobStatus::kFailed,
                  Error::ResourceNotFound("The table was deleted during the bulk operation"));
  }
  if (CancelRequested(record.id)) return Finish(run, JobStatus::kCancelled, std::nullopt);
  if (!run->listed) {
    auto objects = store_.List(record.bucket, record.key_prefix.value_or(""));
    if (!objects.ok()) return Finish(run, JobStatus::kFailed, objects.error());
    uint64_t total = 0;
    bool over_limits = objects->size() > kMaxInputObjects;
    for (const auto& object : *objects) {
      over_limits = over_limits || object.size > kMaxInputObjectBytes;
      total += object.size;
    }
    if (over_limits) {
      return Finish(run, JobStatus::kFailed,
                    Error::Validation("The input exceeds the limits of one bulk operation: "
                                      "50,000 objects of 5 GB each at most"));
    }
    record.total_bytes = static_cast<int64_t>(total);
    run->objects = std::move(*objects);
    run->listed = true;
  }
  Result<bool> more = Slice(*run, table);
  if (!more.ok()) return Finish(run, JobStatus::kFailed, more.error());
  if (!*more) {
    return Finish(run,
                  record.failed_items > 0 ? JobStatus::kCompletedWithErrors : JobStatus::kCompleted,
                  std::nullopt);
  }
  Executor::Duration delay{};
  if (record.max_write_units) {
    const auto due =
        run->since + std::chrono::duration_cast<Executor::Duration>(std::chrono::duration<double>(
                         run->units / static_cast<double>(*record.max_write_units)));
    delay = due - std::chrono::steady_clock::now();
  }
  Schedule(run, delay);
}

Result<bool> BulkJobs::OpenObject(Run& run) {
  BulkRecord& record = run.record;
  while (static_cast<size_t>(record.next_object) < run.objects.size()) {
    const objects::ObjectEntry& object = run.objects[record.next_object];
    DDBD_ASSIGN_OR_RETURN(std::string bytes, store_.Get(record.bucket, object.key));
    if (record.next_record == 0) record.processed_bytes += static_cast<int64_t>(bytes.size());
    Result<std::string> text = Decompress(CompressionOf(record), bytes, kMaxObjectBytes);
    if (!text.ok()) {  // the object is one failed record
      ++record.processed_items;
      AddErrorLine(record, object.key, 0, text.error());
      ++record.next_object;
      record.next_record = 0;
      continue;
    }
    run.text = std::move(*text);
    run.reader.emplace(record.format == "ION" ? BulkRecordReader::Format::kIon
                                              : BulkRecordReader::Format::kDynamoDbJson,
                       run.text);
    for (int64_t done = 0; done < record.next_record && run.reader->Next(); ++done) {
    }
    return true;
  }
  return false;
}

Result<bool> BulkJobs::Slice(Run& run, std::shared_ptr<const TableDef> table) {
  BulkRecord& record = run.record;
  Batch batch;
  bool more = true;
  for (size_t read = 0; read < kSliceRecords;) {
    if (!run.reader) {
      DDBD_ASSIGN_OR_RETURN(more, OpenObject(run));
      if (!more) break;
    }
    std::optional<BulkRecordReader::Record> next = run.reader->Next();
    if (!next) {  // the object is done
      run.reader.reset();
      run.text.clear();
      ++record.next_object;
      record.next_record = 0;
      continue;
    }
    ++read;
    const std::string& key = run.objects[record.next_object].key;
    Result<PreparedPut> put =
        next->json.ok() ? prepare_(table, *next->json) : Result<PreparedPut>(next->json.error());
    if (put.ok() && !batch.Takes(put->write.key)) DDBD_RETURN_IF_ERROR(Commit(run, *table, batch));
    // Counted once the batch before it is committed: the checkpoint covers these records.
    ++record.processed_items;
    ++record.next_record;
    if (!put.ok()) {
      AddErrorLine(record, key, next->index, put.error());
      continue;
    }
    put->write.failure_skips_write = true;
    batch.keys.insert(put->write.key);
    batch.entries.push_back({std::move(*put), key, next->index});
  }
  DDBD_RETURN_IF_ERROR(Commit(run, *table, batch));
  return more;
}

void BulkJobs::Apply(Run& run, BulkRecord& record, const TableDef& table, const Batch& batch,
                     const std::vector<storage::WriteOutcome>& outcomes, size_t first) {
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const Batch::Entry& entry = batch.entries[first + i];
    const storage::WriteOutcome& outcome = outcomes[i];
    if (outcome.failure) {
      AddConditionFailureLine(record, entry.object_key, entry.index, entry.put.item,
                              outcome.old_item);
      continue;
    }
    meter_(table, outcome, record.usage);
    run.units += std::max<double>(1, static_cast<double>((outcome.new_size + 1023) / 1024));
  }
}

Status BulkJobs::Commit(Run& run, const TableDef& table, Batch& batch) {
  // The parts a checkpoint clears are written before it commits.
  DDBD_RETURN_IF_ERROR(FlushReport(store_, run.record, false));
  std::vector<storage::ItemWrite> writes;
  for (const auto& entry : batch.entries) writes.push_back(entry.put.write);
  BulkRecord next;
  const double units_before = run.units;
  storage::JobCheckpoint checkpoint{kBulkJob, run.record.id, [&](const auto& outcomes) {
                                      next = run.record;
                                      run.units = units_before;
                                      Apply(run, next, table, batch, outcomes, 0);
                                      if (cancelling_.contains(next.id)) {
                                        next.status = JobStatus::kCancelling;
                                      }
                                      return EncodeBulk(next);
                                    }};
  std::unique_lock lock(mutex_);
  auto written = db_.WriteItems(std::move(writes), nullptr, &checkpoint);
  lock.unlock();
  if (written.ok()) {
    run.record = std::move(next);
  } else if (written.error().code() == ErrorCode::kInternal || batch.entries.empty()) {
    return std::move(written).error();
  } else {
    DDBD_RETURN_IF_ERROR(CommitEach(run, table, batch));
  }
  batch.Clear();
  return OkStatus();
}

Status BulkJobs::CommitEach(Run& run, const TableDef& table, Batch& batch) {
  // Without a checkpoint of its own, each write: a crash before the checkpoint below writes
  // them again when the operation resumes.
  for (size_t i = 0; i < batch.entries.size(); ++i) {
    auto written = db_.WriteItems({batch.entries[i].put.write});
    if (written.ok()) {
      Apply(run, run.record, table, batch, *written, i);
    } else if (written.error().code() == ErrorCode::kInternal) {
      return std::move(written).error();
    } else {
      AddErrorLine(run.record, batch.entries[i].object_key, batch.entries[i].index,
                   written.error());
    }
  }
  batch.Clear();
  return Commit(run, table, batch);
}

void BulkJobs::Finish(std::shared_ptr<Run> run, JobStatus status, std::optional<Error> failure) {
  BulkRecord& record = run->record;
  record.status = status;
  record.end_ms = clock_.NowMs();
  if (failure) {
    record.failure_code = std::string(failure->name());
    record.failure_message = failure->message();
  } else if (status == JobStatus::kCancelled) {
    record.failure_code = "BulkOperationCancelled";
    record.failure_message = "The bulk operation was cancelled by a CancelBulkOperation request.";
  }
  Status reported = FlushReport(store_, record, true);
  if (reported.ok()) reported = WriteManifest(store_, record);
  if (!reported.ok())
    log::Warning("bulk operation %s: report not written: %s", BulkArn(record).c_str(),
                 reported.error().message().c_str());
  std::lock_guard lock(mutex_);
  cancelling_.erase(record.id);
  db_.PutJob(kBulkJob, record.id, EncodeBulk(record)).IgnoreError();
  log::Info(
      "bulk operation %s %s: %lld items processed, %lld failed, %lld condition-check failures",
      BulkArn(record).c_str(), JobStatusName(status),
      static_cast<long long>(record.processed_items), static_cast<long long>(record.failed_items),
      static_cast<long long>(record.condition_failures));
}

}  // namespace ddbd::portability
