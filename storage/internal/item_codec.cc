// Item codec: varint item size, varint attribute count, then per attribute its name and a
// tagged value.
// A value is its AttributeType byte followed by: S/N/B length-prefixed bytes (N as canonical
// text), BOOL one byte, NULL nothing, L/M/SS/NS/BS a count then the members.
#include "storage/internal/item_codec.h"

#include <optional>
#include <vector>

#include "storage/internal/binary_io.h"
#include "storage/stored_item.h"

namespace ddbd::storage {
namespace {

void EncodeValue(const AttributeValue& value, ByteWriter& out) {
  out.Byte(static_cast<uint8_t>(value.type()));
  switch (value.type()) {
    case AttributeType::kS:
    case AttributeType::kN:
    case AttributeType::kB:
      out.Bytes(value.scalar());
      break;
    case AttributeType::kBool:
      out.Byte(value.boolean() ? 1 : 0);
      break;
    case AttributeType::kNull:
      break;
    case AttributeType::kM:
      out.Varint(value.map().size());
      for (const auto& [name, member] : value.map()) {
        out.Bytes(name);
        EncodeValue(member, out);
      }
      break;
    case AttributeType::kL:
      out.Varint(value.list().size());
      for (const auto& element : value.list()) EncodeValue(element, out);
      break;
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS:
      out.Varint(value.set().size());
      for (const auto& member : value.set()) out.Bytes(member);
      break;
  }
}

// Builds the Item a sink's calls describe: a stack of the containers being filled, the item
// itself at the bottom.
class ItemBuilder {
 public:
  ItemBuilder() { open_.emplace_back(); }
  Item Take() { return Item(std::move(open_.front().map)); }

  void Name(std::string_view name) { open_.back().name.assign(name); }
  void Scalar(AttributeType type, std::string_view bytes) {
    std::string value(bytes);
    Add(type == AttributeType::kS   ? AttributeValue::String(std::move(value))
        : type == AttributeType::kN ? AttributeValue::NumberText(std::move(value))
                                    : AttributeValue::Binary(std::move(value)));
  }
  void Bool(bool value) { Add(AttributeValue::Bool(value)); }
  void Null() { Add(AttributeValue::Null()); }
  void BeginMap() { open_.emplace_back(); }
  void EndMap() { Add(AttributeValue::Map(Close().map)); }
  void BeginList() { open_.emplace_back().list.emplace(); }
  void EndList() { Add(AttributeValue::List(std::move(*Close().list))); }
  void BeginSet(AttributeType type) { open_.emplace_back().set_type = type; }
  void SetMember(std::string_view bytes) { open_.back().members.emplace_back(bytes); }
  void EndSet() {
    Container set = Close();
    Add(AttributeValue::Set(set.set_type, std::move(set.members)));
  }

 private:
  // A map (the default; `name` is its next member's), a list, or a set of `set_type`.
  struct Container {
    AttributeMap map;
    std::string name;
    std::optional<AttributeList> list;
    AttributeType set_type = AttributeType::kNull;
    std::vector<std::string> members;
  };

  Container Close() {
    Container closed = std::move(open_.back());
    open_.pop_back();
    return closed;
  }
  void Add(AttributeValue value) {
    Container& into = open_.back();
    if (into.list) {
      into.list->push_back(std::move(value));
    } else {
      // Names arrive in order: each goes at the end.
      into.map.emplace_hint(into.map.end(), std::move(into.name), std::move(value));
    }
  }

  std::vector<Container> open_;
};

}  // namespace

std::string EncodeItem(const AttributeMap& item) { return EncodeItem(item, ItemSize(item)); }

std::string EncodeItem(const AttributeMap& item, size_t item_size) {
  std::string out;
  ByteWriter writer(out);
  writer.Varint(item_size);
  writer.Varint(item.size());
  for (const auto& [name, value] : item) {
    writer.Bytes(name);
    EncodeValue(value, writer);
  }
  return out;
}

Result<size_t> StoredItemSize(std::string_view bytes) {
  ByteReader reader(bytes);
  uint64_t size = reader.Varint();
  if (!reader.ok()) return Error::Internal("corrupt item record");
  return static_cast<size_t>(size);
}

Result<Item> DecodeItem(std::string_view bytes) {
  ItemBuilder builder;
  DDBD_RETURN_IF_ERROR(VisitStoredItem(bytes, builder));
  return builder.Take();
}

std::string EncodePrimaryKey(const PrimaryKey& key) {
  Item values;
  values.emplace("p", key.partition);
  if (key.sort) values.emplace("s", *key.sort);
  return EncodeItem(values);
}

Result<PrimaryKey> DecodePrimaryKey(std::string_view bytes) {
  DDBD_ASSIGN_OR_RETURN(Item values, DecodeItem(bytes));
  auto partition = values.find("p");
  if (partition == values.end()) return Error::Internal("corrupt primary key record");
  PrimaryKey key{partition->second, std::nullopt};
  if (auto sort = values.find("s"); sort != values.end()) key.sort = sort->second;
  return key;
}

}  // namespace ddbd::storage
