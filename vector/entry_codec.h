// How a vector index's stored entry carries its vector: the vector attribute as a binary of
// little-endian 32-bit floats (whatever the projection), so the in-memory index can be
// rebuilt from the entries alone. Entry points: EncodeFloats, DecodeVectorEntry.
#pragma once

#include <string>
#include <vector>

#include "model/attribute_value.h"
#include "model/table_def.h"

namespace ddbd::vector {

// The binary value of `floats`, little-endian on every host.
std::string EncodeFloats(const std::vector<float>& floats);

// An entry read back: its projected attributes without the vector, and the vector.
struct DecodedVectorEntry {
  Item attributes;
  std::vector<float> vector;  // empty when the entry carries none
};
// REQUIRES: `index` is a vector index.
DecodedVectorEntry DecodeVectorEntry(const IndexDef& index, Item entry);

}  // namespace ddbd::vector
