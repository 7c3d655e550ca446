// A bulk operation (StartBulkPutItems) as ddbd keeps it: what was asked, how far it got —
// its checkpoint, committed with the items it wrote — its counts and usage, and the report
// lines not yet written to the output bucket. Kept by storage as a job record of kind
// kBulkJob (JSON text).
//
// Entry points: BulkRecord, BulkUsage, EncodeBulk, DecodeBulk, BulkArn.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"
#include "portability/job_record.h"

namespace ddbd::portability {

inline constexpr char kBulkJob = 'B';

// Bytes a bulk operation wrote: its items to the table, their entries to each secondary
// index (by name), and the metered vector bytes of each vector index.
struct BulkUsage {
  int64_t table_bytes = 0;
  std::map<std::string, int64_t> global_indexes;
  std::map<std::string, int64_t> local_indexes;
  std::map<std::string, int64_t> vector_indexes;
};

struct BulkRecord : JobRecord {
  // What was asked (JobRecord::bucket and bucket_owner are the input's).
  std::string client_token;
  std::string request_digest;  // of the request's parameters: a token's replay must match
  std::string table_name;
  std::optional<std::string> key_prefix;
  std::string format = "DYNAMODB_JSON";  // or ION
  std::string compression = "NONE";      // NONE, GZIP or ZSTD
  std::optional<std::string> output_bucket;
  std::optional<std::string> output_owner;
  std::optional<std::string> output_prefix;
  std::optional<std::string> sse_algorithm;
  std::optional<std::string> kms_key;
  std::vector<std::string> output_types;  // ERROR and/or CONDITION_CHECK_FAILURE
  std::optional<int64_t> max_write_units;
  std::string tier = "STANDARD";

  // How far it got. The input objects are read in key order; `next_object` is the position
  // of the object being read and `next_record` the records of it already done.
  std::optional<int64_t> total_bytes;  // once the input was listed
  int64_t next_object = 0;
  int64_t next_record = 0;
  int64_t processed_items = 0;
  int64_t processed_bytes = 0;
  int64_t failed_items = 0;
  int64_t condition_failures = 0;
  BulkUsage usage;

  // Report lines (JSON Lines) not yet written, by output type, and the parts written so far.
  std::vector<std::string> pending_errors;
  std::vector<std::string> pending_condition_failures;
  int64_t error_parts = 0;
  int64_t condition_failure_parts = 0;

  bool Reports(std::string_view output_type) const;
};

std::string BulkArn(const BulkRecord& record);
std::string EncodeBulk(const BulkRecord& record);
Result<BulkRecord> DecodeBulk(std::string_view bytes);

}  // namespace ddbd::portability
