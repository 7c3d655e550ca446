// Job records: their common members and their JSON.
#include "portability/job_record.h"

#include "portability/job_naming.h"

namespace ddbd::portability {

Result<RecordJson> RecordJson::Parse(std::string_view bytes, std::string_view what) {
  RecordJson record;
  if (record.parser_->parse(bytes.data(), bytes.size()).get(record.object_) != simdjson::SUCCESS) {
    return Error::Internal("corrupt " + std::string(what) + " record");
  }
  return record;
}

std::optional<std::string> RecordJson::OptionalText(const char* key) const {
  std::string_view value;
  if (object_[key].get(value) != simdjson::SUCCESS) return std::nullopt;
  return std::string(value);
}

int64_t RecordJson::Number(const char* key) const {
  int64_t value = 0;
  return object_[key].get(value) == simdjson::SUCCESS ? value : 0;
}

bool RecordJson::Flag(const char* key) const {
  bool value = false;
  return object_[key].get(value) == simdjson::SUCCESS && value;
}

std::vector<std::string> RecordJson::Texts(const char* key) const {
  std::vector<std::string> texts;
  simdjson::dom::array array;
  if (object_[key].get(array) != simdjson::SUCCESS) return texts;
  for (auto element : array) {
    std::string_view text;
    if (element.get(text) == simdjson::SUCCESS) texts.emplace_back(text);
  }
  return texts;
}

std::map<std::string, int64_t> RecordJson::Numbers(const char* key) const {
  std::map<std::string, int64_t> numbers;
  simdjson::dom::object object;
  if (object_[key].get(object) != simdjson::SUCCESS) return numbers;
  for (auto [name, value] : object) {
    int64_t number = 0;
    if (value.get(number) == simdjson::SUCCESS) numbers.emplace(name, number);
  }
  return numbers;
}

const char* JobStatusName(JobStatus status) {
  switch (status) {
    case JobStatus::kInProgress:
      return "IN_PROGRESS";
    case JobStatus::kCompleted:
      return "COMPLETED";
    case JobStatus::kFailed:
      return "FAILED";
    case JobStatus::kCompletedWithErrors:
      return "COMPLETED_WITH_ERRORS";
    case JobStatus::kCancelling:
      return "CANCELLING";
    case JobStatus::kCancelled:
      return "CANCELLED";
  }
  return "FAILED";
}

bool JobEnded(JobStatus status) {
  return status != JobStatus::kInProgress && status != JobStatus::kCancelling;
}

Result<uint64_t> ForgetEndedJobs(storage::Database& db, char kind, int64_t before_ms) {
  DDBD_ASSIGN_OR_RETURN(auto jobs, db.Jobs(kind));
  uint64_t forgotten = 0;
  for (const auto& job : jobs) {
    // A job ends after it starts, and its id starts with its start time: only records started
    // before `before_ms` can have ended before it, and only those are read.
    if (JobIdTime(job.id) >= before_ms) continue;
    DDBD_ASSIGN_OR_RETURN(RecordJson json, RecordJson::Parse(job.bytes, "job"));
    JobRecord record;
    ReadJobMembers(json, record);
    if (!JobEnded(record.status) || record.end_ms >= before_ms) continue;
    DDBD_RETURN_IF_ERROR(db.DeleteJob(kind, job.id));
    ++forgotten;
  }
  return forgotten;
}

void WriteJobMembers(wire::JsonWriter& out, const JobRecord& r) {
  out.Key("id").String(r.id).Key("scope").String(r.scope).Key("tableArn").String(r.table_arn);
  out.Key("tableUuid").String(r.table_uuid).Key("tableId").Int(static_cast<int64_t>(r.table_id));
  out.Key("status").Int(static_cast<int64_t>(r.status));
  out.Key("start").Int(r.start_ms).Key("end").Int(r.end_ms);
  out.Key("bucket").String(r.bucket);
  WriteOptional(out, "bucketOwner", r.bucket_owner);
  WriteOptional(out, "failureCode", r.failure_code);
  WriteOptional(out, "failureMessage", r.failure_message);
}

void ReadJobMembers(const RecordJson& json, JobRecord& r) {
  r.id = json.Text("id");
  r.scope = json.Text("scope");
  r.table_arn = json.Text("tableArn");
  r.table_uuid = json.Text("tableUuid");
  r.table_id = static_cast<uint64_t>(json.Number("tableId"));
  r.status = static_cast<JobStatus>(json.Number("status"));
  r.start_ms = json.Number("start");
  r.end_ms = json.Number("end");
  r.bucket = json.Text("bucket");
  r.bucket_owner = json.OptionalText("bucketOwner");
  r.failure_code = json.OptionalText("failureCode");
  r.failure_message = json.OptionalText("failureMessage");
}

}  // namespace ddbd::portability
