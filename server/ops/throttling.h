// What each operation consumes. Against the throughput limits of capacity/
// (--enforce-capacity): reads are admitted before they run and charged with what they consumed;
// writes are decided in the write path's verdict, when their units are known and nothing is
// written yet. Without --enforce-capacity every function here admits everything and charges
// nothing. Whatever the options, what was consumed is recorded in the request's Consumption
// (ChargeRead, MeterWrite): the figures of /metrics and of the request log.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "capacity/governor.h"
#include "insight/access_patterns.h"
#include "model/attribute_value.h"
#include "model/table_def.h"
#include "server/op_context.h"
#include "server/ops/common.h"
#include "server/ops/expression_request.h"
#include "storage/write.h"

namespace ddbd::server::ops {

// The hash the partition limits know a partition-key value by (of the table or of a GSI).
uint64_t PartitionOf(std::span<const AttributeValue> partition);

// A read of the table or `index` (a GSI reads its own capacity, an LSI its table's), in one
// partition (its key values) or, for a Scan, in none (empty). Hashed only with
// --enforce-capacity.
struct ReadSite {
  const TableDef* table = nullptr;
  const IndexDef* index = nullptr;
  std::span<const AttributeValue> partition;
};
// ProvisionedThroughputExceededException or ThrottlingException when the read's buckets are
// empty.
Status AdmitRead(OpContext& ctx, const ReadSite& site);
// What a read found, for the metrics and the access-pattern report: the items it read and
// their sizes (DynamoDB's measure), the items it returned, and how it asked.
struct ReadFacts {
  uint64_t items = 0;
  uint64_t bytes = 0;
  uint64_t returned = 0;
  insight::ReadKind kind = insight::ReadKind::kGet;
  const ExpressionInputs* expressions = nullptr;  // its filter and projection, if any
  const AttributeValue* sort = nullptr;           // the item's sort key, for a read of one item
};
// Charges what the read consumed (`use`: its table, LSI and GSI units), records it in the
// request's consumption (`facts` on the index read, or else the table) and in the
// access-pattern report.
void ChargeRead(OpContext& ctx, const ReadSite& site, const CapacityUse& use,
                const ReadFacts& facts);
void ChargeRead(OpContext& ctx, const ReadSite& site, double table_units, const ReadFacts& facts);

// Records one item write (`key`) in the request's consumption and the access-pattern report:
// the units of its table and of each index it updates, times `factor` (2 in transactions),
// and — when it was applied, not failed on its condition nor only a condition check — the
// item and the size of its new image. `blind`: its new image came only from the request
// (BlindWrite), which the report watches for lost updates.
void MeterWrite(OpContext& ctx, const TableDef& table, const PrimaryKey& key,
                const storage::WriteOutcome& outcome, double factor, bool blind,
                bool check_only = false);

// What one item write draws: its table (with its LSIs) and each GSI it updates, in its
// partition, times `factor` (2 in transactions).
std::vector<capacity::Draw> WriteDraws(const TableDef& table, const AttributeValue& partition,
                                       const storage::WriteOutcome& outcome, double factor);

// Takes the units of writes applied together (all or nothing), each write drawing from its
// table (`tables[i]`), GSIs and partition (`partitions[i]`), times `factor`: the governor's
// verdict, with a refusal per write. REQUIRES: --enforce-capacity.
capacity::CapacityGovernor::BatchVerdict TakeEachWrite(
    OpContext& ctx, const std::vector<const TableDef*>& tables,
    const std::vector<AttributeValue>& partitions,
    const std::vector<storage::WriteOutcome>& outcomes, double factor);

// TransactionCanceledException for a transaction whose actions the limits refused: each refused
// action's reason is ProvisionedThroughputExceeded or ThrottlingError with its text, the others
// None.
Error ThrottledTransaction(const std::vector<std::optional<Error>>& refusals);

// The verdict of writes that succeed or fail together (one item, a transaction's actions):
// the throttling exception — for a transaction, TransactionCanceledException with each
// refused action's reason — unless every write's units are available, which it then takes.
// Writes that failed on their own (a condition) are charged and left to fail.
Status TakeWriteCapacity(OpContext& ctx, const std::vector<const TableDef*>& tables,
                         const std::vector<AttributeValue>& partitions,
                         const std::vector<storage::WriteOutcome>& outcomes, bool transaction);

}  // namespace ddbd::server::ops
