// The control API's clock and Time to Live paths.
#include <cmath>

#include "model/utf8.h"
#include "server/control/handlers.h"
#include "wire/json_reader.h"
#include "wire/json_writer.h"

namespace ddbd::server::control {
namespace {

constexpr std::string_view kPutClockUsage =
    "PUT /ddbd/clock takes {\"Now\": <epoch seconds or ISO 8601>}, {\"Advance\": <seconds>} "
    "and/or {\"Run\": true|false}";

// Seconds as a JSON number → milliseconds; ValidationException for anything else.
Result<int64_t> SecondsMs(std::string_view member, wire::JsonValue value) {
  double seconds = 0;
  if (value.get_double().get(seconds) != simdjson::SUCCESS || !std::isfinite(seconds) ||
      std::fabs(seconds) > 1e13) {
    return Error::Validation(std::string(member) + " must be a number of seconds");
  }
  return static_cast<int64_t>(std::llround(seconds * 1000));
}

// "Now": epoch seconds as a number or a string, or an ISO 8601 string.
Result<int64_t> TimeMs(wire::JsonValue value) {
  std::string_view text;
  if (value.get_string().get(text) == simdjson::SUCCESS) return ParseTimeMs(text);
  DDBD_ASSIGN_OR_RETURN(int64_t ms, SecondsMs("Now", value));
  if (ms < 0) return Error::Validation("Now must not be before 1970");
  return ms;
}

struct ClockChange {
  std::optional<int64_t> now_ms;
  std::optional<int64_t> advance_ms;
  std::optional<bool> run;
};

Result<ClockChange> ParseClockChange(const ControlBody& body) {
  if (!body) return Error::Validation(std::string(kPutClockUsage));
  ClockChange change;
  for (auto [key, value] : *body) {
    if (key == "Now") {
      DDBD_ASSIGN_OR_RETURN(change.now_ms, TimeMs(value));
    } else if (key == "Advance") {
      DDBD_ASSIGN_OR_RETURN(change.advance_ms, SecondsMs("Advance", value));
    } else if (key == "Run") {
      bool run = false;
      if (value.get_bool().get(run) != simdjson::SUCCESS) {
        return Error::Validation("Run must be true or false");
      }
      change.run = run;
    } else {
      return Error::Validation("Unknown member '" + QuotableUtf8(key, 64) +
                               "': " + std::string(kPutClockUsage));
    }
  }
  if (change.now_ms && change.advance_ms) {
    return Error::Validation("Now and Advance cannot be given together");
  }
  if (!change.now_ms && !change.advance_ms && !change.run) {
    return Error::Validation(std::string(kPutClockUsage));
  }
  return change;
}

}  // namespace

Result<std::string> GetClock(Service& service) {
  const ControllableClock& clock = service.controllable_clock();
  const ControllableClock::Mode mode = clock.mode();
  wire::JsonWriter out;
  out.BeginObject().Key("Now").EpochSeconds(clock.NowMs());
  out.Key("Mode").String(ClockModeName(mode)).EndObject();
  return out.Take();
}

// The changes apply in order — Now or Advance, then Run — and a refused one changes nothing.
Result<std::string> PutClock(Service& service, const ControlBody& body) {
  DDBD_ASSIGN_OR_RETURN(ClockChange change, ParseClockChange(body));
  ControllableClock& clock = service.controllable_clock();
  if (change.now_ms) DDBD_RETURN_IF_ERROR(clock.Freeze(*change.now_ms));
  if (change.advance_ms) DDBD_RETURN_IF_ERROR(clock.Advance(*change.advance_ms));
  if (change.run == true) clock.Run();
  if (change.run == false && !change.now_ms) clock.FreezeNow();
  return GetClock(service);
}

Result<std::string> SweepTimeToLive(Service& service) {
  const int64_t now_ms = service.clock().NowMs();
  DDBD_ASSIGN_OR_RETURN(uint64_t deleted, service.ttl().SweepNow());
  wire::JsonWriter out;
  out.BeginObject().Key("Deleted").Int(static_cast<int64_t>(deleted));
  out.Key("Now").EpochSeconds(now_ms).EndObject();
  return out.Take();
}

}  // namespace ddbd::server::control
