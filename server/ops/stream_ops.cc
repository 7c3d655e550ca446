// The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.*): ListStreams,
// DescribeStream, GetShardIterator and GetRecords over the records Database::WriteItems
// appends. Every stream has one shard, open while the stream is enabled; a shard iterator
// names the stream and the last sequence number consumed.
#include <algorithm>
#include <optional>

#include "server/ops/common.h"
#include "server/ops/ops.h"
#include "server/ops/table_description.h"
#include "streams/record_json.h"
#include "streams/retention.h"
#include "streams/shards.h"
#include "wire/json_writer.h"

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

// The stream a well-formed ARN names, among the tables of this request's namespace.
Result<StreamRef> FindStream(OpContext& ctx, std::string_view arn,
                             const streams::StreamArnParts& parts) {
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
  const std::optional<streams::StreamArnParts> parts = streams::ParseStreamArn(arn);
  if (!parts) return Error::Validation("Invalid StreamArn");
  return FindStream(ctx, arn, *parts);
}

// Retention by the clock, applied before a read: records older than 24 hours are gone
// whether or not the periodic pass has come by yet (so a test that moves the clock sees
// exact results). Returns the stream's trim point: readers positioned before it have missed
// records.
Result<uint64_t> TrimNow(OpContext& ctx, const TableDef& table, const StreamSpec& stream) {
  const int64_t before_ms = ctx.NowMs() - streams::kRetentionMs;
  // A global table's changes reach the other replicas before their records go.
  if (table.replication) {
    DDBD_RETURN_IF_ERROR(ctx.service().replicator().ApplyBefore(table, before_ms));
  }
  DDBD_ASSIGN_OR_RETURN(uint64_t trimmed, ctx.db().TrimStream(stream.id, before_ms));
  (void)trimmed;  // how many does not matter here, only where the stream now starts
  return ctx.db().StreamTrimPoint(stream.id);
}

Result<uint64_t> ParseSequence(std::string_view text) {
  const std::optional<uint64_t> sequence = streams::ParseSequenceNumber(text);
  if (!sequence) return Error::Validation("Invalid SequenceNumber: " + std::string(text));
  return *sequence;
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
  std::optional<streams::StreamArnParts> start_at;
  if (start) {
    start_at = streams::ParseStreamArn(*start);
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
      if (start_at && !(*start_at < streams::StreamArnParts{table->name, label})) continue;
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
  const std::string shard_id = streams::ShardId(stream);
  if (!start_shard && !child_shards) {
    out.BeginObject().Key("ShardId").String(shard_id).Key("SequenceNumberRange").BeginObject();
    const uint64_t starting = bounds ? bounds->first : ctx.db().LastStreamSequence() + 1;
    out.Key("StartingSequenceNumber").String(streams::SequenceNumberText(starting));
    if (!stream.enabled) {
      // A disabled stream's shard is closed: it ends at its last record.
      out.Key("EndingSequenceNumber")
          .String(streams::SequenceNumberText(bounds ? bounds->second : starting));
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
  if (*shard_id != streams::ShardId(*ref.stream)) {
    return Error::ResourceNotFound("Requested resource not found: Shard does not exist");
  }
  if (sequence && (*type == "LATEST" || *type == "TRIM_HORIZON")) {
    // Unverified wording, after the missing-SequenceNumber message below.
    return Error::Validation("Must not specify a SequenceNumber for shard iterator type " +
                             std::string(*type));
  }
  DDBD_ASSIGN_OR_RETURN(const uint64_t trim_point, TrimNow(ctx, *ref.table, *ref.stream));
  uint64_t after = trim_point;  // TRIM_HORIZON: the oldest record kept
  if (*type == "LATEST") {
    after = ctx.db().LastStreamSequence();
  } else if (*type != "TRIM_HORIZON") {
    if (!sequence) {
      return Error::Validation("Must specify a SequenceNumber for shard iterator type " +
                               std::string(*type));
    }
    DDBD_ASSIGN_OR_RETURN(uint64_t number, ParseSequence(*sequence));
    after = *type == "AT_SEQUENCE_NUMBER" ? (number == 0 ? 0 : number - 1) : number;
    if (after < trim_point) return Error::TrimmedDataAccess();
  }
  wire::JsonWriter out;
  out.BeginObject()
      .Key("ShardIterator")
      .String(
          streams::EncodeShardIterator({ref.table->StreamArn(*ref.stream), after, ctx.NowMs()}));
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
  const std::optional<streams::ShardPosition> position = streams::DecodeShardIterator(*iterator);
  if (!position) return Error::Validation("Invalid ShardIterator");
  DDBD_ASSIGN_OR_RETURN(StreamRef ref, FindStream(ctx, position->stream_arn));
  DDBD_RETURN_IF_ERROR(streams::CheckIteratorAge(*position, ctx.NowMs()));
  const StreamSpec& stream = *ref.stream;
  // Records the iterator would read next were trimmed since it was issued.
  DDBD_ASSIGN_OR_RETURN(const uint64_t trim_point, TrimNow(ctx, *ref.table, stream));
  if (position->after < trim_point) return Error::TrimmedDataAccess();
  DDBD_ASSIGN_OR_RETURN(auto records,
                        ctx.db().ReadStream(stream.id, position->after,
                                            static_cast<size_t>(limit.value_or(kMaxRecords))));

  wire::JsonWriter out;
  out.BeginObject().Key("Records").BeginArray();
  for (const storage::StreamRecord& record : records) {
    streams::WriteRecord(out, *ref.table, stream, record, streams::RecordReader::kGetRecords);
  }
  out.EndArray();
  const uint64_t next = records.empty() ? position->after : records.back().sequence;
  // A disabled stream's shard is closed: once read to its end, there is no next iterator.
  if (stream.enabled || !records.empty()) {
    out.Key("NextShardIterator")
        .String(streams::EncodeShardIterator({position->stream_arn, next, ctx.NowMs()}));
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
