// The dispatch table, one sorted row per operation.
#include "server/dispatch.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iterator>

#include "server/ops/ops.h"

namespace ddbd::server {
namespace {

constexpr Operation kOperations[] = {
    {"BatchGetItem", ops::BatchGetItem, Access::kRead},
    {"BatchWriteItem", ops::BatchWriteItem, Access::kWrite},
    {"CreateTable", ops::CreateTable, Access::kAdmin},
    {"DeleteItem", ops::DeleteItem, Access::kWrite},
    {"DeleteTable", ops::DeleteTable, Access::kAdmin},
    {"DescribeEndpoints", ops::DescribeEndpoints, Access::kRead},
    {"DescribeLimits", ops::DescribeLimits, Access::kRead},
    {"DescribeTable", ops::DescribeTable, Access::kRead},
    {"DescribeTimeToLive", ops::DescribeTimeToLive, Access::kRead},
    {"GetItem", ops::GetItem, Access::kRead},
    {"ListTables", ops::ListTables, Access::kRead},
    {"ListTagsOfResource", ops::ListTagsOfResource, Access::kRead},
    {"PutItem", ops::PutItem, Access::kWrite},
    {"Query", ops::Query, Access::kRead},
    {"Scan", ops::Scan, Access::kRead},
    {"SearchVectors", ops::SearchVectors, Access::kRead},
    {"TagResource", ops::TagResource, Access::kAdmin},
    {"TransactGetItems", ops::TransactGetItems, Access::kRead},
    {"TransactWriteItems", ops::TransactWriteItems, Access::kWrite},
    {"UntagResource", ops::UntagResource, Access::kAdmin},
    {"UpdateItem", ops::UpdateItem, Access::kWrite},
    {"UpdateTable", ops::UpdateTable, Access::kAdmin},
    {"UpdateTimeToLive", ops::UpdateTimeToLive, Access::kAdmin},
};

constexpr bool IsSorted() {
  for (size_t i = 1; i < std::size(kOperations); ++i) {
    if (!(kOperations[i - 1].name < kOperations[i].name)) return false;
  }
  return true;
}
static_assert(IsSorted(), "kOperations must stay sorted by name");

}  // namespace

const Operation* FindOperation(std::string_view name) {
  auto it = std::lower_bound(std::begin(kOperations), std::end(kOperations), name,
                             [](const Operation& op, std::string_view n) { return op.name < n; });
  if (it == std::end(kOperations) || it->name != name) return nullptr;
  return &*it;
}

Result<std::string> Dispatch(const Operation& operation, OpContext& ctx, const Request& req) {
  try {
    return operation.handler(ctx, req);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddbd: %.*s failed: %s\n", static_cast<int>(operation.name.size()),
                 operation.name.data(), e.what());
  } catch (...) {
    std::fprintf(stderr, "ddbd: %.*s failed with an unknown exception\n",
                 static_cast<int>(operation.name.size()), operation.name.data());
  }
  return Error::Internal();
}

}  // namespace ddbd::server
