// The vector attribute of stored vector entries.
#include "vector/entry_codec.h"

#include <cstdint>
#include <cstring>

namespace ddbd::vector {

std::string EncodeFloats(const std::vector<float>& floats) {
  std::string blob(floats.size() * sizeof(float), '\0');
  for (size_t i = 0; i < floats.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &floats[i], sizeof bits);
    for (int b = 0; b < 4; ++b) blob[4 * i + b] = static_cast<char>((bits >> (8 * b)) & 0xFF);
  }
  return blob;
}

DecodedVectorEntry DecodeVectorEntry(const IndexDef& index, Item entry) {
  DecodedVectorEntry decoded;
  auto it = entry.find(index.vector->attribute);
  if (it != entry.end() && it->second.type() == AttributeType::kB) {
    const std::string& blob = it->second.scalar();
    decoded.vector.resize(blob.size() / 4);
    for (size_t i = 0; i < decoded.vector.size(); ++i) {
      uint32_t bits = 0;
      for (int b = 0; b < 4; ++b) {
        bits |= static_cast<uint32_t>(static_cast<uint8_t>(blob[4 * i + b])) << (8 * b);
      }
      std::memcpy(&decoded.vector[i], &bits, sizeof bits);
    }
    entry.erase(it);
  }
  decoded.attributes = std::move(entry);
  return decoded;
}

}  // namespace ddbd::vector
