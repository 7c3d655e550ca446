// PartiQL literals.
#include "partiql/literal.h"

#include <unordered_set>

#include "model/number.h"

namespace ddbd::partiql {
namespace {

// The members of <<…>>: of one scalar type, without duplicates.
Result<AttributeValue> SetOf(std::vector<AttributeValue> members) {
  const AttributeType type = members.front().type();
  if (type != AttributeType::kS && type != AttributeType::kN && type != AttributeType::kB) {
    return Error::Validation("Set members must be strings, numbers or binaries");
  }
  std::vector<std::string> texts;
  std::unordered_set<std::string_view> seen;
  for (const auto& member : members) {
    if (member.type() != type) return Error::Validation("Set members must all be of one type");
    if (!seen.insert(member.scalar()).second) {
      return Error::Validation("Input collection contains duplicates");
    }
    texts.push_back(member.scalar());
  }
  const AttributeType set_type = type == AttributeType::kS   ? AttributeType::kSS
                                 : type == AttributeType::kN ? AttributeType::kNS
                                                             : AttributeType::kBS;
  return AttributeValue::Set(set_type, std::move(texts));
}

}  // namespace

bool AtLiteral(const Cursor& in) {
  const Token& token = in.Peek();
  return token.kind == Token::Kind::kString || token.kind == Token::Kind::kNumber ||
         token.kind == Token::Kind::kParameter ||
         (token.kind == Token::Kind::kPunct &&
          (token.text == "{" || token.text == "[" || token.text == "<<" || token.text == "-")) ||
         (token.kind == Token::Kind::kWord &&
          (Equals(token.text, "TRUE") || Equals(token.text, "FALSE") ||
           Equals(token.text, "NULL")));
}

Result<AttributeValue> ReadLiteral(Cursor& in, Parameters& parameters, int depth) {
  if (depth > kMaxNestingDepth) {
    return Error::Validation(
        "Nesting Levels have exceeded supported limits: Attributes in the "
        "item have nested levels beyond supported limit");
  }
  const Token token = in.Peek();
  if (token.kind == Token::Kind::kString) {
    in.Advance();
    return AttributeValue::String(token.text);
  }
  if (token.kind == Token::Kind::kParameter) {
    in.Advance();
    if (parameters.next >= parameters.values.size()) {
      return Error::Validation("Number of parameters in request and statement doesn't match.");
    }
    return parameters.values[parameters.next++];
  }
  if (token.kind == Token::Kind::kNumber ||
      (token.kind == Token::Kind::kPunct && token.text == "-" &&
       in.Peek(1).kind == Token::Kind::kNumber)) {
    std::string text;
    if (token.text == "-") {
      text = "-";
      in.Advance();
    }
    text += in.Peek().text;
    in.Advance();
    DDBD_ASSIGN_OR_RETURN(Number number, Number::Parse(text));
    return AttributeValue::NumberText(number.ToString());
  }
  if (in.Keyword("TRUE")) return AttributeValue::Bool(true);
  if (in.Keyword("FALSE")) return AttributeValue::Bool(false);
  if (in.Keyword("NULL")) return AttributeValue::Null();
  if (in.Punct("{")) {
    AttributeMap map;
    if (!in.Punct("}")) {
      do {
        if (in.Peek().kind != Token::Kind::kString) return in.Unexpected();
        std::string key = in.Peek().text;
        in.Advance();
        DDBD_RETURN_IF_ERROR(in.Expect(":"));
        DDBD_ASSIGN_OR_RETURN(AttributeValue value, ReadLiteral(in, parameters, depth + 1));
        map[key] = std::move(value);
      } while (in.Punct(","));
      DDBD_RETURN_IF_ERROR(in.Expect("}"));
    }
    return AttributeValue::Map(std::move(map));
  }
  if (in.Punct("[")) {
    AttributeList list;
    if (!in.Punct("]")) {
      do {
        DDBD_ASSIGN_OR_RETURN(AttributeValue value, ReadLiteral(in, parameters, depth + 1));
        list.push_back(std::move(value));
      } while (in.Punct(","));
      DDBD_RETURN_IF_ERROR(in.Expect("]"));
    }
    return AttributeValue::List(std::move(list));
  }
  if (in.Punct("<<")) {
    std::vector<AttributeValue> members;
    do {
      DDBD_ASSIGN_OR_RETURN(AttributeValue value, ReadLiteral(in, parameters, depth + 1));
      members.push_back(std::move(value));
    } while (in.Punct(","));
    DDBD_RETURN_IF_ERROR(in.Expect(">>"));
    return SetOf(std::move(members));
  }
  return in.Unexpected();
}

}  // namespace ddbd::partiql
