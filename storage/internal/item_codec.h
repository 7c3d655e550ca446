// The compact binary encoding of items stored as RocksDB values (layout in FORMAT.md).
// Entry points: EncodeItem, DecodeItem (fails on a truncated or corrupt record).
#pragma once

#include <string>
#include <string_view>

#include "model/attribute_value.h"
#include "model/primary_key.h"
#include "model/result.h"
#include "storage/database.h"

namespace ddbd::storage {

// A stored item starts with its size by DynamoDB's measure, so writers that only need the
// old item's size (capacity units, statistics) need not decode it.
std::string EncodeItem(const AttributeMap& item, size_t item_size);
std::string EncodeItem(const AttributeMap& item);
Result<Item> DecodeItem(std::string_view bytes);

// A primary key as a value (the expiry keyspace's): its values in the item encoding.
std::string EncodePrimaryKey(const PrimaryKey& key);
Result<PrimaryKey> DecodePrimaryKey(std::string_view bytes);

}  // namespace ddbd::storage
