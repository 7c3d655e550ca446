// Table lookup for handlers.
#include "server/op_context.h"

namespace ddbd::server {

std::string_view TableNameOf(std::string_view name_or_arn) {
  if (name_or_arn.substr(0, 4) != "arn:") return name_or_arn;
  size_t slash = name_or_arn.find(":table/");
  if (slash == std::string_view::npos) return name_or_arn;
  std::string_view rest = name_or_arn.substr(slash + 7);
  return rest.substr(0, rest.find('/'));
}

namespace {

// DynamoDB Local checks every table the same way, with one text for any operation; suites
// written against it pin that text.
constexpr std::string_view kDynamoDbLocalMissingTable =
    "Cannot do operations on a non-existent table";

}  // namespace

Error OpContext::MissingTable(std::string message) const {
  if (options().compat == CompatProfile::kDynamoDbLocal) {
    return Error::ResourceNotFound(std::string(kDynamoDbLocalMissingTable));
  }
  return message.empty() ? Error::ResourceNotFound() : Error::ResourceNotFound(std::move(message));
}

Result<std::shared_ptr<const TableDef>> OpContext::FindTable(std::string_view name_or_arn) {
  auto table = catalog().Find(scope_, TableNameOf(name_or_arn));
  // A table still being created, or being deleted, is not there for reads and writes.
  if (!table || table->status == TableStatus::kCreating ||
      table->status == TableStatus::kDeleting) {
    return MissingTable({});
  }
  return table;
}

Result<std::shared_ptr<const TableDef>> OpContext::FindTableForControl(
    std::string_view name_or_arn) {
  std::string_view name = TableNameOf(name_or_arn);
  auto table = catalog().Find(scope_, name);
  if (!table) {
    return MissingTable("Requested resource not found: Table: " + std::string(name) + " not found");
  }
  return table;
}

Result<std::shared_ptr<const TableDef>> OpContext::FindTableForBackup(
    std::string_view name_or_arn) {
  auto table = FindTableForControl(name_or_arn);
  if (!table.ok() && table.error().code() == ErrorCode::kResourceNotFound) {
    return Error::TableNotFound("Table not found: " + std::string(TableNameOf(name_or_arn)));
  }
  return table;
}

}  // namespace ddbd::server
