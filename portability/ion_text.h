// Amazon Ion text as DynamoDB's exports and imports use it: an item is an Ion struct whose
// values map S → string, N → decimal ("103.", "1.5"), B → blob ({{base64}}), BOOL → bool,
// NULL → null, M → struct, L → list, and SS / NS / BS → a list annotated $dynamodb_SS::,
// $dynamodb_NS:: or $dynamodb_BS::.
//
// The reader takes the Ion text a person or another tool writes, too: the $ion_1_0 marker or
// none, comments, symbols or strings as field names, ints, decimals with a d exponent and
// floats (as N), symbols as strings, strings in '''long''' form, and null.TYPE. Timestamps
// and clobs, which no DynamoDB type stands for, are refused.
//
// Entry points: WriteIonValue, WriteIonField, IonReader.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/attribute_value.h"
#include "model/result.h"

namespace ddbd::portability {

// Appends `value` as Ion text.
void WriteIonValue(const AttributeValue& value, std::string& out);
// Appends a struct field name: an identifier as it is, any other name as a quoted symbol.
void WriteIonFieldName(std::string_view name, std::string& out);
// Appends an item as an Ion struct.
void WriteIonStruct(const AttributeMap& item, std::string& out);

// Reads top-level Ion values one after another.
class IonReader {
 public:
  explicit IonReader(std::string_view text) : text_(text) {}

  // The next top-level value as an attribute value (the version marker skipped), nullopt at
  // the end. A value that is not well-formed Ion, or is not a DynamoDB value, is a
  // ValidationException; the reader cannot go on after one.
  Result<std::optional<AttributeValue>> Next();
  // Bytes consumed so far.
  size_t position() const { return pos_; }

 private:
  Result<AttributeValue> ReadValue(int depth);
  Result<AttributeValue> ReadStruct(int depth);
  Result<AttributeValue> ReadSequence(int depth, char close, std::string_view annotation);
  // Text up to `close` (consumed), its escapes decoded; the opening quote is consumed.
  Result<std::string> ReadEscaped(std::string_view close);
  Result<std::string> ReadString();
  Result<std::string> ReadSymbolText();  // an identifier, a 'quoted symbol' or a "string"
  Result<AttributeValue> ReadBlob();
  Result<AttributeValue> ReadAtom();
  void SkipSpace();
  bool AtEnd() const { return pos_ >= text_.size(); }
  Error Malformed(std::string_view what) const;

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace ddbd::portability
