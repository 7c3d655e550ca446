#include "server/ops/throttling.h"

#include <set>

#include "server/ops/item_request.h"
#include "storage/database.h"

namespace ddbd::server::ops {
namespace {

std::vector<capacity::Draw> ReadDraws(const ReadSite& site, const CapacityUse& use) {
  // An LSI's units are its table's; a GSI's, its own.
  const IndexDef* gsi = site.index && !site.index->local ? site.index : nullptr;
  double units = use.table_units;
  for (const auto& [name, index_units] : use.local_indexes) units += index_units;
  for (const auto& [name, index_units] : use.global_indexes) units += index_units;
  std::optional<uint64_t> partition;
  if (!site.partition.empty()) {
    partition = PartitionOf(site.partition);
  }
  return {capacity::Draw{gsi, partition, units}};
}

// Adds the table's and each index's units of `use` to `units` of their sites.
void RecordUnits(Consumption& consumption, const TableDef& table, const CapacityUse& use,
                 double ConsumedFigures::*units) {
  if (use.table_units != 0) consumption.At(table.id).*units += use.table_units;
  for (const auto* indexes : {&use.global_indexes, &use.local_indexes}) {
    for (const auto& [name, index_units] : *indexes) {
      if (const IndexDef* index = table.FindIndex(name)) {
        consumption.At(table.id, index->id).*units += index_units;
      }
    }
  }
}

// The top-level attributes a projection names; nullopt when there is none (every attribute).
std::optional<size_t> AttributesAsked(const ExpressionInputs* expressions) {
  if (!expressions || !expressions->projection) return std::nullopt;
  std::set<std::string_view> names;
  for (const auto& path : *expressions->projection) names.insert(path[0].name);
  return names.size();
}

// The read in the access-pattern report, with the units of the table or index it read.
void RecordRead(OpContext& ctx, const ReadSite& site, const CapacityUse& use,
                const ReadFacts& facts) {
  double units = use.table_units;
  for (const auto& [name, index_units] : use.local_indexes) units += index_units;
  for (const auto& [name, index_units] : use.global_indexes) units += index_units;
  insight::ReadEvent event;
  event.table_id = site.table->id;
  event.index_id = site.index ? site.index->id : 0;
  event.kind = facts.kind;
  event.filtered = facts.expressions && facts.expressions->filter;
  event.attributes_asked = AttributesAsked(facts.expressions);
  event.partition = site.partition;
  event.sort = facts.sort;
  if (!site.partition.empty()) {
    event.partition_hash = PartitionOf(site.partition);
  }
  event.items_read = facts.items;
  event.items_returned = facts.returned;
  event.units = units;
  ctx.service().access_patterns().RecordRead(event);
}

// A request refused on `partition` of the table or index, for the report's throttled keys.
void RecordThrottle(OpContext& ctx, const TableDef& table, uint64_t index_id,
                    std::span<const AttributeValue> partition) {
  if (partition.empty()) return;
  ctx.service().access_patterns().RecordThrottle(
      {table.id, index_id, partition, PartitionOf(partition)});
}

}  // namespace

uint64_t PartitionOf(std::span<const AttributeValue> partition) {
  return storage::Database::PartitionHash(partition);
}

Status AdmitRead(OpContext& ctx, const ReadSite& site) {
  capacity::CapacityGovernor* governor = ctx.service().capacity();
  if (!governor) return OkStatus();
  Status admitted =
      governor->Admit(*site.table, capacity::Access::kRead, ReadDraws(site, {}), ctx.NowMs());
  if (!admitted.ok()) {
    RecordThrottle(ctx, *site.table, site.index ? site.index->id : 0, site.partition);
  }
  return admitted;
}

void ChargeRead(OpContext& ctx, const ReadSite& site, const CapacityUse& use,
                const ReadFacts& facts) {
  RecordUnits(ctx.consumption(), *site.table, use, &ConsumedFigures::read_units);
  ConsumedFigures& read = ctx.consumption().At(site.table->id, site.index ? site.index->id : 0);
  read.items_read += facts.items;
  read.bytes_read += facts.bytes;
  RecordRead(ctx, site, use, facts);
  capacity::CapacityGovernor* governor = ctx.service().capacity();
  if (!governor) return;
  governor->Charge(*site.table, capacity::Access::kRead, ReadDraws(site, use), ctx.NowMs());
}

void ChargeRead(OpContext& ctx, const ReadSite& site, double table_units, const ReadFacts& facts) {
  CapacityUse use;
  use.table_units = table_units;
  ChargeRead(ctx, site, use, facts);
}

void MeterWrite(OpContext& ctx, const TableDef& table, const PrimaryKey& key,
                const storage::WriteOutcome& outcome, double factor, bool blind, bool check_only) {
  const CapacityUse use = WriteCapacityUse(table, outcome, CapacityDetail::kIndexes).Times(factor);
  Consumption& consumption = ctx.consumption();
  RecordUnits(consumption, table, use, &ConsumedFigures::write_units);
  const bool written = !check_only && !outcome.failure;
  insight::WriteEvent event{table.id,
                            &key.partition,
                            key.sort ? &*key.sort : nullptr,
                            PartitionOf({&key.partition, 1}),
                            written ? outcome.new_size : 0,
                            use.table_units,
                            {},
                            written,
                            blind && written && outcome.new_size > 0};
  for (const auto& [name, units] : use.local_indexes) event.units += units;
  for (const auto& [name, units] : use.global_indexes) {
    if (const IndexDef* index = table.FindIndex(name)) {
      event.global_indexes.emplace_back(index->id, units);
    }
  }
  ctx.service().access_patterns().RecordWrite(event);
  if (!written) return;
  ConsumedFigures& figures = consumption.At(table.id);
  ++figures.items_written;
  figures.bytes_written += outcome.new_size;
  for (const auto* indexes : {&use.global_indexes, &use.local_indexes}) {
    for (const auto& [name, units] : *indexes) {
      if (const IndexDef* index = table.FindIndex(name)) {
        ++consumption.At(table.id, index->id).items_written;
      }
    }
  }
}

std::vector<capacity::Draw> WriteDraws(const TableDef& table, const AttributeValue& partition,
                                       const storage::WriteOutcome& outcome, double factor) {
  const CapacityUse use = WriteCapacityUse(table, outcome, CapacityDetail::kIndexes);
  double table_units = use.table_units;
  for (const auto& [name, units] : use.local_indexes) table_units += units;
  std::vector<capacity::Draw> draws;
  draws.push_back({nullptr, PartitionOf({&partition, 1}), table_units * factor});
  for (const auto& [name, units] : use.global_indexes) {
    draws.push_back({table.FindIndex(name), std::nullopt, units * factor});
  }
  return draws;
}

capacity::CapacityGovernor::BatchVerdict TakeEachWrite(
    OpContext& ctx, const std::vector<const TableDef*>& tables,
    const std::vector<AttributeValue>& partitions,
    const std::vector<storage::WriteOutcome>& outcomes, double factor) {
  std::vector<std::vector<capacity::Draw>> draws;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    draws.push_back(WriteDraws(*tables[i], partitions[i], outcomes[i], factor));
  }
  auto verdict = ctx.service().capacity()->TakeEach(tables, capacity::Access::kWrite, draws,
                                                    ctx.NowMs(), /*all_or_nothing=*/true);
  for (size_t i = 0; i < verdict.refusals.size(); ++i) {
    if (verdict.refusals[i]) RecordThrottle(ctx, *tables[i], 0, {&partitions[i], 1});
  }
  return verdict;
}

