// Ion text: DynamoDB's mapping of attribute values, written and read.
#include "portability/ion_text.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "model/number.h"
#include "model/utf8.h"
#include "wire/base64.h"

namespace ddbd::portability {
namespace {

constexpr std::string_view kSetAnnotations[] = {"$dynamodb_SS", "$dynamodb_NS", "$dynamodb_BS"};
constexpr AttributeType kSetTypes[] = {AttributeType::kSS, AttributeType::kNS, AttributeType::kBS};

bool IsIdentifierStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool IsIdentifierPart(char c) {
  return IsIdentifierStart(c) || std::isdigit(static_cast<unsigned char>(c));
}

void AppendCodePoint(uint32_t code, std::string& out) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

bool IsIdentifier(std::string_view name) {
  if (name.empty() || !IsIdentifierStart(name[0])) return false;
  if (name == "null" || name == "true" || name == "false" || name == "nan") return false;
  return std::all_of(name.begin(), name.end(), IsIdentifierPart);
}

void AppendEscaped(std::string_view text, char quote, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back(quote);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out.append("\\n");
    } else if (c == '\r') {
      out.append("\\r");
    } else if (c == '\t') {
      out.append("\\t");
    } else if (byte < 0x20 || byte == 0x7f) {
      out.append("\\x");
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    } else {
      out.push_back(c);  // UTF-8 passes through
    }
  }
  out.push_back(quote);
}

void AppendDecimal(std::string_view canonical, std::string& out) {
  out.append(canonical);
  if (canonical.find('.') == std::string_view::npos) out.push_back('.');
}

void AppendScalar(AttributeType type, const std::string& bytes, std::string& out) {
  if (type == AttributeType::kN || type == AttributeType::kNS) {
    AppendDecimal(bytes, out);
  } else if (type == AttributeType::kB || type == AttributeType::kBS) {
    out.append("{{").append(wire::Base64Encode(bytes)).append("}}");
  } else {
    AppendEscaped(bytes, '"', out);
  }
}

}  // namespace

void WriteIonFieldName(std::string_view name, std::string& out) {
  if (IsIdentifier(name)) {
    out.append(name);
  } else {
    AppendEscaped(name, '\'', out);
  }
}

void WriteIonStruct(const AttributeMap& item, std::string& out) {
  out.push_back('{');
  bool first = true;
  for (const auto& [name, value] : item) {
    if (!first) out.push_back(',');
    first = false;
    WriteIonFieldName(name, out);
    out.push_back(':');
    WriteIonValue(value, out);
  }
  out.push_back('}');
}

void WriteIonValue(const AttributeValue& value, std::string& out) {
  switch (value.type()) {
    case AttributeType::kS:
    case AttributeType::kN:
    case AttributeType::kB:
      AppendScalar(value.type(), value.scalar(), out);
      return;
    case AttributeType::kBool:
      out.append(value.boolean() ? "true" : "false");
      return;
    case AttributeType::kNull:
      out.append("null");
      return;
    case AttributeType::kM:
      WriteIonStruct(value.map(), out);
      return;
    case AttributeType::kL: {
      out.push_back('[');
      for (size_t i = 0; i < value.list().size(); ++i) {
        if (i > 0) out.push_back(',');
        WriteIonValue(value.list()[i], out);
      }
      out.push_back(']');
      return;
    }
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS: {
      const size_t kind = value.type() == AttributeType::kSS   ? 0
                          : value.type() == AttributeType::kNS ? 1
                                                               : 2;
      out.append(kSetAnnotations[kind]).append("::[");
      for (size_t i = 0; i < value.set().size(); ++i) {
        if (i > 0) out.push_back(',');
        AppendScalar(value.type(), value.set()[i], out);
      }
      out.push_back(']');
      return;
    }
  }
}

Error IonReader::Malformed(std::string_view what) const {
  return Error::Validation("Invalid Ion at byte " + std::to_string(pos_) + ": " +
                           std::string(what));
}

