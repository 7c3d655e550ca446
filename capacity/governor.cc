#include "capacity/governor.h"

#include <algorithm>

namespace ddbd::capacity {
namespace {

constexpr std::string_view kProvisioned = "ProvisionedThroughputExceeded";
constexpr std::string_view kMaxOnDemand = "MaxOnDemandThroughputExceeded";
constexpr std::string_view kAccount = "AccountLimitExceeded";
constexpr std::string_view kKeyRange = "KeyRangeThroughputExceeded";

// DynamoDB's texts, per case (TransactWriteItems' documentation lists them as its
// cancellation reasons' messages; the index read's is that of AWS's throttling guide).
constexpr std::string_view kTableProvisionedMessage =
    "The level of configured provisioned throughput for the table was exceeded. Consider "
    "increasing your provisioning level with the UpdateTable API.";
constexpr std::string_view kIndexWriteProvisionedMessage =
    "The level of configured provisioned throughput for one or more global secondary indexes of "
    "the table was exceeded. Consider increasing your provisioning level for the "
    "under-provisioned global secondary indexes with the UpdateTable API.";
constexpr std::string_view kIndexReadProvisionedMessage =
    "The level of configured provisioned throughput for the index was exceeded";
constexpr std::string_view kHotKeyMessage =
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically "
    "scaling your table or index so please try again shortly. If exceptions persist, check if "
    "you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html";
constexpr std::string_view kIndexWriteOnDemandMessage =
    "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB "
    "is automatically scaling your index so please try again shortly.";
constexpr std::string_view kMaxOnDemandMessage =
    "Throughput exceeds the maximum OnDemandThroughput configured on table or index";
constexpr std::string_view kAccountMessage =
    "Throughput exceeds the current throughput limit for your account. Please contact AWS "
    "Support at https://aws.amazon.com/support request a limit increase";

// The throttling exception for `limit_name` met on the table or on `index`.
Error Throttled(const TableDef& table, const IndexDef* index, Access access,
                std::string_view limit_name) {
  const bool provisioned = table.billing_mode == BillingMode::kProvisioned;
  const bool write = access == Access::kWrite;
  std::string_view message;
  if (limit_name == kMaxOnDemand) {
    message = kMaxOnDemandMessage;
  } else if (limit_name == kAccount) {
    message = kAccountMessage;
  } else if (provisioned) {
    message = !index ? kTableProvisionedMessage
                     : (write ? kIndexWriteProvisionedMessage : kIndexReadProvisionedMessage);
  } else {
    message = index && write ? kIndexWriteOnDemandMessage : kHotKeyMessage;
  }
  ThrottlingReason reason;
  reason.reason =
      std::string(index ? "Index" : "Table") + (write ? "Write" : "Read") + std::string(limit_name);
  reason.resource = table.Arn();
  if (index) reason.resource += "/index/" + index->name;
  return Error::Throttled(
      provisioned ? ErrorCode::kProvisionedThroughputExceeded : ErrorCode::kThrottling,
      std::string(message), std::move(reason));
}

}  // namespace

size_t CapacityGovernor::BucketKeyHash::operator()(const BucketKey& key) const {
  uint64_t h = key.resource_id * 0x9E3779B97F4A7C15ull;
  h ^= key.partition + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
  return static_cast<size_t>(h ^ (uint64_t{key.whole} << 1) ^ static_cast<uint64_t>(key.access));
}

CapacityGovernor::Limit CapacityGovernor::ResourceLimit(const TableDef& table,
                                                        const IndexDef* index,
                                                        Access access) const {
  const bool read = access == Access::kRead;
  if (table.billing_mode == BillingMode::kProvisioned) {
    const Throughput& throughput = index ? index->throughput : table.throughput;
    const double rate = static_cast<double>(read ? throughput.read_capacity_units
                                                 : throughput.write_capacity_units);
    return {rate, rate * limits_.burst_seconds, kProvisioned};
  }
  const OnDemandThroughput& on_demand = index ? index->on_demand : table.on_demand;
  const int64_t maximum =
      read ? on_demand.max_read_request_units : on_demand.max_write_request_units;
  if (maximum != -1 && static_cast<double>(maximum) < limits_.account_table_units) {
    return {static_cast<double>(maximum), static_cast<double>(maximum), kMaxOnDemand};
  }
  return {limits_.account_table_units, limits_.account_table_units, kAccount};
}

CapacityGovernor::Limit CapacityGovernor::PartitionLimit(Access access) const {
  const double rate =
      access == Access::kRead ? limits_.partition_read_units : limits_.partition_write_units;
  return {rate, rate, kKeyRange};
}

CapacityGovernor::Bucket& CapacityGovernor::Refilled(const BucketKey& key, const Limit& limit,
                                                     int64_t now_ms) {
  auto [it, added] = buckets_.try_emplace(key);
  Bucket& bucket = it->second;
  if (added) {
    bucket.tokens = limit.capacity;
  } else if (now_ms > bucket.updated_ms) {
    bucket.tokens += limit.rate * static_cast<double>(now_ms - bucket.updated_ms) / 1000;
  }
  bucket.tokens = std::min(bucket.tokens, limit.capacity);
  bucket.updated_ms = std::max(bucket.updated_ms, now_ms);
  bucket.rate = limit.rate;
  bucket.capacity = limit.capacity;
  return bucket;
}

std::optional<Error> CapacityGovernor::FirstShort(const TableDef& table, Access access,
                                                  const std::vector<Draw>& draws, int64_t now_ms,
                                                  bool need_units) {
  // Units are multiples of 0.5; the margin absorbs the sums' rounding.
  auto short_of = [&](const Bucket& bucket, double units) {
    return need_units ? bucket.tokens < units - 1e-6 : bucket.tokens <= 1e-9;
  };
  // Tables and indexes first (the limit users set), then partitions.
  for (const Draw& draw : draws) {
    const uint64_t id = draw.index ? draw.index->id : table.id;
    const Limit limit = ResourceLimit(table, draw.index, access);
    if (short_of(Refilled({id, 0, true, access}, limit, now_ms), draw.units)) {
      return Throttled(table, draw.index, access, limit.name);
    }
  }
  for (const Draw& draw : draws) {
    if (!draw.partition) continue;
    const uint64_t id = draw.index ? draw.index->id : table.id;
    const Limit limit = PartitionLimit(access);
    if (short_of(Refilled({id, *draw.partition, false, access}, limit, now_ms), draw.units)) {
      return Throttled(table, draw.index, access, limit.name);
    }
  }
  return std::nullopt;
}

void CapacityGovernor::ChargeLocked(const TableDef& table, Access access,
                                    const std::vector<Draw>& draws, int64_t now_ms, double sign) {
  for (const Draw& draw : draws) {
    const uint64_t id = draw.index ? draw.index->id : table.id;
    Refilled({id, 0, true, access}, ResourceLimit(table, draw.index, access), now_ms).tokens -=
        sign * draw.units;
    if (draw.partition) {
      Refilled({id, *draw.partition, false, access}, PartitionLimit(access), now_ms).tokens -=
          sign * draw.units;
    }
  }
  if (sign > 0) PruneLocked(now_ms);
}

void CapacityGovernor::PruneLocked(int64_t now_ms) {
  if (buckets_.size() < prune_at_) return;
  std::erase_if(buckets_, [now_ms](const auto& entry) {
    const Bucket& bucket = entry.second;
    const double refill = bucket.rate * static_cast<double>(now_ms - bucket.updated_ms) / 1000;
    return bucket.tokens + refill >= bucket.capacity;
  });
  // Pruning again only once the map has doubled keeps the cost per request constant.
  prune_at_ = std::max<size_t>(1024, 2 * buckets_.size());
}

Status CapacityGovernor::Admit(const TableDef& table, Access access, const std::vector<Draw>& draws,
                               int64_t now_ms) {
  std::lock_guard lock(mutex_);
  if (auto refusal = FirstShort(table, access, draws, now_ms, /*need_units=*/false)) {
    return *std::move(refusal);
  }
  return OkStatus();
}

void CapacityGovernor::Charge(const TableDef& table, Access access, const std::vector<Draw>& draws,
                              int64_t now_ms) {
  std::lock_guard lock(mutex_);
  ChargeLocked(table, access, draws, now_ms);
}

Status CapacityGovernor::Take(const TableDef& table, Access access, const std::vector<Draw>& draws,
                              int64_t now_ms) {
  std::lock_guard lock(mutex_);
  if (auto refusal = FirstShort(table, access, draws, now_ms, /*need_units=*/true)) {
    return *std::move(refusal);
  }
  ChargeLocked(table, access, draws, now_ms);
  return OkStatus();
}

CapacityGovernor::BatchVerdict CapacityGovernor::TakeEach(
    const std::vector<const TableDef*>& tables, Access access,
    const std::vector<std::vector<Draw>>& draws, int64_t now_ms, bool all_or_nothing) {
  std::lock_guard lock(mutex_);
  BatchVerdict verdict;
  for (size_t i = 0; i < draws.size(); ++i) {
    auto refusal = FirstShort(*tables[i], access, draws[i], now_ms, /*need_units=*/true);
    verdict.admitted.push_back(!refusal);
    if (!refusal) {
      ChargeLocked(*tables[i], access, draws[i], now_ms);
    } else if (!verdict.first_refusal) {
      verdict.first_refusal = refusal;
    }
    verdict.refusals.push_back(std::move(refusal));
  }
  if (all_or_nothing && verdict.first_refusal) {
    // Same clock reading, no refill in between: adding the units back restores each bucket.
    for (size_t i = 0; i < draws.size(); ++i) {
      if (verdict.admitted[i]) ChargeLocked(*tables[i], access, draws[i], now_ms, -1);
      verdict.admitted[i] = false;
    }
  }
  return verdict;
}

size_t CapacityGovernor::BucketCount() const {
  std::lock_guard lock(mutex_);
  return buckets_.size();
}

std::string_view CapacityGovernor::CancellationCode(const Error& throttled) {
  return throttled.code() == ErrorCode::kProvisionedThroughputExceeded
             ? "ProvisionedThroughputExceeded"
             : "ThrottlingError";
}

}  // namespace ddbd::capacity
