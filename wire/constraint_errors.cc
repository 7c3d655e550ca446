// The request-model validation envelope (spec/limits.md §1.5).
#include "wire/constraint_errors.h"

#include <algorithm>
#include <cctype>

#include "model/table_def.h"

namespace ddbd::wire {

std::string EnvelopeName(std::string_view member) {
  std::string name(member);
  if (!name.empty()) name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
  return name;
}

namespace {
constexpr size_t kMaxListed = 10;
// An echoed value longer than this is cut (and ends in "..."), so that a multi-megabyte
// member does not make a multi-megabyte error; real-sized values are echoed whole.
constexpr size_t kMaxEchoed = 16 * 1024;
}  // namespace

void ConstraintErrors::Add(std::optional<std::string_view> value, std::string_view path,
                           std::string_view constraint) {
  // DynamoDB stops collecting at ten: the count never exceeds the listed items.
  if (items_.size() >= kMaxListed) return;
  std::string item = "Value ";
  if (value) {
    item += "'";
    item += value->substr(0, kMaxEchoed);
    if (value->size() > kMaxEchoed) item += "...";
    item += "'";
  } else {
    item += "null";
  }
  item += " at '";
  item += path;
  item += "' failed to satisfy constraint: ";
  item += constraint;
  items_.push_back(std::move(item));
}

void ConstraintErrors::AddUnechoed(std::string_view path, std::string_view constraint) {
  if (items_.size() >= kMaxListed) return;
  items_.push_back("Value at '" + std::string(path) +
                   "' failed to satisfy constraint: " + std::string(constraint));
}

void ConstraintErrors::LengthAtLeast(std::string_view value, std::string_view path, size_t min) {
  Add(value, path, "Member must have length greater than or equal to " + std::to_string(min));
}
void ConstraintErrors::LengthAtMost(std::string_view value, std::string_view path, size_t max) {
  Add(value, path, "Member must have length less than or equal to " + std::to_string(max));
}
void ConstraintErrors::ValueAtLeast(std::string_view value, std::string_view path, int64_t min) {
  Add(value, path, "Member must have value greater than or equal to " + std::to_string(min));
}
void ConstraintErrors::ValueAtMost(std::string_view value, std::string_view path, int64_t max) {
  Add(value, path, "Member must have value less than or equal to " + std::to_string(max));
}
void ConstraintErrors::Pattern(std::string_view value, std::string_view path,
                               std::string_view pattern) {
  Add(value, path, "Member must satisfy regular expression pattern: " + std::string(pattern));
}
void ConstraintErrors::EachMember(std::string_view value, std::string_view path,
                                  std::string_view constraints, std::string_view of) {
  Add(value, path, std::string(of) + " must satisfy constraint: " + std::string(constraints));
}
void ConstraintErrors::Enum(std::string_view value, std::string_view path,
                            std::string_view allowed) {
  Add(value, path, "Member must satisfy enum value set: " + std::string(allowed));
}

void ConstraintErrors::TableName(std::string_view name, std::string_view path, size_t max_length) {
  if (!IsValidResourceName(name)) Pattern(name, path, "[a-zA-Z0-9_.-]+");
  if (name.size() < 3) LengthAtLeast(name, path, 3);
  if (name.size() > max_length) LengthAtMost(name, path, max_length);
}

Status ConstraintErrors::ToStatus() const {
  if (items_.empty()) return OkStatus();
  std::string message = std::to_string(items_.size()) + " validation error" +
                        (items_.size() > 1 ? "s" : "") + " detected: ";
  for (size_t i = 0; i < items_.size(); ++i) {
    if (i) message += "; ";
    message += items_[i];
  }
  return Error::Validation(std::move(message));
}

size_t CharacterCount(std::string_view text) {
  // Every byte but UTF-8's continuation bytes (10xxxxxx) starts a character.
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string JavaList(const std::vector<std::string>& elements) {
  std::string out = "[";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i) out += ", ";
    out += elements[i];
  }
  return out + "]";
}

}  // namespace ddbd::wire
