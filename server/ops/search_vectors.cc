// SearchVectors: the TopK nearest items of a vector index (spec/vector-search.md §6-§9),
// with DynamoDB's validation order: request model, TopK range, expressions, table, index,
// search vector, then the search condition against the index's search schema.
#include <cmath>
#include <set>

#include "expressions/evaluator.h"
#include "index/vector_entries.h"
#include "server/ops/common.h"
#include "server/ops/expression_request.h"
#include "server/ops/ops.h"
#include "vector/entry_codec.h"
#include "wire/attribute_value_json.h"

namespace ddbd::server::ops {
namespace {

constexpr int64_t kMaxTopK = 100;
constexpr size_t kMaxSearchVectorLength = 4096;
constexpr size_t kMinVectorSearchBytes = 1024;
// Responses stop growing at DynamoDB's 16 MB: later results are left out (no pagination).
constexpr size_t kMaxResponseBytes = 16 * 1024 * 1024;

struct SearchInput {
  std::string_view table_name;
  std::string_view index_name;
  std::vector<AttributeValue> search_vector;
  int64_t top_k = 0;
  CapacityDetail capacity = CapacityDetail::kNone;
  ExpressionInputs expressions;
};

Result<int64_t> ReadTopK(wire::JsonObject body, wire::ConstraintErrors& errors) {
  std::optional<wire::JsonValue> member = wire::Member(body, "TopK");
  if (!member || member->is_null()) {
    errors.Add(std::nullopt, "TopK", "Member must not be null");
    return 0;
  }
  // The search front end parses TopK as a 32-bit integer and says so in its own words.
  if (member->type() == simdjson::dom::element_type::DOUBLE) {
    char text[64];
    std::snprintf(text, sizeof text, "%g", double(member->get_double()));
    return Error::Serialization("invalid type: floating point `" + std::string(text) +
                                "`, expected i32");
  }
  DDBD_ASSIGN_OR_RETURN(int64_t top_k, wire::AsLong(*member));
  if (top_k > INT32_MAX || top_k < INT32_MIN) {
    return Error::Serialization("invalid value: integer `" + std::to_string(top_k) +
                                "`, expected i32");
  }
  if (top_k < 1) errors.AddUnechoed("TopK", "Member must have value greater than or equal to 1");
  return top_k;
}

Result<SearchInput> ReadSearch(wire::JsonObject body) {
  SearchInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(auto index_name, wire::GetString(body, "IndexName"));
  if (!index_name) {
    errors.Add(std::nullopt, "IndexName", "Member must not be null");
  } else {
    in.index_name = *index_name;
    if (index_name->size() < 3) {
      errors.AddUnechoed("IndexName", "Member must have length greater than or equal to 3");
    } else if (index_name->size() > 255) {
      errors.AddUnechoed("IndexName", "Member must have length less than or equal to 255");
    } else if (!IsValidResourceName(*index_name)) {
      errors.AddUnechoed("IndexName",
                         "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
    }
  }
  DDBD_ASSIGN_OR_RETURN(auto vector, wire::GetArray(body, "SearchVector"));
  if (!vector) {
    errors.Add(std::nullopt, "SearchVector", "Member must not be null");
  } else {
    for (wire::JsonValue element : *vector) {
      DDBD_ASSIGN_OR_RETURN(AttributeValue value, wire::ParseAttributeValue(element));
      in.search_vector.push_back(std::move(value));
    }
    if (in.search_vector.empty()) {
      errors.AddUnechoed("SearchVector", "Member must have length greater than or equal to 1");
    } else if (in.search_vector.size() > kMaxSearchVectorLength) {
      errors.AddUnechoed("SearchVector", "Member must have length less than or equal to 4096");
    }
  }
  DDBD_ASSIGN_OR_RETURN(in.top_k, ReadTopK(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (in.top_k > kMaxTopK) {
    return Error::Validation("Provided TopK value '" + std::to_string(in.top_k) +
                             "' is out of valid range. The value must be between 1 and 100 "
                             "inclusive");
  }
  DDBD_ASSIGN_OR_RETURN(in.expressions,
                        ReadExpressions(body, {.projection = true, .search_condition = true}));
  return in;
}

Error InvalidCondition(std::string_view detail) {
  return Error::Validation("Invalid SearchConditionExpression: " + std::string(detail));
}

// One `attribute = :value` term of a search condition.
struct SearchTerm {
  expressions::ResolvedPath path;
  const AttributeValue* value = nullptr;
};

// The terms of a condition made only of equalities joined by AND; anything else is refused
// with DynamoDB's "Invalid comparator" / "Invalid operator".
Status CollectTerms(const expressions::Condition& condition, const expressions::Bindings& bindings,
                    std::vector<SearchTerm>& terms) {
  using Kind = expressions::Condition::Kind;
  using Operand = expressions::Operand;
  switch (condition.kind) {
    case Kind::kAnd:
      for (const auto& child : condition.children) {
        DDBD_RETURN_IF_ERROR(CollectTerms(child, bindings, terms));
      }
      return OkStatus();
    case Kind::kCompare: {
      const Operand& left = condition.operands[0];
      const Operand& right = condition.operands[1];
      if (left.kind == Operand::Kind::kSize || right.kind == Operand::Kind::kSize) {
        return InvalidCondition("Invalid operator used in SearchConditionExpression");
      }
      const bool path_value =
          left.kind == Operand::Kind::kPath && right.kind == Operand::Kind::kValue;
      const bool value_path =
          left.kind == Operand::Kind::kValue && right.kind == Operand::Kind::kPath;
      if (condition.comparator != expressions::Comparator::kEq || !(path_value || value_path)) {
        return InvalidCondition("Invalid comparator used in SearchConditionExpression");
      }
      const Operand& path = path_value ? left : right;
      const Operand& value = path_value ? right : left;
      terms.push_back({bindings.Resolve(path.path), &bindings.Value(value.placeholder)});
      return OkStatus();
    }
    default:
      return InvalidCondition("Invalid operator used in SearchConditionExpression");
  }
}

// Where a search looks: the partition its HASH condition selects and the INLINE_FILTER
// equalities entries must satisfy.
struct SearchScope {
  std::string scope;
  std::vector<AttributeValue> partition;  // the HASH value, for an index with one
  std::vector<vector::VectorIndex::FilterCondition> filters;
};

Result<SearchScope> ScopeOfSearch(const IndexDef& index, const std::vector<SearchTerm>& terms) {
  const VectorSpec& spec = *index.vector;
  auto schema_element = [&](const std::string& name) -> std::optional<std::pair<KeyElement, int>> {
    for (const auto& hash : index.partition_keys) {
      if (hash.name == name) return std::pair{hash, -1};
    }
    for (size_t i = 0; i < spec.filters.size(); ++i) {
      if (spec.filters[i].name == name) return std::pair{spec.filters[i], static_cast<int>(i)};
    }
    return std::nullopt;
  };
  for (const auto& term : terms) {
    if (!schema_element(term.path[0].name)) {
      return Error::Validation(
          "SearchConditionExpression must not contain any attributes that "
          "is not in SearchSchema. Invalid attribute: " +
          term.path[0].name);
    }
  }
  for (const auto& term : terms) {
    if (term.path.size() > 1) {
      return InvalidCondition(
          "SearchConditionExpression cannot have conditions on nested "
          "attributes");
    }
  }
  std::set<std::string> seen;
  for (const auto& term : terms) {
    if (!seen.insert(term.path[0].name).second) {
      return InvalidCondition(
          "SearchConditionExpression must only contain one condition per "
          "attribute");
    }
  }
  for (const auto& hash : index.partition_keys) {
    if (!seen.count(hash.name)) {
      return Error::Validation(
          "SearchConditionExpression must be provided when SearchSchema has "
          "a HASH key");
    }
  }
  SearchScope scope;
  for (const auto& term : terms) {
    const auto [element, filter] = *schema_element(term.path[0].name);
    const AttributeValue& value = *term.value;
    if (value.type() != ToAttributeType(element.type)) {
      return Error::Validation("Type of '" + element.name +
                               "' attribute in "
                               "SearchConditionExpression (" +
                               std::string(TypeName(value.type())) +
                               ") does not match type in search schema (" +
                               std::string(KeyAttributeTypeName(element.type)) + ")");
    }
    if (filter < 0) {
      if (value.type() != AttributeType::kN && value.scalar().empty()) {
        return Error::Validation(
            std::string("One or more parameter values are not valid. The AttributeValue for a "
                        "key attribute cannot contain an empty ") +
            (value.type() == AttributeType::kB ? "binary" : "string") +
            " value. Key: " + element.name);
      }
      scope.scope = vector::VectorIndexes::ComparableBytes(value);
      scope.partition = {value};
    } else {
      scope.filters.push_back(
          {static_cast<size_t>(filter), vector::VectorIndexes::ComparableBytes(value)});
    }
  }
  return scope;
}

Result<std::vector<float>> QueryVector(const IndexDef& index,
                                       const std::vector<AttributeValue>& search_vector) {
  std::vector<float> query;
  query.reserve(search_vector.size());
  for (const auto& element : search_vector) {
    std::optional<float> value;
    if (element.type() == AttributeType::kN) value = index::ToFloat32(element.scalar());
    if (!value) {
      return Error::Validation(
          "Search vector contains invalid values. All values in the search "
          "vector must be a 32-bit floating-point number attribute");
    }
    query.push_back(*value);
  }
  if (query.size() != index.vector->dimensions) {
    return Error::Validation("Input search vector dimension " + std::to_string(query.size()) +
                             " does not match vector index dimension " +
                             std::to_string(index.vector->dimensions));
  }
  return query;
}

// The vector attribute comes back only when the index projects it and the request names it.
bool ReturnsVector(const IndexDef& index, const SearchInput& in) {
  if (!in.expressions.projection) return false;
  const std::string& attribute = index.vector->attribute;
  const bool projected =
      index.projection == ProjectionType::kAll ||
      (index.projection == ProjectionType::kInclude &&
       std::find(index.non_key_attributes.begin(), index.non_key_attributes.end(), attribute) !=
           index.non_key_attributes.end());
  if (!projected) return false;
  for (const auto& path : *in.expressions.projection) {
    if (path[0].name == attribute) return true;
  }
  return false;
}

}  // namespace

Result<std::string> SearchVectors(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(SearchInput in, ReadSearch(req.body));
  std::vector<SearchTerm> terms;
  if (in.expressions.search_condition) {
    DDBD_RETURN_IF_ERROR(
        CollectTerms(*in.expressions.search_condition, in.expressions.bindings, terms));
  }
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  const IndexDef* index = table->FindIndex(in.index_name);
  const bool allocating = index && index->status == IndexStatus::kCreating && !index->backfilling;
  if (!index || !index->IsVector() || allocating || index->status == IndexStatus::kDeleting) {
    return Error::Validation("The table does not have the specified index: " +
                             std::string(in.index_name));
  }
  if (index->status == IndexStatus::kCreating) {
    return Error::Validation("Cannot search backfilling vector index: " +
                             std::string(in.index_name));
  }
  DDBD_ASSIGN_OR_RETURN(std::vector<float> query, QueryVector(*index, in.search_vector));
  DDBD_ASSIGN_OR_RETURN(SearchScope scope, ScopeOfSearch(*index, terms));

  std::shared_ptr<vector::VectorIndex> memory = ctx.service().vectors().ForSearch(*index);
  const auto hits =
      memory->Search(query, scope.scope, scope.filters, static_cast<size_t>(in.top_k));
  ctx.service().metrics().CountVectorSearch();
  const bool returns_vector = ReturnsVector(*index, in);
  wire::JsonWriter out;
  out.BeginObject().Key("SearchResults").BeginArray();
  size_t returned = 0, returned_bytes = 0, response_bytes = 0;
  for (const auto& hit : hits) {
    DDBD_ASSIGN_OR_RETURN(PrimaryKey key, vector::VectorIndexes::KeyOfHit(hit, *table));
    DDBD_ASSIGN_OR_RETURN(std::optional<Item> stored,
                          ctx.db().GetIndexEntry(index->id, scope.partition, {}, key));
    if (!stored) continue;  // deleted since the search saw it
    vector::DecodedVectorEntry entry = vector::DecodeVectorEntry(*index, std::move(*stored));
    Item item;
    if (in.expressions.projection) {
      if (returns_vector) {
        entry.attributes.emplace(index->vector->attribute, index::VectorValue(entry.vector));
      }
      item = expressions::Project(entry.attributes, *in.expressions.projection);
    } else {
      item = std::move(entry.attributes);
    }
    const size_t item_bytes = ItemSize(item);
    if (response_bytes + item_bytes > kMaxResponseBytes) break;
    response_bytes += item_bytes;
    out.BeginObject().Key("Item");
    wire::WriteAttributeMap(out, item);
    out.Key("Score").Double(hit.score);
    out.EndObject();
    ++returned;
    const bool has_vector = returns_vector && item.count(index->vector->attribute);
    returned_bytes += item_bytes - (has_vector ? ValueSize(item.at(index->vector->attribute)) +
                                                     index->vector->attribute.size()
                                               : 0);
    if (has_vector) returned_bytes += 4 * index->vector->dimensions;
  }
  out.EndArray();
  ConsumedFigures& read = ctx.consumption().At(table->id, index->id);
  read.items_read += returned;
  read.bytes_read += returned_bytes;
  if (in.capacity != CapacityDetail::kNone) {
    // Metered bytes by the model fitted to DynamoDB's figures (spec §9.1), at least 1 KB.
    const double bytes = 30.6875 * index->vector->dimensions +
                         72.0 * static_cast<double>(returned) + static_cast<double>(returned_bytes);
    const int64_t metered =
        std::max<int64_t>(kMinVectorSearchBytes, static_cast<int64_t>(std::ceil(bytes)));
    out.Key("ConsumedCapacity")
        .BeginObject()
        .Key("VectorSearchRequestBytes")
        .Int(metered)
        .Key("VectorSearchUnits")
        .Int(metered)
        .EndObject();
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
