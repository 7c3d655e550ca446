// The control API's stream triggers: PUT (create or replace), GET (one, or all), DELETE; and
// the --triggers file read at start-up.
#include <fstream>
#include <sstream>

#include "model/utf8.h"
#include "server/control/handlers.h"
#include "triggers/triggers.h"
#include "wire/json_reader.h"
#include "wire/json_writer.h"

namespace ddbd::server::control {
namespace {

Error TriggerNotFound(std::string_view name) {
  return Error::ControlNotFound("No trigger named " + QuotableUtf8(name, 64));
}

// Reads a definition and puts it in its namespace's scope.
Result<triggers::TriggerDefinition> ReadDefinition(std::string_view name, wire::JsonObject body) {
  DDBD_ASSIGN_OR_RETURN(triggers::TriggerDefinition definition,
                        triggers::ParseDefinition(name, body));
  DDBD_ASSIGN_OR_RETURN(definition.scope, Service::ScopeOfNamespace(definition.name_space));
  return definition;
}

}  // namespace

Result<std::string> ListTriggers(Service& service) {
  std::string out = "{\"Triggers\":[";
  bool first = true;
  for (const triggers::TriggerView& view : service.triggers().List()) {
    if (!first) out += ',';
    first = false;
    out += triggers::RenderTrigger(view);
  }
  return out + "]}";
}

Result<std::string> GetTrigger(Service& service, std::string_view name) {
  auto view = service.triggers().Get(std::string(name));
  if (!view) return TriggerNotFound(name);
  return triggers::RenderTrigger(*view);
}

Result<std::string> PutTrigger(Service& service, std::string_view name, const ControlBody& body) {
  if (!body) {
    return Error::Validation(
        "PUT /ddbd/triggers/{name} takes the trigger's definition: {\"TableName\", \"Url\" or "
        "\"Command\", \"StartingPosition\", …}");
  }
  DDBD_ASSIGN_OR_RETURN(triggers::TriggerDefinition definition, ReadDefinition(name, *body));
  DDBD_ASSIGN_OR_RETURN(triggers::TriggerView view, service.triggers().Put(std::move(definition)));
  return triggers::RenderTrigger(view);
}

Result<std::string> DeleteTrigger(Service& service, std::string_view name) {
  auto view = service.triggers().Get(std::string(name));
  DDBD_ASSIGN_OR_RETURN(const bool deleted, service.triggers().Delete(std::string(name)));
  if (!deleted || !view) return TriggerNotFound(name);
  return triggers::RenderTrigger(*view);
}

Status LoadTriggersFile(Service& service, const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Error::Validation("--triggers: cannot read " + path);
  std::stringstream text;
  text << file.rdbuf();
  const std::string json = text.str();
  const Error shape = Error::Validation(
      "--triggers " + path + ": the file must be {\"Triggers\": [{\"Name\": …, <definition>}]}");
  simdjson::dom::parser parser;
  wire::JsonObject root;
  if (parser.parse(json).get_object().get(root) != simdjson::SUCCESS) return shape;
  auto list = wire::Member(root, "Triggers");
  wire::JsonArray entries;
  if (!list || list->get_array().get(entries) != simdjson::SUCCESS) return shape;
  for (wire::JsonValue entry : entries) {
    wire::JsonObject object;
    std::string_view name;
    auto member = entry.get_object().get(object) == simdjson::SUCCESS ? wire::Member(object, "Name")
                                                                      : std::nullopt;
    if (!member || member->get_string().get(name) != simdjson::SUCCESS) return shape;
    auto definition = ReadDefinition(name, object);
    if (!definition.ok()) {
      return Error::Validation("--triggers " + path + ": trigger " + std::string(name) + ": " +
                               definition.error().message());
    }
    auto put = service.triggers().Put(*std::move(definition));
    if (!put.ok()) return std::move(put).error();
  }
  return OkStatus();
}

}  // namespace ddbd::server::control
