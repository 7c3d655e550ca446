// Secondary index declarations (spec/limits.md §8).
#include "server/ops/index_declarations.h"

#include <algorithm>
#include <set>

#include "server/ops/table_settings.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxGlobalIndexes = 20;
constexpr size_t kMaxLocalIndexes = 5;
constexpr size_t kMaxProjectedAttributes = 100;

Error Invalid(const std::string& detail) {
  return Error::Validation("One or more parameter values were invalid: " + detail);
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

// Multi-attribute GSI keys: HASH elements first, then RANGE elements, up to four of each.
constexpr size_t kMaxKeyAttributes = 4;

// The checks DynamoDB makes of one index, in its order.
Result<IndexDef> CheckIndex(const IndexInput& in, const KeyElement& table_hash,
                            const std::vector<AttributeDefinition>& definitions,
                            BillingMode billing_mode) {
  IndexDef index;
  // A GSI's second HASH element makes it a multi-attribute key.
  const bool multi_attribute = !in.local && in.key_schema.size() >= 2 &&
                               (in.key_schema.size() > 2 || in.key_schema[1].key_type == "HASH");
  if (!multi_attribute) {
    DDBD_RETURN_IF_ERROR(CheckKeySchemaShape(in.key_schema, definitions));
  } else {
    // Texts for multi-attribute schemas are unverified; they reuse the two-element ones.
    std::vector<std::string> keys;
    for (const auto& key : in.key_schema) keys.push_back(key.name);
    DDBD_RETURN_IF_ERROR(CheckKeysDefined(keys, definitions));
    if (std::set<std::string>(keys.begin(), keys.end()).size() != keys.size()) {
      return Error::Validation(
          "Both the Hash Key and the Range Key element in the KeySchema have the same name");
    }
    if (in.key_schema[0].key_type != "HASH") {
      return Error::Validation(
          "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
    }
  }
  // Multi-attribute texts as a catalogue of live DynamoDB answers records them.
  // Pinned by: test_index_updates.py::test_multi_attribute_key_schema_refusals
  bool in_sort = false;
  for (const auto& key : in.key_schema) {
    const KeyElement element{key.name, *DefinedType(definitions, key.name)};
    if (key.key_type == "RANGE") {
      in_sort = true;
      index.sort_keys.push_back(element);
    } else if (in_sort) {
      return multi_attribute ? Invalid(
                                   "All HASH key attributes must precede RANGE key attributes "
                                   "in the KeySchema")
                             : Error::Validation(
                                   "Invalid KeySchema: The second KeySchemaElement "
                                   "is not a RANGE key type");
    } else {
      index.partition_keys.push_back(element);
    }
  }
  if (index.partition_keys.size() > kMaxKeyAttributes) {
    return Invalid("The KeySchema exceeds the maximum allowed number of HASH key attributes");
  }
  if (index.sort_keys.size() > kMaxKeyAttributes) {
    return Invalid("The KeySchema exceeds the maximum allowed number of RANGE key attributes");
  }
  if (in.local) {
    if (index.sort_keys.size() != 1 || index.partition_keys.size() != 1) {
      return Invalid("Index KeySchema does not have a range key for index: " + in.name);
    }
    if (index.partition_keys[0].name != table_hash.name) {
      return Invalid(
          "Index KeySchema does not have the same leading hash key as table KeySchema "
          "for index: " +
          in.name + ". index hash key: " + index.partition_keys[0].name +
          ", table hash key: " + table_hash.name);
    }
  }
  DDBD_RETURN_IF_ERROR(CheckProjectionShape(in.projection_type, in.non_key_attributes));
  if (!in.local && billing_mode == BillingMode::kPayPerRequest && in.throughput) {
    return Invalid("ProvisionedThroughput should not be specified for index: " + in.name +
                   " when BillingMode is PAY_PER_REQUEST");
  }
  if (!in.local && billing_mode == BillingMode::kProvisioned && !in.throughput) {
    return Invalid("ProvisionedThroughput must be specified for index: " + in.name);
  }
  index.name = in.name;
  index.local = in.local;
  index.projection = ToProjectionType(*in.projection_type);
  if (in.non_key_attributes) index.non_key_attributes = *in.non_key_attributes;
  if (in.throughput) index.throughput = *in.throughput;
  if (in.on_demand) {
    DDBD_RETURN_IF_ERROR(
        CheckOnDemand(*in.on_demand, billing_mode, OnDemandSite::kCreateIndex, in.name));
    ApplyOnDemand(*in.on_demand, index.on_demand);
  }
  return index;
}

}  // namespace

Status ReadProjection(wire::JsonObject object, const std::string& path,
                      wire::ConstraintErrors& errors, std::optional<std::string>& type,
                      std::optional<std::vector<std::string>>& non_key_attributes) {
  DDBD_ASSIGN_OR_RETURN(auto projection, wire::GetObject(object, "Projection"));
  if (!projection) {
    errors.NotNull(path + ".projection");
  } else {
    DDBD_ASSIGN_OR_RETURN(
        auto read_type, ReadEnum(*projection, "ProjectionType", path + ".projection.projectionType",
                                 {"ALL", "KEYS_ONLY", "INCLUDE"}, errors));
    if (read_type) type = std::string(*read_type);
    DDBD_ASSIGN_OR_RETURN(auto non_key, wire::GetArray(*projection, "NonKeyAttributes"));
    if (non_key) {
      std::vector<std::string> names;
      for (wire::JsonValue element : *non_key) {
        DDBD_ASSIGN_OR_RETURN(std::string_view attribute, wire::AsString(element));
        names.emplace_back(attribute);
      }
      for (size_t i = 0; i < names.size(); ++i) {
        if (std::find(names.begin(), names.begin() + static_cast<ptrdiff_t>(i), names[i]) !=
            names.begin() + static_cast<ptrdiff_t>(i)) {
          // Unverified prefix. Pinned by: test_index_updates.py::test_duplicate_non_key_attributes
          return Invalid("Duplicate element in NonKeyAttributes: " + names[i]);
        }
      }
      const std::string attributes_path = path + ".projection.nonKeyAttributes";
      if (names.empty()) errors.LengthAtLeast("[]", attributes_path, 1);
      if (names.size() > 20) errors.LengthAtMost("[...]", attributes_path, 20);
      // Pinned by: test_index_updates.py::test_non_key_attribute_names_are_1_to_255_characters
      if (std::any_of(names.begin(), names.end(), [](const std::string& name) {
            return name.empty() || wire::CharacterCount(name) > 255;
          })) {
        errors.EachMember(wire::JavaList(names), attributes_path,
                          "[Member must have length less than or equal to 255, Member must have "
                          "length greater than or equal to 1]");
      }
      non_key_attributes = std::move(names);
    }
  }
  return OkStatus();
}

Result<std::string> ReadIndexName(wire::JsonObject object, const std::string& path,
                                  wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(object, "IndexName"));
  if (!name) {
    errors.NotNull(path + ".indexName");
    return std::string();
  }
  errors.TableName(*name, path + ".indexName");
  return std::string(*name);
}

