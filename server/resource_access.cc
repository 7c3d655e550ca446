// Explicit denies of resource-based policies, checked before a request runs.
#include "server/resource_access.h"

#include "policies/policy_evaluation.h"
#include "server/fault_injection.h"
#include "wire/json_reader.h"

namespace ddbd::server {

Error DenialOf(std::string_view caller, std::string_view action, std::string_view resource) {
  return Error::AccessDenied("User: " + std::string(caller) + " is not authorized to perform: " +
                             std::string(action) + " on resource: " + std::string(resource) +
                             " with an explicit deny in a resource-based policy");
}

Status CheckResourcePolicies(OpContext& ctx, std::string_view operation, const Request& req) {
  if (ctx.caller().empty()) return OkStatus();
  faults::RequestFacts facts = RequestFactsOf(ctx, operation, req, /*with_partition_values=*/false);
  for (std::string_view member : {"ResourceArn", "TableArn"}) {
    std::string_view arn;
    if (req.body[member].get(arn) == simdjson::SUCCESS) facts.tables.emplace_back(arn);
  }
  const std::string action = "dynamodb:" + std::string(operation);
  for (const std::string& named : facts.tables) {
    auto table = ctx.catalog().Find(ctx.scope(), TableNameOf(named));
    if (!table || !table->policy || table->policy->deleted()) continue;
    std::string resource = table->Arn();
    if (!facts.index.empty()) resource += "/index/" + facts.index;
    if (policies::ExplicitlyDenies(table->policy->document, {ctx.caller(), action, resource})) {
      return DenialOf(ctx.caller(), action, resource);
    }
  }
  return OkStatus();
}

}  // namespace ddbd::server
