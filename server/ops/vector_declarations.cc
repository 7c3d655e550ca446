// Vector index declarations (spec/vector-search.md §2.1-§2.2).
#include "server/ops/vector_declarations.h"

#include <algorithm>
#include <map>
#include <set>

#include "server/ops/index_declarations.h"

namespace ddbd::server::ops {
namespace {

constexpr int64_t kMaxDimensions = 4096;
constexpr size_t kMaxInlineFilters = 18;

Error Invalid(const std::string& detail) {
  return Error::Validation("One or more parameter values were invalid: " + detail);
}

Result<std::optional<std::vector<SearchSchemaInput>>> ReadSearchSchema(
    wire::JsonObject object, const std::string& path, wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(object, "SearchSchema"));
  if (!array) return std::optional<std::vector<SearchSchemaInput>>();
  std::vector<SearchSchemaInput> schema;
  for (wire::JsonValue element : *array) {
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject member, wire::AsObject(element));
    const std::string element_path =
        path + ".searchSchema." + std::to_string(schema.size() + 1) + ".member";
    SearchSchemaInput input;
    DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(member, "AttributeName"));
    if (!name) errors.NotNull(element_path + ".attributeName");
    input.attribute = std::string(name.value_or(""));
    DDBD_ASSIGN_OR_RETURN(auto type, ReadEnum(member, "SearchSchemaElementType",
                                              element_path + ".searchSchemaElementType",
                                              {"HASH", "INLINE_FILTER"}, errors));
    if (!wire::Member(member, "SearchSchemaElementType")) {
      errors.NotNull(element_path + ".searchSchemaElementType");
    }
    input.element_type = std::string(type.value_or(""));
    schema.push_back(std::move(input));
  }
  if (schema.empty()) errors.LengthAtLeast("[]", path + ".searchSchema", 1);
  return std::optional<std::vector<SearchSchemaInput>>(std::move(schema));
}

}  // namespace

Error VectorIndexesNeedOnDemand() {
  return Invalid("Vector indexes are only supported for PAY_PER_REQUEST tables");
}

Error DimensionConflict(const std::string& attribute) {
  return Invalid("Conflicting attribute definition for '" + attribute +
                 "'. All VectorIndexes on the same vector attribute must use the same "
                 "dimensions.");
}

Error VectorAttributeDefined(const std::string& attribute) {
  return Invalid("Conflicting attribute definition for '" + attribute +
                 "'. An attribute cannot be defined in AttributeDefinitions when used as a "
                 "VectorAttribute.");
}

Result<VectorIndexInput> ReadVectorIndex(wire::JsonValue json, const std::string& path,
                                         wire::ConstraintErrors& errors) {
  VectorIndexInput index;
  DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(json));
  // Envelope items in the model's member order: indexName, vectorAttribute, searchSchema,
  // projection, dimensions, distanceFunction.
  DDBD_ASSIGN_OR_RETURN(index.name, ReadIndexName(object, path, errors));
  DDBD_ASSIGN_OR_RETURN(auto vector_attribute, wire::GetObject(object, "VectorAttribute"));
  if (!vector_attribute) {
    errors.NotNull(path + ".vectorAttribute");
  } else {
    DDBD_ASSIGN_OR_RETURN(auto attribute, wire::GetString(*vector_attribute, "AttributeName"));
    const std::string attribute_path = path + ".vectorAttribute.attributeName";
    if (!attribute) {
      errors.NotNull(attribute_path);
    } else {
      if (attribute->empty()) errors.LengthAtLeast(*attribute, attribute_path, 1);
      if (attribute->size() > 255) errors.LengthAtMost(*attribute, attribute_path, 255);
      index.attribute = std::string(*attribute);
    }
  }
  DDBD_ASSIGN_OR_RETURN(index.search_schema, ReadSearchSchema(object, path, errors));
  DDBD_RETURN_IF_ERROR(
      ReadProjection(object, path, errors, index.projection_type, index.non_key_attributes));
  DDBD_ASSIGN_OR_RETURN(auto dimensions, wire::GetLong(object, "Dimensions"));
  if (!dimensions) {
    errors.NotNull(path + ".dimensions");
  } else {
    if (*dimensions < 1) errors.ValueAtLeast(std::to_string(*dimensions), path + ".dimensions", 1);
    index.dimensions = *dimensions;
  }
  DDBD_ASSIGN_OR_RETURN(auto distance,
                        ReadEnum(object, "DistanceFunction", path + ".distanceFunction",
                                 {"COSINE", "DOT_PRODUCT", "EUCLIDEAN"}, errors));
  if (!wire::Member(object, "DistanceFunction")) errors.NotNull(path + ".distanceFunction");
  index.distance = std::string(distance.value_or(""));
  return index;
}

