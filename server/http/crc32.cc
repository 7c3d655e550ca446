// CRC-32 by folding with carry-less multiplication: the method of Intel's "Fast CRC
// Computation for Generic Polynomials Using PCLMULQDQ Instruction" (2009) for the reflected
// polynomial 0x04C11DB7. Four 128-bit lanes fold 64 bytes a step, then fold into one lane,
// 16 bytes a step; 128 bits are reduced to 64, then 32, and a Barrett reduction gives the
// remainder. The constants are x^(k) mod P(x) for the fold distances, bit-reflected, as the
// method defines them.
#include "server/http/crc32.h"

#include <zlib.h>

#ifdef __x86_64__
#include <immintrin.h>
#define DDBD_CARRYLESS_CRC 1
#endif

namespace ddbd::server::http {
namespace {

// Shorter bodies go to zlib whole: folding starts with four 16-byte lanes.
constexpr size_t kMinFolded = 64;

#ifdef DDBD_CARRYLESS_CRC

// Fold distances: 512 + 64 and 512 bits (four lanes), 128 + 64 and 128 bits (one lane), 64
// bits, and the Barrett constants (P(x) and floor(x^64 / P(x)), reflected).
constexpr uint64_t kFold4High = 0x1c6e41596, kFold4Low = 0x154442bd4;
constexpr uint64_t kFold1High = 0x0ccaa009e, kFold1Low = 0x1751997d0;
constexpr uint64_t kFold64 = 0x163cd6124;
constexpr uint64_t kBarrettQuotient = 0x1f7011641, kBarrettPolynomial = 0x1db710641;

__attribute__((target("pclmul,sse4.1"))) __m128i Fold(__m128i lane, __m128i constants,
                                                      __m128i next) {
  const __m128i low = _mm_clmulepi64_si128(lane, constants, 0x00);
  const __m128i high = _mm_clmulepi64_si128(lane, constants, 0x11);
  return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

// The running register (not inverted) after `size` bytes, a multiple of 16 and at least 64,
// starting from `crc`.
__attribute__((target("pclmul,sse4.1"))) uint32_t FoldedCrc(const char* data, size_t size,
                                                            uint32_t crc) {
  auto load = [&](size_t offset) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + offset));
  };
  __m128i x1 = _mm_xor_si128(load(0), _mm_cvtsi32_si128(static_cast<int>(crc)));
  __m128i x2 = load(16), x3 = load(32), x4 = load(48);
  size_t at = 64;
  const __m128i fold4 = _mm_set_epi64x(kFold4High, kFold4Low);
  for (; at + 64 <= size; at += 64) {
    x1 = Fold(x1, fold4, load(at));
    x2 = Fold(x2, fold4, load(at + 16));
    x3 = Fold(x3, fold4, load(at + 32));
    x4 = Fold(x4, fold4, load(at + 48));
  }
  const __m128i fold1 = _mm_set_epi64x(kFold1High, kFold1Low);
  x1 = Fold(x1, fold1, x2);
  x1 = Fold(x1, fold1, x3);
  x1 = Fold(x1, fold1, x4);
  for (; at + 16 <= size; at += 16) x1 = Fold(x1, fold1, load(at));
  // 128 bits to 64 (appending 32 zero bits).
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), _mm_clmulepi64_si128(fold1, x1, 0x01));
  // 64 to 32.
  const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
  const __m128i fold64 = _mm_set_epi64x(0, kFold64);
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 4),
                     _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), fold64, 0x00));
  // Barrett reduction to the 32-bit remainder.
  const __m128i barrett = _mm_set_epi64x(kBarrettQuotient, kBarrettPolynomial);
  __m128i t = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask32), barrett, 0x10), mask32);
  t = _mm_clmulepi64_si128(t, barrett, 0x00);
  return static_cast<uint32_t>(_mm_extract_epi32(_mm_xor_si128(x1, t), 1));
}

bool HasCarrylessMultiply() {
  static const bool has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return has;
}
#else
// Other processors: zlib alone.
bool HasCarrylessMultiply() { return false; }
uint32_t FoldedCrc(const char*, size_t, uint32_t crc) { return crc; }
#endif

}  // namespace

uint32_t Crc32(std::string_view bytes) {
  const char* data = bytes.data();
  size_t size = bytes.size();
  uLong crc = 0;
  if (size >= kMinFolded && HasCarrylessMultiply()) {
    const size_t folded = size & ~size_t{15};
    crc = ~FoldedCrc(data, folded, 0xFFFFFFFFu) & 0xFFFFFFFFu;
    data += folded;
    size -= folded;
  }
  if (size > 0) crc = crc32(crc, reinterpret_cast<const Bytef*>(data), static_cast<uInt>(size));
  return static_cast<uint32_t>(crc);
}

}  // namespace ddbd::server::http
