// AttributeSink: what receives the attributes of an item one value at a time, in name order,
// with no Item built — how reads render items straight from their stored encoding
// (storage::VisitStoredItem into wire::JsonAttributeSink) and how a stored item is decoded.
// A concept, not a base class: the walk is a template over its sink, so the calls are direct
// and inlined (through virtual calls, the walk and the calls cost more than the JSON they
// wrote for a Query's page, callgrind).
#pragma once

#include <string_view>

#include "model/attribute_value.h"

namespace ddbd {

// For each attribute of an item: Name, then its value. A value is one call (Scalar, Bool,
// Null) or a bracketed sequence: BeginMap, Name + value per member, EndMap; BeginList, a
// value per element, EndList; BeginSet, SetMember per member, EndSet. Scalar gets S, N
// (canonical text) or B (the raw bytes); BeginSet SS, NS or BS, SetMember each member's bytes.
template <typename Sink>
concept AttributeSink = requires(Sink& sink, std::string_view bytes, AttributeType type) {
  sink.Name(bytes);
  sink.Scalar(type, bytes);
  sink.Bool(true);
  sink.Null();
  sink.BeginMap();
  sink.EndMap();
  sink.BeginList();
  sink.EndList();
  sink.BeginSet(type);
  sink.SetMember(bytes);
  sink.EndSet();
};

}  // namespace ddbd
