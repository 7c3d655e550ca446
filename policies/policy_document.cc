// Resource-based policy documents: checked and normalized.
#include "policies/policy_document.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include "model/table_def.h"
#include "wire/json_writer.h"

namespace ddbd::policies {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

Error Invalid(std::string_view what) {
  return Error::Validation("One or more parameter values were invalid: Invalid policy document: " +
                           std::string(what));
}

// The actions only a stream's policy may name.
constexpr std::array<std::string_view, 4> kStreamActions = {
    "dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator",
    "dynamodb:ListStreams"};

// Any JSON value as it is (minified); `account_ids_as_roots` writes a 12-digit string as
// the account's root ARN (a principal's value).
void WriteValue(wire::JsonWriter& out, element value, bool account_ids_as_roots = false) {
  switch (value.type()) {
    case element_type::OBJECT:
      out.BeginObject();
      for (auto [key, member] : object(value)) {
        WriteValue(out.Key(key), member, account_ids_as_roots);
      }
      out.EndObject();
      return;
    case element_type::ARRAY:
      out.BeginArray();
      for (element member : value.get_array()) WriteValue(out, member, account_ids_as_roots);
      out.EndArray();
      return;
    case element_type::STRING: {
      const std::string_view text = value.get_string().value_unsafe();
      if (account_ids_as_roots && IsAccountId(text)) {
        out.String("arn:aws:iam::" + std::string(text) + ":root");
      } else {
        out.String(text);
      }
      return;
    }
    default:
      out.Raw(simdjson::minify(value));
  }
}

// A value that may be one string or a list of them: a one-element list becomes its element.
void WriteOneOrMany(wire::JsonWriter& out, element value, bool account_ids_as_roots = false) {
  if (value.is_array() && value.get_array().size() == 1) {
    WriteValue(out, value.get_array().at(0).value_unsafe(), account_ids_as_roots);
  } else {
    WriteValue(out, value, account_ids_as_roots);
  }
}

void WritePrincipal(wire::JsonWriter& out, element principal) {
  if (!principal.is_object()) return WriteValue(out, principal);
  out.BeginObject();
  for (auto [kind, value] : object(principal)) WriteOneOrMany(out.Key(kind), value, kind == "AWS");
  out.EndObject();
}

std::vector<std::string_view> Texts(element value) {
  std::vector<std::string_view> texts;
  if (value.is_string()) texts.push_back(value.get_string().value_unsafe());
  if (value.is_array()) {
    for (element member : value.get_array()) {
      if (member.is_string()) texts.push_back(member.get_string().value_unsafe());
    }
  }
  return texts;
}

bool EveryPrincipal(element principal) {
  if (principal.is_string()) return principal.get_string().value_unsafe() == "*";
  if (!principal.is_object()) return false;
  for (auto [kind, value] : object(principal)) {
    for (std::string_view text : Texts(value)) {
      if (text == "*") return true;
    }
  }
  return false;
}

Status CheckStatement(object statement, PolicyTarget target, std::set<std::string>& sids) {
  for (std::string_view required : {"Effect", "Principal", "Action", "Resource"}) {
    const std::string negated = "Not" + std::string(required);
    if (statement[required].error() && (required == "Effect" || statement[negated].error())) {
      return Invalid("Missing required field " + std::string(required));
    }
  }
  std::string_view effect;
  if (statement["Effect"].get(effect) || (effect != "Allow" && effect != "Deny")) {
    return Invalid("Invalid effect: " + simdjson::minify(statement["Effect"].value_unsafe()));
  }
  std::string_view sid;
  if (!statement["Sid"].get(sid) && !sids.insert(std::string(sid)).second) {
    return Invalid("The Statement Ids in the policy are not unique");
  }
  if (target == PolicyTarget::kTable && !statement["Action"].error()) {
    std::string invalid;
    for (std::string_view action : Texts(statement["Action"].value_unsafe())) {
      if (std::find(kStreamActions.begin(), kStreamActions.end(), action) == kStreamActions.end()) {
        continue;
      }
      invalid += (invalid.empty() ? "\"" : ", \"") + std::string(action) + "\"";
    }
    if (!invalid.empty()) return Invalid("The following action names are invalid: " + invalid);
  }
  if (effect == "Allow" && !statement["Principal"].error() &&
      EveryPrincipal(statement["Principal"].value_unsafe()) && statement["Condition"].error()) {
    return Error::Validation(
        "Resource-based policy grants unbounded access in one or more elements. Please revise "
        "the policy to ensure least-privilege form of access");
  }
  return OkStatus();
}

void WriteStatement(wire::JsonWriter& out, object statement) {
  static constexpr std::array<std::string_view, 9> kOrder = {
      "Sid",       "Effect",   "Principal",   "NotPrincipal", "Action",
      "NotAction", "Resource", "NotResource", "Condition"};
  out.BeginObject();
  for (std::string_view key : kOrder) {
    element value;
    if (statement[key].get(value)) continue;
    out.Key(key);
    if (key == "Principal" || key == "NotPrincipal") {
      WritePrincipal(out, value);
    } else if (key == "Sid" || key == "Effect" || key == "Condition") {
      WriteValue(out, value);
    } else {
      WriteOneOrMany(out, value);
    }
  }
  for (auto [key, value] : statement) {
    if (std::find(kOrder.begin(), kOrder.end(), key) == kOrder.end())
      WriteValue(out.Key(key), value);
  }
  out.EndObject();
}

}  // namespace

Result<std::string> NormalizePolicy(std::string_view text, PolicyTarget target) {
  if (text.size() > kMaxPolicyBytes) {
    return Error::Validation(
        "One or more parameter values were invalid: Maximum policy size of 20480 bytes exceeded");
  }
  simdjson::dom::parser parser;
  object document;
  if (parser.parse(text.data(), text.size()).get(document)) {
    return Invalid("This policy contains invalid Json");
  }
  element statements;
  if (document["Statement"].get(statements)) return Invalid("Missing required field Statement");
  std::vector<object> list;
  if (statements.is_object()) list.push_back(object(statements));
  if (statements.is_array()) {
    for (element statement : statements.get_array()) {
      if (!statement.is_object()) return Invalid("This policy contains invalid Json");
      list.push_back(object(statement));
    }
  }
  if (list.empty()) return Invalid("Could not parse the policy: Statement is empty!");
  std::set<std::string> sids;
  for (object statement : list) DDBD_RETURN_IF_ERROR(CheckStatement(statement, target, sids));
  wire::JsonWriter out;
  out.BeginObject();
  element value;
  if (!document["Version"].get(value)) WriteValue(out.Key("Version"), value);
  if (!document["Id"].get(value)) WriteValue(out.Key("Id"), value);
  out.Key("Statement").BeginArray();
  for (object statement : list) WriteStatement(out, statement);
  out.EndArray();
  for (auto [key, member] : document) {
    if (key != "Version" && key != "Id" && key != "Statement") WriteValue(out.Key(key), member);
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::policies