Status CheckProjectionShape(const std::optional<std::string>& type,
                            const std::optional<std::vector<std::string>>& non_key_attributes) {
  if (!type) return Invalid("Unknown ProjectionType: null");
  if (non_key_attributes && *type != "INCLUDE") {
    return Invalid("ProjectionType is " + *type + ", but NonKeyAttributes is specified");
  }
  if (!non_key_attributes && *type == "INCLUDE") {
    return Invalid("ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
  }
  return OkStatus();
}

size_t VectorProjectedAttributes(const IndexDef& index) {
  // The vector attribute and each INLINE_FILTER count; the HASH element does not.
  return index.non_key_attributes.size() + 1 + index.vector->filters.size();
}

ProjectionType ToProjectionType(std::string_view type) {
  return type == "ALL"         ? ProjectionType::kAll
         : type == "KEYS_ONLY" ? ProjectionType::kKeysOnly
                               : ProjectionType::kInclude;
}

Result<std::optional<Throughput>> ReadIndexThroughput(wire::JsonObject object) {
  DDBD_ASSIGN_OR_RETURN(auto member, wire::GetObject(object, "ProvisionedThroughput"));
  if (!member) return std::optional<Throughput>();
  DDBD_ASSIGN_OR_RETURN(auto read, wire::GetLong(*member, "ReadCapacityUnits"));
  DDBD_ASSIGN_OR_RETURN(auto write, wire::GetLong(*member, "WriteCapacityUnits"));
  Throughput throughput;
  throughput.read_capacity_units = read.value_or(0);
  throughput.write_capacity_units = write.value_or(0);
  return std::optional<Throughput>(throughput);
}

Result<IndexInput> ReadIndex(wire::JsonValue json, const std::string& path, bool local,
                             wire::ConstraintErrors& errors) {
  IndexInput index;
  index.local = local;
  DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(json));
  DDBD_ASSIGN_OR_RETURN(index.name, ReadIndexName(object, path, errors));
  DDBD_ASSIGN_OR_RETURN(index.key_schema, ReadKeySchema(object, path + ".keySchema",
                                                        local ? 2 : 2 * kMaxKeyAttributes, errors));
  DDBD_RETURN_IF_ERROR(
      ReadProjection(object, path, errors, index.projection_type, index.non_key_attributes));
  if (local) {
    // Not part of an LSI: only the member's JSON type is checked.
    DDBD_ASSIGN_OR_RETURN(auto ignored, wire::GetObject(object, "ProvisionedThroughput"));
    (void)ignored;
  } else {
    DDBD_ASSIGN_OR_RETURN(index.throughput, ReadIndexThroughput(object));
    DDBD_ASSIGN_OR_RETURN(index.on_demand, ReadOnDemandThroughput(object));
  }
  return index;
}

