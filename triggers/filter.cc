// Lambda's filter patterns: parsed once into a tree of matchers, matched against each record.
#include "triggers/filter.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <utility>

#include "model/wildcard.h"

namespace ddbd::triggers {

namespace {

enum class MatcherKind {
  kString,
  kNumber,
  kBool,
  kNull,
  kPrefix,
  kSuffix,
  kEqualsIgnoreCase,
  kAnythingBut,
  kNumeric,
  kExists,
  kWildcard
};

enum class Comparison { kEqual, kLess, kLessOrEqual, kGreater, kGreaterOrEqual };

struct Matcher {
  MatcherKind kind = MatcherKind::kString;
  std::string text;
  double number = 0;
  bool flag = false;  // a bool literal's value, exists' value, or "ignore case" for a prefix
  std::vector<Matcher> excluded;                      // anything-but's alternatives
  std::vector<std::pair<Comparison, double>> bounds;  // numeric's
};

}  // namespace

// One pattern object: every field must match, and one of `any_of` when it is not empty.
struct PatternNode {
  struct Field {
    std::string name;
    std::vector<Matcher> matchers;              // a leaf: one must match
    std::shared_ptr<const PatternNode> nested;  // or an object to descend into
  };
  std::vector<Field> fields;
  std::vector<std::shared_ptr<const PatternNode>> any_of;
};

namespace {

using wire::JsonArray;
using wire::JsonObject;
using wire::JsonValue;

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::optional<double> NumberOf(JsonValue value) {
  double number = 0;
  if (value.get_double().get(number) == simdjson::SUCCESS) return number;
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS || text.empty()) return std::nullopt;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return number;
}

bool Compare(double value, Comparison comparison, double bound) {
  switch (comparison) {
    case Comparison::kEqual:
      return value == bound;
    case Comparison::kLess:
      return value < bound;
    case Comparison::kLessOrEqual:
      return value <= bound;
    case Comparison::kGreater:
      return value > bound;
    case Comparison::kGreaterOrEqual:
      return value >= bound;
  }
  return false;
}

bool MatchesValue(const Matcher& matcher, JsonValue value) {
  std::string_view text;
  const bool is_string = value.get_string().get(text) == simdjson::SUCCESS;
  switch (matcher.kind) {
    case MatcherKind::kString:
      return is_string && text == matcher.text;
    case MatcherKind::kNumber: {
      double number = 0;
      return value.get_double().get(number) == simdjson::SUCCESS && number == matcher.number;
    }
    case MatcherKind::kBool: {
      bool flag = false;
      return value.get_bool().get(flag) == simdjson::SUCCESS && flag == matcher.flag;
    }
    case MatcherKind::kNull:
      return value.is_null();
    case MatcherKind::kPrefix:
      return is_string && (matcher.flag ? Lower(text).starts_with(matcher.text)
                                        : text.starts_with(matcher.text));
    case MatcherKind::kSuffix:
      return is_string &&
             (matcher.flag ? Lower(text).ends_with(matcher.text) : text.ends_with(matcher.text));
    case MatcherKind::kEqualsIgnoreCase:
      return is_string && Lower(text) == matcher.text;
    case MatcherKind::kWildcard:
      return is_string && WildcardMatch(matcher.text, text);
    case MatcherKind::kAnythingBut:
      return std::none_of(matcher.excluded.begin(), matcher.excluded.end(),
                          [&](const Matcher& excluded) { return MatchesValue(excluded, value); });
    case MatcherKind::kNumeric: {
      const std::optional<double> number = NumberOf(value);
      return number && std::all_of(matcher.bounds.begin(), matcher.bounds.end(), [&](auto bound) {
               return Compare(*number, bound.first, bound.second);
             });
    }
    case MatcherKind::kExists:
      return matcher.flag;
  }
  return false;
}

// A leaf: one of `matchers` matches `member` (absent: nullopt), or one of its elements.
bool MatchesLeaf(const std::vector<Matcher>& matchers, std::optional<JsonValue> member) {
  for (const Matcher& matcher : matchers) {
    if (matcher.kind == MatcherKind::kExists) {
      if (matcher.flag == member.has_value()) return true;
      continue;
    }
    if (!member) continue;
    JsonArray elements;
    if (member->get_array().get(elements) == simdjson::SUCCESS) {
      for (JsonValue element : elements) {
        if (MatchesValue(matcher, element)) return true;
      }
    } else if (MatchesValue(matcher, *member)) {
      return true;
    }
  }
  return false;
}

bool MatchesNode(const PatternNode& node, JsonValue value) {
  JsonObject object;
  const bool is_object = value.get_object().get(object) == simdjson::SUCCESS;
  for (const PatternNode::Field& field : node.fields) {
    std::optional<JsonValue> member;
    if (is_object) member = wire::Member(object, field.name);
    if (field.nested) {
      if (!member || !MatchesNode(*field.nested, *member)) return false;
    } else if (!MatchesLeaf(field.matchers, member)) {
      return false;
    }
  }
  if (node.any_of.empty()) return true;
  return std::any_of(node.any_of.begin(), node.any_of.end(),
                     [&](const auto& alternative) { return MatchesNode(*alternative, value); });
}

// ---- Parsing.

Error Invalid(size_t filter, const std::string& why) {
  return Error::Validation("Invalid filter pattern definition: FilterCriteria.Filters[" +
                           std::to_string(filter) + "].Pattern: " + why);
}

class PatternParser {
 public:
  explicit PatternParser(size_t filter) : filter_(filter) {}

