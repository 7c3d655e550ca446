// Shared handler pieces. Key messages follow spec/limits.md §4.
#include "server/ops/common.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <random>

#include "model/utf8.h"
#include "wire/attribute_value_json.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxPartitionKeyBytes = 2048;
constexpr size_t kMaxSortKeyBytes = 1024;

std::string EnumList(std::initializer_list<std::string_view> allowed) {
  std::string out = "[";
  bool first = true;
  for (auto value : allowed) {
    if (!first) out += ", ";
    out += value;
    first = false;
  }
  return out + "]";
}

// Empty-value and size rules of one key attribute value.
Status CheckKeyValue(const AttributeValue& value, std::string_view name, bool is_partition) {
  if (value.type() != AttributeType::kN && value.scalar().empty()) {
    return Error::Validation(
        std::string("One or more parameter values are not valid. The AttributeValue for a key "
                    "attribute cannot contain an empty ") +
        (value.type() == AttributeType::kB ? "binary" : "string") +
        " value. Key: " + std::string(name));
  }
  if (value.type() == AttributeType::kN) return OkStatus();
  if (is_partition && value.scalar().size() > kMaxPartitionKeyBytes) {
    return Error::Validation(
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size "
        "limit of2048 bytes");
  }
  if (!is_partition && value.scalar().size() > kMaxSortKeyBytes) {
    return Error::Validation(
        "One or more parameter values were invalid: Aggregated size of all range keys has "
        "exceeded the size limit of 1024 bytes");
  }
  return OkStatus();
}

}  // namespace

Result<std::string_view> ReadTableName(wire::JsonObject body, wire::ConstraintErrors& errors,
                                       std::string_view path) {
  DDBD_ASSIGN_OR_RETURN(std::optional<std::string_view> name, wire::GetString(body, "TableName"));
  if (!name) {
    errors.NotNull(path);
    return std::string_view();
  }
  if (name->substr(0, 4) == "arn:") {
    if (name->size() > 1024) errors.LengthAtMost(*name, path, 1024);
  } else {
    errors.TableName(*name, path, 1024);
  }
  return *name;
}

Result<std::string_view> ReadOnlyTableName(wire::JsonObject body) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadTableName(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return name;
}

Result<std::string_view> ReadArn(wire::JsonObject body, std::string_view member,
                                 std::string_view path, size_t min, size_t max,
                                 wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto arn, wire::GetString(body, member));
  if (!arn) {
    errors.NotNull(path);
    return std::string_view();
  }
  if (arn->size() < min) errors.LengthAtLeast(*arn, path, min);
  if (arn->size() > max) errors.LengthAtMost(*arn, path, max);
  return *arn;
}

PageRange PageAfter(const std::vector<std::string>& keys,
                    const std::optional<std::string_view>& exclusive_start, size_t limit) {
  PageRange page;
  if (exclusive_start) {
    auto at = std::find(keys.begin(), keys.end(), *exclusive_start);
    page.begin = at == keys.end() ? keys.size() : static_cast<size_t>(at - keys.begin()) + 1;
  }
  page.end = std::min(keys.size(), page.begin + limit);
  page.more = page.end < keys.size();
  return page;
}

Result<std::optional<std::string_view>> ReadEnum(wire::JsonObject body, std::string_view member,
                                                 std::string_view path,
                                                 std::initializer_list<std::string_view> allowed,
                                                 wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(std::optional<std::string_view> value, wire::GetString(body, member));
  if (!value) return value;
  for (auto candidate : allowed) {
    if (candidate == *value) return value;
  }
  errors.Enum(*value, path, EnumList(allowed));
  return std::optional<std::string_view>();
}

Result<CapacityDetail> ReadReturnConsumedCapacity(wire::JsonObject body,
                                                  wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto value,
                        ReadEnum(body, "ReturnConsumedCapacity", "returnConsumedCapacity",
                                 {"INDEXES", "TOTAL", "NONE"}, errors));
  if (value == "TOTAL") return CapacityDetail::kTotal;
  if (value == "INDEXES") return CapacityDetail::kIndexes;
  return CapacityDetail::kNone;
}

