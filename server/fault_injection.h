// Fault injection on the request path: the facts of a DynamoDB request that rules match on,
// and running the request under a fault (faults/injector.h) — an error answer, a batch left
// partly unprocessed (what is not returned as unprocessed is applied, exactly as DynamoDB
// does), a transaction cancelled by a conflict, or a delayed answer.
//
// Entry points: RequestFactsOf, DispatchUnderFault.
#pragma once

#include <chrono>
#include <string>

#include "faults/injector.h"
#include "server/dispatch.h"
#include "server/op_context.h"

namespace ddbd::server {

// The operation, namespace, tables, index and — unless `with_partition_values` is false (a
// check that needs only the tables) — partition-key values of a request.
faults::RequestFacts RequestFactsOf(OpContext& ctx, std::string_view operation, const Request& req,
                                    bool with_partition_values = true);

// The request's answer under `fault`. A delay is not waited here: it is returned in `delay`
// for the HTTP layer to wait without holding a thread.
Result<std::string> DispatchUnderFault(const Operation& operation, OpContext& ctx,
                                       const Request& req, const faults::Fault& fault,
                                       std::chrono::milliseconds& delay);

// The error a kError fault answers with: the named exception with the message given, or
// DynamoDB's usual message for it. ValidationException-free: the rule was checked when set.
Error InjectedError(const faults::FaultEffect& effect);

}  // namespace ddbd::server
