// GlobalSecondaryIndexes and LocalSecondaryIndexes of CreateTable (and index creation in
// UpdateTable): reading them with the API model's constraints and checking them against the
// table's key schema and AttributeDefinitions with DynamoDB's messages.
// Entry points: ReadIndexes, CheckIndexes.
#pragma once

#include <span>
#include <vector>

#include "model/table_def.h"
#include "server/ops/common.h"
#include "server/ops/table_settings.h"
#include "server/ops/vector_declarations.h"

namespace ddbd::server::ops {

struct IndexInput {
  bool local = false;
  std::string name;
  std::vector<KeySchemaInput> key_schema;
  std::optional<std::string> projection_type;
  std::optional<std::vector<std::string>> non_key_attributes;
  std::optional<Throughput> throughput;    // GSIs
  std::optional<OnDemandInput> on_demand;  // GSIs
};

// Reads an index's Projection member (envelope violations go to `errors` under `path`).
Status ReadProjection(wire::JsonObject object, const std::string& path,
                      wire::ConstraintErrors& errors, std::optional<std::string>& type,
                      std::optional<std::vector<std::string>>& non_key_attributes);
// Reads an index declaration's IndexName (required; 3-255 characters of [a-zA-Z0-9_.-]).
Result<std::string> ReadIndexName(wire::JsonObject object, const std::string& path,
                                  wire::ConstraintErrors& errors);
// DynamoDB's checks of a projection's type against its NonKeyAttributes.
Status CheckProjectionShape(const std::optional<std::string>& type,
                            const std::optional<std::vector<std::string>>& non_key_attributes);
ProjectionType ToProjectionType(std::string_view type);
// What a vector index takes of the table's budget of 100 projected attributes.
size_t VectorProjectedAttributes(const IndexDef& index);

// Reads a GSI's ProvisionedThroughput (on a declaration or an Update); nullopt if absent.
Result<std::optional<Throughput>> ReadIndexThroughput(wire::JsonObject object);

// Reads one index declaration; envelope violations go to `errors` under `path`.
Result<IndexInput> ReadIndex(wire::JsonValue json, const std::string& path, bool local,
                             wire::ConstraintErrors& errors);

// Reads `member` ("GlobalSecondaryIndexes" / "LocalSecondaryIndexes"); nullopt if absent.
Result<std::optional<std::vector<IndexInput>>> ReadIndexes(wire::JsonObject body,
                                                           std::string_view member, bool local,
                                                           wire::ConstraintErrors& errors);

// Checks a set of index declarations against the table and turns them into IndexDefs.
// `gsis`/`lsis` are nullopt when the member was absent. Whether every definition is used is
// CreateTable's own rule (CheckDefinitionsUsed): UpdateTable ignores unused ones.
Result<std::vector<IndexDef>> CheckIndexes(
    const KeyElement& table_hash, const std::optional<KeyElement>& table_range,
    const std::vector<AttributeDefinition>& definitions, BillingMode billing_mode,
    const std::optional<std::vector<IndexInput>>& gsis,
    const std::optional<std::vector<IndexInput>>& lsis,
    const std::optional<std::vector<VectorIndexInput>>& vectors = std::nullopt);

// CreateTable's "Some AttributeDefinitions are not used" unless every definition is a key of
// the table or of one of `indexes` (or a vector index's filter attribute).
Status CheckDefinitionsUsed(const KeyElement& table_hash,
                            const std::optional<KeyElement>& table_range,
                            const std::vector<AttributeDefinition>& definitions,
                            std::span<const IndexDef> indexes);

// The key (and its key type, "HASH" or "RANGE") by which the table or one of its secondary
// indexes uses `attribute`, if any does.
std::optional<std::pair<KeyElement, std::string_view>> KeyUsing(const TableDef& table,
                                                                std::string_view attribute);

// Forgets the definitions of attributes no key of the table or its indexes uses any more, as
// DynamoDB does when an index is deleted.
void DropUnusedDefinitions(TableDef& table);

// The rules every key schema (table or index) follows, in DynamoDB's order: keys defined,
// distinct names, HASH first, RANGE second. REQUIRES: 1..2 elements.
Status CheckKeySchemaShape(const std::vector<KeySchemaInput>& schema,
                           const std::vector<AttributeDefinition>& definitions);

// The type `definitions` give attribute `name`, if they define it.
std::optional<KeyAttributeType> DefinedType(const std::vector<AttributeDefinition>& definitions,
                                            std::string_view name);

// "One or more parameter values were invalid: Some index key attributes are not defined in
// AttributeDefinitions. Keys: [..], AttributeDefinitions: [..]" when a key is undefined.
Status CheckKeysDefined(const std::vector<std::string>& keys,
                        const std::vector<AttributeDefinition>& definitions);

}  // namespace ddbd::server::ops