  Result<std::shared_ptr<const PatternNode>> Node(JsonValue value, int depth) {
    JsonObject object;
    if (value.get_object().get(object) != simdjson::SUCCESS) {
      return Invalid(filter_, "a pattern must be a JSON object");
    }
    if (depth > 32) return Invalid(filter_, "the pattern is nested too deeply");
    auto node = std::make_shared<PatternNode>();
    for (auto [key, member] : object) {
      if (key == "$or") {
        DDBD_RETURN_IF_ERROR(Alternatives(member, depth, *node));
        continue;
      }
      PatternNode::Field field;
      field.name = std::string(key);
      JsonArray list;
      if (member.get_array().get(list) == simdjson::SUCCESS) {
        if (list.size() == 0) return Invalid(filter_, "the list of " + field.name + " is empty");
        for (JsonValue element : list) {
          DDBD_ASSIGN_OR_RETURN(Matcher matcher, Leaf(element));
          field.matchers.push_back(std::move(matcher));
        }
      } else if (member.is_object()) {
        DDBD_ASSIGN_OR_RETURN(field.nested, Node(member, depth + 1));
      } else {
        return Invalid(filter_, "the value of " + field.name +
                                    " must be a list of values or an object, as in {\"" +
                                    field.name + "\": [\"value\"]}");
      }
      node->fields.push_back(std::move(field));
    }
    if (node->fields.empty() && node->any_of.empty()) return Invalid(filter_, "it is empty");
    return std::shared_ptr<const PatternNode>(std::move(node));
  }

 private:
  Status Alternatives(JsonValue member, int depth, PatternNode& node) {
    JsonArray list;
    if (member.get_array().get(list) != simdjson::SUCCESS || list.size() < 2) {
      return Invalid(filter_, "$or takes a list of at least two patterns");
    }
    for (JsonValue alternative : list) {
      DDBD_ASSIGN_OR_RETURN(auto parsed, Node(alternative, depth + 1));
      node.any_of.push_back(std::move(parsed));
    }
    return OkStatus();
  }

  Result<Matcher> Literal(JsonValue value) {
    Matcher matcher;
    std::string_view text;
    if (value.get_string().get(text) == simdjson::SUCCESS) {
      matcher.text = std::string(text);
    } else if (value.is_null()) {
      matcher.kind = MatcherKind::kNull;
    } else if (value.get_bool().get(matcher.flag) == simdjson::SUCCESS) {
      matcher.kind = MatcherKind::kBool;
    } else if (value.get_double().get(matcher.number) == simdjson::SUCCESS) {
      matcher.kind = MatcherKind::kNumber;
    } else {
      return Invalid(filter_, "a value to match must be a string, a number, a boolean or null");
    }
    return matcher;
  }

  // A prefix's or suffix's argument: a string, or {"equals-ignore-case": string}.
  Result<Matcher> Affix(MatcherKind kind, std::string_view name, JsonValue argument) {
    Matcher matcher;
    matcher.kind = kind;
    std::string_view text;
    JsonObject object;
    if (argument.get_string().get(text) == simdjson::SUCCESS) {
      matcher.text = std::string(text);
      return matcher;
    }
    if (argument.get_object().get(object) == simdjson::SUCCESS && wire::MemberCount(object) == 1) {
      auto inner = wire::Member(object, "equals-ignore-case");
      if (inner && inner->get_string().get(text) == simdjson::SUCCESS) {
        matcher.text = Lower(text);
        matcher.flag = true;
        return matcher;
      }
    }
    return Invalid(filter_, std::string(name) + " takes a string");
  }

  Result<Matcher> AnythingBut(JsonValue argument) {
    Matcher matcher;
    matcher.kind = MatcherKind::kAnythingBut;
    JsonArray list;
    JsonObject object;
    if (argument.get_array().get(list) == simdjson::SUCCESS) {
      for (JsonValue element : list) {
        DDBD_ASSIGN_OR_RETURN(Matcher excluded, Literal(element));
        matcher.excluded.push_back(std::move(excluded));
      }
    } else if (argument.get_object().get(object) == simdjson::SUCCESS) {
      DDBD_ASSIGN_OR_RETURN(Matcher excluded, Operator(object));
      if (excluded.kind != MatcherKind::kPrefix && excluded.kind != MatcherKind::kSuffix &&
          excluded.kind != MatcherKind::kEqualsIgnoreCase &&
          excluded.kind != MatcherKind::kWildcard) {
        return Invalid(filter_,
                       "anything-but takes a value, a list, or a prefix, suffix, "
                       "equals-ignore-case or wildcard");
      }
      matcher.excluded.push_back(std::move(excluded));
    } else {
      DDBD_ASSIGN_OR_RETURN(Matcher excluded, Literal(argument));
      matcher.excluded.push_back(std::move(excluded));
    }
    return matcher;
  }