Result<ReturnValues> ReadReturnValues(wire::JsonObject body, wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(
      auto value, ReadEnum(body, "ReturnValues", "returnValues",
                           {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"}, errors));
  if (value == "ALL_OLD") return ReturnValues::kAllOld;
  if (value == "UPDATED_OLD") return ReturnValues::kUpdatedOld;
  if (value == "ALL_NEW") return ReturnValues::kAllNew;
  if (value == "UPDATED_NEW") return ReturnValues::kUpdatedNew;
  return ReturnValues::kNone;
}

Result<bool> ReadReturnItemCollectionMetrics(wire::JsonObject body,
                                             wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto value,
                        ReadEnum(body, "ReturnItemCollectionMetrics", "returnItemCollectionMetrics",
                                 {"SIZE", "NONE"}, errors));
  return value == "SIZE";
}

void WriteItemCollectionMetrics(wire::JsonWriter& out, const TableDef& table,
                                const AttributeValue& partition, int64_t collection_bytes) {
  // DynamoDB reports a range of whole gigabytes around its estimate.
  const double gigabytes = static_cast<double>(collection_bytes) / (1 << 30);
  const double lower = std::floor(gigabytes);
  out.BeginObject().Key("ItemCollectionKey").BeginObject().Key(table.partition_key.name);
  wire::WriteAttributeValue(out, partition);
  out.EndObject();
  out.Key("SizeEstimateRangeGB").BeginArray().Capacity(lower).Capacity(lower + 1).EndArray();
  out.EndObject();
}

Result<PrimaryKey> KeyFromParameter(const TableDef& table, const AttributeMap& key) {
  const size_t expected = table.sort_key ? 2 : 1;
  if (key.size() != expected) return Error::Validation(std::string(kKeyMismatch));
  auto find = [&](const KeyElement& element) -> const AttributeValue* {
    auto it = key.find(element.name);
    if (it == key.end() || it->second.type() != ToAttributeType(element.type)) return nullptr;
    return &it->second;
  };
  const AttributeValue* partition = find(table.partition_key);
  const AttributeValue* sort = table.sort_key ? find(*table.sort_key) : nullptr;
  if (!partition || (table.sort_key && !sort)) return Error::Validation(std::string(kKeyMismatch));
  DDBD_RETURN_IF_ERROR(CheckKeyValue(*partition, table.partition_key.name, true));
  PrimaryKey result{*partition, std::nullopt};
  if (sort) {
    DDBD_RETURN_IF_ERROR(CheckKeyValue(*sort, table.sort_key->name, false));
    result.sort = *sort;
  }
  return result;
}

bool HasKeyOfWrongType(const TableDef& table, const AttributeMap& key) {
  for (const KeyElement* element :
       {&table.partition_key, table.sort_key ? &*table.sort_key : nullptr}) {
    if (!element) continue;
    auto it = key.find(element->name);
    if (it != key.end() && it->second.type() != ToAttributeType(element->type)) return true;
  }
  return false;
}

Result<PrimaryKey> KeyFromItem(const TableDef& table, const AttributeMap& item) {
  PrimaryKey result;
  for (const KeyElement* element :
       {&table.partition_key, table.sort_key ? &*table.sort_key : nullptr}) {
    if (!element) continue;
    auto it = item.find(element->name);
    if (it == item.end()) {
      return Error::Validation("One or more parameter values were invalid: Missing the key " +
                               element->name + " in the item");
    }
    if (it->second.type() != ToAttributeType(element->type)) {
      return Error::Validation(std::string(kKeyTypeMismatchPrefix) + element->name +
                               " expected: " + std::string(KeyAttributeTypeName(element->type)) +
                               " actual: " + std::string(TypeName(it->second.type())));
    }
    const bool is_partition = element == &table.partition_key;
    DDBD_RETURN_IF_ERROR(CheckKeyValue(it->second, element->name, is_partition));
    if (is_partition) {
      result.partition = it->second;
    } else {
      result.sort = it->second;
    }
  }
  return result;
}

Status CheckItemSize(const AttributeMap& item) {
  if (ItemSize(item) > kMaxItemBytes) {
    return Error::Validation("Item size has exceeded the maximum allowed size");
  }
  return OkStatus();
}

double WriteUnits(size_t old_size, size_t new_size) {
  size_t bytes = std::max(old_size, new_size);
  return std::max<double>(1, std::ceil(static_cast<double>(bytes) / 1024));
}

double ReadUnits(size_t bytes, bool consistent) {
  double units = std::max<double>(1, std::ceil(static_cast<double>(bytes) / 4096));
  return consistent ? units : units / 2;
}

namespace {

constexpr size_t kMaxTagKeyCharacters = 128;
constexpr size_t kMaxTagValueCharacters = 256;

// AWS's tag character set: letters, digits and spaces of any script (\p{L}, \p{N}, \p{Z})
// and _ . : / = + - @. Outside ASCII and Latin-1 this refuses the blocks of punctuation,
// symbols, marks, controls, private use and emoji and accepts the rest, which is letters
// and digits save for a few symbols and combining marks inside script blocks.
bool IsTagCharacter(char32_t c) {
  if (c < 0x80) {
    return std::isalnum(static_cast<int>(c)) || c == ' ' ||
           std::string_view("_.:/=+-@").find(static_cast<char>(c)) != std::string_view::npos;
  }
  if (c < 0xA0) return false;  // C1 controls
  if (c <= 0xBF) {             // Latin-1 punctuation and symbols, but
    return std::u32string_view(U"\u00A0\u00AA\u00B2\u00B3\u00B5\u00B9\u00BA\u00BC\u00BD\u00BE")
               .find(c) != std::u32string_view::npos;  // NBSP, ª, µ, º, ², ³, ¹, ¼, ½, ¾
  }
  if (c == 0xD7 || c == 0xF7) return false;  // × ÷
  if (c >= 0x2000 && c <= 0x206F) {          // general punctuation, but its spaces
    return c <= 0x200A || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F;
  }
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kRefused[] = {
      {0x0300, 0x036F},  // combining diacritical marks
      {0x20A0, 0x20FF},  // currency symbols, combining marks for symbols
      {0x2190, 0x2BFF},  // arrows, mathematical operators, technical, shapes, dingbats
      {0x2E00, 0x2E7F},  // supplemental punctuation
      {0x3001, 0x3004},  // CJK punctuation
      {0x3008, 0x3020},    {0xD800, 0xF8FF},  // surrogates, private use
      {0xFE00, 0xFE6F},                       // variation selectors, vertical and small forms
      {0xFEFF, 0xFEFF},                       // byte order mark
      {0xFF01, 0xFF0F},                       // fullwidth punctuation
      {0xFF1A, 0xFF20},    {0xFF3B, 0xFF40}, {0xFF5B, 0xFF65}, {0xFFF0, 0xFFFF},  // specials
      {0x1F000, 0x1FAFF},   // emoji and other pictographs
      {0xE0000, 0x10FFFF},  // tags, variation selectors supplement, private use planes
  };
  for (const Range& range : kRefused) {
    if (c >= range.first && c <= range.last) return false;
  }
  return true;
}

// `text` has `min`..`max` characters (code points, not bytes), each a tag character.
bool IsValidTagText(std::string_view text, size_t min, size_t max) {
  size_t characters = 0;
  for (size_t at = 0; at < text.size(); ++characters) {
    if (!IsTagCharacter(DecodeUtf8At(text, at))) return false;
  }
  return characters >= min && characters <= max;
}

// DynamoDB checks tags itself, after the model's constraints: a missing Value, an
// over-long key or a '#' get these texts rather than constraint errors.
// Pinned by: test_tags.py
Status CheckTag(const std::optional<std::string_view>& key,
                const std::optional<std::string_view>& value) {
  DDBD_RETURN_IF_ERROR(CheckTagKey(key));
  if (!value || !IsValidTagText(*value, 0, kMaxTagValueCharacters)) {
    return Error::Validation("The Tag Value provided is invalid, Value: " +
                             std::string(value.value_or("null")));
  }
  return OkStatus();
}

}  // namespace

Status CheckTagKey(const std::optional<std::string_view>& key) {
  if (!key || !IsValidTagText(*key, 1, kMaxTagKeyCharacters)) {
    return Error::Validation("The Tag Key provided is invalid, Key: " +
                             std::string(key.value_or("null")));
  }
  if (key->starts_with("aws:")) {
    return Error::Validation("Tag Key cannot be prefixed with aws:, Key: " + std::string(*key));
  }
  return OkStatus();
}

Status CheckTagCount(size_t count) {
  if (count > kMaxTagsPerResource) {
    return Error::Validation(
        "Number of Tags exceed the current limit for the provided ResourceArn");
  }
  return OkStatus();
}

Result<std::optional<std::vector<Tag>>> ReadTags(wire::JsonObject body,
                                                 wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(body, "Tags"));
  if (!array) return std::optional<std::vector<Tag>>();
  std::vector<Tag> tags;
  Status first_invalid = OkStatus();
  for (wire::JsonValue element : *array) {
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(element));
    DDBD_ASSIGN_OR_RETURN(auto key, wire::GetString(object, "Key"));
    DDBD_ASSIGN_OR_RETURN(auto value, wire::GetString(object, "Value"));
    if (first_invalid.ok()) first_invalid = CheckTag(key, value);
    tags.push_back(Tag{std::string(key.value_or("")), std::string(value.value_or(""))});
  }
  // The model's constraint errors of the request's other members come first.
  if (!errors.empty()) return std::optional<std::vector<Tag>>(std::move(tags));
  DDBD_RETURN_IF_ERROR(first_invalid);
  for (size_t i = 0; i < tags.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (tags[i].key == tags[j].key) {
        return Error::Validation("Duplicate Tag Keys provided as input: Duplicate Tag Key found " +
                                 tags[i].key);
      }
    }
  }
  DDBD_RETURN_IF_ERROR(CheckTagCount(tags.size()));
  return std::optional<std::vector<Tag>>(std::move(tags));
}

