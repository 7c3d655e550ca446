// Item codec: varint item size, varint attribute count, then per attribute its name and a
// tagged value.
// A value is its AttributeType byte followed by: S/N/B length-prefixed bytes (N as canonical
// text), BOOL one byte, NULL nothing, L/M/SS/NS/BS a count then the members.
#include "storage/internal/item_codec.h"

#include "storage/internal/binary_io.h"

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

// Depth guards against corrupt input recursing without bound; valid items nest ≤ 32.
constexpr int kMaxDecodeDepth = 64;

bool DecodeValue(ByteReader& in, int depth, AttributeValue& out) {
  if (depth > kMaxDecodeDepth) return false;
  auto type = static_cast<AttributeType>(in.Byte());
  switch (type) {
    case AttributeType::kS:
      out = AttributeValue::String(std::string(in.Bytes()));
      break;
    case AttributeType::kN:
      out = AttributeValue::NumberText(std::string(in.Bytes()));
      break;
    case AttributeType::kB:
      out = AttributeValue::Binary(std::string(in.Bytes()));
      break;
    case AttributeType::kBool:
      out = AttributeValue::Bool(in.Byte() != 0);
      break;
    case AttributeType::kNull:
      out = AttributeValue::Null();
      break;
    case AttributeType::kM: {
      AttributeMap map;
      for (uint64_t n = in.Varint(); in.ok() && n > 0; --n) {
        std::string name(in.Bytes());
        AttributeValue member;
        if (!DecodeValue(in, depth + 1, member)) return false;
        map.emplace_hint(map.end(), std::move(name), std::move(member));
      }
      out = AttributeValue::Map(std::move(map));
      break;
    }
    case AttributeType::kL: {
      AttributeList list;
      for (uint64_t n = in.Varint(); in.ok() && n > 0; --n) {
        AttributeValue element;
        if (!DecodeValue(in, depth + 1, element)) return false;
        list.push_back(std::move(element));
      }
      out = AttributeValue::List(std::move(list));
      break;
    }
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS: {
      std::vector<std::string> members;
      for (uint64_t n = in.Varint(); in.ok() && n > 0; --n) members.emplace_back(in.Bytes());
      out = AttributeValue::Set(type, std::move(members));
      break;
    }
    default:
      return false;
  }
  return in.ok();
}

// DecodeValue's walk, handing each value to `sink` instead of building it.
bool VisitValue(ByteReader& in, int depth, AttributeSink& sink) {
  if (depth > kMaxDecodeDepth) return false;
  auto type = static_cast<AttributeType>(in.Byte());
  switch (type) {
    case AttributeType::kS:
    case AttributeType::kN:
    case AttributeType::kB:
      sink.Scalar(type, in.Bytes());
      break;
    case AttributeType::kBool:
      sink.Bool(in.Byte() != 0);
      break;
    case AttributeType::kNull:
      sink.Null();
      break;
    case AttributeType::kM:
      sink.BeginMap();
      for (uint64_t n = in.Varint(); in.ok() && n > 0; --n) {
        sink.Name(in.Bytes());
        if (!VisitValue(in, depth + 1, sink)) return false;
      }
      sink.EndMap();
      break;
    case AttributeType::kL:
      sink.BeginList();
      for (uint64_t n = in.Varint(); in.ok() && n > 0; --n) {
        if (!VisitValue(in, depth + 1, sink)) return false;
      }
      sink.EndList();
      break;
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS:
      sink.BeginSet(type);
      for (uint64_t n = in.Varint(); in.ok() && n > 0; --n) sink.SetMember(in.Bytes());
      sink.EndSet();
      break;
    default:
      return false;
  }
  return in.ok();
}

}  // namespace

Status VisitStoredItem(std::string_view bytes, AttributeSink& sink) {
  ByteReader reader(bytes);
  reader.Varint();  // the size header
  for (uint64_t n = reader.Varint(); reader.ok() && n > 0; --n) {
    sink.Name(reader.Bytes());
    if (!VisitValue(reader, 1, sink)) break;
  }
  if (!reader.ok() || !reader.done()) return Error::Internal("corrupt item record");
  return OkStatus();
}

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
  ByteReader reader(bytes);
  reader.Varint();  // the size header
  Item item;
  for (uint64_t n = reader.Varint(); reader.ok() && n > 0; --n) {
    std::string name(reader.Bytes());
    AttributeValue value;
    if (!DecodeValue(reader, 1, value)) break;
    item.emplace_hint(item.end(), std::move(name), std::move(value));
  }
  if (!reader.ok() || !reader.done()) return Error::Internal("corrupt item record");
  return item;
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
