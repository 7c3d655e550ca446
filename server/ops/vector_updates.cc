// Vector index creation and deletion on existing tables (spec/vector-search.md §3).
#include "server/ops/vector_updates.h"

#include <algorithm>

#include "server/ops/index_declarations.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxProjectedAttributes = 100;

Error Invalid(const std::string& detail) {
  return Error::Validation("One or more parameter values were invalid: " + detail);
}

// The key element of the table or of a GSI that `attribute` is, if any, with its key type.

Status CreateVectorIndex(OpContext& ctx, const VectorIndexInput& input,
                         const std::vector<AttributeDefinition>& new_definitions, TableDef& table,
                         IndexChanges& changes) {
  if (table.billing_mode != BillingMode::kPayPerRequest) return VectorIndexesNeedOnDemand();
  if (const IndexDef* existing = table.FindIndex(input.name)) {
    if (existing->IsVector() && existing->status == IndexStatus::kCreating) {
      return Error::ResourceInUse(
          "Attempt to change a resource which is still in use: Index is "
          "being created.  Table: " +
          table.name + " Index: " + input.name);
    }
    return Error::Validation("Attempting to create an index which already exists");
  }
  // The search schema must be declared by this request, not merely known to the table.
  DDBD_ASSIGN_OR_RETURN(IndexDef index, CheckVectorIndex(input, new_definitions));
  DDBD_ASSIGN_OR_RETURN(std::vector<AttributeDefinition> definitions,
                        MergeDefinitions(table.attribute_definitions, new_definitions));
  size_t vector_count = 0;
  size_t projected = VectorProjectedAttributes(index);
  for (const auto& other : table.indexes) {
    if (!other.IsVector()) {
      projected += other.non_key_attributes.size();
      continue;
    }
    ++vector_count;
    projected += VectorProjectedAttributes(other);
    if (other.vector->attribute == index.vector->attribute &&
        other.vector->dimensions != index.vector->dimensions) {
      return DimensionConflict(index.vector->attribute);
    }
  }
  if (vector_count >= kMaxVectorIndexes) {
    return Error::LimitExceeded(
        "Subscriber limit exceeded: Number of vector secondary indexes "
        "exceeds per-table limit of 5");
  }
  for (const auto& def : new_definitions) {
    if (def.name == index.vector->attribute) return VectorAttributeDefined(def.name);
  }
  if (auto key = KeyUsing(table, index.vector->attribute)) {
    return AttributeRedefined(key->first, key->second, *index.vector, /*vector_first=*/false);
  }
  if (projected > kMaxProjectedAttributes) {
    return Invalid("Number of projected attributes in all indexes exceeds limit of 100");
  }
  DDBD_ASSIGN_OR_RETURN(index.id, ctx.catalog().AllocateId());
  index.status = IndexStatus::kCreating;
  index.backfilling = ctx.options().vector_allocation.count() == 0;
  changes.created.push_back(index.id);
  table.attribute_definitions = std::move(definitions);
  table.indexes.push_back(std::move(index));
  return OkStatus();
}

}  // namespace

namespace {

std::string KeySchemaText(const KeyElement& key, std::string_view key_type) {
  return "Schema:[SchemaElement: key{" + key.name + ":" +
         std::string(KeyAttributeTypeName(key.type)) + ":" + std::string(key_type) + "}]";
}

Error Redefined(const std::string& existing, const std::string& requested) {
  return Invalid(
      "Attributes cannot be redefined. Please check that your attribute has the same "
      "type as previously defined. Existing schema: " +
      existing + " New schema: " + requested);
}

}  // namespace

Error KeyRedefined(const KeyElement& existing, std::string_view existing_key_type,
                   const KeyElement& requested, std::string_view requested_key_type) {
  return Redefined(KeySchemaText(existing, existing_key_type),
                   KeySchemaText(requested, requested_key_type));
}

Error AttributeRedefined(const KeyElement& key, std::string_view key_type, const VectorSpec& vector,
                         bool vector_first) {
  const std::string key_schema = KeySchemaText(key, key_type);
  const std::string vector_schema = "VectorIndexSchema:[VectorAttribute: key{" + vector.attribute +
                                    ":L:" + std::to_string(vector.dimensions) + "}]";
  return vector_first ? Redefined(vector_schema, key_schema) : Redefined(key_schema, vector_schema);
}

Result<std::vector<VectorIndexUpdateInput>> ReadVectorIndexUpdates(wire::JsonObject body,
                                                                   wire::ConstraintErrors& errors) {
  std::vector<VectorIndexUpdateInput> updates;
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(body, "VectorIndexUpdates"));
  if (!array) return updates;
  for (wire::JsonValue element : *array) {
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(element));
    VectorIndexUpdateInput update;
    const std::string path = "vectorIndexUpdates." + std::to_string(updates.size() + 1) + ".member";
    if (std::optional<wire::JsonValue> create = wire::Member(object, "Create");
        create && !create->is_null()) {
      DDBD_ASSIGN_OR_RETURN(update.create, ReadVectorIndex(*create, path + ".create", errors));
    }
    DDBD_ASSIGN_OR_RETURN(auto del, wire::GetObject(object, "Delete"));
    if (del) {
      DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(*del, "IndexName"));
      if (!name) {
        errors.NotNull(path + ".delete.indexName");
      } else {
        errors.TableName(*name, path + ".delete.indexName");
      }
      update.delete_name = std::string(name.value_or(""));
    }
    updates.push_back(std::move(update));
  }
  return updates;
}

Status ApplyVectorIndexUpdates(OpContext& ctx, const std::vector<VectorIndexUpdateInput>& updates,
                               const std::vector<AttributeDefinition>& new_definitions,
                               TableDef& table, IndexChanges& changes) {
  for (const auto& update : updates) {
    if (update.create && update.delete_name) {
      return Invalid("Only one vector index action is allowed per VectorIndexUpdate object");
    }
    if (!update.create && !update.delete_name) {  // uncaptured; the GSI form of the text
      return Invalid("One of VectorIndexUpdate.Create, VectorIndexUpdate.Delete must not be null");
    }
  }
  if (updates.size() > 1) return OneOnlineIndexAtATimeError();
  for (const auto& update : updates) {
    if (update.create) {
      DDBD_RETURN_IF_ERROR(CreateVectorIndex(ctx, *update.create, new_definitions, table, changes));
      continue;
    }
    auto it = std::find_if(table.indexes.begin(), table.indexes.end(), [&](const IndexDef& index) {
      return index.IsVector() && index.name == *update.delete_name;
    });
    if (it == table.indexes.end()) {
      return Error::ResourceNotFound("Requested resource not found: Index " + *update.delete_name +
                                     " for table " + table.name);
    }
    if (it->status == IndexStatus::kCreating && !it->backfilling) {
      return Error::ResourceInUse(
          "Attempt to change a resource which is still in use: Index "
          "creation is in resource allocation phase. Retry deletion during "
          "backfilling phase or when the index is active. Table: " +
          table.name + " Index: " + it->name);
    }
    IndexDef deleted = *it;
    deleted.status = IndexStatus::kDeleting;
    changes.deleted.push_back(std::move(deleted));
    table.indexes.erase(it);
    DropUnusedDefinitions(table);
  }
  return OkStatus();
}

}  // namespace ddbd::server::ops
