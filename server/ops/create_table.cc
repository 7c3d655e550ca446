// CreateTable: validate a table definition the way DynamoDB does and store it.
// A StreamSpecification creates the table with its first stream (see table_settings.h).
#include <random>

#include "server/ops/index_declarations.h"
#include "server/ops/ops.h"
#include "server/ops/table_definition.h"
#include "server/ops/table_description.h"
#include "server/ops/table_settings.h"
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {
namespace {

struct CreateTableInput {
  std::optional<std::string_view> table_name;
  std::vector<AttributeDefinition> attribute_definitions;
  std::vector<KeySchemaInput> key_schema;
  TableSettingsInput settings;
  std::vector<Tag> tags;
  std::optional<std::vector<IndexInput>> global_indexes;
  std::optional<std::vector<IndexInput>> local_indexes;
  std::optional<std::vector<VectorIndexInput>> vector_indexes;
};

Result<CreateTableInput> ParseCreateTable(OpContext& ctx, wire::JsonObject body,
                                          DefinitionSite site) {
  CreateTableInput in;
  const bool create = site == DefinitionSite::kCreateTable;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.attribute_definitions,
                        ReadAttributeDefinitions(body, /*required=*/true, errors));
  DDBD_ASSIGN_OR_RETURN(in.table_name, wire::GetString(body, "TableName"));
  if (in.table_name) errors.TableName(*in.table_name, "tableName");
  DDBD_ASSIGN_OR_RETURN(in.key_schema, ReadKeySchema(body, "keySchema", 2, errors));
  DDBD_ASSIGN_OR_RETURN(in.settings, ReadTableSettings(body, ctx.region(), errors));
  DDBD_ASSIGN_OR_RETURN(in.global_indexes,
                        ReadIndexes(body, "GlobalSecondaryIndexes", false, errors));
  std::optional<std::vector<Tag>> tags;
  if (create) {  // ImportTable drops these members without a word, as DynamoDB does
    DDBD_ASSIGN_OR_RETURN(in.local_indexes,
                          ReadIndexes(body, "LocalSecondaryIndexes", true, errors));
    DDBD_ASSIGN_OR_RETURN(in.vector_indexes, ReadVectorIndexes(body, errors));
    DDBD_ASSIGN_OR_RETURN(tags, ReadTags(body, errors));
  } else {
    in.settings.stream.reset();
    in.settings.deletion_protection.reset();
    in.settings.table_class.reset();
  }
  // Every member is deserialised before a missing one is reported: a wrongly typed member is
  // a SerializationException even without a TableName. Pinned by: test_errors.py::test_precedence
  if (!in.table_name) {
    return Error::Validation(
        "The parameter 'TableName' is required but was not present in the request");
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (tags) in.tags = std::move(*tags);
  return in;
}

// The semantic rules of a key schema against its attribute definitions, in DynamoDB's order.
Status CheckKeySchema(const CreateTableInput& in) {
  const auto& keys = in.key_schema;
  const auto& definitions = in.attribute_definitions;
  // Unverified text (recorded by a third-party catalogue of live DynamoDB answers).
  // Pinned by: test_tables.py::test_duplicate_attribute_definitions
  for (size_t i = 0; i < definitions.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (definitions[i].name == definitions[j].name) {
        return Error::Validation("Attribute Name is duplicated: " + definitions[i].name);
      }
    }
  }
  if (keys.size() > definitions.size()) {
    return Error::Validation("Invalid KeySchema: Some index key attribute have no definition");
  }
  DDBD_RETURN_IF_ERROR(CheckKeySchemaShape(keys, definitions));
  if (!in.global_indexes && !in.local_indexes && !in.vector_indexes &&
      keys.size() != definitions.size()) {
    return Error::Validation(
        "One or more parameter values were invalid: Number of attributes in KeySchema does not "
        "exactly match number of attributes defined in AttributeDefinitions");
  }
  return OkStatus();
}

TableDef BuildTable(OpContext& ctx, const CreateTableInput& in) {
  TableDef table;
  table.scope = ctx.scope();
  table.name = std::string(*in.table_name);
  table.table_uuid = NewTableUuid();
  table.region = ctx.region();
  table.attribute_definitions = in.attribute_definitions;
  auto type_of = [&](std::string_view name) {
    for (const auto& def : in.attribute_definitions) {
      if (def.name == name) return def.type;
    }
    return KeyAttributeType::kS;
  };
  table.partition_key = {std::string(in.key_schema[0].name), type_of(in.key_schema[0].name)};
  if (in.key_schema.size() == 2) {
    table.sort_key = KeyElement{std::string(in.key_schema[1].name), type_of(in.key_schema[1].name)};
  }
  table.creation_time_ms = ctx.NowMs();
  table.billing_mode = in.settings.billing_mode.value_or(BillingMode::kProvisioned);
  table.billing_mode_updated_ms = table.creation_time_ms;
  if (table.billing_mode == BillingMode::kProvisioned) {
    table.throughput.read_capacity_units = *in.settings.throughput->read;
    table.throughput.write_capacity_units = *in.settings.throughput->write;
  }
  if (in.settings.on_demand) ApplyOnDemand(*in.settings.on_demand, table.on_demand);
  table.deletion_protection = in.settings.deletion_protection.value_or(false);
  table.table_class = std::string(in.settings.table_class.value_or("STANDARD"));
  if (in.settings.sse) table.sse = *in.settings.sse;
  table.tags = in.tags;
  return table;
}

}  // namespace

