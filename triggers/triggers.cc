// The set of triggers, stored and running.
#include "triggers/triggers.h"

#include "model/log.h"
#include "wire/json_writer.h"

namespace ddbd::triggers {
namespace {

std::string StoredForm(const TriggerDefinition& definition) {
  wire::JsonWriter out;
  out.BeginObject();
  RenderDefinition(out, definition, true);
  out.EndObject();
  return out.Take();
}

TriggerView ViewOf(const Runner& runner) { return {runner.definition(), runner.Statistics()}; }

}  // namespace

std::string RenderTrigger(const TriggerView& view) {
  const TriggerStatistics& s = view.statistics;
  wire::JsonWriter out;
  out.BeginObject();
  RenderDefinition(out, view.definition, false);
  out.Key("State").String(view.definition.enabled ? "Enabled" : "Disabled");
  out.Key("LastProcessingResult").String(s.last_processing_result);
  if (!s.stream_arn.empty()) {
    out.Key("Position").BeginObject().Key("StreamArn").String(s.stream_arn);
    out.Key("SequenceNumber").String(std::to_string(s.position)).EndObject();
  }
  out.Key("Statistics").BeginObject();
  out.Key("IteratorAgeMilliseconds").Int(s.iterator_age_ms);
  out.Key("BatchesDelivered").Int(static_cast<int64_t>(s.batches_delivered));
  out.Key("BatchesFailed").Int(static_cast<int64_t>(s.batches_failed));
  out.Key("BatchesRetried").Int(static_cast<int64_t>(s.batches_retried));
  out.Key("RecordsDelivered").Int(static_cast<int64_t>(s.records_delivered));
  out.Key("RecordsFiltered").Int(static_cast<int64_t>(s.records_filtered));
  out.Key("RecordsDiscarded").Int(static_cast<int64_t>(s.records_discarded));
  if (!s.last_error.empty()) {
    out.Key("LastError").String(s.last_error);
    out.Key("LastErrorDateTime").EpochSeconds(s.last_error_ms);
  }
  out.EndObject();
  out.EndObject();
  return out.Take();
}

Status Triggers::Start() {
  DDBD_ASSIGN_OR_RETURN(auto stored, db_.Jobs(kDefinitionKind));
  std::lock_guard lock(mutex_);
  started_ = true;
  simdjson::dom::parser parser;
  for (const auto& record : stored) {
    wire::JsonObject object;
    if (parser.parse(record.bytes).get_object().get(object) != simdjson::SUCCESS) {
      log::Warning("trigger %s: its stored definition is not JSON; skipped", record.id.c_str());
      continue;
    }
    auto definition = ParseDefinition(record.id, object, /*stored=*/true);
    if (!definition.ok()) {
      log::Warning("trigger %s: its stored definition is refused (%s); skipped", record.id.c_str(),
                   definition.error().message().c_str());
      continue;
    }
    auto runner = std::make_unique<Runner>(Context(), *std::move(definition));
    runner->Start();
    runners_[record.id] = std::move(runner);
  }
  return OkStatus();
}

void Triggers::Stop() {
  std::lock_guard lock(mutex_);
  started_ = false;  // a trigger put while the server stops is stored, not run
  for (auto& [name, runner] : runners_) runner->Stop();
}

Result<TriggerView> Triggers::Put(TriggerDefinition definition) {
  std::lock_guard lock(mutex_);
  auto existing = runners_.find(definition.name);
  bool keep_position = false;
  if (existing != runners_.end()) {
    existing->second->Stop();
    const TriggerDefinition& old = existing->second->definition();
    keep_position = old.scope == definition.scope && old.table_name == definition.table_name;
    if (keep_position) {
      definition.created_after_sequence = old.created_after_sequence;
      definition.created_ms = old.created_ms;
    }
  }
  if (!keep_position) {
    definition.created_after_sequence = db_.LastStreamSequence();
    definition.created_ms = clock_.NowMs();
    DDBD_RETURN_IF_ERROR(db_.DeleteJob(Runner::kCheckpointKind, definition.name));
  }
  DDBD_RETURN_IF_ERROR(db_.PutJob(kDefinitionKind, definition.name, StoredForm(definition)));
  auto runner = std::make_unique<Runner>(Context(), std::move(definition));
  if (started_) runner->Start();
  const TriggerView view = ViewOf(*runner);
  runners_[view.definition.name] = std::move(runner);
  return view;
}

std::optional<TriggerView> Triggers::Get(const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto found = runners_.find(name);
  if (found == runners_.end()) return std::nullopt;
  return ViewOf(*found->second);
}

std::vector<TriggerView> Triggers::List() const {
  std::lock_guard lock(mutex_);
  std::vector<TriggerView> views;
  for (const auto& [name, runner] : runners_) views.push_back(ViewOf(*runner));
  return views;
}

Result<bool> Triggers::Delete(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto found = runners_.find(name);
  if (found == runners_.end()) return false;
  found->second->Stop();
  runners_.erase(found);
  DDBD_RETURN_IF_ERROR(db_.DeleteJob(kDefinitionKind, name));
  DDBD_RETURN_IF_ERROR(db_.DeleteJob(Runner::kCheckpointKind, name));
  return true;
}

}  // namespace ddbd::triggers
