// AttributeSink: receives the attributes of an item one value at a time, in name order, with
// no Item built — how reads render items straight from their stored encoding
// (storage::VisitStoredItem into wire::JsonAttributeSink).
#pragma once

#include <string_view>

#include "model/attribute_value.h"

namespace ddbd {

// For each attribute of an item: Name, then its value. A value is one call (Scalar, Bool,
// Null) or a bracketed sequence: BeginMap, Name + value per member, EndMap; BeginList, a
// value per element, EndList; BeginSet, SetMember per member, EndSet.
class AttributeSink {
 public:
  virtual ~AttributeSink() = default;
  virtual void Name(std::string_view name) = 0;
  // S, N (canonical text) or B (the raw bytes).
  virtual void Scalar(AttributeType type, std::string_view bytes) = 0;
  virtual void Bool(bool value) = 0;
  virtual void Null() = 0;
  virtual void BeginMap() = 0;
  virtual void EndMap() = 0;
  virtual void BeginList() = 0;
  virtual void EndList() = 0;
  // SS, NS or BS; members as Scalar's bytes.
  virtual void BeginSet(AttributeType type) = 0;
  virtual void SetMember(std::string_view bytes) = 0;
  virtual void EndSet() = 0;
};

}  // namespace ddbd
