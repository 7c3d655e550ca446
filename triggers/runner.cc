// A trigger's delivery loop: windows of records, lanes, batches, retries and checkpoints.
#include "triggers/runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <deque>

#include "model/log.h"
#include "streams/shards.h"
#include "wire/attribute_value_json.h"
#include "wire/json_reader.h"
#include "wire/json_writer.h"

namespace ddbd::triggers {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(20);
constexpr auto kErrorPause = std::chrono::milliseconds(1000);
constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::milliseconds(2000);
constexpr auto kDestinationTimeout = std::chrono::milliseconds(10'000);
constexpr size_t kMaxWindowRecords = 10'000;
// A window's records are read this many at a time, and no more once a lane's share of items
// (by DynamoDB's measure) reaches half a 6 MB payload: records of large items cannot make a
// window take memory beyond a few payloads.
constexpr size_t kRecordsPerRead = 25;
constexpr size_t kWindowBytesPerLane = kMaxPayloadBytes / 2;
constexpr size_t kEventOverheadBytes = 16;

std::vector<const StreamSpec*> StreamsInOrder(const TableDef& table) {
  std::vector<const StreamSpec*> streams;
  for (const StreamSpec& stream : table.streams) streams.push_back(&stream);
  std::sort(streams.begin(), streams.end(),
            [](const StreamSpec* a, const StreamSpec* b) { return a->id < b->id; });
  return streams;
}

// The records a partial batch response names as failed, by sequence number; nullopt when the
// answer names none; an empty set inside when an identifier is missing or malformed (the
// whole batch failed, as Lambda rules).
std::optional<std::vector<uint64_t>> ReportedFailures(std::string_view response) {
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(response.data(), response.size()).get_object().get(object) !=
      simdjson::SUCCESS) {
    return std::nullopt;  // no answer, or not an object: a success
  }
  auto failures = wire::Member(object, "batchItemFailures");
  simdjson::dom::array list;
  if (!failures || failures->get_array().get(list) != simdjson::SUCCESS || list.size() == 0) {
    return std::nullopt;
  }
  std::vector<uint64_t> sequences;
  for (auto failure : list) {
    simdjson::dom::object entry;
    std::string_view identifier;
    std::optional<wire::JsonValue> member;
    if (failure.get_object().get(entry) == simdjson::SUCCESS) {
      member = wire::Member(entry, "itemIdentifier");
    }
    std::optional<uint64_t> sequence;
    if (member && member->get_string().get(identifier) == simdjson::SUCCESS) {
      sequence = streams::ParseSequenceNumber(identifier);
    }
    if (!sequence) return std::vector<uint64_t>{};
    sequences.push_back(*sequence);
  }
  return sequences;
}

Status AppendLine(const std::string& path, const std::string& line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Error::Internal("cannot open " + path);
  const std::string text = line + "\n";
  const ssize_t written = ::write(fd, text.data(), text.size());
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size())) return Error::Internal("cannot write " + path);
  return OkStatus();
}

}  // namespace

size_t Runner::LaneOf(const Item& keys, int64_t lanes) {
  if (lanes <= 1) return 0;
  wire::JsonWriter out;
  wire::WriteAttributeMap(out, keys);
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : out.str()) hash = (hash ^ c) * 1099511628211ull;
  return static_cast<size_t>(hash % static_cast<uint64_t>(lanes));
}

