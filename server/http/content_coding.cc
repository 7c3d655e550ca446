// Content codings: Accept-Encoding negotiation, reply compression and request inflation.
#include "server/http/content_coding.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace ddbd::server::http {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != b[i]) return false;
  }
  return true;
}

// A q value as DynamoDB reads it: unparsable counts as 1, above 1 as 1.
double ParseQuality(std::string_view text) {
  double q = 1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), q);
  if (error != std::errc() || end != text.data() + text.size() || std::isnan(q)) return 1;
  return q > 1 ? 1 : q;
}

// The quality of one entry ("coding;param=value;..."): its first q parameter, else 1.
double EntryQuality(std::string_view entry) {
  size_t semicolon = entry.find(';');
  while (semicolon != std::string_view::npos) {
    entry.remove_prefix(semicolon + 1);
    semicolon = entry.find(';');
    const std::string_view param = entry.substr(0, semicolon);
    const size_t equals = param.find('=');
    if (equals != std::string_view::npos &&
        EqualsIgnoringCase(Trim(param.substr(0, equals)), "q")) {
      return ParseQuality(Trim(param.substr(equals + 1)));
    }
  }
  return 1;
}

// How acceptable one coding is: its best quality and where that entry was.
struct Acceptance {
  double q = 0;
  size_t position = 0;
  bool named = false;  // named outright, not through "*"

  void Offer(double quality, size_t at) {
    if (named && quality <= q) return;
    q = quality;
    position = at;
    named = true;
  }
};

// True when `a` is to be preferred to `b`.
bool Better(const Acceptance& a, const Acceptance& b) {
  if (a.q != b.q) return a.q > b.q;
  if (a.named != b.named) return a.named;
  return a.named && a.position < b.position;
}

}  // namespace

ResponseCoding ChooseResponseCoding(std::string_view accept_encoding) {
  Acceptance gzip, deflate;
  std::optional<double> any;
  size_t position = 0;
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    const std::string_view entry = accept_encoding.substr(0, comma);
    accept_encoding.remove_prefix(comma == std::string_view::npos ? accept_encoding.size()
                                                                  : comma + 1);
    const std::string_view coding = Trim(entry.substr(0, entry.find(';')));
    const double q = EntryQuality(entry);
    if (EqualsIgnoringCase(coding, "gzip")) {
      gzip.Offer(q, position);
    } else if (EqualsIgnoringCase(coding, "deflate")) {
      deflate.Offer(q, position);
    } else if (coding == "*") {
      any = std::max(any.value_or(q), q);
    }
    ++position;
  }
  if (any) {
    if (!gzip.named) gzip.q = *any;
    if (!deflate.named) deflate.q = *any;
  }
  // Through "*" alone, gzip is preferred: it wins every tie Better leaves open.
  const bool gzip_wins = !Better(deflate, gzip);
  const Acceptance& best = gzip_wins ? gzip : deflate;
  if (best.q <= 0) return ResponseCoding::kIdentity;
  return gzip_wins ? ResponseCoding::kGzip : ResponseCoding::kDeflate;
}

std::string_view ContentCodingName(ResponseCoding coding) {
  switch (coding) {
    case ResponseCoding::kGzip:
      return "gzip";
    case ResponseCoding::kDeflate:
      return "deflate";
    case ResponseCoding::kIdentity:
      break;
  }
  return "";
}

bool Compress(ResponseCoding coding, std::string& body) {
  z_stream stream{};
  const int window_bits = coding == ResponseCoding::kGzip ? 15 + 16 : 15;
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return false;
  }
  std::string out(deflateBound(&stream, body.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(body.data());
  stream.avail_in = static_cast<uInt>(body.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) return false;
  body = std::move(out);
  return true;
}

bool Inflate(std::string& body, size_t max_bytes) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 32) != Z_OK) return false;
  std::string out;
  char buffer[64 * 1024];
  stream.next_in = reinterpret_cast<Bytef*>(body.data());
  stream.avail_in = static_cast<uInt>(body.size());
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (out.size() > max_bytes) status = Z_MEM_ERROR;
    if (status == Z_BUF_ERROR && stream.avail_in == 0) break;
    // Another member follows (gzip allows several, concatenated): inflate it too.
    if (status == Z_STREAM_END && stream.avail_in > 0 && inflateReset(&stream) == Z_OK) {
      status = Z_OK;
    }
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) return false;
  body = std::move(out);
  return true;
}

}  // namespace ddbd::server::http
