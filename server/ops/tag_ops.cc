// TagResource, UntagResource and ListTagsOfResource: tags of a table, addressed by its ARN.
#include <algorithm>

#include "server/ops/common.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

Result<std::string_view> ReadResourceArn(wire::JsonObject body, wire::ConstraintErrors& errors) {
  return ReadArn(body, "ResourceArn", "resourceArn", 1, 1283, errors);
}

// DynamoDB refuses a ResourceArn that is not an ARN at all before looking anything up.
// Pinned by: test_tags.py::test_an_arn_must_start_with_arn
Status CheckIsArn(std::string_view arn) {
  if (arn.starts_with("arn:")) return OkStatus();
  return Error::Validation(
      "One or more parameter values were invalid: ARNs must start with "
      "'arn:': " +
      std::string(arn));
}

// The table an ARN names, in this request's namespace.
Result<std::shared_ptr<const TableDef>> TableOfArn(OpContext& ctx, std::string_view arn) {
  constexpr std::string_view kPrefix = "arn:aws:dynamodb:";
  size_t table_marker = arn.find(":table/");
  if (arn.substr(0, kPrefix.size()) != kPrefix || table_marker == std::string_view::npos) {
    return Error::Validation("Invalid TableArn: Invalid ResourceArn provided as input " +
                             std::string(arn));
  }
  std::string_view name = arn.substr(table_marker + 7);
  auto table = ctx.catalog().Find(ctx.scope(), name);
  if (!table) {
    return Error::ResourceNotFound("Requested resource not found: ResourcArn: " + std::string(arn) +
                                   " not found");
  }
  return table;
}

}  // namespace

Result<std::string> TagResource(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view arn, ReadResourceArn(req.body, errors));
  DDBD_ASSIGN_OR_RETURN(auto tags, ReadTags(req.body, errors));
  if (!tags) errors.NotNull("tags");
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_RETURN_IF_ERROR(CheckIsArn(arn));
  DDBD_ASSIGN_OR_RETURN(auto current, TableOfArn(ctx, arn));
  if (tags->empty()) return Error::Validation("Atleast one Tag needs to be provided as Input.");

  auto tagged = ctx.catalog().Modify(current->id, [&](TableDef& table) -> Status {
    for (auto& tag : *tags) {
      auto it = std::find_if(table.tags.begin(), table.tags.end(),
                             [&](const Tag& t) { return t.key == tag.key; });
      if (it != table.tags.end()) {
        it->value = tag.value;
      } else {
        table.tags.push_back(tag);
      }
    }
    return CheckTagCount(table.tags.size());
  });
  if (!tagged.ok()) return std::move(tagged).error();
  return std::string();  // DynamoDB answers TagResource with an empty body
}

Result<std::string> UntagResource(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view arn, ReadResourceArn(req.body, errors));
  DDBD_ASSIGN_OR_RETURN(auto keys, wire::GetArray(req.body, "TagKeys"));
  if (!keys) errors.NotNull("tagKeys");
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  std::vector<std::string_view> remove;
  for (wire::JsonValue key : *keys) {
    DDBD_ASSIGN_OR_RETURN(std::string_view k, wire::AsString(key));
    remove.push_back(k);
  }
  DDBD_RETURN_IF_ERROR(CheckIsArn(arn));
  // The keys to remove follow TagResource's key rules (not recorded for UntagResource).
  for (std::string_view key : remove) DDBD_RETURN_IF_ERROR(CheckTagKey(key));
  DDBD_ASSIGN_OR_RETURN(auto current, TableOfArn(ctx, arn));
  if (remove.empty())
    return Error::Validation("Atleast one Tag Key needs to be provided as Input.");

  auto untagged = ctx.catalog().Modify(current->id, [&](TableDef& table) {
    std::erase_if(table.tags, [&](const Tag& t) {
      return std::find(remove.begin(), remove.end(), t.key) != remove.end();
    });
    return OkStatus();
  });
  if (!untagged.ok()) return std::move(untagged).error();
  return std::string();  // empty body, like TagResource
}

Result<std::string> ListTagsOfResource(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view arn, ReadResourceArn(req.body, errors));
  // Deserialised even though tags are listed in one page: a wrongly typed NextToken is a
  // SerializationException before a missing ResourceArn is reported.
  DDBD_ASSIGN_OR_RETURN(auto next_token, wire::GetString(req.body, "NextToken"));
  (void)next_token;
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_RETURN_IF_ERROR(CheckIsArn(arn));
  DDBD_ASSIGN_OR_RETURN(auto table, TableOfArn(ctx, arn));
  wire::JsonWriter out;
  out.BeginObject().Key("Tags").BeginArray();
  for (const auto& tag : table->tags) {
    out.BeginObject().Key("Key").String(tag.key).Key("Value").String(tag.value).EndObject();
  }
  out.EndArray().EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
