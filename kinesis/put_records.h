// Kinesis' PutRecords call (JSON 1.1, target Kinesis_20131202.PutRecords): the request body
// for a batch of records, the per-record outcome read from the reply, and the transport
// interface that carries one signed call to a Kinesis endpoint (implemented by server/,
// which owns the HTTP client and the signing).
//
// Entry points: KinesisTransport, EncodePutRecords, DecodePutRecordsReply, kMaxBatchRecords,
// kMaxBatchBytes.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kinesis/record_json.h"
#include "model/result.h"

namespace ddbd::kinesis {

// PutRecords' limits: 500 records, 5 MB of data and partition keys per request.
inline constexpr size_t kMaxBatchRecords = 500;
inline constexpr size_t kMaxBatchBytes = 5 * 1024 * 1024;

struct KinesisReply {
  unsigned status = 0;  // HTTP status
  std::string body;
};

// One call of the Kinesis JSON 1.1 API. Implementations are thread-safe.
class KinesisTransport {
 public:
  virtual ~KinesisTransport() = default;
  // POSTs `body` with X-Amz-Target "Kinesis_20131202.<operation>". An error when no reply
  // came (connection refused, timeout); any reply, success or not, is returned.
  virtual Result<KinesisReply> Call(std::string_view operation, std::string_view body) = 0;
  // Where the calls go, for log lines.
  virtual std::string Describe() const = 0;
};

// The request body: {"StreamName":…, "Records":[{"Data": base64, "PartitionKey":…}, …]}.
std::string EncodePutRecords(std::string_view stream_name, std::span<const OutgoingRecord> records);

// The outcome of each of `count` records, in request order: empty when it was stored, else
// its ErrorCode. An error when the call as a whole failed (non-200 status, a body that is not
// a PutRecords reply), whose message carries Kinesis' error type and message.
Result<std::vector<std::string>> DecodePutRecordsReply(const KinesisReply& reply, size_t count);

}  // namespace ddbd::kinesis
