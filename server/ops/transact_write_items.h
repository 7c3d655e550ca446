// TransactWriteItems as typed steps, for the handler and for PartiQL's ExecuteTransaction:
// Parse (JSON → TransactWriteInput), Execute (every action prepared like its single-item
// operation, then applied all or none), Render. Entry points: ParseTransactWriteItems,
// ExecuteTransactWriteItems, RenderTransactWriteItems, RunIdempotently.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/ops/item_request.h"

namespace ddbd::server::ops {

struct TransactWriteInput {
  std::vector<ItemWriteInput> actions;
  std::optional<std::string> token;  // ClientRequestToken
  CapacityDetail capacity = CapacityDetail::kNone;
  bool item_collection_metrics = false;
};

struct TransactWriteOutput {
  MultiWrite writes;
  std::vector<storage::WriteOutcome> outcomes;
  CapacityDetail capacity = CapacityDetail::kNone;
  bool item_collection_metrics = false;
};

Result<TransactWriteInput> ParseTransactWriteItems(wire::JsonObject body);
// TransactionCanceledException (one reason per action) when any action cannot be applied.
Result<TransactWriteOutput> ExecuteTransactWriteItems(OpContext& ctx, TransactWriteInput in);
std::string RenderTransactWriteItems(const TransactWriteOutput& output);

// Runs `run` under ClientRequestToken `token` (when there is one): a repeat within the
// window gets the first answer without running; `request` is the canonical text of the
// request's parameters, which a repeat must match.
Result<std::string> RunIdempotently(OpContext& ctx, const std::optional<std::string>& token,
                                    std::string_view request,
                                    const std::function<Result<std::string>()>& run);

}  // namespace ddbd::server::ops
