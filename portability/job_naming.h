// Names and checksums DynamoDB's data-movement jobs use: job ids (exports, imports, bulk
// operations), ISO times in manifests, S3 object checksums and ETags, data-file names.
//
// Entry points: NewJobId, IsoTime, Md5Base64, SinglePartEtag, DataFileName,
// AwsDynamoDbFolder.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ddbd::portability {

// "<start time in epoch ms, 14 digits>-<8 random hex digits>", as DynamoDB's export and import
// ids: ids sort by start time.
std::string NewJobId(int64_t start_ms);
// The start time an id begins with (0 when it is not an id).
int64_t JobIdTime(std::string_view id);
// Whether `id` has the shape NewJobId gives.
bool IsJobId(std::string_view id);
// "2020-11-04T07:28:34.028Z".
std::string IsoTime(int64_t ms);
// Base64 of the bytes' MD5 (S3's Content-MD5; DynamoDB's md5Checksum).
std::string Md5Base64(std::string_view bytes);
// The ETag S3 gives an object uploaded in one part of a multipart upload, as DynamoDB's
// export manifests show it: hex MD5 of the object's MD5, then "-1".
std::string SinglePartEtag(std::string_view bytes);
// A data file's name: 26 lower-case base32 characters derived from `seed` (the same seed, the
// same name: a job that starts over rewrites its files rather than adding new ones).
std::string DataFileName(std::string_view seed);

// "<prefix>/AWSDynamoDB/" ("AWSDynamoDB/" without a prefix): where DynamoDB writes what a job
// outputs under a key prefix.
std::string AwsDynamoDbFolder(const std::optional<std::string>& prefix);

}  // namespace ddbd::portability
