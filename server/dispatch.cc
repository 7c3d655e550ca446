// The dispatch table, one sorted row per operation.
#include "server/dispatch.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iterator>

#include "server/ops/ops.h"
#include "model/log.h"

namespace ddbd::server {
namespace {

constexpr Operation kOperations[] = {
    {"BatchExecuteStatement", ops::BatchExecuteStatement, Access::kWrite},
    {"BatchGetItem", ops::BatchGetItem, Access::kRead},
    {"BatchWriteItem", ops::BatchWriteItem, Access::kWrite},
    {"CreateBackup", ops::CreateBackup, Access::kAdmin},
    {"CreateTable", ops::CreateTable, Access::kAdmin},
    {"DeleteBackup", ops::DeleteBackup, Access::kAdmin},
    {"DeleteItem", ops::DeleteItem, Access::kWrite},
    {"DeleteTable", ops::DeleteTable, Access::kAdmin},
    {"DescribeBackup", ops::DescribeBackup, Access::kRead},
    {"DescribeContinuousBackups", ops::DescribeContinuousBackups, Access::kRead},
    {"DescribeEndpoints", ops::DescribeEndpoints, Access::kRead},
    {"DescribeLimits", ops::DescribeLimits, Access::kRead},
    {"DescribeTable", ops::DescribeTable, Access::kRead},
    {"DescribeTimeToLive", ops::DescribeTimeToLive, Access::kRead},
    {"ExecuteStatement", ops::ExecuteStatement, Access::kWrite},
    {"ExecuteTransaction", ops::ExecuteTransaction, Access::kWrite},
    {"GetItem", ops::GetItem, Access::kRead},
    {"ListBackups", ops::ListBackups, Access::kRead},
    {"ListTables", ops::ListTables, Access::kRead},
    {"ListTagsOfResource", ops::ListTagsOfResource, Access::kRead},
    {"PutItem", ops::PutItem, Access::kWrite},
    {"Query", ops::Query, Access::kRead},
    {"RestoreTableFromBackup", ops::RestoreTableFromBackup, Access::kAdmin},
    {"Scan", ops::Scan, Access::kRead},
    {"SearchVectors", ops::SearchVectors, Access::kRead},
    {"TagResource", ops::TagResource, Access::kAdmin},
    {"TransactGetItems", ops::TransactGetItems, Access::kRead},
    {"TransactWriteItems", ops::TransactWriteItems, Access::kWrite},
    {"UntagResource", ops::UntagResource, Access::kAdmin},
    {"UpdateContinuousBackups", ops::UpdateContinuousBackups, Access::kAdmin},
    {"UpdateItem", ops::UpdateItem, Access::kWrite},
    {"UpdateTable", ops::UpdateTable, Access::kAdmin},
    {"UpdateTimeToLive", ops::UpdateTimeToLive, Access::kAdmin},
};

// The DynamoDB Streams API, a service of its own with its own target prefix.
constexpr Operation kStreamOperations[] = {
    {"DescribeStream", ops::DescribeStream, Access::kRead},
    {"GetRecords", ops::GetRecords, Access::kRead},
    {"GetShardIterator", ops::GetShardIterator, Access::kRead},
    {"ListStreams", ops::ListStreams, Access::kRead},
};

template <size_t N>
constexpr bool IsSorted(const Operation (&table)[N]) {
  for (size_t i = 1; i < N; ++i) {
    if (!(table[i - 1].name < table[i].name)) return false;
  }
  return true;
}
static_assert(IsSorted(kOperations), "kOperations must stay sorted by name");
static_assert(IsSorted(kStreamOperations), "kStreamOperations must stay sorted by name");

template <size_t N>
const Operation* Lookup(const Operation (&table)[N], std::string_view name) {
  auto it = std::lower_bound(std::begin(table), std::end(table), name,
                             [](const Operation& op, std::string_view n) { return op.name < n; });
  if (it == std::end(table) || it->name != name) return nullptr;
  return &*it;
}

constexpr std::string_view kDynamoDbPrefix = "DynamoDB_20120810.";
constexpr std::string_view kStreamsPrefix = "DynamoDBStreams_20120810.";

}  // namespace

const Operation* FindOperation(std::string_view target) {
  if (target.substr(0, kDynamoDbPrefix.size()) == kDynamoDbPrefix) {
    return Lookup(kOperations, target.substr(kDynamoDbPrefix.size()));
  }
  if (target.substr(0, kStreamsPrefix.size()) == kStreamsPrefix) {
    return Lookup(kStreamOperations, target.substr(kStreamsPrefix.size()));
  }
  return nullptr;
}

Result<std::string> Dispatch(const Operation& operation, OpContext& ctx, const Request& req) {
  try {
    return operation.handler(ctx, req);
  } catch (const std::exception& e) {
    log::Error("%.*s failed: %s", static_cast<int>(operation.name.size()),
                 operation.name.data(), e.what());
  } catch (...) {
    log::Error("%.*s failed with an unknown exception",
                 static_cast<int>(operation.name.size()), operation.name.data());
  }
  return Error::Internal();
}

}  // namespace ddbd::server
