// Idempotency of TransactWriteItems by ClientRequestToken.
#include "server/client_tokens.h"

#include <iterator>

namespace ddbd::server {

Result<std::optional<std::string>> ClientTokens::Begin(const std::string& scope,
                                                       const std::string& token,
                                                       const std::string& digest) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.answer && it->second.expires <= now ? entries_.erase(it) : std::next(it);
  }
  auto [it, inserted] = entries_.try_emplace({scope, token}, Entry{digest, std::nullopt, {}});
  if (inserted) return std::optional<std::string>();
  const Entry& entry = it->second;
  if (entry.digest != digest) {
    // Text unverified against DynamoDB (its exception has no published message).
    return Error::IdempotentParameterMismatch(
        "Request parameters do not match the request that used this ClientRequestToken");
  }
  if (!entry.answer) {
    return Error::TransactionInProgress(
        "The transaction with the given request token is already in progress");
  }
  return entry.answer;
}

void ClientTokens::Finish(const std::string& scope, const std::string& token,
                          std::optional<std::string> answer) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find({scope, token});
  if (it == entries_.end()) return;
  if (!answer) {
    entries_.erase(it);
    return;
  }
  it->second.answer = std::move(answer);
  it->second.expires = Clock::now() + window_;
}

}  // namespace ddbd::server
