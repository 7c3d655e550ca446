// Rule matching, firing schedules and the choice of unprocessed requests.
#include "faults/injector.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ddbd::faults {

bool FaultMatch::Matches(const RequestFacts& request) const {
  if (operation != "*" && operation != request.operation) return false;
  if (namespace_name && *namespace_name != request.namespace_name) return false;
  auto contains = [](const std::vector<std::string>& values, const std::string& value) {
    return std::find(values.begin(), values.end(), value) != values.end();
  };
  if (table && !contains(request.tables, *table)) return false;
  if (index && *index != request.index) return false;
  if (partition_value && !contains(request.partition_values, *partition_value)) return false;
  return true;
}

void FaultInjector::Replace(std::vector<FaultRule> rules) {
  std::vector<Entry> entries;
  for (FaultRule& rule : rules) {
    const uint64_t seed = rule.schedule.seed;
    entries.push_back(Entry{FaultRuleState{std::move(rule), 0, 0}, std::mt19937_64(seed)});
  }
  std::lock_guard lock(mutex_);
  entries_ = std::move(entries);
  has_rules_.store(!entries_.empty(), std::memory_order_release);
}

std::vector<FaultRuleState> FaultInjector::Rules() const {
  std::lock_guard lock(mutex_);
  std::vector<FaultRuleState> states;
  for (const Entry& entry : entries_) states.push_back(entry.state);
  return states;
}

std::optional<Fault> FaultInjector::Decide(const RequestFacts& request) {
  std::lock_guard lock(mutex_);
  for (Entry& entry : entries_) {
    FaultRuleState& state = entry.state;
    const FaultSchedule& schedule = state.rule.schedule;
    if (!state.rule.match.Matches(request)) continue;
    const uint64_t position = state.matched++;  // 0-based among matching requests
    if (position < schedule.after) continue;
    if ((position - schedule.after) % schedule.every != 0) continue;
    if (schedule.count && state.fired >= *schedule.count) continue;
    if (schedule.probability < 1.0 &&
        std::generate_canonical<double, 53>(entry.random) >= schedule.probability) {
      continue;
    }
    ++state.fired;
    return Fault{state.rule.effect, state.rule.match.partition_value,
                 schedule.seed * 0x9E3779B97F4A7C15ULL + state.fired};
  }
  return std::nullopt;
}

std::vector<size_t> ChooseRequests(const Fault& fault,
                                   const std::vector<std::string>& partition_values) {
  const size_t n = partition_values.size();
  std::vector<size_t> chosen;
  if (n < 2) return chosen;  // a batch keeps at least one processed request
  if (fault.partition_value) {
    for (size_t i = 0; i < n && chosen.size() + 1 < n; ++i) {
      if (partition_values[i] == *fault.partition_value) chosen.push_back(i);
    }
    return chosen;
  }
  size_t wanted = 0;
  if (fault.effect.count) {
    wanted = static_cast<size_t>(std::min<uint64_t>(*fault.effect.count, n));
  } else {
    const double fraction = fault.effect.fraction.value_or(0.5);
    wanted = static_cast<size_t>(std::llround(std::clamp(fraction, 0.0, 1.0) * double(n)));
  }
  wanted = std::min(wanted, n - 1);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(fault.seed);
  std::shuffle(order.begin(), order.end(), random);
  chosen.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(wanted));
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace ddbd::faults
