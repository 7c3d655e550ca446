// Reads the records of one bulk put input object, in its two formats: DYNAMODB_JSON (JSON
// Lines: a JSON object per line, blank lines skipped) and ION (a top-level struct per record,
// in DynamoDB's Ion mapping: ion_text.h). A record has PutItem's members: Item and,
// optionally, ConditionExpression, ExpressionAttributeNames and ExpressionAttributeValues.
// Each is handed on as such a JSON object, parsed once (an Ion record converted to DynamoDB
// JSON first), to be checked as a PutItem request is checked. A record that cannot be read at all
// — not JSON, not an object or struct, without an Item, broken Ion — ends its object.
//
// Entry point: BulkRecordReader.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

#include "model/result.h"
#include "portability/ion_text.h"
#include "wire/json_reader.h"

namespace ddbd::portability {

class BulkRecordReader {
 public:
  enum class Format { kDynamoDbJson, kIon };

  // `text`: the object, decompressed; it must outlive the reader.
  BulkRecordReader(Format format, std::string_view text)
      : format_(format), text_(text), ion_(text) {}

  struct Record {
    size_t index = 0;  // 0-based, in the object
    // The record as a JSON object, valid until the next call of Next(); or why it is
    // unreadable.
    Result<wire::JsonObject> json = wire::JsonObject();
  };
  // The next record; nullopt at the object's end, and after an unreadable record.
  std::optional<Record> Next();

 private:
  Result<std::optional<wire::JsonObject>> NextJsonLine();
  Result<std::optional<wire::JsonObject>> NextIonStruct();

  Format format_;
  std::string_view text_;
  size_t line_begin_ = 0;
  simdjson::dom::parser parser_;  // holds the current record
  IonReader ion_;
  size_t records_ = 0;
  bool ended_ = false;
};

}  // namespace ddbd::portability
