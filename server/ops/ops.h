// Declarations of every operation handler; each lives in its own file (or family file) in
// this folder and is reached only through server/dispatch.cc.
#pragma once

#include <string>

#include "model/result.h"
#include "portability/bulk_jobs.h"
#include "server/op_context.h"

namespace ddbd::server::ops {

#define DDBD_OPERATION(Name) Result<std::string> Name(OpContext& ctx, const Request& req)

DDBD_OPERATION(BatchExecuteStatement);
DDBD_OPERATION(BatchGetItem);
DDBD_OPERATION(BatchWriteItem);
DDBD_OPERATION(CancelBulkOperation);
DDBD_OPERATION(CreateBackup);
DDBD_OPERATION(CreateGlobalTable);
DDBD_OPERATION(CreateTable);
DDBD_OPERATION(DeleteBackup);
DDBD_OPERATION(DeleteItem);
DDBD_OPERATION(DeleteResourcePolicy);
DDBD_OPERATION(DeleteTable);
DDBD_OPERATION(DescribeBackup);
DDBD_OPERATION(DescribeBulkOperation);
DDBD_OPERATION(DescribeContinuousBackups);
DDBD_OPERATION(DescribeContributorInsights);
DDBD_OPERATION(DescribeEndpoints);
DDBD_OPERATION(DescribeExport);
DDBD_OPERATION(DescribeGlobalTable);
DDBD_OPERATION(DescribeGlobalTableSettings);
DDBD_OPERATION(DescribeImport);
DDBD_OPERATION(DescribeKinesisStreamingDestination);
DDBD_OPERATION(DescribeLimits);
DDBD_OPERATION(DescribeStream);
DDBD_OPERATION(DescribeTable);
DDBD_OPERATION(DescribeTableReplicaAutoScaling);
DDBD_OPERATION(DescribeTimeToLive);
DDBD_OPERATION(DisableKinesisStreamingDestination);
DDBD_OPERATION(EnableKinesisStreamingDestination);
DDBD_OPERATION(ExecuteStatement);
DDBD_OPERATION(ExecuteTransaction);
DDBD_OPERATION(ExportTableToPointInTime);
DDBD_OPERATION(GetItem);
DDBD_OPERATION(GetRecords);
DDBD_OPERATION(GetResourcePolicy);
DDBD_OPERATION(GetShardIterator);
DDBD_OPERATION(ImportTable);
DDBD_OPERATION(ListBackups);
DDBD_OPERATION(ListBulkOperations);
DDBD_OPERATION(ListContributorInsights);
DDBD_OPERATION(ListExports);
DDBD_OPERATION(ListGlobalTables);
DDBD_OPERATION(ListImports);
DDBD_OPERATION(ListStreams);
DDBD_OPERATION(ListTables);
DDBD_OPERATION(ListTagsOfResource);
DDBD_OPERATION(PutItem);
DDBD_OPERATION(PutResourcePolicy);
DDBD_OPERATION(Query);
DDBD_OPERATION(RestoreTableFromBackup);
DDBD_OPERATION(RestoreTableToPointInTime);
DDBD_OPERATION(Scan);
DDBD_OPERATION(SearchVectors);
DDBD_OPERATION(StartBulkPutItems);
DDBD_OPERATION(TagResource);
DDBD_OPERATION(TransactGetItems);
DDBD_OPERATION(TransactWriteItems);
DDBD_OPERATION(UntagResource);
DDBD_OPERATION(UpdateContinuousBackups);
DDBD_OPERATION(UpdateContributorInsights);
DDBD_OPERATION(UpdateGlobalTable);
DDBD_OPERATION(UpdateGlobalTableSettings);
DDBD_OPERATION(UpdateItem);
DDBD_OPERATION(UpdateKinesisStreamingDestination);
DDBD_OPERATION(UpdateTable);
DDBD_OPERATION(UpdateTableReplicaAutoScaling);
DDBD_OPERATION(UpdateTimeToLive);

#undef DDBD_OPERATION

// ImportTable's check of each item it imports: a PutItem's (portability::ImportJobs::ItemCheck).
Result<PrimaryKey> CheckImportedItem(const TableDef& table, const Item& item);

// A bulk operation's record checked as a PutItem of it (portability::BulkJobs::Preparer), and
// the usage a committed write adds (BulkJobs::Meter).
Result<portability::BulkJobs::PreparedPut> PrepareBulkPut(std::shared_ptr<const TableDef> table,
                                                          wire::JsonObject record);
void MeterBulkPut(const TableDef& table, const storage::WriteOutcome& outcome,
                  portability::BulkUsage& usage);

// CreateTable's ResourcePolicy, checked and normalized as PutResourcePolicy's, its revision
// the table's creation time; nullopt without one.
Result<std::optional<ResourcePolicy>> CreationPolicy(std::optional<std::string_view> document,
                                                     int64_t now);

}  // namespace ddbd::server::ops
