// Fixed inputs the expression fuzz targets evaluate against: an item holding every attribute
// type (nested maps and lists included) and bindings that define #a…#f and :a…:h with values
// of every type, so that parsed expressions using those placeholders get bound and evaluated.
// Entry points: FuzzItem, FuzzBindings.
#pragma once

#include "expressions/bindings.h"
#include "model/attribute_value.h"

namespace ddbd::fuzz {

inline const Item& FuzzItem() {
  static const Item item = [] {
    AttributeMap nested{{"x", AttributeValue::NumberText("1")},
                        {"y", AttributeValue::List({AttributeValue::String("p"),
                                                    AttributeValue::NumberText("-2.5")})}};
    return Item(AttributeMap{
        {"pk", AttributeValue::String("key")},
        {"sk", AttributeValue::NumberText("42")},
        {"a", AttributeValue::String("abc")},
        {"b", AttributeValue::NumberText("7")},
        {"c", AttributeValue::Binary(std::string("\x00\xff", 2))},
        {"d", AttributeValue::Bool(true)},
        {"e", AttributeValue::Null()},
        {"m", AttributeValue::Map(nested)},
        {"l", AttributeValue::List({AttributeValue::NumberText("1"), AttributeValue::Map(nested),
                                    AttributeValue::List({})})},
        {"ss", AttributeValue::Set(AttributeType::kSS, {"a", "b"})},
        {"ns", AttributeValue::Set(AttributeType::kNS, {"1", "2"})},
        {"bs", AttributeValue::Set(AttributeType::kBS, {"\x01"})},
    });
  }();
  return item;
}

// A fresh copy per input: binding marks placeholders used.
inline expressions::Bindings FuzzBindings() {
  return expressions::Bindings(
      {{"#a", "a"}, {"#b", "b"}, {"#c", "m"}, {"#d", "l"}, {"#e", "pk"}, {"#f", "sk"}},
      {{":a", AttributeValue::String("abc")},
       {":b", AttributeValue::NumberText("1")},
       {":c", AttributeValue::Binary("\x01")},
       {":d", AttributeValue::Bool(false)},
       {":e", AttributeValue::List({AttributeValue::NumberText("3")})},
       {":f", AttributeValue::Map({{"k", AttributeValue::String("v")}})},
       {":g", AttributeValue::Set(AttributeType::kNS, {"5", "6"})},
       {":h", AttributeValue::Set(AttributeType::kSS, {"a", "z"})}});
}

}  // namespace ddbd::fuzz
