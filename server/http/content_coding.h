// Content codings of the HTTP front end: inflating compressed request bodies, and choosing
// and applying the compression of a reply the way DynamoDB does. Entry points:
// ChooseResponseCoding, Compress, Inflate. Pure functions over strings (zlib underneath).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ddbd::server::http {

enum class ResponseCoding : uint8_t { kIdentity, kGzip, kDeflate };

// DynamoDB compresses a reply body of at least 4 KB when the request's Accept-Encoding
// allows gzip or deflate; smaller bodies go uncompressed.
constexpr size_t kCompressionThreshold = 4096;

// The coding DynamoDB picks for an Accept-Encoding header: the acceptable coding (q > 0) of
// highest quality among gzip and deflate; on a tie a coding named outright beats one
// accepted through "*", an earlier one beats a later one, and "*" alone means gzip. An
// unparsable quality counts as 1, qualities above 1 as 1, "identity" and other codings are
// ignored.
ResponseCoding ChooseResponseCoding(std::string_view accept_encoding);

// "gzip" or "deflate" (the Content-Encoding value); "" for kIdentity.
std::string_view ContentCodingName(ResponseCoding coding);

// Compresses `body` in place: gzip format, or zlib format for "deflate" (RFC 9110).
// REQUIRES: coding != kIdentity. False (body unchanged) if zlib fails.
bool Compress(ResponseCoding coding, std::string& body);

// Inflates a gzip or zlib body in place, every member when several are concatenated. False
// when it is corrupt, has trailing bytes that are no member, or inflates past `max_bytes`.
bool Inflate(std::string& body, size_t max_bytes);

}  // namespace ddbd::server::http
