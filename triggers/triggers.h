// Triggers: the stream triggers a server has — their definitions (stored, so they survive a
// restart of an on-disk server), a Runner delivering each, and the control API's view of
// them (definition, state and counters).
//
// Entry points: Triggers::Start, Put, Get, List, Delete, Stop; RenderTrigger.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "model/clock.h"
#include "model/result.h"
#include "storage/catalog.h"
#include "storage/database.h"
#include "triggers/definition.h"
#include "triggers/invoker.h"
#include "triggers/runner.h"

namespace ddbd::triggers {

struct TriggerView {
  TriggerDefinition definition;
  TriggerStatistics statistics;
};

// The control API's answer for one trigger: its definition, "State" (Enabled/Disabled),
// "LastProcessingResult", "Position" and "Statistics".
std::string RenderTrigger(const TriggerView& view);

class Triggers {
 public:
  // `http` may be null (URL targets then fail). REQUIRES: all outlive this object.
  Triggers(storage::Database& db, const storage::Catalog& catalog, const Clock& clock,
           std::unique_ptr<HttpClient> http)
      : db_(db), catalog_(catalog), clock_(clock), http_(std::move(http)) {}
  ~Triggers() { Stop(); }

  // Loads the stored definitions and starts delivering. REQUIRES: called once.
  Status Start();
  // Stops every runner (an invocation in flight is cut short). Idempotent.
  void Stop();

  // Creates the trigger, or replaces the one of that name. A replacement reading the same
  // table keeps its position (as Lambda's UpdateEventSourceMapping does); otherwise the
  // trigger starts afresh at its StartingPosition.
  Result<TriggerView> Put(TriggerDefinition definition);
  std::optional<TriggerView> Get(const std::string& name) const;
  std::vector<TriggerView> List() const;  // by name
  // False when there was no such trigger.
  Result<bool> Delete(const std::string& name);

  // Job kind of the stored definitions (storage/FORMAT.md).
  static constexpr char kDefinitionKind = 'T';

 private:
  Runner::Context Context() { return {db_, catalog_, clock_, http_.get()}; }

  storage::Database& db_;
  const storage::Catalog& catalog_;
  const Clock& clock_;
  const std::unique_ptr<HttpClient> http_;
  mutable std::mutex mutex_;  // guards runners_ and started_; one change at a time
  std::map<std::string, std::unique_ptr<Runner>> runners_;
  bool started_ = false;
};

}  // namespace ddbd::triggers