Result<TableDef> DefineTable(OpContext& ctx, wire::JsonObject body, DefinitionSite site) {
  DDBD_ASSIGN_OR_RETURN(CreateTableInput in, ParseCreateTable(ctx, body, site));
  DDBD_RETURN_IF_ERROR(CheckThroughputForMode(
      in.settings.billing_mode.value_or(BillingMode::kProvisioned), in.settings.throughput));
  if (in.settings.on_demand) {
    DDBD_RETURN_IF_ERROR(CheckOnDemand(*in.settings.on_demand,
                                       in.settings.billing_mode.value_or(BillingMode::kProvisioned),
                                       OnDemandSite::kCreateTable));
  }
  DDBD_RETURN_IF_ERROR(CheckKeySchema(in));
  TableDef definition = BuildTable(ctx, in);
  DDBD_ASSIGN_OR_RETURN(definition.indexes,
                        CheckIndexes(definition.partition_key, definition.sort_key,
                                     definition.attribute_definitions, definition.billing_mode,
                                     in.global_indexes, in.local_indexes, in.vector_indexes));
  if (ctx.options().compat == CompatProfile::kDynamoDbLocal) {
    // DynamoDB Local accepts definitions that no key uses, and test suites written against it
    // declare such tables: they are dropped (DescribeTable shows the keys' definitions).
    DropUnusedDefinitions(definition);
  } else {
    DDBD_RETURN_IF_ERROR(CheckDefinitionsUsed(definition.partition_key, definition.sort_key,
                                              definition.attribute_definitions,
                                              definition.indexes));
  }
  if (in.settings.stream) {
    uint64_t stream_id = 0;
    if (in.settings.stream->enabled) {
      DDBD_ASSIGN_OR_RETURN(stream_id, ctx.catalog().AllocateId());
    }
    DDBD_RETURN_IF_ERROR(ApplyStream(*in.settings.stream, /*on_create=*/true, stream_id,
                                     definition.creation_time_ms, definition));
  }
  return definition;
}

Result<std::string> CreateTable(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(TableDef definition,
                        DefineTable(ctx, req.body, DefinitionSite::kCreateTable));
  DDBD_ASSIGN_OR_RETURN(auto policy, wire::GetString(req.body, "ResourcePolicy"));
  DDBD_ASSIGN_OR_RETURN(definition.policy, CreationPolicy(policy, definition.creation_time_ms));
  const bool delayed = TransientStatuses(ctx);
  if (delayed) {
    definition.status = TableStatus::kCreating;
    for (auto& index : definition.indexes) index.status = IndexStatus::kCreating;
  }
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.catalog().Create(std::move(definition)));
  if (delayed) {
    AfterTransientDelay(ctx, [id = table->id](OpContext& later) { ActivateTable(later, id); });
  }

  wire::JsonWriter out;
  out.BeginObject().Key("TableDescription");
  WriteTableDescription(out, *table, storage::TableStats{},
                        [](uint64_t) { return storage::TableStats{}; });
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
