// The control API's handlers, one per path and method (control_api.cc routes to them).
// Each gets the path's parameters and the parsed body, and returns the reply's JSON body.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

#include "model/result.h"
#include "server/service.h"

namespace ddbd::server::control {

// The request body: an object, or nullopt when the body was empty.
using ControlBody = std::optional<simdjson::dom::object>;

// GET /ddbd/clock → {"Now", "Mode"}.
Result<std::string> GetClock(Service& service);
// PUT /ddbd/clock with {"Now"} (freeze), {"Advance"} (seconds forward) and/or {"Run": true}.
Result<std::string> PutClock(Service& service, const ControlBody& body);
// POST /ddbd/ttl/sweep → {"Deleted", "Now"} once the pass has finished.
Result<std::string> SweepTimeToLive(Service& service);

// GET /ddbd/namespaces → {"Namespaces": [{"Name", "TableCount", "ItemCount"}]}.
Result<std::string> ListNamespaces(Service& service);
// GET /ddbd/namespaces/{ns} → {"Name", "TableCount", "ItemCount", "Tables": [names]}.
Result<std::string> DescribeNamespace(Service& service, std::string_view name);
// DELETE /ddbd/namespaces/{ns} → every table and backup of the namespace is gone.
Result<std::string> DeleteNamespace(Service& service, std::string_view name);

// Drops every table of the namespace `scope` (range deletions: the time follows the number
// of tables, not of items); returns how many.
Result<int64_t> DropNamespaceTables(Service& service, const std::string& scope);

// PUT /ddbd/namespaces/{ns}/snapshots/{name}: saves the namespace's tables (replacing a
// snapshot of that name). GET /ddbd/snapshots lists every snapshot. DELETE …/{name} removes
// one. POST …/{name}/restore replaces the namespace's tables with the snapshot's; POST
// …/{name}/fork with {"To": ns} makes a new namespace from it (the target must hold no tables).
Result<std::string> SaveSnapshot(Service& service, std::string_view name_space,
                                 std::string_view name);
Result<std::string> ListSnapshots(Service& service);
Result<std::string> DeleteSnapshot(Service& service, std::string_view name_space,
                                   std::string_view name);
Result<std::string> RestoreSnapshot(Service& service, std::string_view name_space,
                                    std::string_view name);
Result<std::string> ForkSnapshot(Service& service, std::string_view name_space,
                                 std::string_view name, const ControlBody& body);
// At start-up, before serving: drops the tables' copies a crash left unowned (a save or a
// delete of a snapshot cut short), with their record.
void DropUnownedSnapshotCopies(Service& service);

// PUT /ddbd/faults with {"Rules": [...]} replaces the rules; GET lists them with their
// Matched and Fired counters; DELETE clears them. Each answers the rules as they now are.
Result<std::string> PutFaults(Service& service, const ControlBody& body);
Result<std::string> GetFaults(Service& service);
// GET /ddbd/imports/{id}/errors (objects_control.cc).
Result<std::string> ImportErrors(Service& service, std::string_view import_id);
Result<std::string> DeleteFaults(Service& service);

// GET /ddbd/triggers lists every trigger; PUT /ddbd/triggers/{name} creates or replaces one
// (the body is its definition, triggers/definition.h); GET and DELETE …/{name} answer the
// trigger (with its state and counters), DELETE after removing it (trigger_control.cc).
Result<std::string> ListTriggers(Service& service);
Result<std::string> GetTrigger(Service& service, std::string_view name);
Result<std::string> PutTrigger(Service& service, std::string_view name, const ControlBody& body);
Result<std::string> DeleteTrigger(Service& service, std::string_view name);

}  // namespace ddbd::server::control
