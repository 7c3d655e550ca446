// Fuzz target: the DynamoDB-JSON attribute-value decoder (wire/attribute_value_json).
// Checks that any JSON document decodes or fails with an Error — no crash, no UB, bounded
// recursion — and that decoding is a round trip: a decoded value (or attribute map), written
// back as DynamoDB JSON and decoded again, equals itself.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "wire/attribute_value_json.h"

namespace {

using namespace ddbd::wire;

simdjson::dom::element ParseOrDie(simdjson::dom::parser& parser, std::string_view written) {
  const std::string json(written);
  simdjson::dom::element root;
  if (parser.parse(json).get(root) != simdjson::SUCCESS) std::abort();  // we wrote bad JSON
  return root;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(reinterpret_cast<const char*>(data), size).get(root) != simdjson::SUCCESS) {
    return 0;
  }
  simdjson::dom::parser reparser;
  if (auto value = ParseAttributeValue(root); value.ok()) {
    JsonWriter out;
    WriteAttributeValue(out, *value);
    auto again = ParseAttributeValue(ParseOrDie(reparser, out.str()));
    if (!again.ok() || !(*again == *value)) std::abort();
  }
  if (auto map = ParseAttributeMap(root); map.ok()) {
    JsonWriter out;
    WriteAttributeMap(out, *map);
    auto again = ParseAttributeMap(ParseOrDie(reparser, out.str()));
    if (!again.ok() || !(*again == *map)) std::abort();
  }
  return 0;
}
