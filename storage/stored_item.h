// The walk of a stored item's encoding (the item codec's layout, FORMAT.md): its attributes
// handed to a sink in name order, as DecodeStoredItem would produce them, with no Item built.
// The one walk for decoding and for rendering straight from storage. Entry point:
// VisitStoredItem.
// A template over its sink (model/attribute_sink.h), whose calls are direct and inlined.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/attribute_sink.h"
#include "model/attribute_value.h"
#include "model/result.h"
#include "storage/internal/binary_io.h"

namespace ddbd::storage {

namespace internal {

// Depth guards against corrupt input recursing without bound; valid items nest ≤ 32.
constexpr int kMaxStoredItemDepth = 64;

// Reads one tagged value (its AttributeType byte, then S/N/B length-prefixed bytes, BOOL one
// byte, NULL nothing, L/M/SS/NS/BS a count then the members) and hands it to `sink`. False on
// a corrupt record.
template <AttributeSink Sink>
bool VisitStoredValue(ByteReader& in, int depth, Sink& sink) {
  if (depth > kMaxStoredItemDepth) return false;
  const auto type = static_cast<AttributeType>(in.Byte());
  switch (type) {
    case AttributeType::kS:
    case AttributeType::kN:
    case AttributeType::kB:
      sink.Scalar(type, in.Bytes());
      break;
    case AttributeType::kBool:
      sink.Bool(in.Byte() != 0);
      break;
    case AttributeType::kNull:
      sink.Null();
      break;
    case AttributeType::kM:
      sink.BeginMap();
      for (uint64_t n = in.Varint(); in.ok() && n > 0; --n) {
        sink.Name(in.Bytes());
        if (!VisitStoredValue(in, depth + 1, sink)) return false;
      }
      sink.EndMap();
      break;
    case AttributeType::kL:
      sink.BeginList();
      for (uint64_t n = in.Varint(); in.ok() && n > 0; --n) {
        if (!VisitStoredValue(in, depth + 1, sink)) return false;
      }
      sink.EndList();
      break;
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS:
      sink.BeginSet(type);
      for (uint64_t n = in.Varint(); in.ok() && n > 0; --n) sink.SetMember(in.Bytes());
      sink.EndSet();
      break;
    default:
      return false;
  }
  return in.ok();
}

}  // namespace internal

// Hands a stored item's attributes to `sink` in name order. Fails on a corrupt record, having sent
// part of it.
template <AttributeSink Sink>
Status VisitStoredItem(std::string_view encoding, Sink& sink) {
  ByteReader reader(encoding);
  reader.Varint();  // the size header
  for (uint64_t n = reader.Varint(); reader.ok() && n > 0; --n) {
    sink.Name(reader.Bytes());
    if (!internal::VisitStoredValue(reader, 1, sink)) break;
  }
  if (!reader.ok() || !reader.done()) return Error::Internal("corrupt item record");
  return OkStatus();
}

}  // namespace ddbd::storage
