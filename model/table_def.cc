// Small helpers of TableDef.
#include "model/table_def.h"

namespace ddbd {

std::string_view KeyAttributeTypeName(KeyAttributeType type) {
  switch (type) {
    case KeyAttributeType::kS: return "S";
    case KeyAttributeType::kN: return "N";
    case KeyAttributeType::kB: return "B";
  }
  return "?";
}

AttributeType ToAttributeType(KeyAttributeType type) {
  switch (type) {
    case KeyAttributeType::kS: return AttributeType::kS;
    case KeyAttributeType::kN: return AttributeType::kN;
    case KeyAttributeType::kB: return AttributeType::kB;
  }
  return AttributeType::kS;
}

std::string_view DistanceFunctionName(DistanceFunction function) {
  switch (function) {
    case DistanceFunction::kCosine: return "COSINE";
    case DistanceFunction::kEuclidean: return "EUCLIDEAN";
    case DistanceFunction::kDotProduct: return "DOT_PRODUCT";
  }
  return "?";
}

const IndexDef* TableDef::FindIndex(std::string_view index_name) const {
  for (const auto& index : indexes) {
    if (index.name == index_name) return &index;
  }
  return nullptr;
}

const IndexDef* TableDef::FindIndexById(uint64_t index_id) const {
  for (const auto& index : indexes) {
    if (index.id == index_id) return &index;
  }
  return nullptr;
}

std::string TableDef::Arn() const {
  return "arn:aws:dynamodb:" + region + ":" + std::string(kAccountId) + ":table/" + name;
}

}  // namespace ddbd

namespace ddbd {

PrimaryKey KeyOf(const TableDef& table, const AttributeMap& item) {
  PrimaryKey key{item.find(table.partition_key.name)->second, std::nullopt};
  if (table.sort_key) key.sort = item.find(table.sort_key->name)->second;
  return key;
}

}  // namespace ddbd