  Result<Matcher> Numeric(JsonValue argument) {
    Matcher matcher;
    matcher.kind = MatcherKind::kNumeric;
    JsonArray list;
    if (argument.get_array().get(list) != simdjson::SUCCESS || list.size() == 0 ||
        list.size() % 2 != 0 || list.size() > 4) {
      return Invalid(filter_, "numeric takes one or two comparisons: [\">\", 0, \"<=\", 5]");
    }
    std::optional<Comparison> comparison;
    for (JsonValue element : list) {
      std::string_view op;
      if (!comparison) {
        if (element.get_string().get(op) != simdjson::SUCCESS) {
          return Invalid(filter_,
                         "numeric expects an operator (=, <, <=, >, >=) before each number");
        }
        if (op == "=")
          comparison = Comparison::kEqual;
        else if (op == "<")
          comparison = Comparison::kLess;
        else if (op == "<=")
          comparison = Comparison::kLessOrEqual;
        else if (op == ">")
          comparison = Comparison::kGreater;
        else if (op == ">=")
          comparison = Comparison::kGreaterOrEqual;
        else
          return Invalid(filter_, "unknown numeric operator '" + std::string(op) + "'");
        continue;
      }
      double bound = 0;
      if (element.get_double().get(bound) != simdjson::SUCCESS) {
        return Invalid(filter_, "numeric expects a number after each operator");
      }
      matcher.bounds.emplace_back(*comparison, bound);
      comparison.reset();
    }
    return matcher;
  }

  Result<Matcher> Operator(JsonObject object) {
    if (wire::MemberCount(object) != 1) {
      return Invalid(filter_, "an operator object has exactly one member");
    }
    auto [name, argument] = *object.begin();
    if (name == "prefix") return Affix(MatcherKind::kPrefix, name, argument);
    if (name == "suffix") return Affix(MatcherKind::kSuffix, name, argument);
    if (name == "anything-but") return AnythingBut(argument);
    if (name == "numeric") return Numeric(argument);
    std::string_view text;
    if (name == "equals-ignore-case" || name == "wildcard") {
      if (argument.get_string().get(text) != simdjson::SUCCESS) {
        return Invalid(filter_, std::string(name) + " takes a string");
      }
      Matcher matcher;
      matcher.kind = name == "wildcard" ? MatcherKind::kWildcard : MatcherKind::kEqualsIgnoreCase;
      matcher.text = name == "wildcard" ? std::string(text) : Lower(text);
      return matcher;
    }
    if (name == "exists") {
      Matcher matcher;
      matcher.kind = MatcherKind::kExists;
      if (argument.get_bool().get(matcher.flag) != simdjson::SUCCESS) {
        return Invalid(filter_, "exists takes true or false");
      }
      return matcher;
    }
    return Invalid(filter_, "unknown operator '" + std::string(name) + "'");
  }

  Result<Matcher> Leaf(JsonValue element) {
    JsonObject object;
    if (element.get_object().get(object) == simdjson::SUCCESS) return Operator(object);
    return Literal(element);
  }

  const size_t filter_;
};

}  // namespace

Result<FilterCriteria> FilterCriteria::Parse(std::vector<std::string> patterns) {
  if (patterns.size() > kMaxFilters) {
    return Error::Validation("FilterCriteria takes at most " + std::to_string(kMaxFilters) +
                             " filters");
  }
  FilterCriteria criteria;
  simdjson::dom::parser parser;
  for (size_t i = 0; i < patterns.size(); ++i) {
    if (patterns[i].size() > kMaxPatternLength) {
      return Invalid(i, "it is longer than " + std::to_string(kMaxPatternLength) + " characters");
    }
    JsonValue root;
    if (parser.parse(patterns[i]).get(root) != simdjson::SUCCESS) {
      return Invalid(i, "it is not valid JSON");
    }
    DDBD_ASSIGN_OR_RETURN(auto node, PatternParser(i).Node(root, 0));
    criteria.parsed_.push_back(std::move(node));
  }
  criteria.patterns_ = std::move(patterns);
  return criteria;
}

bool FilterCriteria::Matches(wire::JsonValue record) const {
  if (parsed_.empty()) return true;
  return std::any_of(parsed_.begin(), parsed_.end(),
                     [&](const auto& pattern) { return MatchesNode(*pattern, record); });
}

}  // namespace ddbd::triggers
