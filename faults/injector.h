// Fault injection: rules that make chosen requests fail the way DynamoDB fails — an error
// answer, a partial batch, a transaction cancelled by a conflict, or a delay — so that retry,
// back-off and UnprocessedItems handling can be tested on demand (control API: /ddbd/faults).
//
// A rule matches a request by operation ("*": any), and optionally by namespace, table, index
// and partition-key value; among the matching requests it fires on a deterministic schedule:
// after skipping `after` of them, on every `every`-th, at most `count` times, each time with
// `probability` drawn from the rule's own seeded generator (reproducible run after run).
// The first rule (in order) that fires decides the request's fault. Rules live in memory:
// a restart clears them.
//
// Entry points: FaultInjector::Replace, Rules, Clear, Decide; ChooseRequests.
// Thread-safety: FaultInjector is thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace ddbd::faults {

// What a request is, as rules see it.
struct RequestFacts {
  std::string operation;                      // "PutItem", "GetRecords", …
  std::string namespace_name;                 // "default" for the default namespace
  std::vector<std::string> tables;            // every table the request names
  std::string index;                          // IndexName, or empty
  std::vector<std::string> partition_values;  // partition-key values of its items, as text
};

struct FaultMatch {
  std::string operation = "*";
  std::optional<std::string> namespace_name;
  std::optional<std::string> table;
  std::optional<std::string> index;
  std::optional<std::string> partition_value;

  bool Matches(const RequestFacts& request) const;
};

struct FaultSchedule {
  std::optional<uint64_t> count;  // fire at most this many times
  uint64_t after = 0;             // let this many matching requests through first
  uint64_t every = 1;             // then fire on every `every`-th matching request
  double probability = 1.0;       // and then only with this probability
  uint64_t seed = 0;              // of the probability draws and of ChooseRequests
};

enum class FaultKind {
  kError,                // answer `error_type` with its status and body
  kUnprocessed,          // BatchWriteItem / BatchGetItem: leave some requests unprocessed
  kTransactionConflict,  // TransactWriteItems / TransactGetItems: cancelled by a conflict
  kDelay,                // answer normally after `delay_ms`
};

struct FaultEffect {
  FaultKind kind = FaultKind::kError;
  std::string error_type;  // kError: the exception's name ("ThrottlingException")
  std::string message;     // kError: the message, or empty for DynamoDB's usual one
  // kUnprocessed: how many of the batch's requests, as a fraction or a count (a batch keeps at
  // least one processed request); by partition-key value instead when the rule matches one.
  std::optional<double> fraction;
  std::optional<uint64_t> count;
  // kTransactionConflict: the positions of the conflicting items (empty: the first one).
  std::vector<uint64_t> items;
  int64_t delay_ms = 0;  // kDelay
};

struct FaultRule {
  FaultMatch match;
  FaultSchedule schedule;
  FaultEffect effect;
};

// A rule with what it has done so far.
struct FaultRuleState {
  FaultRule rule;
  uint64_t matched = 0;  // requests that matched it
  uint64_t fired = 0;    // faults it produced
};

// A fault to apply to one request: the effect and a generator for the choices it makes.
struct Fault {
  FaultEffect effect;
  std::optional<std::string> partition_value;  // the rule's, for ChooseRequests
  uint64_t seed = 0;                           // the rule's seed and firing number, mixed
};

class FaultInjector {
 public:
  void Replace(std::vector<FaultRule> rules);
  std::vector<FaultRuleState> Rules() const;
  void Clear() { Replace({}); }
  // Whether a rule fires for this request (counting the match either way).
  std::optional<Fault> Decide(const RequestFacts& request);
  // Whether there are no rules: a lock-free test for the request path.
  bool empty() const { return !has_rules_.load(std::memory_order_acquire); }

 private:
  struct Entry {
    FaultRuleState state;
    std::mt19937_64 random;
  };
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::atomic<bool> has_rules_{false};
};

// Which of a batch's `n` requests a kUnprocessed fault leaves unprocessed, in ascending
// order: those whose partition value (`partition_values[i]`) is the rule's when it names one,
// else `count` or round(`fraction` × n) of them drawn with the fault's seed — never all n.
std::vector<size_t> ChooseRequests(const Fault& fault,
                                   const std::vector<std::string>& partition_values);

}  // namespace ddbd::faults
