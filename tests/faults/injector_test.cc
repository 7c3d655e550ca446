// FaultInjector: matching, the firing schedule (After, Every, Count, Probability with a
// seed), counters, and the reproducible choice of a batch's unprocessed requests.
#include "faults/injector.h"

#include <gtest/gtest.h>

namespace ddbd::faults {
namespace {

RequestFacts Put(std::string table, std::string partition = "p1") {
  return RequestFacts{"PutItem", "default", {std::move(table)}, "", {std::move(partition)}};
}

FaultRule ErrorRule(std::string operation, std::string type = "ThrottlingException") {
  FaultRule rule;
  rule.match.operation = std::move(operation);
  rule.effect.kind = FaultKind::kError;
  rule.effect.error_type = std::move(type);
  return rule;
}

// Which of `n` identical requests the injector faults, as a string of 'x' (faulted) and '.'.
std::string Pattern(FaultInjector& injector, const RequestFacts& request, int n) {
  std::string pattern;
  for (int i = 0; i < n; ++i) pattern += injector.Decide(request) ? 'x' : '.';
  return pattern;
}

TEST(FaultInjectorTest, MatchesByOperationNamespaceTableIndexAndPartitionValue) {
  FaultMatch match;
  EXPECT_TRUE(match.Matches(Put("Orders")));
  match.operation = "GetItem";
  EXPECT_FALSE(match.Matches(Put("Orders")));
  match.operation = "PutItem";
  match.table = "Orders";
  EXPECT_TRUE(match.Matches(Put("Orders")));
  EXPECT_FALSE(match.Matches(Put("Users")));
  match.partition_value = "p2";
  EXPECT_FALSE(match.Matches(Put("Orders", "p1")));
  EXPECT_TRUE(match.Matches(Put("Orders", "p2")));
  match.namespace_name = "worker-1";
  EXPECT_FALSE(match.Matches(Put("Orders", "p2")));
  FaultMatch by_index;
  by_index.index = "ByOwner";
  EXPECT_FALSE(by_index.Matches(Put("Orders")));
  RequestFacts query{"Query", "default", {"Orders"}, "ByOwner", {}};
  EXPECT_TRUE(by_index.Matches(query));
}

TEST(FaultInjectorTest, FiresAfterEveryAndCountAsScheduled) {
  FaultInjector injector;
  FaultRule rule = ErrorRule("PutItem");
  rule.schedule.after = 2;
  rule.schedule.every = 3;
  rule.schedule.count = 3;
  injector.Replace({rule});
  EXPECT_EQ(Pattern(injector, Put("T"), 14), "..x..x..x.....");
  std::vector<FaultRuleState> states = injector.Rules();
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].matched, 14u);
  EXPECT_EQ(states[0].fired, 3u);
}

TEST(FaultInjectorTest, RequestsThatDoNotMatchAreNotCounted) {
  FaultInjector injector;
  FaultRule rule = ErrorRule("PutItem");
  rule.match.table = "Orders";
  rule.schedule.after = 1;
  injector.Replace({rule});
  EXPECT_FALSE(injector.Decide(Put("Users")));
  EXPECT_FALSE(injector.Decide(Put("Orders")));
  EXPECT_TRUE(injector.Decide(Put("Orders")));
  EXPECT_EQ(injector.Rules()[0].matched, 2u);
}

TEST(FaultInjectorTest, ProbabilityIsReproducibleFromTheSeed) {
  FaultRule rule = ErrorRule("*");
  rule.schedule.probability = 0.3;
  rule.schedule.seed = 42;
  FaultInjector first;
  first.Replace({rule});
  FaultInjector second;
  second.Replace({rule});
  const std::string pattern = Pattern(first, Put("T"), 1000);
  EXPECT_EQ(Pattern(second, Put("T"), 1000), pattern);
  const auto fired = std::count(pattern.begin(), pattern.end(), 'x');
  EXPECT_GT(fired, 240);
  EXPECT_LT(fired, 360);
  rule.schedule.seed = 43;
  FaultInjector other;
  other.Replace({rule});
  EXPECT_NE(Pattern(other, Put("T"), 1000), pattern);
}

TEST(FaultInjectorTest, TheFirstRuleThatFiresDecides) {
  FaultInjector injector;
  FaultRule once = ErrorRule("PutItem", "ProvisionedThroughputExceededException");
  once.schedule.count = 1;
  FaultRule always = ErrorRule("*", "InternalServerError");
  injector.Replace({once, always});
  EXPECT_EQ(injector.Decide(Put("T"))->effect.error_type, "ProvisionedThroughputExceededException");
  EXPECT_EQ(injector.Decide(Put("T"))->effect.error_type, "InternalServerError");
  injector.Clear();
  EXPECT_TRUE(injector.empty());
  EXPECT_FALSE(injector.Decide(Put("T")));
}

Fault UnprocessedFault(std::optional<double> fraction, std::optional<uint64_t> count,
                       uint64_t seed = 7) {
  Fault fault;
  fault.effect.kind = FaultKind::kUnprocessed;
  fault.effect.fraction = fraction;
  fault.effect.count = count;
  fault.seed = seed;
  return fault;
}

TEST(ChooseRequestsTest, TakesAFractionOrACountReproduciblyButNeverTheWholeBatch) {
  const std::vector<std::string> values(10, "p");
  std::vector<size_t> half = ChooseRequests(UnprocessedFault(0.5, std::nullopt), values);
  EXPECT_EQ(half.size(), 5u);
  EXPECT_TRUE(std::is_sorted(half.begin(), half.end()));
  EXPECT_EQ(ChooseRequests(UnprocessedFault(0.5, std::nullopt), values), half);
  EXPECT_NE(ChooseRequests(UnprocessedFault(0.5, std::nullopt, 8), values), half);
  EXPECT_EQ(ChooseRequests(UnprocessedFault(std::nullopt, 3), values).size(), 3u);
  EXPECT_EQ(ChooseRequests(UnprocessedFault(1.0, std::nullopt), values).size(), 9u);
  EXPECT_EQ(ChooseRequests(UnprocessedFault(std::nullopt, 50), values).size(), 9u);
  EXPECT_TRUE(ChooseRequests(UnprocessedFault(1.0, std::nullopt), {"p"}).empty());
}

TEST(ChooseRequestsTest, ByPartitionValueWhenTheRuleNamesOne) {
  Fault fault = UnprocessedFault(std::nullopt, std::nullopt);
  fault.partition_value = "hot";
  EXPECT_EQ(ChooseRequests(fault, {"a", "hot", "b", "hot"}), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(ChooseRequests(fault, {"hot", "hot"}), (std::vector<size_t>{0}));
}

}  // namespace
}  // namespace ddbd::faults