void WriteConsumedCapacity(wire::JsonWriter& out, CapacityDetail detail,
                           std::string_view table_name, double units, bool is_write) {
  WriteConsumedCapacity(out, detail, table_name, CapacityUse{units, {}, {}, {}}, is_write);
}

void CapacityUse::Add(const CapacityUse& other) {
  table_units += other.table_units;
  for (const auto& [name, units] : other.global_indexes) global_indexes[name] += units;
  for (const auto& [name, units] : other.local_indexes) local_indexes[name] += units;
  for (const auto& [name, bytes] : other.vector_bytes) vector_bytes[name] += bytes;
}

CapacityUse CapacityUse::Times(double factor) const {
  CapacityUse scaled = *this;
  scaled.table_units *= factor;
  for (auto& [name, units] : scaled.global_indexes) units *= factor;
  for (auto& [name, units] : scaled.local_indexes) units *= factor;
  return scaled;
}

void WriteConsumedCapacity(wire::JsonWriter& out, CapacityDetail detail,
                           std::string_view table_name, const CapacityUse& use, bool is_write) {
  if (detail == CapacityDetail::kNone) return;
  const std::string_view kind = is_write ? "WriteCapacityUnits" : "ReadCapacityUnits";
  auto capacity = [&](double units) {
    out.BeginObject().Key("CapacityUnits").Capacity(units).Key(kind).Capacity(units).EndObject();
  };
  double total = use.table_units;
  for (const auto& [name, units] : use.global_indexes) total += units;
  for (const auto& [name, units] : use.local_indexes) total += units;
  out.BeginObject();
  out.Key("TableName").String(table_name);
  out.Key("CapacityUnits").Capacity(total);
  out.Key(kind).Capacity(total);
  if (detail == CapacityDetail::kIndexes) {
    out.Key("Table");
    capacity(use.table_units);
    for (const auto& [member, indexes] : {std::pair{"GlobalSecondaryIndexes", &use.global_indexes},
                                          std::pair{"LocalSecondaryIndexes", &use.local_indexes}}) {
      if (indexes->empty()) continue;
      out.Key(member).BeginObject();
      for (const auto& [name, units] : *indexes) {
        out.Key(name);
        capacity(units);
      }
      out.EndObject();
    }
    if (!use.vector_bytes.empty()) {
      out.Key("VectorIndexes").BeginObject();
      for (const auto& [name, bytes] : use.vector_bytes) {
        out.Key(name).BeginObject().Key("VectorWriteRequestBytes").Int(bytes).EndObject();
      }
      out.EndObject();
    }
  }
  out.EndObject();
}

std::string NewTableUuid() {
  thread_local std::mt19937_64 random(std::random_device{}());
  uint64_t high = random(), low = random();
  high = (high & ~0xF000ULL) | 0x4000ULL;      // version 4
  low = (low & ~(3ULL << 62)) | (2ULL << 62);  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(high >> 32),
                static_cast<unsigned>((high >> 16) & 0xFFFF), static_cast<unsigned>(high & 0xFFFF),
                static_cast<unsigned>(low >> 48),
                static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFULL));
  return buf;
}

}  // namespace ddbd::server::ops
