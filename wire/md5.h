// MD5 digests, as AWS's wire formats use them: S3's Content-MD5 and ETags, export data-file
// names, Kinesis partition keys and event ids. Not for security.
//
// Entry points: Md5, DigestBytes, HexOf. Pure; thread-safe.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace ddbd::wire {

using Md5Digest = std::array<unsigned char, 16>;

Md5Digest Md5(std::string_view bytes);

// The digest's 16 bytes, as a view into it.
inline std::string_view DigestBytes(const Md5Digest& digest) {
  return {reinterpret_cast<const char*>(digest.data()), digest.size()};
}

// 32 hexadecimal digits, lowercase unless `upper`.
std::string HexOf(const Md5Digest& digest, bool upper = false);

}  // namespace ddbd::wire
