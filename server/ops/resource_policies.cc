// PutResourcePolicy, GetResourcePolicy and DeleteResourcePolicy: the resource-based policy of
// a table or of one of its streams, kept in the table's record (policies/policy_document.h
// checks and normalizes documents). Revisions are the epoch milliseconds of their change,
// strictly increasing; a change within 15 seconds of the previous one is refused, as DynamoDB
// refuses it (ResourceInUseException for 2 seconds, ThrottlingException after). Policies are
// stored, returned and dropped with their table; with --credentials their explicit denies are
// enforced (server/resource_access.h).
#include "policies/policy_document.h"
#include "policies/policy_evaluation.h"
#include "portability/job_naming.h"
#include "server/ops/common.h"
#include "server/ops/ops.h"
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {
namespace {

constexpr int64_t kPendingMs = 2000;
constexpr int64_t kQuietMs = 15000;
constexpr std::string_view kNotFound =
    "Resource-based policy not found for the provided ResourceArn: ";

// The table or stream a ResourceArn names.
struct PolicyTarget {
  std::string arn;
  std::shared_ptr<const TableDef> table;
  std::optional<std::string> stream_label;
};

Error InvalidArn(std::string_view what, std::string_view arn) {
  return Error::Validation("One or more parameter values were invalid: " + std::string(what) +
                           std::string(arn));
}

Result<PolicyTarget> ResolveTarget(OpContext& ctx, std::string_view arn) {
  if (!arn.starts_with("arn:")) return InvalidArn("ARNs must start with 'arn:': ", arn);
  // arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE (a stream label holds ':' itself)
  std::vector<std::string_view> parts;
  size_t begin = 0;
  for (int i = 0; i < 5; ++i) {
    const size_t colon = arn.find(':', begin);
    if (colon == std::string_view::npos) return InvalidArn("Invalid resource Arn: ", arn);
    parts.push_back(arn.substr(begin, colon - begin));
    begin = colon + 1;
  }
  const std::string_view resource = arn.substr(begin);
  if (parts[2] != "dynamodb" || !resource.starts_with("table/")) {
    return InvalidArn("Provided Arn is not a DynamoDB resource arn: ", arn);
  }
  if (parts[1] != "aws" || parts[3] != ctx.region())
    return InvalidArn("Invalid resource Arn: ", arn);
  if (parts[4] != kAccountId) {
    return Error::Validation(
        "This action is only supported by accounts that match the resource owner\u2019s account.");
  }
  PolicyTarget target{std::string(arn), nullptr, std::nullopt};
  std::string_view name = resource.substr(6);
  if (const size_t slash = name.find('/'); slash != std::string_view::npos) {
    if (!name.substr(slash).starts_with("/stream/")) {
      return InvalidArn(
          "Invalid resource arn provided, only table or stream is accepted. Provided resource "
          "arn: ",
          arn);
    }
    target.stream_label = std::string(name.substr(slash + 8));
    name = name.substr(0, slash);
  }
  target.table = ctx.catalog().Find(ctx.scope(), name);
  if (!target.table) {
    return Error::ResourceNotFound("Requested resource not found: Table: " + std::string(name) +
                                   " not found");
  }
  return target;
}

// The policy slot of the target in `table`: a TableDef being modified, or the const one a
// read looks at.
template <typename Table>
auto SlotOf(Table& table, const PolicyTarget& target) -> Result<decltype(&table.policy)> {
  if (!target.stream_label) return &table.policy;
  for (auto& stream : table.streams) {
    if (stream.Label() == *target.stream_label) return &stream.policy;
  }
  return Error::ResourceNotFound("Requested resource not found: Stream: " + *target.stream_label +
                                 " not found for Table: " + table.name);
}

bool Live(const std::optional<ResourcePolicy>& policy) { return policy && !policy->deleted(); }

// PolicyNotFoundException unless the current policy is the one ExpectedRevisionId names
// ("NO_POLICY": none).
Status CheckExpectedRevision(const std::optional<std::string_view>& expected,
                             const std::optional<ResourcePolicy>& current,
                             const std::string& table_name) {
  if (!expected) return OkStatus();
  const std::string prefix(kNotFound);
  if (*expected == "NO_POLICY") {
    if (!Live(current)) return OkStatus();
    return Error::PolicyNotFound(prefix +
                                 "Requested policy update expecting none to be present for "
                                 "table " +
                                 table_name + ", but a policy exists with revision id " +
                                 current->RevisionId() + ".");
  }
  if (!Live(current)) {
    return Error::PolicyNotFound(prefix + "Requested update for policy with revision id " +
                                 std::string(*expected) + ", but table " + table_name +
                                 " has no associated policy.");
  }
  if (current->RevisionId() == *expected) return OkStatus();
  return Error::PolicyNotFound(prefix + "Requested update for policy with revision id " +
                               std::string(*expected) +
                               ", but the policy associated to target table " + table_name +
                               " has revision id " + current->RevisionId() + ".");
}

// DynamoDB's pause after a change of a policy.
Status CheckQuiet(const std::optional<ResourcePolicy>& current, const PolicyTarget& target,
                  const std::string& table_name, int64_t now) {
  if (!current) return OkStatus();
  const int64_t since = now - current->changed_ms;
  if (since < kPendingMs) {
    return Error::ResourceInUse(
        "Attempt to change a resource which is still in use: Table is pending previous "
        "resource-based policy update: " +
        table_name);
  }
  if (since >= kQuietMs) return OkStatus();
  const std::string what =
      target.stream_label ? "stream " + *target.stream_label : "table " + table_name;
  return Error::Throttling("Resource-based policy for " + what +
                           " modified within the previous 15000 milliseconds. Please try again "
                           "after " +
                           portability::IsoTime(current->changed_ms + kQuietMs) + ".");
}

// A new revision: the change's time, after every earlier revision of the slot.
ResourcePolicy Revision(const std::optional<ResourcePolicy>& current, std::string document,
                        int64_t now) {
  const int64_t revision = current ? std::max(now, current->revision + 1) : now;
  return ResourcePolicy{std::move(document), revision, now};
}

struct PolicyRequest {
  std::string_view arn;
  std::optional<std::string_view> policy;
  std::optional<std::string_view> expected_revision;
  bool confirm_remove_self = false;  // ConfirmRemoveSelfResourceAccess
};

Result<PolicyRequest> ReadPolicyRequest(wire::JsonObject body, bool with_policy) {
  PolicyRequest in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.arn, ReadArn(body, "ResourceArn", "resourceArn", 1, 1283, errors));
  if (with_policy) {
    DDBD_ASSIGN_OR_RETURN(in.policy, wire::GetString(body, "Policy"));
    if (!in.policy) errors.NotNull("policy");
  }
  DDBD_ASSIGN_OR_RETURN(in.expected_revision, wire::GetString(body, "ExpectedRevisionId"));
  DDBD_ASSIGN_OR_RETURN(auto confirm, wire::GetBool(body, "ConfirmRemoveSelfResourceAccess"));
  in.confirm_remove_self = confirm.value_or(false);
  if (const auto& expected = in.expected_revision) {
    if (expected->empty()) errors.LengthAtLeast(*expected, "expectedRevisionId", 1);
    if (expected->size() > 255) errors.LengthAtMost(*expected, "expectedRevisionId", 255);
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return in;
}

std::string RenderRevision(const std::optional<std::string>& revision) {
  wire::JsonWriter out;
  out.BeginObject();
  if (revision) out.Key("RevisionId").String(*revision);
  out.EndObject();
  return out.Take();
}

}  // namespace

Result<std::optional<ResourcePolicy>> CreationPolicy(std::optional<std::string_view> document,
                                                     int64_t now) {
  if (!document) return std::optional<ResourcePolicy>();
  DDBD_ASSIGN_OR_RETURN(std::string normalized,
                        policies::NormalizePolicy(*document, policies::PolicyTarget::kTable));
  return std::optional<ResourcePolicy>(Revision(std::nullopt, std::move(normalized), now));
}

Result<std::string> PutResourcePolicy(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(PolicyRequest in, ReadPolicyRequest(req.body, /*with_policy=*/true));
  DDBD_ASSIGN_OR_RETURN(PolicyTarget target, ResolveTarget(ctx, in.arn));
  DDBD_ASSIGN_OR_RETURN(
      std::string document,
      policies::NormalizePolicy(*in.policy, target.stream_label ? policies::PolicyTarget::kStream
                                                                : policies::PolicyTarget::kTable));
  // With --credentials, a policy that would deny its own author further changes needs
  // ConfirmRemoveSelfResourceAccess.
  if (!ctx.caller().empty() && !in.confirm_remove_self &&
      policies::ExplicitlyDenies(document,
                                 {ctx.caller(), "dynamodb:PutResourcePolicy", target.arn})) {
    return Error::AccessDenied(
        "The new resource policy will not allow you to update the resource policy in the future.");
  }
  const int64_t now = ctx.NowMs();
  std::string revision;
  auto changed = ctx.catalog().Modify(target.table->id, [&](TableDef& table) -> Status {
    DDBD_RETURN_IF_ERROR(CheckTableChangeable(table, /*allow_updating=*/true));
    DDBD_ASSIGN_OR_RETURN(std::optional<ResourcePolicy> * slot, SlotOf(table, target));
    DDBD_RETURN_IF_ERROR(CheckExpectedRevision(in.expected_revision, *slot, table.name));
    if (Live(*slot) && (*slot)->document == document) {  // the same policy: nothing changes
      revision = (*slot)->RevisionId();
      return OkStatus();
    }
    DDBD_RETURN_IF_ERROR(CheckQuiet(*slot, target, table.name, now));
    *slot = Revision(*slot, std::move(document), now);
    revision = (*slot)->RevisionId();
    return OkStatus();
  });
  if (!changed.ok()) return std::move(changed).error();
  return RenderRevision(revision);
}

Result<std::string> GetResourcePolicy(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(PolicyRequest in, ReadPolicyRequest(req.body, /*with_policy=*/false));
  DDBD_ASSIGN_OR_RETURN(PolicyTarget target, ResolveTarget(ctx, in.arn));
  DDBD_ASSIGN_OR_RETURN(const std::optional<ResourcePolicy>* slot, SlotOf(*target.table, target));
  if (!Live(*slot)) return Error::PolicyNotFound(std::string(kNotFound) + target.arn);
  wire::JsonWriter out;
  out.BeginObject().Key("Policy").String((*slot)->document);
  out.Key("RevisionId").String((*slot)->RevisionId()).EndObject();
  return out.Take();
}

Result<std::string> DeleteResourcePolicy(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(PolicyRequest in, ReadPolicyRequest(req.body, /*with_policy=*/false));
  DDBD_ASSIGN_OR_RETURN(PolicyTarget target, ResolveTarget(ctx, in.arn));
  const int64_t now = ctx.NowMs();
  std::optional<std::string> revision;
  auto changed = ctx.catalog().Modify(target.table->id, [&](TableDef& table) -> Status {
    DDBD_RETURN_IF_ERROR(CheckTableChangeable(table, /*allow_updating=*/true));
    DDBD_ASSIGN_OR_RETURN(std::optional<ResourcePolicy> * slot, SlotOf(table, target));
    if (in.expected_revision && *in.expected_revision == "NO_POLICY") {
      in.expected_revision.reset();  // nothing to compare a deletion with
    }
    DDBD_RETURN_IF_ERROR(CheckExpectedRevision(in.expected_revision, *slot, table.name));
    if (!*slot) return OkStatus();  // never had one: nothing to delete, no revision
    DDBD_RETURN_IF_ERROR(CheckQuiet(*slot, target, table.name, now));
    const bool live = Live(*slot);
    ResourcePolicy tombstone = Revision(*slot, std::string(), now);
    // A deleted policy answers its own revision; deleting again answers the new tombstone's.
    revision = live ? (*slot)->RevisionId() : tombstone.RevisionId();
    *slot = std::move(tombstone);
    return OkStatus();
  });
  if (!changed.ok()) return std::move(changed).error();
  return RenderRevision(revision);
}

}  // namespace ddbd::server::ops
