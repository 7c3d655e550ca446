// The three import formats, read.
#include "portability/import_reader.h"

#include <simdjson.h>

#include "model/number.h"
#include "portability/ion_text.h"
#include "wire/attribute_value_json.h"
#include "wire/base64.h"

namespace ddbd::portability {
namespace {

Status ReadJsonLines(std::string_view text, const std::function<void(size_t, Result<Item>)>& visit,
                     size_t& records) {
  simdjson::dom::parser parser;
  size_t pos = 0;
  while (std::optional<std::string_view> line = NextJsonLine(text, pos)) {
    const size_t index = records++;
    DDBD_ASSIGN_OR_RETURN(simdjson::dom::object record, JsonLineRecord(parser, *line));
    visit(index, wire::ParseAttributeMap(record["Item"].value_unsafe()));
  }
  return OkStatus();
}

Status ReadIonValues(std::string_view text, const std::function<void(size_t, Result<Item>)>& visit,
                     size_t& records) {
  IonReader reader(text);
  for (;;) {
    Result<std::optional<AttributeValue>> value = reader.Next();
    if (value.ok() && !*value) return OkStatus();
    const size_t index = records++;
    if (!value.ok()) return value.error();
    if ((*value)->type() != AttributeType::kM) return UnreadableRecord("the value is not a struct");
    auto item = (*value)->map().find("Item");
    if (item == (*value)->map().end() || item->second.type() != AttributeType::kM) {
      return UnreadableRecord("the struct has no Item");
    }
    visit(index, Item(item->second.map()));
  }
}

// One CSV record's fields (RFC 4180 quoting); `pos` moves past it and its line end.
Result<std::vector<std::string>> NextCsvRecord(std::string_view text, size_t& pos, char delimiter) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c != '"') {
        fields.back().push_back(c);
      } else if (pos < text.size() && text[pos] == '"') {
        fields.back().push_back('"');
        ++pos;
      } else {
        quoted = false;
      }
    } else if (c == '"' && fields.back().empty()) {
      quoted = true;
    } else if (c == delimiter) {
      fields.emplace_back();
    } else if (c == '\n') {
      break;
    } else if (c != '\r' || (pos < text.size() && text[pos] != '\n')) {
      fields.back().push_back(c);
    }
  }
  if (quoted) return UnreadableRecord("a quoted CSV field is not closed");
  return fields;
}

Result<AttributeValue> CsvValue(const ImportFormat& format, const std::string& column,
                                std::string field) {
  auto typed = format.key_types.find(column);
  if (typed == format.key_types.end() || typed->second == KeyAttributeType::kS) {
    return AttributeValue::String(std::move(field));
  }
  if (typed->second == KeyAttributeType::kN) {
    DDBD_ASSIGN_OR_RETURN(Number number, Number::Parse(field));
    return AttributeValue::NumberText(number.ToString());
  }
  DDBD_ASSIGN_OR_RETURN(std::string bytes, wire::Base64Decode(field));
  return AttributeValue::Binary(std::move(bytes));
}

Status ReadCsv(const ImportFormat& format, std::string_view text,
               const std::function<void(size_t, Result<Item>)>& visit, size_t& records) {
  size_t pos = 0;
  std::vector<std::string> headers;
  if (format.headers) {
    headers = *format.headers;
  } else {
    DDBD_ASSIGN_OR_RETURN(headers, NextCsvRecord(text, pos, format.delimiter));
  }
  while (pos < text.size()) {
    DDBD_ASSIGN_OR_RETURN(std::vector<std::string> fields,
                          NextCsvRecord(text, pos, format.delimiter));
    if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
    const size_t index = records++;
    if (fields.size() > headers.size()) {
      visit(index, Error::Validation("The record has more fields than the header has columns"));
      continue;
    }
    Item item;
    Status typed = OkStatus();
    for (size_t i = 0; i < fields.size() && typed.ok(); ++i) {
      if (fields[i].empty()) continue;
      Result<AttributeValue> value = CsvValue(format, headers[i], std::move(fields[i]));
      if (!value.ok()) {
        typed = value.error();
      } else {
        item.insert_or_assign(headers[i], std::move(*value));
      }
    }
    visit(index, typed.ok() ? Result<Item>(std::move(item)) : Result<Item>(typed.error()));
  }
  return OkStatus();
}

}  // namespace

Status ReadObjectItems(const ImportFormat& format, std::string_view text,
                       const std::function<void(size_t, Result<Item>)>& visit, size_t& records) {
  switch (format.kind) {
    case ImportFormat::Kind::kDynamoDbJson:
      return ReadJsonLines(text, visit, records);
    case ImportFormat::Kind::kIon:
      return ReadIonValues(text, visit, records);
    case ImportFormat::Kind::kCsv:
      return ReadCsv(format, text, visit, records);
  }
  return OkStatus();
}

Error UnreadableRecord(std::string_view what) {
  return Error::Validation("Unexpected record format: " + std::string(what));
}

std::optional<std::string_view> NextJsonLine(std::string_view text, size_t& pos) {
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) return line;
  }
  return std::nullopt;
}

Result<simdjson::dom::object> JsonLineRecord(simdjson::dom::parser& parser, std::string_view line) {
  simdjson::dom::object object;
  simdjson::dom::element item;
  if (parser.parse(line.data(), line.size()).get(object) != simdjson::SUCCESS) {
    return UnreadableRecord("the line is not a JSON object");
  }
  if (object["Item"].get(item) != simdjson::SUCCESS || !item.is_object()) {
    return UnreadableRecord("the line has no Item");
  }
  return object;
}

}  // namespace ddbd::portability
