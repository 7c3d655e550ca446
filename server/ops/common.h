// Pieces shared by several operation handlers: table-name members, key validation against a
// table's schema, ReturnConsumedCapacity and ReturnValues, capacity units.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/attribute_value.h"
#include "model/result.h"
#include "model/table_def.h"
#include "wire/constraint_errors.h"
#include "wire/json_reader.h"
#include "wire/json_writer.h"

namespace ddbd::server::ops {

// Reads the TableName member of a data-plane request: a table name or ARN (1..1024
// characters; a plain name must match the name pattern). Violations go to `errors`.
Result<std::string_view> ReadTableName(wire::JsonObject body, wire::ConstraintErrors& errors,
                                       std::string_view path = "tableName");
// Reads a required ARN member (`path` is its envelope name) of `min`..`max` characters;
// violations go to `errors`.
Result<std::string_view> ReadArn(wire::JsonObject body, std::string_view member,
                                 std::string_view path, size_t min, size_t max,
                                 wire::ConstraintErrors& errors);

// One page of a listing paged by an exclusive start key (ListStreams, ListBackups): the
// positions [begin, end) of `keys` (in listing order) that follow `exclusive_start` — none
// when that key is not in the list — at most `limit` of them; `more` when others follow.
struct PageRange {
  size_t begin = 0;
  size_t end = 0;
  bool more = false;
};
PageRange PageAfter(const std::vector<std::string>& keys,
                    const std::optional<std::string_view>& exclusive_start, size_t limit);

// The outcome of a call whose value is not needed: OK or its error.
template <typename T>
Status OutcomeOf(Result<T> result) {
  if (!result.ok()) return std::move(result).error();
  return OkStatus();
}

// A fresh TableId (a version-4 UUID).
std::string NewTableUuid();

// The TableName of a request that has no other member to validate (DescribeTable, …).
Result<std::string_view> ReadOnlyTableName(wire::JsonObject body);

// Reads a string member that must be one of `allowed` ("[A, B, C]" in model order).
Result<std::optional<std::string_view>> ReadEnum(wire::JsonObject body, std::string_view member,
                                                 std::string_view path,
                                                 std::initializer_list<std::string_view> allowed,
                                                 wire::ConstraintErrors& errors);

enum class CapacityDetail : uint8_t { kNone, kTotal, kIndexes };
Result<CapacityDetail> ReadReturnConsumedCapacity(wire::JsonObject body,
                                                  wire::ConstraintErrors& errors);

enum class ReturnValues : uint8_t { kNone, kAllOld, kUpdatedOld, kAllNew, kUpdatedNew };
Result<ReturnValues> ReadReturnValues(wire::JsonObject body, wire::ConstraintErrors& errors);
// ReturnItemCollectionMetrics (SIZE | NONE): true for SIZE.
Result<bool> ReadReturnItemCollectionMetrics(wire::JsonObject body, wire::ConstraintErrors& errors);

// {"ItemCollectionKey":{<pk>:<value>},"SizeEstimateRangeGB":[lo,hi]} for a table with LSIs.
void WriteItemCollectionMetrics(wire::JsonWriter& out, const TableDef& table,
                                const AttributeValue& partition, int64_t collection_bytes);

// The texts of KeyFromParameter (any key that does not fit the schema) and KeyFromItem (a
// key attribute of the wrong type: this prefix, then "<name> expected: S actual: N").
inline constexpr std::string_view kKeyMismatch =
    "The provided key element does not match the schema";
inline constexpr std::string_view kKeyTypeMismatchPrefix =
    "One or more parameter values were invalid: Type mismatch for key ";

// A Key parameter (GetItem, DeleteItem, BatchGetItem keys): exactly the table's key
// attributes with the schema's types, within DynamoDB's key size limits.
Result<PrimaryKey> KeyFromParameter(const TableDef& table, const AttributeMap& key);
// True when `key` holds one of the table's key attributes with another type than the
// schema's (what KeyFromParameter's kKeyMismatch means among its other causes).
bool HasKeyOfWrongType(const TableDef& table, const AttributeMap& key);
// The key attributes of an item to be written: present, of the schema's types, non-empty,
// within the key size limits.
Result<PrimaryKey> KeyFromItem(const TableDef& table, const AttributeMap& item);

// Rejects an item over 400 KB with DynamoDB's message.
Status CheckItemSize(const AttributeMap& item);

// Capacity units of one item write (≥ 1 per started KB of the larger image) and one
// item read (per started 4 KB, halved for eventually consistent reads).
double WriteUnits(size_t old_size, size_t new_size);
double ReadUnits(size_t bytes, bool consistent);

inline constexpr size_t kMaxTagsPerResource = 50;

// DynamoDB's own checks of a tag key (1..128 characters of letters, digits, spaces and
// _ . : / = + - @; not prefixed with aws:), with its texts. A missing key is "null".
Status CheckTagKey(const std::optional<std::string_view>& key);
// "Number of Tags exceed the current limit for the provided ResourceArn" past 50 tags.
Status CheckTagCount(size_t count);

// Reads a Tags member ([{Key, Value}]): each tag checked as DynamoDB checks it (lengths in
// characters, allowed characters, the aws: prefix), no key twice, at most 50 — after the
// request's constraint errors, which come first.
Result<std::optional<std::vector<Tag>>> ReadTags(wire::JsonObject body,
                                                 wire::ConstraintErrors& errors);

// {"TableName":…,"CapacityUnits":…} (+ "Table" with INDEXES), or nothing with kNone.
// What one operation consumed: units on the table and on each secondary index it read or
// wrote, and the bytes metered on vector indexes.
struct CapacityUse {
  double table_units = 0;
  std::map<std::string, double> global_indexes;  // index name → units
  std::map<std::string, double> local_indexes;
  std::map<std::string, int64_t> vector_bytes;  // index name → VectorWriteRequestBytes
  void Add(const CapacityUse& other);
  // Table and index units multiplied by `factor` (transactions cost twice), vector bytes not.
  CapacityUse Times(double factor) const;
};

// `table_name` is the name or ARN exactly as the request gave it. CapacityUnits is the sum
// over the table and its indexes; INDEXES breaks it down (and adds the vector bytes).
void WriteConsumedCapacity(wire::JsonWriter& out, CapacityDetail detail,
                           std::string_view table_name, const CapacityUse& use, bool is_write);
// The same for an operation that only touched the table.
void WriteConsumedCapacity(wire::JsonWriter& out, CapacityDetail detail,
                           std::string_view table_name, double units, bool is_write);

}  // namespace ddbd::server::ops
