// A new table's definition, read and validated as CreateTable reads it: shared by CreateTable
// and ImportTable (whose TableCreationParameters are a subset of CreateTable's members).
#pragma once

#include "model/table_def.h"
#include "server/op_context.h"
#include "wire/json_reader.h"

namespace ddbd::server::ops {

enum class DefinitionSite {
  kCreateTable,
  // ImportTable: LocalSecondaryIndexes, vector indexes, streams, tags, deletion protection
  // and table class are not read (DynamoDB drops them without a word).
  kImportTable,
};

// The definition of the table `body` describes (id not yet allocated; ACTIVE), or DynamoDB's
// error for a definition it refuses. With a StreamSpecification (CreateTable), its stream's
// id is allocated.
Result<TableDef> DefineTable(OpContext& ctx, wire::JsonObject body, DefinitionSite site);

}  // namespace ddbd::server::ops