void Runner::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void Runner::Stop() {
  {
    std::lock_guard lock(wake_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

TriggerStatistics Runner::Statistics() const {
  std::lock_guard lock(statistics_mutex_);
  return statistics_;
}

bool Runner::Pause(std::chrono::milliseconds pause) {
  std::unique_lock lock(wake_mutex_);
  wake_.wait_for(lock, pause, [this] { return stopping_.load(); });
  return !stopping_;
}

void Runner::NoteError(const std::string& error) {
  log::Warning("trigger %s: %s", definition_.name.c_str(), error.c_str());
  std::lock_guard lock(statistics_mutex_);
  statistics_.last_error = error;
  statistics_.last_error_ms = context_.clock.NowMs();
  statistics_.last_processing_result = "PROBLEM: " + error;
}

void Runner::SetResult(std::string result) {
  std::lock_guard lock(statistics_mutex_);
  statistics_.last_processing_result = std::move(result);
}

void Runner::Loop() {
  if (Status loaded = LoadCheckpoint(); !loaded.ok()) {
    NoteError("its checkpoint could not be read: " + loaded.error().message());
    return;
  }
  while (!stopping_) {
    Result<Progress> pass = Pass();
    if (!pass.ok()) {
      NoteError(pass.error().message());
      Pause(kErrorPause);
    } else if (*pass != Progress::kDelivered) {
      Pause(kPollInterval);
    }
  }
}

Result<Runner::Progress> Runner::Pass() {
  if (!definition_.enabled) {
    SetResult("Disabled");
    return Progress::kIdle;
  }
  const auto table = context_.catalog.Find(definition_.scope, definition_.table_name);
  if (!table || table->streams.empty()) {
    SetResult(table
                  ? "PROBLEM: table " + definition_.table_name + " has no stream (waiting for one)"
                  : "PROBLEM: no table " + definition_.table_name + " in namespace " +
                        definition_.name_space + " (waiting for it)");
    return Progress::kIdle;
  }
  uint64_t current;
  {
    std::lock_guard lock(checkpoint_mutex_);
    current = checkpoint_.stream_id;
  }
  for (const StreamSpec* stream : StreamsInOrder(*table)) {
    if (stream->id < current) continue;
    if (stream->id != current) {
      DDBD_RETURN_IF_ERROR(Begin(*stream));
      current = stream->id;
    }
    DDBD_ASSIGN_OR_RETURN(const Progress progress, PassOn({table.get(), stream}));
    // A stream that is enabled may get more records; a closed one read to its end gives way
    // to the next.
    if (progress != Progress::kIdle || stream->enabled) return progress;
  }
  return Progress::kIdle;
}

Status Runner::Begin(const StreamSpec& stream) {
  std::lock_guard lock(checkpoint_mutex_);
  checkpoint_.stream_id = stream.id;
  checkpoint_.after = definition_.starting_position == StartingPosition::kLatest
                          ? definition_.created_after_sequence
                          : 0;
  checkpoint_.lanes.assign(static_cast<size_t>(definition_.parallelization_factor), 0);
  return SaveCheckpoint();
}

Result<Runner::Progress> Runner::PassOn(const Source& source) {
  const StreamSpec& stream = *source.stream;
  DDBD_ASSIGN_OR_RETURN(const uint64_t trim_point, context_.db.StreamTrimPoint(stream.id));
  Checkpoint start;
  {
    std::lock_guard lock(checkpoint_mutex_);
    if (checkpoint_.after < trim_point) {
      log::Warning("trigger %s: records of %s after %" PRIu64
                   " were removed by the stream's retention before they were delivered",
                   definition_.name.c_str(), source.table->name.c_str(), checkpoint_.after);
      checkpoint_.after = trim_point;
      DDBD_RETURN_IF_ERROR(SaveCheckpoint());
    }
    start = checkpoint_;
  }
  DDBD_ASSIGN_OR_RETURN(Window window, ReadWindow(stream.id, start.after));
  std::vector<storage::StreamRecord>& records = window.records;
  const int64_t now_ms = context_.clock.NowMs();
  {
    std::lock_guard lock(statistics_mutex_);
    statistics_.stream_arn = source.table->StreamArn(stream);
    statistics_.position = start.after;
    statistics_.iterator_age_ms = records.empty() ? 0 : now_ms - records.front().time_ms;
    if (records.empty() && !statistics_.last_processing_result.starts_with("PROBLEM") &&
        statistics_.batches_delivered > 0) {
      statistics_.last_processing_result = "OK";
    }
  }
  if (records.empty()) return Progress::kIdle;

  // The batching window, by the service clock: hold a window that is not full.
  if (definition_.batching_window_seconds > 0 && !window.full &&
      now_ms - records.front().time_ms < definition_.batching_window_seconds * 1000) {
    return Progress::kWaiting;
  }

  std::vector<std::vector<Entry>> lanes = LanesOf(source, records, start);
  if (!DeliverLanes(source, lanes)) return Progress::kIdle;

  std::lock_guard lock(checkpoint_mutex_);
  checkpoint_.after = records.back().sequence;
  std::fill(checkpoint_.lanes.begin(), checkpoint_.lanes.end(), 0);
  DDBD_RETURN_IF_ERROR(SaveCheckpoint());
  return Progress::kDelivered;
}

Result<Runner::Window> Runner::ReadWindow(uint64_t stream_id, uint64_t after) {
  const int64_t factor = definition_.parallelization_factor;
  const size_t max_records =
      std::min(kMaxWindowRecords, static_cast<size_t>(definition_.batch_size * factor));
  const size_t max_bytes = static_cast<size_t>(factor) * kWindowBytesPerLane;
  Window window;
  size_t bytes = 0;
  while (!window.full) {
    const size_t wanted = std::min(kRecordsPerRead, max_records - window.records.size());
    DDBD_ASSIGN_OR_RETURN(auto records, context_.db.ReadStream(stream_id, after, wanted));
    for (storage::StreamRecord& record : records) {
      bytes += record.size_bytes;
      after = record.sequence;
      window.records.push_back(std::move(record));
      window.full = window.records.size() >= max_records || bytes >= max_bytes;
      if (window.full) break;
    }
    if (records.size() < wanted) break;  // nothing more yet
  }
  return window;
}

std::vector<std::vector<Runner::Entry>> Runner::LanesOf(
    const Source& source, const std::vector<storage::StreamRecord>& records,
    const Checkpoint& start) {
  const int64_t factor = definition_.parallelization_factor;
  std::vector<std::vector<Entry>> lanes(static_cast<size_t>(factor));
  uint64_t filtered = 0;
  simdjson::dom::parser parser;
  for (const storage::StreamRecord& record : records) {
    const size_t lane = LaneOf(record.keys, factor);
    if (record.sequence <= start.Reached(lane)) continue;  // acknowledged before a restart
    if (definition_.starting_position == StartingPosition::kAtTimestamp &&
        record.time_ms < definition_.starting_timestamp_ms) {
      continue;
    }
    Entry entry{record.sequence, record.time_ms,
                RenderEventRecord(*source.table, *source.stream, record)};
    if (!definition_.filter_criteria.empty()) {
      wire::JsonValue parsed;
      if (parser.parse(entry.json).get(parsed) != simdjson::SUCCESS ||
          !definition_.filter_criteria.Matches(parsed)) {
        ++filtered;
        continue;
      }
    }
    lanes[lane].push_back(std::move(entry));
  }
  {
    std::lock_guard lock(statistics_mutex_);
    statistics_.records_filtered += filtered;
  }

  return lanes;
}

bool Runner::DeliverLanes(const Source& source, std::vector<std::vector<Entry>>& lanes) {
  std::vector<std::thread> others;
  bool finished = true;
  std::atomic<bool> lane_stopped{false};
  for (size_t lane = 1; lane < lanes.size(); ++lane) {
    if (lanes[lane].empty()) continue;
    others.emplace_back([&, lane] {
      if (!DeliverLane(source, lane, lanes[lane])) lane_stopped = true;
    });
  }
  if (!lanes[0].empty()) finished = DeliverLane(source, 0, lanes[0]);
  for (std::thread& other : others) other.join();
  return finished && !lane_stopped && !stopping_;
}

bool Runner::DeliverLane(const Source& source, size_t lane, std::vector<Entry>& entries) {
  std::vector<Entry> batch;
  size_t bytes = kEventOverheadBytes;
  for (Entry& entry : entries) {
    const bool full = static_cast<int64_t>(batch.size()) >= definition_.batch_size ||
                      bytes + entry.json.size() + 1 > kMaxPayloadBytes;
    if (!batch.empty() && full) {
      if (!DeliverBatch(source, lane, batch)) return false;
      batch.clear();
      bytes = kEventOverheadBytes;
    }
    bytes += entry.json.size() + 1;
    batch.push_back(std::move(entry));
  }
  return batch.empty() || DeliverBatch(source, lane, batch);
}

bool Runner::DeliverBatch(const Source& source, size_t lane, const std::vector<Entry>& batch) {
  std::deque<Attempt> attempts = {{0, batch.size()}};
  const Target target{definition_.url, definition_.command,
                      std::chrono::seconds(definition_.timeout_seconds)};
  bool last_failed = false;
  while (!attempts.empty()) {
    if (stopping_) return false;
    Attempt& attempt = attempts.front();
    if (GiveUpExpired(source, lane, batch, attempt, last_failed)) {
      attempts.pop_front();
      continue;
    }
    std::vector<const std::string*> records;
    for (size_t i = attempt.begin; i < attempt.end; ++i) records.push_back(&batch[i].json);
    const Invocation invocation = Invoke(target, context_.http, RenderEvent(records), stopping_);
    ++attempt.invocations;
    if (stopping_) return false;  // cut short: delivered again after the next start
    size_t failed_from = attempt.end;
    if (invocation.function_error) {
      failed_from = attempt.begin;
    } else if (definition_.report_batch_item_failures) {
      failed_from = FirstFailure(invocation.response, batch, attempt.begin, attempt.end);
    }
    const size_t succeeded = failed_from - attempt.begin;
    if (succeeded > 0) {
      Acknowledge(lane, batch[failed_from - 1].sequence);
      std::lock_guard lock(statistics_mutex_);
      statistics_.records_delivered += succeeded;
    }
    if (failed_from == attempt.end) {
      {
        std::lock_guard lock(statistics_mutex_);
        ++statistics_.batches_delivered;
        statistics_.last_processing_result = "OK";
      }
      attempts.pop_front();
      last_failed = false;
      continue;
    }
    last_failed = invocation.function_error;
    {
      std::lock_guard lock(statistics_mutex_);
      ++statistics_.batches_failed;
    }
    NoteError(invocation.function_error
                  ? "a batch of " + std::to_string(attempt.end - attempt.begin) +
                        " records failed: " + invocation.error
                  : "the handler reported failed records from sequence number " +
                        streams::SequenceNumberText(batch[failed_from].sequence));
    attempt.begin = failed_from;
    if (invocation.function_error && definition_.bisect_batch_on_function_error &&
        attempt.end - attempt.begin > 1) {
      const size_t middle = attempt.begin + (attempt.end - attempt.begin) / 2;
      const Attempt first{attempt.begin, middle, attempt.retries, attempt.invocations};
      const Attempt second{middle, attempt.end, attempt.retries, attempt.invocations};
      attempts.pop_front();
      attempts.push_front(second);
      attempts.push_front(first);
      continue;
    }
    if (definition_.maximum_retry_attempts >= 0 &&
        attempt.retries >= definition_.maximum_retry_attempts) {
      GiveUp(source, batch, attempt.begin, attempt.end, kRetryAttemptsExhausted,
             attempt.invocations, invocation.function_error);
      Acknowledge(lane, batch[attempt.end - 1].sequence);
      attempts.pop_front();
      continue;
    }
    ++attempt.retries;
    {
      std::lock_guard lock(statistics_mutex_);
      ++statistics_.batches_retried;
    }
    const auto backoff = std::min<std::chrono::milliseconds>(
        kMaxBackoff, kFirstBackoff * (int64_t{1} << std::min<int64_t>(attempt.retries - 1, 10)));
    if (!Pause(backoff)) return false;
  }
  return true;
}

bool Runner::GiveUpExpired(const Source& source, size_t lane, const std::vector<Entry>& batch,
                           Attempt& attempt, bool last_failed) {
  if (definition_.maximum_record_age_seconds < 0) return false;
  const int64_t now_ms = context_.clock.NowMs();
  const int64_t max_age_ms = definition_.maximum_record_age_seconds * 1000;
  size_t live = attempt.begin;
  while (live < attempt.end && now_ms - batch[live].time_ms > max_age_ms) ++live;
  if (live == attempt.begin) return false;
  GiveUp(source, batch, attempt.begin, live, kRecordAgeExceeded, attempt.invocations, last_failed);
  Acknowledge(lane, batch[live - 1].sequence);
  attempt.begin = live;
  return live == attempt.end;
}

size_t Runner::FirstFailure(std::string_view response, const std::vector<Entry>& batch,
                            size_t begin, size_t end) const {
  const std::optional<std::vector<uint64_t>> failures = ReportedFailures(response);
  if (!failures) return end;
  if (failures->empty()) return begin;
  size_t first = end;
  for (uint64_t sequence : *failures) {
    auto found = std::find_if(batch.begin() + begin, batch.begin() + end,
                              [&](const Entry& entry) { return entry.sequence == sequence; });
    if (found == batch.begin() + end) return begin;  // not a record of this batch
    first = std::min(first, static_cast<size_t>(found - batch.begin()));
  }
  return first;
}

void Runner::GiveUp(const Source& source, const std::vector<Entry>& batch, size_t begin, size_t end,
                    std::string_view condition, int invocations, bool function_error) {
  FailedBatch failed;
  failed.trigger_name = definition_.name;
  failed.region = source.table->region;
  failed.stream_arn = source.table->StreamArn(*source.stream);
  failed.shard_id = streams::ShardId(*source.stream);
  failed.first_sequence = batch[begin].sequence;
  failed.last_sequence = batch[end - 1].sequence;
  failed.first_ms = batch[begin].time_ms;
  failed.last_ms = batch[end - 1].time_ms;
  failed.size = end - begin;
  failed.condition = condition;
  failed.invocations = invocations;
  failed.function_error = function_error;
  failed.now_ms = context_.clock.NowMs();
  {
    std::lock_guard lock(statistics_mutex_);
    statistics_.records_discarded += failed.size;
  }
  log::Warning("trigger %s: gave up %zu records (%s), sequence numbers %" PRIu64 " to %" PRIu64,
               definition_.name.c_str(), failed.size, std::string(condition).c_str(),
               failed.first_sequence, failed.last_sequence);
  const std::string& destination = definition_.on_failure;
  if (destination.empty()) return;
  const std::string record = RenderFailure(failed);
  Status sent = OkStatus();
  if (destination.starts_with("file://")) {
    sent = AppendLine(destination.substr(7), record);
  } else if (!context_.http) {
    sent = Error::Internal("no HTTP client");
  } else {
    auto reply = context_.http->Post(destination, record, kDestinationTimeout, stopping_);
    if (!reply.ok()) {
      sent = std::move(reply).error();
    } else if (reply->status < 200 || reply->status > 299) {
      sent = Error::Internal("HTTP " + std::to_string(reply->status));
    }
  }
  if (!sent.ok()) {
    NoteError("the on-failure destination " + destination +
              " did not take a record: " + sent.error().message());
  }
}

void Runner::Acknowledge(size_t lane, uint64_t sequence) {
  std::lock_guard lock(checkpoint_mutex_);
  checkpoint_.lanes[lane] = std::max(checkpoint_.lanes[lane], sequence);
  if (Status saved = SaveCheckpoint(); !saved.ok()) NoteError(saved.error().message());
}

// Stored as "<stream id> <after> <lane> …" (storage/FORMAT.md, job kind C).
Status Runner::LoadCheckpoint() {
  DDBD_ASSIGN_OR_RETURN(auto stored, context_.db.GetJob(kCheckpointKind, definition_.name));
  std::lock_guard lock(checkpoint_mutex_);
  checkpoint_.lanes.assign(static_cast<size_t>(definition_.parallelization_factor), 0);
  if (!stored) return OkStatus();
  const char* cursor = stored->c_str();
  char* end = nullptr;
  checkpoint_.stream_id = std::strtoull(cursor, &end, 10);
  checkpoint_.after = std::strtoull(end, &end, 10);
  std::vector<uint64_t> lanes;
  while (*end == ' ') {
    char* next = nullptr;
    lanes.push_back(std::strtoull(end, &next, 10));
    if (next == end) break;
    end = next;
  }
  // A factor changed since: the lanes' progress is forgotten (their batches come again).
  if (lanes.size() == checkpoint_.lanes.size()) checkpoint_.lanes = std::move(lanes);
  return OkStatus();
}

Status Runner::SaveCheckpoint() {
  std::string text =
      std::to_string(checkpoint_.stream_id) + ' ' + std::to_string(checkpoint_.after);
  for (uint64_t lane : checkpoint_.lanes) text += ' ' + std::to_string(lane);
  return context_.db.PutJob(kCheckpointKind, definition_.name, text);
}

}  // namespace ddbd::triggers
