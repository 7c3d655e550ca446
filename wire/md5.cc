// MD5 through OpenSSL.
#include "wire/md5.h"

#include <openssl/evp.h>

namespace ddbd::wire {

Md5Digest Md5(std::string_view bytes) {
  Md5Digest digest{};
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_md5(), nullptr);
  return digest;
}

std::string HexOf(const Md5Digest& digest, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * digest.size());
  for (unsigned char byte : digest) {
    hex.push_back(digits[byte >> 4]);
    hex.push_back(digits[byte & 15]);
  }
  return hex;
}

}  // namespace ddbd::wire