Status CheckKeySchemaShape(const std::vector<KeySchemaInput>& schema,
                           const std::vector<AttributeDefinition>& definitions) {
  std::vector<std::string> keys;
  for (const auto& key : schema) keys.push_back(key.name);
  DDBD_RETURN_IF_ERROR(CheckKeysDefined(keys, definitions));
  if (keys.size() == 2 && keys[0] == keys[1]) {
    return Error::Validation(
        "Both the Hash Key and the Range Key element in the KeySchema have the same name");
  }
  if (schema[0].key_type != "HASH") {
    return Error::Validation(
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  }
  if (keys.size() == 2 && schema[1].key_type != "RANGE") {
    return Error::Validation(
        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
  }
  return OkStatus();
}

std::optional<KeyAttributeType> DefinedType(const std::vector<AttributeDefinition>& definitions,
                                            std::string_view name) {
  for (const auto& def : definitions) {
    if (def.name == name) return def.type;
  }
  return std::nullopt;
}

Status CheckKeysDefined(const std::vector<std::string>& keys,
                        const std::vector<AttributeDefinition>& definitions) {
  for (const auto& key : keys) {
    if (DefinedType(definitions, key)) continue;
    std::vector<std::string> names;
    for (const auto& def : definitions) names.push_back(def.name);
    return Invalid("Some index key attributes are not defined in AttributeDefinitions. Keys: [" +
                   Join(keys) + "], AttributeDefinitions: [" + Join(names) + "]");
  }
  return OkStatus();
}

Result<std::optional<std::vector<IndexInput>>> ReadIndexes(wire::JsonObject body,
                                                           std::string_view member, bool local,
                                                           wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(body, member));
  if (!array) return std::optional<std::vector<IndexInput>>();
  const std::string base = wire::EnvelopeName(member);
  std::vector<IndexInput> indexes;
  size_t i = 0;
  for (wire::JsonValue element : *array) {
    DDBD_ASSIGN_OR_RETURN(
        IndexInput index,
        ReadIndex(element, base + "." + std::to_string(++i) + ".member", local, errors));
    indexes.push_back(std::move(index));
  }
  return std::optional<std::vector<IndexInput>>(std::move(indexes));
}

Result<std::vector<IndexDef>> CheckIndexes(
    const KeyElement& table_hash, const std::optional<KeyElement>& table_range,
    const std::vector<AttributeDefinition>& definitions, BillingMode billing_mode,
    const std::optional<std::vector<IndexInput>>& gsis,
    const std::optional<std::vector<IndexInput>>& lsis,
    const std::optional<std::vector<VectorIndexInput>>& vectors) {
  if (lsis && lsis->empty()) return Invalid("List of LocalSecondaryIndexes is empty");
  if (gsis && gsis->empty()) return Invalid("List of GlobalSecondaryIndexes is empty");
  if (vectors && vectors->empty()) return Invalid("List of VectorIndexes is empty");
  std::vector<IndexDef> result;
  std::set<std::string> names;
  size_t projected = 0;
  auto add = [&](const std::vector<IndexInput>& inputs) -> Status {
    for (const auto& input : inputs) {
      DDBD_ASSIGN_OR_RETURN(IndexDef index,
                            CheckIndex(input, table_hash, definitions, billing_mode));
      if (!names.insert(index.name).second) return Invalid("Duplicate index name: " + index.name);
      projected += index.non_key_attributes.size();
      result.push_back(std::move(index));
    }
    return OkStatus();
  };
  if (lsis) {
    if (!table_range) {
      return Invalid(
          "Table KeySchema does not have a range key, which is required when "
          "specifying a LocalSecondaryIndex");
    }
    DDBD_RETURN_IF_ERROR(add(*lsis));
    if (lsis->size() > kMaxLocalIndexes) {
      return Invalid("Number of LocalSecondaryIndexes exceeds per-table limit of 5");
    }
  }
  if (gsis) {
    DDBD_RETURN_IF_ERROR(add(*gsis));
    if (gsis->size() > kMaxGlobalIndexes) {
      return Invalid("GlobalSecondaryIndex count exceeds the per-table limit of 20");
    }
  }
  if (vectors) {
    DDBD_ASSIGN_OR_RETURN(std::vector<IndexDef> vector_indexes,
                          CheckVectorIndexList(*vectors, definitions, billing_mode));
    for (auto& index : vector_indexes) {
      if (!names.insert(index.name).second) return Invalid("Duplicate index name: " + index.name);
      projected += VectorProjectedAttributes(index);
      result.push_back(std::move(index));
    }
  }
  if (projected > kMaxProjectedAttributes) {
    return Invalid("Number of projected attributes in all indexes exceeds limit of 100");
  }
  return result;
}

namespace {

std::set<std::string> KeysUsed(const KeyElement& table_hash,
                               const std::optional<KeyElement>& table_range,
                               std::span<const IndexDef> indexes) {
  std::set<std::string> used = {table_hash.name};
  if (table_range) used.insert(table_range->name);
  for (const auto& index : indexes) {
    for (const auto& key : index.partition_keys) used.insert(key.name);
    for (const auto& key : index.sort_keys) used.insert(key.name);
    if (index.vector) {
      for (const auto& filter : index.vector->filters) used.insert(filter.name);
    }
  }
  return used;
}

}  // namespace

Status CheckDefinitionsUsed(const KeyElement& table_hash,
                            const std::optional<KeyElement>& table_range,
                            const std::vector<AttributeDefinition>& definitions,
                            std::span<const IndexDef> indexes) {
  const std::set<std::string> used = KeysUsed(table_hash, table_range, indexes);
  std::vector<std::string> defined;
  for (const auto& def : definitions) defined.push_back(def.name);
  if (defined.size() != used.size() ||
      !std::all_of(defined.begin(), defined.end(),
                   [&](const std::string& d) { return used.count(d); })) {
    return Invalid("Some AttributeDefinitions are not used. AttributeDefinitions: [" +
                   Join(defined) + "], keys used: [" +
                   Join(std::vector<std::string>(used.begin(), used.end())) + "]");
  }
  return OkStatus();
}

std::optional<std::pair<KeyElement, std::string_view>> KeyUsing(const TableDef& table,
                                                                std::string_view attribute) {
  if (table.partition_key.name == attribute) return std::pair{table.partition_key, "HASH"};
  if (table.sort_key && table.sort_key->name == attribute)
    return std::pair{*table.sort_key, "RANGE"};
  for (const auto& index : table.indexes) {
    if (index.IsVector()) continue;
    for (const auto& key : index.partition_keys) {
      if (key.name == attribute) return std::pair{key, "HASH"};
    }
    for (const auto& key : index.sort_keys) {
      if (key.name == attribute) return std::pair{key, "RANGE"};
    }
  }
  return std::nullopt;
}

void DropUnusedDefinitions(TableDef& table) {
  const std::set<std::string> used = KeysUsed(table.partition_key, table.sort_key, table.indexes);
  std::erase_if(table.attribute_definitions,
                [&](const AttributeDefinition& def) { return !used.count(def.name); });
}

}  // namespace ddbd::server::ops
