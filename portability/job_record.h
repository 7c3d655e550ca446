// What every data-movement job's record has (JobRecord: its id, namespace, table, status,
// times, bucket and failure), and the JSON text records are kept as: written with
// wire::JsonWriter, read by RecordJson — typed members with defaults, so that a record
// written by an older ddbd, without a newer member, still reads.
//
// Entry points: JobStatus, JobRecord, RecordJson, WriteJobMembers, ReadJobMembers.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "storage/database.h"
#include "wire/json_writer.h"

namespace ddbd::portability {

// Exports and imports use the first three; bulk operations all six. Stored as numbers: new
// ones go at the end.
enum class JobStatus {
  kInProgress,
  kCompleted,
  kFailed,
  kCompletedWithErrors,
  kCancelling,
  kCancelled
};
const char* JobStatusName(JobStatus status);
// Whether a job in `status` has ended (it has an end time and does not change again).
bool JobEnded(JobStatus status);

struct JobRecord {
  std::string id;     // NewJobId: "<start ms>-<8 hex>"
  std::string scope;  // the namespace of its table
  std::string table_arn;
  std::string table_uuid;
  uint64_t table_id = 0;
  JobStatus status = JobStatus::kInProgress;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  std::string bucket;
  std::optional<std::string> bucket_owner;
  std::optional<std::string> failure_code;
  std::optional<std::string> failure_message;
};

class RecordJson {
 public:
  // Fails with an Internal error naming `what` when `bytes` is not a JSON object.
  static Result<RecordJson> Parse(std::string_view bytes, std::string_view what);

  std::string Text(const char* key) const { return OptionalText(key).value_or(std::string()); }
  std::optional<std::string> OptionalText(const char* key) const;
  int64_t Number(const char* key) const;
  bool Has(const char* key) const { return object_[key].error() == simdjson::SUCCESS; }
  bool Flag(const char* key) const;
  std::vector<std::string> Texts(const char* key) const;
  std::map<std::string, int64_t> Numbers(const char* key) const;  // an object of numbers

 private:
  RecordJson() : parser_(std::make_unique<simdjson::dom::parser>()) {}

  std::unique_ptr<simdjson::dom::parser> parser_;  // owns what object_ points into
  simdjson::dom::object object_;
};

// Writes `key` and the text when there is one, nothing otherwise.
inline void WriteOptional(wire::JsonWriter& out, std::string_view key,
                          const std::optional<std::string>& value) {
  if (value) out.Key(key).String(*value);
}

// How long DynamoDB keeps an ended export, import or bulk operation listed and described.
inline constexpr int64_t kJobRecordRetentionMs = int64_t{90} * 24 * 3600 * 1000;

// Deletes the records of `kind` that ended (JobEnded) before `before_ms`; returns
// how many went.
Result<uint64_t> ForgetEndedJobs(storage::Database& db, char kind, int64_t before_ms);

// The record of kind `kind` with id `id`, decoded by `decode`; nullopt when there is none.
template <typename Record>
Result<std::optional<Record>> FindJob(storage::Database& db, char kind, std::string_view id,
                                      Result<Record> (*decode)(std::string_view)) {
  DDBD_ASSIGN_OR_RETURN(std::optional<std::string> bytes, db.GetJob(kind, id));
  if (!bytes) return std::optional<Record>();
  DDBD_ASSIGN_OR_RETURN(Record record, decode(*bytes));
  return std::optional<Record>(std::move(record));
}

// Every record of kind `kind`, oldest first, decoded by `decode`.
template <typename Record>
Result<std::vector<Record>> AllJobs(storage::Database& db, char kind,
                                    Result<Record> (*decode)(std::string_view)) {
  DDBD_ASSIGN_OR_RETURN(auto jobs, db.Jobs(kind));
  std::vector<Record> records;
  for (const auto& job : jobs) {
    DDBD_ASSIGN_OR_RETURN(Record record, decode(job.bytes));
    records.push_back(std::move(record));
  }
  return records;
}

// The members of JobRecord, written inside the record's object / read back.
void WriteJobMembers(wire::JsonWriter& out, const JobRecord& record);
void ReadJobMembers(const RecordJson& json, JobRecord& record);

}  // namespace ddbd::portability
