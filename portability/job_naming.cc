// Job ids, times, checksums and file names.
#include "portability/job_naming.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <random>

#include "wire/base64.h"
#include "wire/md5.h"

namespace ddbd::portability {

using wire::DigestBytes;
using wire::Md5;
using wire::Md5Digest;

std::string NewJobId(int64_t start_ms) {
  static thread_local std::mt19937 random{std::random_device{}()};
  char id[32];
  std::snprintf(id, sizeof id, "%014" PRId64 "-%08" PRIx32, start_ms,
                static_cast<uint32_t>(random()));
  return id;
}

bool IsJobId(std::string_view id) {
  if (id.size() != 23 || id[14] != '-') return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    if (i == 14) continue;
    const bool digit = c >= '0' && c <= '9';
    if (i < 14 ? !digit : !(digit || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

int64_t JobIdTime(std::string_view id) {
  if (!IsJobId(id)) return 0;
  int64_t ms = 0;
  for (char c : id.substr(0, 14)) ms = ms * 10 + (c - '0');
  return ms;
}

std::string IsoTime(int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(ms % 1000));
  return text;
}

std::string Md5Base64(std::string_view bytes) {
  return wire::Base64Encode(DigestBytes(Md5(bytes)));
}

std::string SinglePartEtag(std::string_view bytes) {
  return wire::HexOf(Md5(DigestBytes(Md5(bytes)))) + "-1";
}

std::string DataFileName(std::string_view seed) {
  static constexpr char kBase32[] = "abcdefghijklmnopqrstuvwxyz234567";
  const Md5Digest digest = Md5(seed);
  std::string name;
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char byte : digest) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      name.push_back(kBase32[(buffer >> (bits - 5)) & 31]);
      bits -= 5;
    }
  }
  name.push_back(kBase32[(buffer << (5 - bits)) & 31]);  // 128 bits: 25 whole + 1 partial
  return name;
}

std::string AwsDynamoDbFolder(const std::optional<std::string>& prefix) {
  std::string folder;
  if (prefix && !prefix->empty()) {
    folder = *prefix;
    if (!folder.ends_with('/')) folder.push_back('/');
  }
  return folder + "AWSDynamoDB/";
}

}  // namespace ddbd::portability
