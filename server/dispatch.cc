// The dispatch table, one sorted row per operation.
#include "server/dispatch.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iterator>

#include "model/log.h"
#include "replication/stamps_part.h"
#include "server/ops/ops.h"

namespace ddbd::server {
namespace {

constexpr Operation kOperations[] = {
    {"BatchExecuteStatement", ops::BatchExecuteStatement},
    {"BatchGetItem", ops::BatchGetItem},
    {"BatchWriteItem", ops::BatchWriteItem},
    {"CancelBulkOperation", ops::CancelBulkOperation},
    {"CreateBackup", ops::CreateBackup},
    {"CreateGlobalTable", ops::CreateGlobalTable},
    {"CreateTable", ops::CreateTable},
    {"DeleteBackup", ops::DeleteBackup},
    {"DeleteItem", ops::DeleteItem},
    {"DeleteResourcePolicy", ops::DeleteResourcePolicy},
    {"DeleteTable", ops::DeleteTable},
    {"DescribeBackup", ops::DescribeBackup},
    {"DescribeBulkOperation", ops::DescribeBulkOperation},
    {"DescribeContinuousBackups", ops::DescribeContinuousBackups},
    {"DescribeContributorInsights", ops::DescribeContributorInsights},
    {"DescribeEndpoints", ops::DescribeEndpoints},
    {"DescribeExport", ops::DescribeExport},
    {"DescribeGlobalTable", ops::DescribeGlobalTable},
    {"DescribeGlobalTableSettings", ops::DescribeGlobalTableSettings},
    {"DescribeImport", ops::DescribeImport},
    {"DescribeKinesisStreamingDestination", ops::DescribeKinesisStreamingDestination},
    {"DescribeLimits", ops::DescribeLimits},
    {"DescribeTable", ops::DescribeTable},
    {"DescribeTableReplicaAutoScaling", ops::DescribeTableReplicaAutoScaling},
    {"DescribeTimeToLive", ops::DescribeTimeToLive},
    {"DisableKinesisStreamingDestination", ops::DisableKinesisStreamingDestination},
    {"EnableKinesisStreamingDestination", ops::EnableKinesisStreamingDestination},
    {"ExecuteStatement", ops::ExecuteStatement},
    {"ExecuteTransaction", ops::ExecuteTransaction},
    {"ExportTableToPointInTime", ops::ExportTableToPointInTime},
    {"GetItem", ops::GetItem},
    {"GetResourcePolicy", ops::GetResourcePolicy},
    {"ImportTable", ops::ImportTable},
    {"ListBackups", ops::ListBackups},
    {"ListBulkOperations", ops::ListBulkOperations},
    {"ListContributorInsights", ops::ListContributorInsights},
    {"ListExports", ops::ListExports},
    {"ListGlobalTables", ops::ListGlobalTables},
    {"ListImports", ops::ListImports},
    {"ListTables", ops::ListTables},
    {"ListTagsOfResource", ops::ListTagsOfResource},
    {"PutItem", ops::PutItem},
    {"PutResourcePolicy", ops::PutResourcePolicy},
    {"Query", ops::Query},
    {"RestoreTableFromBackup", ops::RestoreTableFromBackup},
    {"RestoreTableToPointInTime", ops::RestoreTableToPointInTime},
    {"Scan", ops::Scan},
    {"SearchVectors", ops::SearchVectors},
    {"StartBulkPutItems", ops::StartBulkPutItems},
    {"TagResource", ops::TagResource},
    {"TransactGetItems", ops::TransactGetItems},
    {"TransactWriteItems", ops::TransactWriteItems},
    {"UntagResource", ops::UntagResource},
    {"UpdateContinuousBackups", ops::UpdateContinuousBackups},
    {"UpdateContributorInsights", ops::UpdateContributorInsights},
    {"UpdateGlobalTable", ops::UpdateGlobalTable},
    {"UpdateGlobalTableSettings", ops::UpdateGlobalTableSettings},
    {"UpdateItem", ops::UpdateItem},
    {"UpdateKinesisStreamingDestination", ops::UpdateKinesisStreamingDestination},
    {"UpdateTable", ops::UpdateTable},
    {"UpdateTableReplicaAutoScaling", ops::UpdateTableReplicaAutoScaling},
    {"UpdateTimeToLive", ops::UpdateTimeToLive},
};

// The DynamoDB Streams API, a service of its own with its own target prefix.
constexpr Operation kStreamOperations[] = {
    {"DescribeStream", ops::DescribeStream},
    {"GetRecords", ops::GetRecords},
    {"GetShardIterator", ops::GetShardIterator},
    {"ListStreams", ops::ListStreams},
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

namespace {

// Multi-Region strong consistency: the changes a request made to such a table reach its
// other replicas before it is answered.
void ReplicateStrongWrites(OpContext& ctx) {
  for (uint64_t table_id : replication::TakeStrongWrites()) {
    auto table = ctx.catalog().FindById(table_id);
    if (!table) continue;
    Status replicated = ctx.service().replicator().CatchUp(*table);
    if (!replicated.ok()) {
      log::Warning("global table %s: %s", table->name.c_str(),
                   replicated.error().message().c_str());
    }
  }
}

}  // namespace

Result<std::string> Dispatch(const Operation& operation, OpContext& ctx, const Request& req) {
  try {
    Result<std::string> answer = operation.handler(ctx, req);
    ReplicateStrongWrites(ctx);
    return answer;
  } catch (const std::exception& e) {
    log::Error("%.*s failed: %s", static_cast<int>(operation.name.size()), operation.name.data(),
               e.what());
  } catch (...) {
    log::Error("%.*s failed with an unknown exception", static_cast<int>(operation.name.size()),
               operation.name.data());
  }
  return Error::Internal();
}

}  // namespace ddbd::server
