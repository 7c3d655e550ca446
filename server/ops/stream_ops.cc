// The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.*): ListStreams,
// DescribeStream, GetShardIterator and GetRecords over the records Database::WriteItems
// appends. Every stream has one shard, open while the stream is enabled; a shard iterator
// names the stream and the last sequence number consumed.
#include <cinttypes>
#include <cstdio>

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

// The stream an ARN names ("arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>"),
// among the tables of this request's namespace.
Result<StreamRef> FindStream(OpContext& ctx, std::string_view arn) {
  const size_t table_at = arn.find(":table/");
  const size_t stream_at = arn.find("/stream/");
  if (arn.substr(0, 4) != "arn:" || table_at == std::string_view::npos ||
      stream_at == std::string_view::npos || stream_at < table_at) {
    return StreamNotFound(arn);
  }
  const std::string_view name = arn.substr(table_at + 7, stream_at - table_at - 7);
  const std::string_view label = arn.substr(stream_at + 8);
  StreamRef ref;
  ref.table = ctx.catalog().Find(ctx.scope(), name);
  if (!ref.table) return StreamNotFound(arn);
  for (const StreamSpec& stream : ref.table->streams) {
    if (stream.Label() == label) ref.stream = &stream;
  }
  if (!ref.stream) return StreamNotFound(arn);
  return ref;
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
  if (text.empty() || text.size() > 21) return Error::Validation("Invalid SequenceNumber: " + std::string(text));
  for (char c : text) {
    if (c < '0' || c > '9') return Error::Validation("Invalid SequenceNumber: " + std::string(text));
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

}  // namespace

Result<std::string> ListStreams(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto table_name, wire::GetString(req.body, "TableName"));
  if (table_name) errors.TableName(*table_name, "tableName");
  DDBD_ASSIGN_OR_RETURN(auto limit, wire::GetLong(req.body, "Limit"));
  if (limit && *limit < 1) errors.ValueAtLeast(std::to_string(*limit), "limit", 1);
  DDBD_ASSIGN_OR_RETURN(auto start, wire::GetString(req.body, "ExclusiveStartStreamArn"));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());

  std::vector<std::shared_ptr<const TableDef>> tables;
  if (table_name) {
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(*table_name));
    tables.push_back(std::move(table));
  } else {
    for (const std::string& name : ctx.catalog().ListNames(ctx.scope())) {
      if (auto table = ctx.catalog().Find(ctx.scope(), name)) tables.push_back(std::move(table));
    }
  }
  struct Listed {
    const TableDef* table;
    const StreamSpec* stream;
  };
  std::vector<Listed> streams;
  std::vector<std::string> arns;
  for (const auto& table : tables) {
    for (const StreamSpec& stream : table->streams) {
      streams.push_back({table.get(), &stream});
      arns.push_back(table->StreamArn(stream));
    }
  }
  const PageRange page = PageAfter(
      arns, start, static_cast<size_t>(std::min(limit.value_or(kMaxStreams), kMaxStreams)));
  wire::JsonWriter out;
  out.BeginObject().Key("Streams").BeginArray();
  for (size_t i = page.begin; i < page.end; ++i) {
    out.BeginObject().Key("StreamArn").String(arns[i]).Key("TableName").String(streams[i].table->name)
        .Key("StreamLabel").String(streams[i].stream->Label()).EndObject();
  }
  out.EndArray();
  if (page.more) out.Key("LastEvaluatedStreamArn").String(arns[page.end - 1]);
  out.EndObject();
  return out.Take();
}

Result<std::string> DescribeStream(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view arn, ReadStreamArn(req.body, errors));
  DDBD_ASSIGN_OR_RETURN(auto start_shard, wire::GetString(req.body, "ExclusiveStartShardId"));
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
  const std::string shard_id = ShardIdOf(stream);
  if (!start_shard || *start_shard != shard_id) {
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
  DDBD_ASSIGN_OR_RETURN(auto type, ReadEnum(req.body, "ShardIteratorType", "shardIteratorType",
                                            {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER",
                                             "AFTER_SEQUENCE_NUMBER"},
                                            errors));
  DDBD_ASSIGN_OR_RETURN(auto has_type, wire::GetString(req.body, "ShardIteratorType"));
  if (!has_type) errors.NotNull("shardIteratorType");
  DDBD_ASSIGN_OR_RETURN(auto sequence, wire::GetString(req.body, "SequenceNumber"));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(StreamRef ref, FindStream(ctx, arn));
  if (*shard_id != ShardIdOf(*ref.stream)) {
    return Error::ResourceNotFound("Requested resource not found: Shard does not exist");
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
  out.BeginObject().Key("ShardIterator").String(MakeIterator(ref.table->StreamArn(*ref.stream), after));
  out.EndObject();
  return out.Take();
}

Result<std::string> GetRecords(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto iterator, wire::GetString(req.body, "ShardIterator"));
  if (!iterator) errors.NotNull("shardIterator");
  DDBD_ASSIGN_OR_RETURN(auto limit, wire::GetLong(req.body, "Limit"));
  if (limit && *limit < 1) errors.ValueAtLeast(std::to_string(*limit), "limit", 1);
  if (limit && *limit > kMaxRecords) errors.ValueAtMost(std::to_string(*limit), "limit", kMaxRecords);
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(IteratorPosition position, ReadIterator(*iterator));
  DDBD_ASSIGN_OR_RETURN(StreamRef ref, FindStream(ctx, position.arn));
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
      out.Key("userIdentity").BeginObject().Key("PrincipalId").String("dynamodb.amazonaws.com")
          .Key("Type").String("Service").EndObject();
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
