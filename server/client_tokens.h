// ClientTokens: TransactWriteItems' ClientRequestToken. A request that repeats a token
// within ten minutes of the first request's completion is answered with the first answer
// and changes nothing; the same token with different parameters is
// IdempotentParameterMismatchException, and while the first request still runs,
// TransactionInProgressException. A request that failed leaves no token behind, so it can
// be retried. Tokens are per table namespace (scope) and kept in memory only.
//
// Entry points: ClientTokens::{Begin, Finish}. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "model/result.h"

namespace ddbd::server {

class ClientTokens {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ClientTokens(Clock::duration window = std::chrono::minutes(10)) : window_(window) {}

  // Claims `token` for a request whose parameters are `digest`. Returns the first answer
  // when this repeats a completed request (nothing is to be done), nullopt when the request
  // is to run (then Finish must follow), or the error for a mismatch or a request in progress.
  Result<std::optional<std::string>> Begin(const std::string& scope, const std::string& token,
                                           const std::string& digest);
  // Records the answer of a request that ran (nullopt when it failed: the token is released).
  void Finish(const std::string& scope, const std::string& token,
              std::optional<std::string> answer);

 private:
  struct Entry {
    std::string digest;
    std::optional<std::string> answer;  // nullopt while the request runs
    Clock::time_point expires;          // meaningful once answered
  };
  const Clock::duration window_;
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Entry> entries_;
};

}  // namespace ddbd::server
