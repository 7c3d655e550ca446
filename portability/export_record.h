// An export (ExportTableToPointInTime) as ddbd keeps it: what was asked, how far it got.
// Kept by storage as a job record of kind kExportJob (JSON text), so that DescribeExport and
// ListExports outlive the table and a restart resumes an export cut short.
//
// Entry points: ExportRecord, EncodeExport, DecodeExport, ExportArn, ExportManifestKey.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/result.h"
#include "portability/job_record.h"

namespace ddbd::portability {

inline constexpr char kExportJob = 'X';

// The common members' table_id is where the table's items are.
struct ExportRecord : JobRecord {
  uint64_t history_id = 0;  // the table's PITR history (for an incremental export)
  uint64_t copy_id = 0;     // a full export's point-in-time copy of the items (0: none left)
  bool incremental = false;
  bool type_sent = false;      // ExportType was in the request (DescribeExport echoes it only then)
  int64_t export_time_ms = 0;  // full
  int64_t from_ms = 0, to_ms = 0;                // incremental: [from, to)
  std::string view_type = "NEW_AND_OLD_IMAGES";  // incremental
  std::string format = "DYNAMODB_JSON";          // or ION
  std::optional<std::string> prefix;
  std::string sse_algorithm = "AES256";
  std::optional<std::string> kms_key_id;
  std::optional<std::string> client_token;
  int64_t item_count = 0;
  int64_t billed_size_bytes = 0;
};

std::string ExportArn(const ExportRecord& record);
// The key of its manifest-summary.json.
std::string ExportManifestKey(const ExportRecord& record);
// The folder its objects go under: "<prefix>/AWSDynamoDB/" (no prefix: "AWSDynamoDB/").
std::string ExportRoot(const ExportRecord& record);

std::string EncodeExport(const ExportRecord& record);
Result<ExportRecord> DecodeExport(std::string_view bytes);

}  // namespace ddbd::portability
