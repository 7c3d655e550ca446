// The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.*): ListStreams,
// DescribeStream, GetShardIterator and GetRecords over the records Database::WriteItems
// appends. Every stream has one shard, open while the stream is enabled; a shard iterator
// names the stream and the last sequence number consumed.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <tuple>

#include "server/ops/common.h"
#include "server/ops/ops.h"
#include "server/ops/table_description.h"
#include "server/wire/attribute_value_json.h"
#include "server/wire/base64.h"

namespace ddbd::server::ops {
namespace {

constexpr int64_t kMaxRecords = 1000;
constexpr int64_t kMaxStreams = 100;

struct StreamRef {
  std::shared_ptr<const TableDef> table;
  const StreamSpec* stream = nullptr;  // in `table`
};

Error StreamNotFound(std::string_view arn) {
  return Error::ResourceNotFound("Requested resource not found: Stream: " + std::string(arn) +
                                 " not found");
}

// The parts of a well-formed stream ARN,
// "arn:<partition>:dynamodb:<region>:<account>:table/<name>/stream/<label>".
struct StreamArnParts {
  std::string_view table_name;
  std::string_view label;
  // Listing order: ListStreams lists tables by name and each table's streams oldest first,
  // and labels are creation times, so (name, label) orders every stream ARN.
  friend bool operator<(const StreamArnParts& a, const StreamArnParts& b) {
    return std::tie(a.table_name, a.label) < std::tie(b.table_name, b.label);
  }
};

std::optional<StreamArnParts> ParseStreamArn(std::string_view arn) {
  std::string_view fields[5];
  for (std::string_view& field : fields) {
    const size_t colon = arn.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    field = arn.substr(0, colon);
    arn.remove_prefix(colon + 1);
  }
  if (fields[0] != "arn" || fields[1].empty() || fields[2] != "dynamodb" || fields[3].empty() ||
      fields[4].empty() || arn.substr(0, 6) != "table/") {
    return std::nullopt;
  }
  arn.remove_prefix(6);
  const size_t stream_at = arn.find("/stream/");
  if (stream_at == std::string_view::npos) return std::nullopt;
  StreamArnParts parts{arn.substr(0, stream_at), arn.substr(stream_at + 8)};
  if (parts.table_name.size() < 3 || parts.table_name.size() > 255 ||
      !wire::IsValidResourceName(parts.table_name) || parts.label.empty()) {
    return std::nullopt;
  }
  return parts;
}

// The stream a well-formed ARN names, among the tables of this request's namespace.
Result<StreamRef> FindStream(OpContext& ctx, std::string_view arn, const StreamArnParts& parts) {
  StreamRef ref;
  ref.table = ctx.catalog().Find(ctx.scope(), parts.table_name);
  if (!ref.table) return StreamNotFound(arn);
  for (const StreamSpec& stream : ref.table->streams) {
    if (stream.Label() == parts.label) ref.stream = &stream;
  }
  if (!ref.stream) return StreamNotFound(arn);
  return ref;
}

// A StreamArn member that is not a stream ARN at all. Pinned by:
// test_streams.py::test_malformed_stream_arns_are_invalid
Result<StreamRef> FindStream(OpContext& ctx, std::string_view arn) {
  const std::optional<StreamArnParts> parts = ParseStreamArn(arn);
  if (!parts) return Error::Validation("Invalid StreamArn");
  return FindStream(ctx, arn, *parts);
}

std::string ShardIdOf(const StreamSpec& stream) {
  char text[64];
  std::snprintf(text, sizeof text, "shardId-%020" PRId64 "-%08" PRIx64, stream.created_ms,
                stream.id & 0xffffffff);
  return text;
}

std::string SequenceText(uint64_t sequence) {
  char text[32];
  std::snprintf(text, sizeof text, "%021" PRIu64, sequence);
  return text;
}

Result<uint64_t> ParseSequence(std::string_view text) {
  uint64_t value = 0;
  if (text.empty() || text.size() > 21)
    return Error::Validation("Invalid SequenceNumber: " + std::string(text));
  for (char c : text) {
    if (c < '0' || c > '9')
      return Error::Validation("Invalid SequenceNumber: " + std::string(text));
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

// A shard iterator: "<stream ARN>|<last sequence consumed>", base64-encoded.
std::string MakeIterator(std::string_view arn, uint64_t after) {
  return wire::Base64Encode(std::string(arn) + "|" + std::to_string(after));
}

struct IteratorPosition {
  std::string arn;
  uint64_t after = 0;
};

Result<IteratorPosition> ReadIterator(std::string_view iterator) {
  auto decoded = wire::Base64Decode(iterator);
  const Error invalid = Error::Validation("Invalid ShardIterator");
  if (!decoded.ok()) return invalid;
  const size_t bar = decoded->rfind('|');
  if (bar == std::string::npos) return invalid;
  auto after = ParseSequence(std::string_view(*decoded).substr(bar + 1));
  if (!after.ok()) return invalid;
  return IteratorPosition{decoded->substr(0, bar), *after};
}

Result<std::string_view> ReadStreamArn(wire::JsonObject body, wire::ConstraintErrors& errors) {
  return ReadArn(body, "StreamArn", "streamArn", 37, 1024, errors);
}

// A ShardId member (28..65 characters in the API model); violations go to `errors`.
Result<std::optional<std::string_view>> ReadShardId(wire::JsonObject body, std::string_view member,
                                                    std::string_view path,
                                                    wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto shard_id, wire::GetString(body, member));
  if (shard_id && shard_id->size() < 28) errors.LengthAtLeast(*shard_id, path, 28);
  if (shard_id && shard_id->size() > 65) errors.LengthAtMost(*shard_id, path, 65);
  return shard_id;
}

// DescribeStream's ShardFilter: true when it asks for the children of a shard.
Result<bool> ReadChildShardsFilter(wire::JsonObject body, wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto filter, wire::GetObject(body, "ShardFilter"));
  if (!filter) return false;
  DDBD_ASSIGN_OR_RETURN(auto type,
                        ReadEnum(*filter, "Type", "shardFilter.type", {"CHILD_SHARDS"}, errors));
  DDBD_ASSIGN_OR_RETURN(auto parent,
                        ReadShardId(*filter, "ShardId", "shardFilter.shardId", errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (type && !parent) {
    // Unverified wording: DynamoDB's text for this case was not found.
    return Error::Validation(
        "ShardFilter.ShardId is required when ShardFilter.Type is CHILD_SHARDS");
  }
  return type.has_value();
}

}  // namespace

Result<std::string> ListStreams(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto table_name, wire::GetString(req.body, "TableName"));
  if (table_name) errors.TableName(*table_name, "tableName");
  DDBD_ASSIGN_OR_RETURN(auto limit, wire::GetLong(req.body, "Limit"));
  if (limit && *limit < 1) errors.ValueAtLeast(std::to_string(*limit), "limit", 1);
  if (limit && *limit > kMaxStreams) {
    errors.ValueAtMost(std::to_string(*limit), "limit", kMaxStreams);
  }
  DDBD_ASSIGN_OR_RETURN(auto start, wire::GetString(req.body, "ExclusiveStartStreamArn"));
  if (start && start->size() < 37) errors.LengthAtLeast(*start, "exclusiveStartStreamArn", 37);
  if (start && start->size() > 1024) errors.LengthAtMost(*start, "exclusiveStartStreamArn", 1024);
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  std::optional<StreamArnParts> start_at;
  if (start) {
    start_at = ParseStreamArn(*start);
    // Unverified wording, after DescribeStream's "Invalid StreamArn".
    if (!start_at) return Error::Validation("Invalid ExclusiveStartStreamArn");
  }

  std::vector<std::shared_ptr<const TableDef>> tables;
  if (table_name) {
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(*table_name));
    tables.push_back(std::move(table));
  } else {
    for (const std::string& name : ctx.catalog().ListNames(ctx.scope())) {
      if (auto table = ctx.catalog().Find(ctx.scope(), name)) tables.push_back(std::move(table));
    }
  }
  // The streams after the start ARN in listing order, whether or not it still names one:
  // paging goes on past the stream of a table deleted meanwhile. Pinned by:
  // test_streams.py::test_list_streams_continues_after_a_deleted_tables_stream
  struct Listed {
    const TableDef* table;
    const StreamSpec* stream;
  };
  std::vector<Listed> streams;
  for (const auto& table : tables) {
    for (const StreamSpec& stream : table->streams) {
      const std::string label = stream.Label();
      if (start_at && !(*start_at < StreamArnParts{table->name, label})) continue;
      streams.push_back({table.get(), &stream});
    }
  }
  const size_t count = std::min(streams.size(), static_cast<size_t>(limit.value_or(kMaxStreams)));
  wire::JsonWriter out;
  out.BeginObject().Key("Streams").BeginArray();
  std::string last_arn;
  for (size_t i = 0; i < count; ++i) {
    last_arn = streams[i].table->StreamArn(*streams[i].stream);
    out.BeginObject()
        .Key("StreamArn")
        .String(last_arn)
        .Key("TableName")
        .String(streams[i].table->name)
        .Key("StreamLabel")
        .String(streams[i].stream->Label())
        .EndObject();
  }
  out.EndArray();
  if (count < streams.size()) out.Key("LastEvaluatedStreamArn").String(last_arn);
  out.EndObject();
  return out.Take();
}

Result<std::string> DescribeStream(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view arn, ReadStreamArn(req.body, errors));
  DDBD_ASSIGN_OR_RETURN(auto limit, wire::GetLong(req.body, "Limit"));
  if (limit && *limit < 1) errors.ValueAtLeast(std::to_string(*limit), "limit", 1);
  DDBD_ASSIGN_OR_RETURN(auto start_shard, ReadShardId(req.body, "ExclusiveStartShardId",
                                                      "exclusiveStartShardId", errors));
  DDBD_ASSIGN_OR_RETURN(bool child_shards, ReadChildShardsFilter(req.body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(StreamRef ref, FindStream(ctx, arn));
  const StreamSpec& stream = *ref.stream;
  DDBD_ASSIGN_OR_RETURN(auto bounds, ctx.db().StreamBounds(stream.id));

  wire::JsonWriter out;
  out.BeginObject().Key("StreamDescription").BeginObject();
  out.Key("StreamArn").String(ref.table->StreamArn(stream));
  out.Key("StreamLabel").String(stream.Label());
  out.Key("StreamStatus").String(stream.enabled ? "ENABLED" : "DISABLED");
  out.Key("StreamViewType").String(StreamViewTypeName(stream.view_type));
  out.Key("CreationRequestDateTime").EpochSeconds(stream.created_ms);
  out.Key("TableName").String(ref.table->name);
  out.Key("KeySchema");
  WriteKeySchema(out, *ref.table);
  out.Key("Shards").BeginArray();
  // The only shard has no children, and nothing follows any ExclusiveStartShardId: after
  // the shard itself nothing is left, and DynamoDB lists no shards after an unknown one.
  // Pinned by: test_streams.py::test_describe_stream_after_an_unknown_shard_lists_none
  const std::string shard_id = ShardIdOf(stream);
  if (!start_shard && !child_shards) {
    out.BeginObject().Key("ShardId").String(shard_id).Key("SequenceNumberRange").BeginObject();
    const uint64_t starting = bounds ? bounds->first : ctx.db().LastStreamSequence() + 1;
    out.Key("StartingSequenceNumber").String(SequenceText(starting));
    if (!stream.enabled) {
      // A disabled stream's shard is closed: it ends at its last record.
      out.Key("EndingSequenceNumber").String(SequenceText(bounds ? bounds->second : starting));
    }
    out.EndObject().EndObject();
  }
  out.EndArray();
  out.EndObject().EndObject();
  return out.Take();
}

Result<std::string> GetShardIterator(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view arn, ReadStreamArn(req.body, errors));
  DDBD_ASSIGN_OR_RETURN(auto shard_id, wire::GetString(req.body, "ShardId"));
  if (!shard_id) errors.NotNull("shardId");
  DDBD_ASSIGN_OR_RETURN(
      auto type,
      ReadEnum(req.body, "ShardIteratorType", "shardIteratorType",
               {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"}, errors));
  DDBD_ASSIGN_OR_RETURN(auto has_type, wire::GetString(req.body, "ShardIteratorType"));
  if (!has_type) errors.NotNull("shardIteratorType");
  DDBD_ASSIGN_OR_RETURN(auto sequence, wire::GetString(req.body, "SequenceNumber"));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(StreamRef ref, FindStream(ctx, arn));
  if (*shard_id != ShardIdOf(*ref.stream)) {
    return Error::ResourceNotFound("Requested resource not found: Shard does not exist");
  }
  if (sequence && (*type == "LATEST" || *type == "TRIM_HORIZON")) {
    // Unverified wording, after the missing-SequenceNumber message below.
    return Error::Validation("Must not specify a SequenceNumber for shard iterator type " +
                             std::string(*type));
  }
  uint64_t after = 0;
  if (*type == "LATEST") {
    after = ctx.db().LastStreamSequence();
  } else if (*type != "TRIM_HORIZON") {
    if (!sequence) {
      return Error::Validation("Must specify a SequenceNumber for shard iterator type " +
                               std::string(*type));
    }
    DDBD_ASSIGN_OR_RETURN(uint64_t number, ParseSequence(*sequence));
    after = *type == "AT_SEQUENCE_NUMBER" ? (number == 0 ? 0 : number - 1) : number;
  }
  wire::JsonWriter out;
  out.BeginObject()
      .Key("ShardIterator")
      .String(MakeIterator(ref.table->StreamArn(*ref.stream), after));
  out.EndObject();
  return out.Take();
}

Result<std::string> GetRecords(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto iterator, wire::GetString(req.body, "ShardIterator"));
  if (!iterator) errors.NotNull("shardIterator");
  DDBD_ASSIGN_OR_RETURN(auto limit, wire::GetLong(req.body, "Limit"));
  if (limit && *limit < 1) errors.ValueAtLeast(std::to_string(*limit), "limit", 1);
  if (limit && *limit > kMaxRecords)
    errors.ValueAtMost(std::to_string(*limit), "limit", kMaxRecords);
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(IteratorPosition position, ReadIterator(*iterator));
  const std::optional<StreamArnParts> parts = ParseStreamArn(position.arn);
  if (!parts) return Error::Validation("Invalid ShardIterator");
  DDBD_ASSIGN_OR_RETURN(StreamRef ref, FindStream(ctx, position.arn, *parts));
  const StreamSpec& stream = *ref.stream;
  DDBD_ASSIGN_OR_RETURN(auto records,
                        ctx.db().ReadStream(stream.id, position.after,
                                            static_cast<size_t>(limit.value_or(kMaxRecords))));

  wire::JsonWriter out;
  out.BeginObject().Key("Records").BeginArray();
  static constexpr std::string_view kEventNames[] = {"", "INSERT", "MODIFY", "REMOVE"};
  for (const storage::StreamRecord& record : records) {
    char event_id[40];
    std::snprintf(event_id, sizeof event_id, "%016" PRIx64 "%016" PRIx64, stream.id,
                  record.sequence);
    out.BeginObject();
    out.Key("eventID").String(event_id);
    out.Key("eventName").String(kEventNames[static_cast<int>(record.event)]);
    out.Key("eventVersion").String("1.1");
    out.Key("eventSource").String("aws:dynamodb");
    out.Key("awsRegion").String(ref.table->region);
    out.Key("dynamodb").BeginObject();
    out.Key("ApproximateCreationDateTime").EpochSeconds(record.time_ms / 1000 * 1000);
    out.Key("Keys");
    wire::WriteAttributeMap(out, record.keys);
    if (record.new_image) {
      out.Key("NewImage");
      wire::WriteAttributeMap(out, *record.new_image);
    }
    if (record.old_image) {
      out.Key("OldImage");
      wire::WriteAttributeMap(out, *record.old_image);
    }
    out.Key("SequenceNumber").String(SequenceText(record.sequence));
    out.Key("SizeBytes").Int(static_cast<int64_t>(record.size_bytes));
    out.Key("StreamViewType").String(StreamViewTypeName(stream.view_type));
    out.EndObject();
    if (record.by_ttl) {
      out.Key("userIdentity")
          .BeginObject()
          .Key("PrincipalId")
          .String("dynamodb.amazonaws.com")
          .Key("Type")
          .String("Service")
          .EndObject();
    }
    out.EndObject();
  }
  out.EndArray();
  const uint64_t next = records.empty() ? position.after : records.back().sequence;
  // A disabled stream's shard is closed: once read to its end, there is no next iterator.
  if (stream.enabled || !records.empty()) {
    out.Key("NextShardIterator").String(MakeIterator(position.arn, next));
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
