// The x-amz-crc32 checksum: equal to zlib's CRC-32 for every length (the folded path and the
// tail) and any alignment.
#include "server/http/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>

namespace ddbd::server::http {
namespace {

uint32_t Zlib(std::string_view bytes) {
  return static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

TEST(Crc32Test, KnownValues) {
  EXPECT_EQ(Crc32(""), 0u);
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);  // the check value of CRC-32/ISO-HDLC
  EXPECT_EQ(Crc32("{}"), 2745614147u);         // what DynamoDB sends for an empty answer
}

TEST(Crc32Test, EqualsZlibForEveryLengthAndAlignment) {
  std::mt19937 random(7);
  std::string buffer(5000, '\0');
  for (char& c : buffer) c = static_cast<char>(random());
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t size = 0; size + offset <= 1100; ++size) {
      const std::string_view bytes(buffer.data() + offset, size);
      ASSERT_EQ(Crc32(bytes), Zlib(bytes)) << "offset " << offset << ", size " << size;
    }
  }
  const std::string_view whole(buffer);
  EXPECT_EQ(Crc32(whole), Zlib(whole));
  const std::string zeros(4096, '\0'), ones(4096, '\xff');
  EXPECT_EQ(Crc32(zeros), Zlib(zeros));
  EXPECT_EQ(Crc32(ones), Zlib(ones));
}

}  // namespace
}  // namespace ddbd::server::http
