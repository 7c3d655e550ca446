// The only place that turns an Error into DynamoDB's JSON error body.
#include "model/attribute_value.h"
#include "server/http/exchange.h"
#include "wire/attribute_value_json.h"
#include "wire/json_writer.h"

namespace ddbd::server::http {

std::string RenderErrorBody(const Error& error) {
  wire::JsonWriter out;
  out.BeginObject().Key("__type").String(error.type());
  const ErrorInfo& info = ErrorInfoFor(error.code());
  bool has_message = !error.message().empty();
  if (info.message_member == MessageMember::kLowerCase && has_message) {
    out.Key("message").String(error.message());
  } else if (info.message_member == MessageMember::kUpperCase && has_message) {
    out.Key("Message").String(error.message());
  }
  if (error.item()) {
    out.Key("Item");
    wire::WriteAttributeMap(out, *error.item());
  }
  if (!error.cancellation_reasons().empty()) {
    out.Key("CancellationReasons").BeginArray();
    for (const CancellationReason& reason : error.cancellation_reasons()) {
      out.BeginObject();
      if (reason.item) {
        out.Key("Item");
        wire::WriteAttributeMap(out, *reason.item);
      }
      out.Key("Code").String(reason.code);
      if (!reason.message.empty()) out.Key("Message").String(reason.message);
      out.EndObject();
    }
    out.EndArray();
  }
  if (!error.throttling_reasons().empty()) {
    out.Key("ThrottlingReasons").BeginArray();
    for (const ThrottlingReason& reason : error.throttling_reasons()) {
      out.BeginObject().Key("reason").String(reason.reason);
      out.Key("resource").String(reason.resource).EndObject();
    }
    out.EndArray();
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::http
