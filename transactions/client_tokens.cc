// Idempotency of TransactWriteItems by ClientRequestToken.
#include "transactions/client_tokens.h"

#include <xxhash.h>

#include <cstring>

namespace ddbd::transactions {
namespace {

std::string Digest(std::string_view request) {
  const XXH128_hash_t hash = XXH3_128bits(request.data(), request.size());
  std::string digest(sizeof hash.low64 + sizeof hash.high64, '\0');
  std::memcpy(digest.data(), &hash.low64, sizeof hash.low64);
  std::memcpy(digest.data() + sizeof hash.low64, &hash.high64, sizeof hash.high64);
  return digest;
}

}  // namespace

size_t ClientTokens::SizeOf(const Key& key, const Entry& entry) {
  // The map node's and the queue entry's own overhead count too, roughly.
  constexpr size_t kNodeOverhead = 128 + sizeof(Answered);
  return kNodeOverhead + key.first.size() + key.second.size() + entry.digest.size() +
         (entry.answer ? entry.answer->size() : 0);
}

Result<std::optional<std::string>> ClientTokens::Begin(const std::string& scope,
                                                       const std::string& token,
                                                       std::string_view request) {
  std::lock_guard lock(mutex_);
  EvictLocked(clock_.NowMs());
  std::string digest = Digest(request);
  auto [it, inserted] = entries_.try_emplace({scope, token}, Entry{digest, std::nullopt, 0});
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
  Entry& entry = it->second;
  entry.answer = std::move(answer);
  entry.expires_ms = clock_.NowMs() + window_ms_;
  retained_bytes_ += SizeOf(it->first, entry);
  answered_.push_back({it->first, entry.expires_ms});
  EvictLocked(clock_.NowMs());
}

void ClientTokens::EvictLocked(int64_t now_ms) {
  while (!answered_.empty() &&
         (answered_.front().expires_ms <= now_ms || retained_bytes_ > max_bytes_)) {
    auto it = entries_.find(answered_.front().key);
    if (it != entries_.end() && it->second.answer &&
        it->second.expires_ms == answered_.front().expires_ms) {
      retained_bytes_ -= SizeOf(it->first, it->second);
      entries_.erase(it);
    }
    answered_.pop_front();
  }
}

size_t ClientTokens::RetainedBytes() const {
  std::lock_guard lock(mutex_);
  size_t running = 0;
  for (const auto& [key, entry] : entries_) {
    if (!entry.answer) running += SizeOf(key, entry);
  }
  return retained_bytes_ + running;
}

}  // namespace ddbd::transactions
