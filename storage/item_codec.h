// The compact binary encoding of items stored as RocksDB values (layout in FORMAT.md).
// Entry points: EncodeItem, DecodeItem (fails on a truncated or corrupt record).
#pragma once

#include <string>
#include <string_view>

#include "model/attribute_value.h"
#include "model/result.h"

namespace ddbd::storage {

std::string EncodeItem(const AttributeMap& item);
Result<Item> DecodeItem(std::string_view bytes);

}  // namespace ddbd::storage
