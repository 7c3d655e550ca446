// TransactGetItems as typed steps, for the handler and for PartiQL's ExecuteTransaction of
// SELECTs. Entry points: ParseTransactGetItems, ExecuteTransactGetItems,
// RenderTransactGetItems.
#pragma once

#include <vector>

#include "server/ops/item_request.h"

namespace ddbd::server::ops {

struct TransactGetInput {
  std::vector<GetRequest> gets;
  CapacityDetail capacity = CapacityDetail::kNone;
};

struct TransactGetOutput {
  std::vector<GetRequest> gets;
  std::vector<uint64_t> table_ids;              // of each Get's table
  std::vector<storage::WriteOutcome> outcomes;  // each item read (old_item), in Get order
  CapacityDetail capacity = CapacityDetail::kNone;
};

Result<TransactGetInput> ParseTransactGetItems(wire::JsonObject body);
Result<TransactGetOutput> ExecuteTransactGetItems(OpContext& ctx, TransactGetInput in);
std::string RenderTransactGetItems(const TransactGetOutput& output);

}  // namespace ddbd::server::ops
