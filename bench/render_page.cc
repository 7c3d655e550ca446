// What rendering a Query's page costs ddbd alone: the page bench/items.py's Query row answers
// (20 items of 200 B: a key, a sort key, a 90-byte string, a number, a bool, a string set and
// a small map), rendered from the items' stored encodings by the server's own code
// (VisitStoredItem into the JSON sink, as read_pager's WritePageItems does) over and over, with
// caches as warm as a loop keeps them. The lower bound of that part of a Query's cost here;
// in the server it runs between the network's and RocksDB's work, with colder caches.
//   g++ -O2 -std=c++20 -I. bench/render_page.cc storage/internal/item_codec.cc \
//       wire/attribute_value_json.cc wire/base64.cc wire/json_reader.cc wire/json_writer.cc \
//       wire/constraint_errors.cc model/*.cc -lsimdjson -o render_page
//   taskset -c 0 ./render_page 200000
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/attribute_value.h"
#include "storage/internal/item_codec.h"
#include "storage/stored_item.h"
#include "wire/attribute_value_json.h"
#include "wire/json_writer.h"

namespace {

// bench/items.py's item(f"group#{partition}", 200) with sort key `sort_key`.
ddbd::AttributeMap PartitionItem(int partition, int sort_key) {
  using ddbd::AttributeValue;
  char sort_text[8];
  std::snprintf(sort_text, sizeof sort_text, "%02d", sort_key);
  std::string payload;
  while (payload.size() < 90) payload += "abcdefghijklmnopqrstuvwxyz012345";
  payload.resize(90);
  ddbd::AttributeMap meta;
  meta["source"] = AttributeValue::String("bench");
  meta["version"] = AttributeValue::NumberText("3");
  ddbd::AttributeMap item;
  item["pk"] = AttributeValue::String("group#" + std::to_string(partition));
  item["sk"] = AttributeValue::String(sort_text);
  item["payload"] = AttributeValue::String(payload);
  item["count"] = AttributeValue::NumberText("42");
  item["active"] = AttributeValue::Bool(true);
  item["tags"] = AttributeValue::Set(ddbd::AttributeType::kSS, {"blue", "green", "red"});
  item["meta"] = AttributeValue::Map(std::move(meta));
  return item;
}

// The Query answer's body for `encodings`, as RenderPage writes it without capacity.
std::string RenderPage(const std::vector<std::string>& encodings) {
  ddbd::wire::JsonWriter out;
  ddbd::wire::JsonAttributeSink sink(out);
  out.BeginObject();
  out.Key("Items").BeginArray();
  for (const std::string& encoding : encodings) {
    out.BeginObject();
    if (!ddbd::storage::VisitStoredItem(encoding, sink).ok()) std::abort();
    out.EndObject();
  }
  out.EndArray();
  out.Key("Count").Int(static_cast<int64_t>(encodings.size()));
  out.Key("ScannedCount").Int(static_cast<int64_t>(encodings.size()));
  out.EndObject();
  return out.Take();
}

}  // namespace

int main(int argc, char** argv) {
  const long pages = argc > 1 ? std::atol(argv[1]) : 200'000;
  std::vector<std::string> encodings;
  for (int n = 0; n < 20; ++n) encodings.push_back(ddbd::storage::EncodeItem(PartitionItem(17, n)));
  size_t bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (long page = 0; page < pages; ++page) bytes += RenderPage(encodings).size();
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  std::printf("%ld pages of %zu bytes: %.2f us each\n", pages, bytes / static_cast<size_t>(pages),
              elapsed.count() / static_cast<double>(pages));
  return 0;
}
