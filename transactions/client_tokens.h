// ClientTokens: TransactWriteItems' ClientRequestToken. A request that repeats a token
// within ten minutes of the first request's completion is answered with the first answer
// and changes nothing; the same token with different parameters is
// IdempotentParameterMismatchException, and while the first request still runs,
// TransactionInProgressException. A request that failed leaves no token behind, so it can
// be retried. Tokens are per table namespace (scope) and kept in memory only.
//
// Memory is bounded: a token keeps a 128-bit digest of its request (not the request) and
// its answer, and the answered tokens together keep at most `max_bytes`; past that the
// oldest answered tokens are forgotten early (a repeat of one of those runs again).
//
// The window follows the service's Clock (model/clock.h).
//
// Entry points: ClientTokens::{Begin, Finish}. Thread-safe.
#pragma once

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "model/clock.h"
#include "model/result.h"

namespace ddbd::transactions {

class ClientTokens {
 public:
  static constexpr size_t kDefaultMaxBytes = 32 * 1024 * 1024;
  static constexpr int64_t kDefaultWindowMs = 10 * 60 * 1000;
  // REQUIRES: `clock` outlives the tokens.
  explicit ClientTokens(const Clock& clock, int64_t window_ms = kDefaultWindowMs,
                        size_t max_bytes = kDefaultMaxBytes)
      : clock_(clock), window_ms_(window_ms), max_bytes_(max_bytes) {}

  // Claims `token` for a request whose parameters are `request` (a canonical text of them).
  // Returns the first answer when this repeats a completed request (nothing is to be done),
  // nullopt when the request is to run (then Finish must follow), or the error for a
  // mismatch or a request in progress.
  Result<std::optional<std::string>> Begin(const std::string& scope, const std::string& token,
                                           std::string_view request);
  // Records the answer of a request that ran (nullopt when it failed: the token is released).
  void Finish(const std::string& scope, const std::string& token,
              std::optional<std::string> answer);
  // What the tokens keep in memory, in bytes (keys, digests and answers).
  size_t RetainedBytes() const;

 private:
  using Key = std::pair<std::string, std::string>;  // scope, token
  struct Entry {
    std::string digest;
    std::optional<std::string> answer;  // nullopt while the request runs
    int64_t expires_ms = 0;             // meaningful once answered
  };
  // Answered tokens in the order they were answered, which is also their order of expiry.
  struct Answered {
    Key key;
    int64_t expires_ms;  // tells this answer from a later one under the same key
  };
  static size_t SizeOf(const Key& key, const Entry& entry);
  // Forgets answered tokens that have expired, then the oldest ones while over the cap.
  void EvictLocked(int64_t now_ms);

  const Clock& clock_;
  const int64_t window_ms_;
  const size_t max_bytes_;
  mutable std::mutex mutex_;
  std::map<Key, Entry> entries_;
  std::deque<Answered> answered_;
  size_t retained_bytes_ = 0;
};

}  // namespace ddbd::transactions