Result<std::optional<std::vector<VectorIndexInput>>> ReadVectorIndexes(
    wire::JsonObject body, wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(body, "VectorIndexes"));
  if (!array) return std::optional<std::vector<VectorIndexInput>>();
  std::vector<VectorIndexInput> indexes;
  for (wire::JsonValue element : *array) {
    DDBD_ASSIGN_OR_RETURN(
        VectorIndexInput index,
        ReadVectorIndex(element, "vectorIndexes." + std::to_string(indexes.size() + 1) + ".member",
                        errors));
    indexes.push_back(std::move(index));
  }
  return std::optional<std::vector<VectorIndexInput>>(std::move(indexes));
}

Result<IndexDef> CheckVectorIndex(const VectorIndexInput& in,
                                  const std::vector<AttributeDefinition>& definitions) {
  if (in.dimensions > kMaxDimensions) {
    return Invalid("Number of dimensions must be between 1 and 4096 inclusive.");
  }
  DDBD_RETURN_IF_ERROR(CheckProjectionShape(in.projection_type, in.non_key_attributes));
  IndexDef index;
  index.name = in.name;
  index.projection = ToProjectionType(*in.projection_type);
  if (in.non_key_attributes) index.non_key_attributes = *in.non_key_attributes;
  VectorSpec& spec = index.vector.emplace();
  spec.attribute = in.attribute;
  spec.dimensions = static_cast<uint32_t>(in.dimensions);
  spec.distance = in.distance == "COSINE"      ? DistanceFunction::kCosine
                  : in.distance == "EUCLIDEAN" ? DistanceFunction::kEuclidean
                                               : DistanceFunction::kDotProduct;
  if (!in.search_schema) return index;
  const auto& schema = *in.search_schema;
  for (const auto& element : schema) {
    if (!DefinedType(definitions, element.attribute)) {
      return Invalid("One element in SearchSchema is not defined in attribute definitions");
    }
  }
  const auto hashes = std::count_if(schema.begin(), schema.end(), [](const auto& element) {
    return element.element_type == "HASH";
  });
  if (hashes > 1) {
    return Invalid("Value '" + std::to_string(hashes) +
                   "' at 'SearchSchema' failed to satisfy "
                   "constraint: Member must have HASH count less than or equal to 1");
  }
  std::set<std::string> seen;
  for (const auto& element : schema) {
    if (!seen.insert(element.attribute).second) {
      return Invalid("SearchSchema contains a duplicate AttributeName");
    }
  }
  const size_t filters = schema.size() - static_cast<size_t>(hashes);
  if (filters > kMaxInlineFilters) {  // uncaptured text, in the form of the HASH count's
    return Invalid("Value '" + std::to_string(filters) +
                   "' at 'SearchSchema' failed to satisfy "
                   "constraint: Member must have INLINE_FILTER count less than or equal to 18");
  }
  for (const auto& element : schema) {
    const KeyElement key{element.attribute, *DefinedType(definitions, element.attribute)};
    if (element.element_type == "HASH") {
      index.partition_keys.push_back(key);
    } else {
      spec.filters.push_back(key);
    }
  }
  return index;
}

Result<std::vector<IndexDef>> CheckVectorIndexList(
    const std::vector<VectorIndexInput>& inputs,
    const std::vector<AttributeDefinition>& definitions, BillingMode billing_mode) {
  if (billing_mode != BillingMode::kPayPerRequest) return VectorIndexesNeedOnDemand();
  std::vector<IndexDef> indexes;
  for (const auto& input : inputs) {
    DDBD_ASSIGN_OR_RETURN(IndexDef index, CheckVectorIndex(input, definitions));
    indexes.push_back(std::move(index));
  }
  std::set<std::string> names;
  for (const auto& index : indexes) {
    if (!names.insert(index.name).second) return Invalid("Duplicate index name: " + index.name);
  }
  if (indexes.size() > kMaxVectorIndexes) {
    return Invalid("VectorIndex count exceeds the per-table limit of 5");
  }
  std::map<std::string, uint32_t> dimensions;  // vector attribute → dimensions
  for (const auto& index : indexes) {
    auto [it, added] = dimensions.emplace(index.vector->attribute, index.vector->dimensions);
    if (!added && it->second != index.vector->dimensions) {
      return DimensionConflict(index.vector->attribute);
    }
  }
  for (const auto& index : indexes) {
    if (DefinedType(definitions, index.vector->attribute)) {
      return VectorAttributeDefined(index.vector->attribute);
    }
  }
  return indexes;
}

}  // namespace ddbd::server::ops