Error ThrottledTransaction(const std::vector<std::optional<Error>>& refusals) {
  std::vector<CancellationReason> reasons(refusals.size());
  for (size_t i = 0; i < refusals.size(); ++i) {
    if (!refusals[i]) continue;
    reasons[i].code = std::string(capacity::CapacityGovernor::CancellationCode(*refusals[i]));
    reasons[i].message = refusals[i]->message();
  }
  return Error::TransactionCanceled(std::move(reasons));
}

Status TakeWriteCapacity(OpContext& ctx, const std::vector<const TableDef*>& tables,
                         const std::vector<AttributeValue>& partitions,
                         const std::vector<storage::WriteOutcome>& outcomes, bool transaction) {
  capacity::CapacityGovernor* governor = ctx.service().capacity();
  if (!governor) return OkStatus();
  const double factor = transaction ? 2 : 1;
  bool failed = false;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].failure) continue;
    // A failed condition still costs its table units (the first draw: its table's).
    governor->Charge(*tables[i], capacity::Access::kWrite,
                     {WriteDraws(*tables[i], partitions[i], outcomes[i], factor).front()},
                     ctx.NowMs());
    failed = true;
  }
  if (failed) return OkStatus();
  auto verdict = TakeEachWrite(ctx, tables, partitions, outcomes, factor);
  if (!verdict.first_refusal) return OkStatus();
  if (!transaction) return *std::move(verdict.first_refusal);
  return ThrottledTransaction(verdict.refusals);
}

}  // namespace ddbd::server::ops
