// Small helpers of TableDef.
#include "model/table_def.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace ddbd {

std::string_view KeyAttributeTypeName(KeyAttributeType type) {
  switch (type) {
    case KeyAttributeType::kS:
      return "S";
    case KeyAttributeType::kN:
      return "N";
    case KeyAttributeType::kB:
      return "B";
  }
  return "?";
}

AttributeType ToAttributeType(KeyAttributeType type) {
  switch (type) {
    case KeyAttributeType::kS:
      return AttributeType::kS;
    case KeyAttributeType::kN:
      return AttributeType::kN;
    case KeyAttributeType::kB:
      return AttributeType::kB;
  }
  return AttributeType::kS;
}

std::string_view DistanceFunctionName(DistanceFunction function) {
  switch (function) {
    case DistanceFunction::kCosine:
      return "COSINE";
    case DistanceFunction::kEuclidean:
      return "EUCLIDEAN";
    case DistanceFunction::kDotProduct:
      return "DOT_PRODUCT";
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

bool IsValidResourceName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

std::string TableDef::Arn() const {
  return "arn:aws:dynamodb:" + region + ":" + std::string(kAccountId) + ":table/" + name;
}

std::string TableDef::StreamArn(const StreamSpec& stream) const {
  return Arn() + "/stream/" + stream.Label();
}

std::string_view StreamViewTypeName(StreamViewType type) {
  switch (type) {
    case StreamViewType::kKeysOnly:
      return "KEYS_ONLY";
    case StreamViewType::kNewImage:
      return "NEW_IMAGE";
    case StreamViewType::kOldImage:
      return "OLD_IMAGE";
    case StreamViewType::kNewAndOldImages:
      return "NEW_AND_OLD_IMAGES";
  }
  return "?";
}

std::string StreamSpec::Label() const {
  const std::time_t seconds = static_cast<std::time_t>(created_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];  // room for any int the fields could hold (no truncation warning)
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03d", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(created_ms % 1000));
  return text;
}

}  // namespace ddbd

namespace ddbd {

PrimaryKey KeyOf(const TableDef& table, const AttributeMap& item) {
  PrimaryKey key{item.find(table.partition_key.name)->second, std::nullopt};
  if (table.sort_key) key.sort = item.find(table.sort_key->name)->second;
  return key;
}

std::string_view ProjectionTypeName(ProjectionType type) {
  switch (type) {
    case ProjectionType::kAll:
      return "ALL";
    case ProjectionType::kKeysOnly:
      return "KEYS_ONLY";
    case ProjectionType::kInclude:
      return "INCLUDE";
  }
  return "ALL";
}

bool IsAccountId(std::string_view text) {
  return text.size() == 12 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace ddbd
