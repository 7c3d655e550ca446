// Scan: every item of the table in DynamoDB's Scan order (partitions by hash, sort keys in
// order inside), or of one segment of a parallel scan; filtered, projected and paged.
#include "server/ops/ops.h"
#include "server/ops/read_pager.h"
#include "server/ops/throttling.h"
#include "wire/attribute_value_json.h"

namespace ddbd::server::ops {

namespace {

constexpr int64_t kMaxTotalSegments = 1'000'000;

}  // namespace

Result<ScanInput> ParseScan(wire::JsonObject body) {
  ScanInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto segment, wire::GetLong(body, "Segment"));
  DDBD_ASSIGN_OR_RETURN(auto total, wire::GetLong(body, "TotalSegments"));
  if (segment && *segment < 0) errors.ValueAtLeast(std::to_string(*segment), "segment", 0);
  if (segment && *segment > kMaxTotalSegments - 1) {
    errors.ValueAtMost(std::to_string(*segment), "segment", kMaxTotalSegments - 1);
  }
  if (total && *total < 1) errors.ValueAtLeast(std::to_string(*total), "totalSegments", 1);
  if (total && *total > kMaxTotalSegments) {
    errors.ValueAtMost(std::to_string(*total), "totalSegments", kMaxTotalSegments);
  }
  DDBD_ASSIGN_OR_RETURN(in.read,
                        ReadReadOptions(body, {.filter = true, .projection = true}, errors));
  if (segment && !total) {
    return Error::Validation(
        "The TotalSegments parameter is required but was not present in the "
        "request when Segment parameter is present");
  }
  if (total && !segment) {
    return Error::Validation(
        "The Segment parameter is required but was not present in the "
        "request when parameter TotalSegments is present");
  }
  if (segment && *segment >= *total) {
    return Error::Validation(
        "The Segment parameter is zero-based and must be less than parameter "
        "TotalSegments: Segment: " +
        std::to_string(*segment) + " is not less than TotalSegments: " + std::to_string(*total));
  }
  in.segment = segment.value_or(0);
  in.total_segments = total.value_or(1);
  if (std::optional<wire::JsonValue> start = wire::Member(body, "ExclusiveStartKey")) {
    DDBD_ASSIGN_OR_RETURN(in.exclusive_start_key, wire::ParseAttributeMap(*start));
  }
  return in;
}

namespace {

// Segment s of n covers partition hashes [s·2⁶⁴/n, (s+1)·2⁶⁴/n).
std::pair<uint64_t, uint64_t> SegmentHashRange(int64_t segment, int64_t total) {
  using u128 = unsigned __int128;
  const u128 space = u128(1) << 64;
  const uint64_t begin = static_cast<uint64_t>(space * u128(segment) / u128(total));
  const u128 end = space * u128(segment + 1) / u128(total);
  return {begin, static_cast<uint64_t>(end - 1)};
}

// The partition hash that places a start key in Scan order.
uint64_t StartKeyHash(const ReadTarget& target, const Item& start_key) {
  std::vector<AttributeValue> partition;
  for (const KeyElement& element : target.partition_keys()) {
    partition.push_back(start_key.at(element.name));
  }
  return storage::Database::PartitionHash(partition);
}

}  // namespace

Result<PageOutput> ExecuteScan(OpContext& ctx, ScanInput& in) {
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.read.table_name));
  DDBD_ASSIGN_OR_RETURN(ReadTarget target, ResolveTarget(*table, in.read, /*query=*/false));
  auto [begin, end] = SegmentHashRange(in.segment, in.total_segments);
  std::optional<storage::StartKey> start;
  if (in.exclusive_start_key) {
    const Item& start_key = *in.exclusive_start_key;
    DDBD_RETURN_IF_ERROR(CheckStartKeySize(target, start_key, /*query=*/false));
    if (target.index) {  // a table's key is checked as a whole, by StartKeyFor
      for (const KeyElement& element : target.partition_keys()) {
        DDBD_RETURN_IF_ERROR(CheckStartKeyElement(start_key, element));
      }
      for (const KeyElement& element : target.sort_keys()) {
        DDBD_RETURN_IF_ERROR(CheckStartKeyElement(start_key, element));
      }
    }
    DDBD_ASSIGN_OR_RETURN(start, StartKeyFor(target, start_key));
    const uint64_t hash = StartKeyHash(target, start_key);
    if (in.total_segments > 1 && (hash < begin || hash > end)) {
      return Error::Validation(
          "The provided starting key is invalid: Invalid ExclusiveStartKey. "
          "Please use ExclusiveStartKey with correct Segment. TotalSegments: " +
          std::to_string(in.total_segments) + " Segment: " + std::to_string(in.segment));
    }
  }
  // A Scan spans partitions: it meets the table's (or index's) limit, no partition's.
  const ReadSite site{table.get(), target.index, {}};
  DDBD_RETURN_IF_ERROR(AdmitRead(ctx, site));
  const std::optional<storage::EntryOverlay> lag = LaggedEntries(ctx, target);
  auto cursor = target.index ? ctx.db().ScanIndexHashRange(target.index->id, begin, end, start,
                                                           lag ? &*lag : nullptr)
                             : ctx.db().ScanHashRange(*table, begin, end, start);
  DDBD_ASSIGN_OR_RETURN(PageOutput page, ReadPage(ctx.db(), target, *cursor, in.read));
  ChargeRead(ctx, site, page.use,
             {static_cast<uint64_t>(page.scanned), page.bytes_read,
              static_cast<uint64_t>(page.count), insight::ReadKind::kScan, &in.read.expressions});
  return page;
}

Result<std::string> Scan(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(ScanInput in, ParseScan(req.body));
  DDBD_ASSIGN_OR_RETURN(PageOutput page, ExecuteScan(ctx, in));
  return RenderPage(page, in.read);
}

}  // namespace ddbd::server::ops
