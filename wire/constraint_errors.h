// ConstraintErrors: collects violations of the API model's constraints and reports them in
// DynamoDB's envelope: "<n> validation error[s] detected: <item>; <item>" (at most 10).
// Item: "Value '<v>' at '<path>' failed to satisfy constraint: <constraint>".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace ddbd::wire {

// A member's name as DynamoDB's validation messages write its path: the first letter in lower
// case ("ProvisionedThroughput" → "provisionedThroughput").
std::string EnvelopeName(std::string_view member);

class ConstraintErrors {
 public:
  // `value` is the Java-style rendering of the offending value; nullopt renders `null`.
  void Add(std::optional<std::string_view> value, std::string_view path,
           std::string_view constraint);
  // "Value at '<path>' …": the form without the value, which SearchVectors uses.
  void AddUnechoed(std::string_view path, std::string_view constraint);
  void NotNull(std::string_view path) { Add(std::nullopt, path, "Member must not be null"); }
  void LengthAtLeast(std::string_view value, std::string_view path, size_t min);
  void LengthAtMost(std::string_view value, std::string_view path, size_t max);
  void ValueAtLeast(std::string_view value, std::string_view path, int64_t min);
  void ValueAtMost(std::string_view value, std::string_view path, int64_t max);
  void Pattern(std::string_view value, std::string_view path, std::string_view pattern);
  void Enum(std::string_view value, std::string_view path, std::string_view allowed);
  // A list member or map key that breaks its own shape's constraints: `constraints` lists
  // all of that shape's constraints, "[Member must …, Member must …]". `of` is "Member" for
  // list members, "Map keys" for map keys.
  void EachMember(std::string_view value, std::string_view path, std::string_view constraints,
                  std::string_view of = "Member");

  // Checks a table name against [a-zA-Z0-9_.-]+ and 3..max_length characters.
  void TableName(std::string_view name, std::string_view path, size_t max_length = 255);

  bool empty() const { return items_.empty(); }
  // OK when nothing was collected, else the ValidationException.
  Status ToStatus() const;

 private:
  std::vector<std::string> items_;
};

// The number of characters (code points, as the model's length constraints count) of UTF-8
// `text`.
size_t CharacterCount(std::string_view text);

// A list as Java prints it, the way constraint errors echo one: "[a, b]".
std::string JavaList(const std::vector<std::string>& elements);

}  // namespace ddbd::wire
