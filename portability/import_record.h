// An import (ImportTable) as ddbd keeps it: what was asked, how far it got, and the error
// records DynamoDB would have written to CloudWatch Logs (log group /aws-dynamodb/imports,
// stream "<import id>/error"; the control API shows them). Kept by storage as a job record of
// kind kImportJob (JSON text).
//
// Entry points: ImportRecord, EncodeImport, DecodeImport, ImportArn.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"
#include "portability/job_record.h"

namespace ddbd::portability {

inline constexpr char kImportJob = 'I';
// The error records kept per import: the first ones (the count goes on).
inline constexpr size_t kMaxErrorRecords = 1000;

struct ImportRecord : JobRecord {
  std::string client_token;
  std::optional<std::string> key_prefix;
  std::string format;                    // DYNAMODB_JSON, ION or CSV
  std::optional<std::string> delimiter;  // InputFormatOptions.Csv, as sent
  std::optional<std::vector<std::string>> header_list;
  bool format_options_sent = false;
  std::string compression = "NONE";  // NONE, GZIP or ZSTD
  std::string creation_parameters;   // TableCreationParameters as sent (JSON), echoed
  int64_t processed_bytes = 0;
  int64_t processed_items = 0;
  int64_t imported_items = 0;
  int64_t error_count = 0;
  std::vector<std::string> error_records;  // each a JSON text, as CloudWatch would hold it
};

std::string ImportArn(const ImportRecord& record);
std::string EncodeImport(const ImportRecord& record);
Result<ImportRecord> DecodeImport(std::string_view bytes);

}  // namespace ddbd::portability
