// Vector index declarations: VectorIndexes of CreateTable and the Create action of
// UpdateTable's VectorIndexUpdates, read with the API model's constraints and checked with
// DynamoDB's messages in its order (spec/vector-search.md §2-§3).
// Entry points: ReadVectorIndex, ReadVectorIndexes, CheckVectorIndex, CheckVectorIndexList.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/table_def.h"
#include "server/ops/common.h"

namespace ddbd::server::ops {

struct SearchSchemaInput {
  std::string attribute;
  std::string element_type;  // HASH or INLINE_FILTER
};

struct VectorIndexInput {
  std::string name;
  std::string attribute;  // the vector attribute
  int64_t dimensions = 0;
  std::string distance;
  std::optional<std::string> projection_type;
  std::optional<std::vector<std::string>> non_key_attributes;
  std::optional<std::vector<SearchSchemaInput>> search_schema;
};

// Reads one declaration; envelope violations go to `errors` under `path`
// ("vectorIndexes.1.member", "vectorIndexUpdates.1.member.create").
Result<VectorIndexInput> ReadVectorIndex(wire::JsonValue json, const std::string& path,
                                         wire::ConstraintErrors& errors);
// CreateTable's VectorIndexes member; nullopt when absent.
Result<std::optional<std::vector<VectorIndexInput>>> ReadVectorIndexes(
    wire::JsonObject body, wire::ConstraintErrors& errors);

// The checks of one index: dimensions, projection, search schema. `definitions` are the
// attribute definitions the schema may use.
Result<IndexDef> CheckVectorIndex(const VectorIndexInput& in,
                                  const std::vector<AttributeDefinition>& definitions);

// CreateTable's checks of the whole list: the on-demand gate, each index, duplicate names,
// the per-table count, one dimension count per vector attribute, vector attributes kept out
// of AttributeDefinitions.
Result<std::vector<IndexDef>> CheckVectorIndexList(
    const std::vector<VectorIndexInput>& inputs,
    const std::vector<AttributeDefinition>& definitions, BillingMode billing_mode);

// The messages shared with UpdateTable.
Error VectorIndexesNeedOnDemand();
Error DimensionConflict(const std::string& attribute);
Error VectorAttributeDefined(const std::string& attribute);
inline constexpr size_t kMaxVectorIndexes = 5;

}  // namespace ddbd::server::ops