void IonReader::SkipSpace() {
  while (!AtEnd()) {
    const char c = text_[pos_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (text_.substr(pos_, 2) == "//") {
      const size_t end = text_.find('\n', pos_);
      pos_ = end == std::string_view::npos ? text_.size() : end + 1;
    } else if (text_.substr(pos_, 2) == "/*") {
      const size_t end = text_.find("*/", pos_ + 2);
      pos_ = end == std::string_view::npos ? text_.size() : end + 2;
    } else {
      return;
    }
  }
}

Result<std::optional<AttributeValue>> IonReader::Next() {
  for (;;) {
    SkipSpace();
    if (AtEnd()) return std::optional<AttributeValue>();
    if (text_.substr(pos_).starts_with("$ion_1_0") &&
        (pos_ + 8 == text_.size() || !IsIdentifierPart(text_[pos_ + 8]))) {
      pos_ += 8;
      continue;
    }
    DDBD_ASSIGN_OR_RETURN(AttributeValue value, ReadValue(0));
    return std::optional<AttributeValue>(std::move(value));
  }
}

Result<std::string> IonReader::ReadEscaped(std::string_view close) {
  std::string out;
  while (!AtEnd() && text_.substr(pos_, close.size()) != close) {
    char c = text_[pos_++];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (AtEnd()) break;
    c = text_[pos_++];
    auto hex = [&](size_t digits) -> Result<uint32_t> {
      if (pos_ + digits > text_.size()) return Malformed("a short escape");
      uint32_t code = 0;
      for (size_t i = 0; i < digits; ++i) {
        const char h = text_[pos_++];
        if (!std::isxdigit(static_cast<unsigned char>(h))) return Malformed("a bad escape");
        code = code * 16 + static_cast<uint32_t>(std::isdigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
      }
      return code;
    };
    constexpr std::string_view kFrom = "ntr0abfv";
    constexpr char kTo[] = {'\n', '\t', '\r', '\0', '\a', '\b', '\f', '\v'};
    if (const size_t simple = kFrom.find(c); simple != std::string_view::npos) {
      out.push_back(kTo[simple]);
    } else if (c == 'x' || c == 'u' || c == 'U') {
      DDBD_ASSIGN_OR_RETURN(uint32_t code, hex(c == 'x' ? 2 : c == 'u' ? 4 : 8));
      AppendCodePoint(code, out);
    } else if (c != '\n') {  // "\<newline>" continues the line
      out.push_back(c);      // \" \' \\ \/ \?
    }
  }
  if (AtEnd()) return Malformed("an unterminated string");
  pos_ += close.size();
  if (!IsUtf8(out)) return Malformed("a string that is not UTF-8");
  return out;
}

Result<std::string> IonReader::ReadString() {
  constexpr std::string_view kLong = "'''";
  if (text_.substr(pos_, 3) != kLong) {
    ++pos_;
    return ReadEscaped("\"");
  }
  std::string out;  // adjacent long strings are one string
  while (text_.substr(pos_, 3) == kLong) {
    pos_ += 3;
    DDBD_ASSIGN_OR_RETURN(std::string piece, ReadEscaped(kLong));
    out += piece;
    SkipSpace();
  }
  return out;
}

Result<std::string> IonReader::ReadSymbolText() {
  if (AtEnd()) return Malformed("a missing name");
  if (text_[pos_] == '"' || text_.substr(pos_, 3) == "'''") return ReadString();
  if (text_[pos_] == '\'') {
    ++pos_;
    return ReadEscaped("'");
  }
  const size_t begin = pos_;
  while (!AtEnd() && IsIdentifierPart(text_[pos_])) ++pos_;
  if (pos_ == begin || !IsIdentifierStart(text_[begin])) return Malformed("a missing name");
  return std::string(text_.substr(begin, pos_ - begin));
}

Result<AttributeValue> IonReader::ReadStruct(int depth) {
  ++pos_;  // {
  AttributeMap members;
  for (;;) {
    SkipSpace();
    if (!AtEnd() && text_[pos_] == '}') break;
    DDBD_ASSIGN_OR_RETURN(std::string name, ReadSymbolText());
    SkipSpace();
    if (AtEnd() || text_[pos_] != ':') return Malformed("a field without ':'");
    ++pos_;
    DDBD_ASSIGN_OR_RETURN(AttributeValue value, ReadValue(depth + 1));
    members.insert_or_assign(std::move(name), std::move(value));
    SkipSpace();
    if (!AtEnd() && text_[pos_] == ',') {
      ++pos_;
      continue;
    }
    if (AtEnd() || text_[pos_] != '}') return Malformed("a struct without '}'");
  }
  ++pos_;  // }
  return AttributeValue::Map(std::move(members));
}

namespace {

// The members of a $dynamodb_ set, checked as DynamoDB checks a set's.
Result<AttributeValue> MakeSet(AttributeType type, AttributeList elements) {
  const AttributeType member_type = type == AttributeType::kSS   ? AttributeType::kS
                                    : type == AttributeType::kNS ? AttributeType::kN
                                                                 : AttributeType::kB;
  if (elements.empty()) {
    return Error::Validation("Invalid Ion: an empty set");
  }
  std::vector<std::string> members;
  std::set<std::string> seen;
  for (AttributeValue& element : elements) {
    if (element.type() != member_type) {
      return Error::Validation("Invalid Ion: a set member of another type");
    }
    if (!seen.insert(element.scalar()).second) {
      return Error::Validation("Invalid Ion: a set with duplicate members");
    }
    members.push_back(element.scalar());
  }
  return AttributeValue::Set(type, std::move(members));
}

}  // namespace

Result<AttributeValue> IonReader::ReadSequence(int depth, char close, std::string_view annotation) {
  ++pos_;  // [ or (
  AttributeList elements;
  for (;;) {
    SkipSpace();
    if (!AtEnd() && text_[pos_] == close) break;
    DDBD_ASSIGN_OR_RETURN(AttributeValue element, ReadValue(depth + 1));
    elements.push_back(std::move(element));
    SkipSpace();
    if (!AtEnd() && text_[pos_] == ',') {
      ++pos_;
    } else if (close == ']' && (AtEnd() || text_[pos_] != close)) {
      return Malformed("a list without ']'");
    }
    if (AtEnd()) return Malformed("an unterminated sequence");
  }
  ++pos_;
  for (size_t kind = 0; kind < 3; ++kind) {
    if (annotation == kSetAnnotations[kind]) return MakeSet(kSetTypes[kind], std::move(elements));
  }
  return AttributeValue::List(std::move(elements));
}

Result<AttributeValue> IonReader::ReadBlob() {
  pos_ += 2;  // {{
  const size_t end = text_.find("}}", pos_);
  if (end == std::string_view::npos) return Malformed("an unterminated blob");
  std::string base64;
  for (const char c : text_.substr(pos_, end - pos_)) {
    if (c == '"') return Malformed("a clob, which no DynamoDB type stands for");
    if (!std::isspace(static_cast<unsigned char>(c))) base64.push_back(c);
  }
  pos_ = end + 2;
  DDBD_ASSIGN_OR_RETURN(std::string bytes, wire::Base64Decode(base64));
  return AttributeValue::Binary(std::move(bytes));
}

// A number, or a keyword: true, false, null, null.TYPE; any other identifier is a symbol (S).
Result<AttributeValue> IonReader::ReadAtom() {
  const size_t begin = pos_;
  while (!AtEnd() && (IsIdentifierPart(text_[pos_]) || text_[pos_] == '.' || text_[pos_] == '+' ||
                      text_[pos_] == '-' || text_[pos_] == ':')) {
    ++pos_;
  }
  const std::string_view token = text_.substr(begin, pos_ - begin);
  if (token.empty()) return Malformed("an unexpected character");
  if (token == "true" || token == "false") return AttributeValue::Bool(token == "true");
  if (token == "null" || token.starts_with("null.")) return AttributeValue::Null();
  if (IsIdentifier(token)) return AttributeValue::String(std::string(token));
  std::string literal;
  for (const char c : token) {
    if (c == 'T' || c == ':') return Malformed("a timestamp, which no DynamoDB type stands for");
    if (c == '_') continue;
    literal.push_back(c == 'd' || c == 'D' || c == 'e' ? 'E' : c);
  }
  if (literal.find("0x") != std::string::npos || literal.find("0b") != std::string::npos) {
    return Malformed("a hexadecimal or binary int");  // never written by DynamoDB
  }
  if (const size_t point = literal.find('.');
      point != std::string::npos && (point + 1 == literal.size() || literal[point + 1] == 'E')) {
    literal.erase(point, 1);  // "103." and "1.d2" are decimals
  }
  DDBD_ASSIGN_OR_RETURN(Number number, Number::Parse(literal));
  return AttributeValue::NumberText(number.ToString());
}

Result<AttributeValue> IonReader::ReadValue(int depth) {
  if (depth > kMaxNestingDepth) return Malformed("values nested too deeply");
  SkipSpace();
  if (AtEnd()) return Malformed("a missing value");
  std::string annotation;
  // Annotations: symbols followed by "::"; the last one names a set's type.
  for (;;) {
    const size_t before = pos_;
    if (!(IsIdentifierStart(text_[pos_]) ||
          (text_[pos_] == '\'' && text_.substr(pos_, 3) != "'''"))) {
      break;
    }
    Result<std::string> symbol = ReadSymbolText();
    SkipSpace();
    if (!symbol.ok() || text_.substr(pos_, 2) != "::") {
      pos_ = before;
      break;
    }
    annotation = std::move(*symbol);
    pos_ += 2;
    SkipSpace();
    if (AtEnd()) return Malformed("an annotation without a value");
  }
  const char c = text_[pos_];
  if (c == '{') return text_.substr(pos_, 2) == "{{" ? ReadBlob() : ReadStruct(depth);
  if (c == '[') return ReadSequence(depth, ']', annotation);
  if (c == '(') return ReadSequence(depth, ')', annotation);
  if (c == '"' || text_.substr(pos_, 3) == "'''") {
    DDBD_ASSIGN_OR_RETURN(std::string text, ReadString());
    return AttributeValue::String(std::move(text));
  }
  if (c == '\'') {
    ++pos_;
    DDBD_ASSIGN_OR_RETURN(std::string symbol, ReadEscaped("'"));
    return AttributeValue::String(std::move(symbol));
  }
  return ReadAtom();
}

}  // namespace ddbd::portability
