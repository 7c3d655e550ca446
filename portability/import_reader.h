// Reads the items of one imported object, in DynamoDB's three import formats:
// DYNAMODB_JSON (a line {"Item": {...}} per item, blank lines skipped), ION (a top-level
// struct {Item: {...}} per item, in DynamoDB's Ion mapping: ion_text.h) and CSV (a header
// row naming the columns unless a header list is given; the table's and its GSIs' key
// attributes take the type of their AttributeDefinitions, every other column is a String,
// and an empty field is no attribute).
//
// Entry points: ImportFormat, ReadObjectItems, NextJsonLine, JsonLineRecord.
#pragma once

#include <simdjson.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/attribute_value.h"
#include "model/result.h"
#include "model/table_def.h"

namespace ddbd::portability {

struct ImportFormat {
  enum class Kind { kDynamoDbJson, kIon, kCsv };
  Kind kind = Kind::kDynamoDbJson;
  char delimiter = ',';
  std::optional<std::vector<std::string>> headers;
  std::map<std::string, KeyAttributeType, std::less<>> key_types;  // CSV's typed columns
};

// Calls `visit` with each item of `text` in order (its 0-based index in the object, and the
// item or why that item cannot be one — the reading goes on). Returns the error of a record
// that cannot be read at all (not JSON, no Item, broken Ion or CSV), which ends the object
// as it ends it in DynamoDB; `records` then counts the records read, that one included.
Status ReadObjectItems(const ImportFormat& format, std::string_view text,
                       const std::function<void(size_t index, Result<Item> item)>& visit,
                       size_t& records);

// What the readers of DYNAMODB_JSON lines (this one and bulk_reader.h) share: the next line
// with anything but blanks in it (`pos` moves past it), nullopt at the end; and a line as a
// JSON object with an Item object (valid until `parser` parses again), or why the line cannot
// be read (not a JSON object, no Item object).
std::optional<std::string_view> NextJsonLine(std::string_view text, size_t& pos);
Result<simdjson::dom::object> JsonLineRecord(simdjson::dom::parser& parser, std::string_view line);
// The ValidationException of a record that cannot be read at all.
Error UnreadableRecord(std::string_view what);

}  // namespace ddbd::portability
