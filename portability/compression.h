// The compressions of DynamoDB's exports and imports: GZIP (written and read) and ZSTD
// (read), whole objects at a time.
//
// Entry points: Compression, GzipCompress, Decompress.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "model/result.h"

namespace ddbd::portability {

enum class Compression { kNone, kGzip, kZstd };

// A gzip member as DynamoDB's exports have it: no name, time 0, OS "unknown" (0xff), so that
// the same data gives the same bytes.
std::string GzipCompress(std::string_view data);

// The data of a compressed object (every gzip member, every zstd frame). Fails with a
// ValidationException for data not in that compression, or decompressing to more than
// `max_bytes` (a bomb is refused, not buffered).
Result<std::string> Decompress(Compression compression, std::string_view data, size_t max_bytes);

}  // namespace ddbd::portability
