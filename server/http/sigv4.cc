// SigV4 verification. The messages are DynamoDB's (captured from the service by dynalite and
// others); the few ddbd had to word itself are marked "unverified". Pinned by:
// tests/server/sigv4_test.cc and tests/integration/python/test_auth.py.
#include "server/http/sigv4.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <ctime>

namespace ddbd::server::http::sigv4 {
namespace {

constexpr std::string_view kTerminator = "aws4_request";
constexpr std::string_view kSignatureMismatch =
    "The request signature we calculated does not match the signature you provided. Check "
    "your AWS Secret Access Key and signing method. Consult the service documentation for "
    "details.";

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view text) {
  const size_t start = text.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  return text.substr(start, text.find_last_not_of(" \t") - start + 1);
}

const std::string* FindHeader(std::span<const Header> headers, std::string_view name) {
  for (const Header& header : headers) {
    if (IEquals(header.first, name)) return &header.second;
  }
  return nullptr;
}

std::string Hex(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return out;
}

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &size);
  return std::string(reinterpret_cast<const char*>(out), size);
}

bool Unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::pair<std::string_view, std::string_view> SplitTarget(std::string_view target) {
  const size_t question = target.find('?');
  if (question == std::string_view::npos) return {target, {}};
  return {target.substr(0, question), target.substr(question + 1)};
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

Error BadDate(std::string_view got) {
  return Error::IncompleteSignature("Date must be in ISO-8601 'basic format'. Got '" +
                                    std::string(got) +
                                    "'. See http://en.wikipedia.org/wiki/ISO_8601");
}

// RFC 7231's IMF-fixdate, the form of the Date header ("Sun, 30 Aug 2015 12:36:00 GMT").
std::optional<Clock::time_point> ParseHttpDate(std::string_view text) {
  std::tm tm{};
  const std::string copy(text);
  const char* end = strptime(copy.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end != '\0') return std::nullopt;
  return Clock::from_time_t(timegm(&tm));
}

Result<SignedRequest> ParseAuthorizationHeader(const RequestView& request,
                                               std::string_view authorization) {
  SignedRequest signed_request;
  const size_t space = authorization.find(' ');
  signed_request.algorithm = std::string(authorization.substr(0, space));
  std::optional<std::string> credential, signed_headers, signature;
  if (space != std::string_view::npos) {
    for (std::string_view piece : Split(authorization.substr(space + 1), ',')) {
      piece = Trim(piece);
      if (piece.empty()) continue;
      const size_t equals = piece.find('=');
      if (equals == std::string_view::npos) {
        return Error::IncompleteSignature(
            "'" + std::string(piece) +
            "' not a valid key=value pair (missing equal-sign) in Authorization header: '" +
            std::string(authorization) + "'.");
      }
      const std::string_view name = piece.substr(0, equals);
      std::string value(Trim(piece.substr(equals + 1)));
      if (name == "Credential") credential = std::move(value);
      if (name == "SignedHeaders") signed_headers = std::move(value);
      if (name == "Signature") signature = std::move(value);
    }
  }
  const std::string* amz_date = FindHeader(request.headers, "x-amz-date");
  const std::string* http_date = amz_date ? nullptr : FindHeader(request.headers, "date");

  // SignedHeaders may be empty here; the Host check below reports that.
  std::string missing;
  if (!credential || credential->empty()) {
    missing += "Authorization header requires 'Credential' parameter. ";
  }
  if (!signature || signature->empty()) {
    missing += "Authorization header requires 'Signature' parameter. ";
  }
  if (!signed_headers) missing += "Authorization header requires 'SignedHeaders' parameter. ";
  if (!amz_date && !http_date) {
    missing +=
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' "
        "header. ";
  }
  if (!missing.empty()) {
    return Error::IncompleteSignature(missing + "Authorization=" + std::string(authorization));
  }
  signed_request.credential = std::move(*credential);
  signed_request.signed_headers = std::move(*signed_headers);
  signed_request.signature = std::move(*signature);
  if (amz_date) {
    auto time = ParseTimestamp(*amz_date);
    if (!time) return BadDate(*amz_date);
    signed_request.time = *time;
    signed_request.timestamp = *amz_date;
  } else {
    auto time = ParseHttpDate(*http_date);
    if (!time) return BadDate(*http_date);
    signed_request.time = *time;
    signed_request.timestamp = FormatTimestamp(*time);
  }
  if (const std::string* token = FindHeader(request.headers, "x-amz-security-token")) {
    signed_request.security_token = *token;
  }
  return signed_request;
}

constexpr std::string_view kQueryParameters[] = {
    "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date"};

// Presigned requests. The texts for missing and malformed parameters are unverified against
// DynamoDB: Coral's query-string wording, and S3's for X-Amz-Expires.
Result<SignedRequest> ParsePresignedQuery(
    const std::vector<std::pair<std::string, std::string>>& parameters) {
  auto find = [&](std::string_view name) -> const std::string* {
    for (const auto& [key, value] : parameters) {
      if (key == name) return &value;
    }
    return nullptr;
  };
  std::string missing;
  for (std::string_view name : kQueryParameters) {
    const std::string* value = find(name);
    if (!value || (value->empty() && name != "X-Amz-SignedHeaders")) {
      if (!missing.empty()) missing += " ";
      missing += "AWS query-string parameters must include '" + std::string(name) +
                 "'. Re-examine the query-string parameters.";
    }
  }
  if (!missing.empty()) return Error::IncompleteSignature(missing);

  SignedRequest signed_request;
  signed_request.presigned = true;
  signed_request.algorithm = *find("X-Amz-Algorithm");
  signed_request.credential = *find("X-Amz-Credential");
  signed_request.signature = *find("X-Amz-Signature");
  signed_request.signed_headers = *find("X-Amz-SignedHeaders");
  signed_request.timestamp = *find("X-Amz-Date");
  auto time = ParseTimestamp(signed_request.timestamp);
  if (!time) return BadDate(signed_request.timestamp);
  signed_request.time = *time;
  if (const std::string* expires = find("X-Amz-Expires")) {
    int64_t seconds = 0;
    auto [end, ec] = std::from_chars(expires->data(), expires->data() + expires->size(), seconds);
    if (ec != std::errc() || end != expires->data() + expires->size()) {
      return Error::IncompleteSignature("X-Amz-Expires should be a number");
    }
    if (seconds < 0) return Error::IncompleteSignature("X-Amz-Expires must be non-negative");
    if (seconds > kMaxExpiresSeconds) {
      return Error::IncompleteSignature(
          "X-Amz-Expires must be less than a week (in seconds) that is 604800");
    }
    signed_request.expires = seconds;
  }
  if (const std::string* token = find("X-Amz-Security-Token")) {
    signed_request.security_token = *token;
  }
  return signed_request;
}

Status CheckTime(const SignedRequest& signed_request, Clock::time_point now) {
  const std::string& date = signed_request.timestamp;
  if (signed_request.time > now + kAllowedSkew) {
    return Error::InvalidSignature("Signature not yet current: " + date + " is still later than " +
                                   FormatTimestamp(now + kAllowedSkew) + " (" +
                                   FormatTimestamp(now) + " + 15 min.)");
  }
  if (signed_request.presigned && signed_request.expires) {
    // ddbd's wording (unverified): DynamoDB's phrase, with the request's own validity period.
    const auto valid = std::chrono::seconds(*signed_request.expires);
    if (signed_request.time + valid < now) {
      return Error::InvalidSignature("Signature expired: " + date + " is now earlier than " +
                                     FormatTimestamp(now - valid) + " (" + FormatTimestamp(now) +
                                     " - " + std::to_string(*signed_request.expires) + " sec.)");
    }
    return OkStatus();
  }
  if (signed_request.time < now - kAllowedSkew) {
    return Error::InvalidSignature("Signature expired: " + date + " is now earlier than " +
                                   FormatTimestamp(now - kAllowedSkew) + " (" +
                                   FormatTimestamp(now) + " - 15 min.)");
  }
  return OkStatus();
}

struct Scope {
  std::string_view access_key, date, region, service, terminator;
};

Result<Scope> ParseCredential(const SignedRequest& signed_request) {
  std::string_view credential = signed_request.credential;
  while (!credential.empty() && credential.back() == '/') credential.remove_suffix(1);
  std::vector<std::string_view> parts = Split(credential, '/');
  if (parts.size() != 5) {
    return Error::IncompleteSignature(
        "Credential must have exactly 5 slash-delimited elements, e.g. "
        "keyid/date/region/service/term, got '" +
        signed_request.credential + "'");
  }
  Scope scope{parts[0], parts[1], parts[2], parts[3], parts[4]};
  // Any region is valid here: local clients sign for "local", "localhost" and the like.
  std::string problems;
  if (scope.region.empty()) problems += "Credential should be scoped to a valid region, not ''. ";
  if (scope.service != kService) {
    problems += "Credential should be scoped to correct service: '" + std::string(kService) + "'. ";
  }
  if (scope.terminator != kTerminator) {
    problems += "Credential should be scoped with a valid terminator: 'aws4_request', not '" +
                std::string(scope.terminator) + "'. ";
  }
  const std::string_view day = std::string_view(signed_request.timestamp).substr(0, 8);
  if (scope.date != day) {
    problems +=
        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date "
        "from HTTP: '" +
        std::string(scope.date) + "' != '" + std::string(day) + "', from '" +
        signed_request.timestamp + "'.";
  }
  if (!problems.empty()) return Error::InvalidSignature(problems);
  return scope;
}

bool SignsHost(std::string_view signed_headers) {
  for (std::string_view name : Split(signed_headers, ';')) {
    if (IEquals(name, "host")) return true;
  }
  return false;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

// AWS's UriEncode: every byte but the unreserved ones as %XY (upper-case hex).
std::string UriEncode(std::string_view text, bool keep_slash) {
  std::string out;
  static constexpr char kDigits[] = "0123456789ABCDEF";
  for (unsigned char c : text) {
    if (Unreserved(c) || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    }
  }
  return out;
}

// %XY escapes decoded; '+' stays a plus, as AWS reads query strings.
std::string PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The query's parameters, decoded, in request order.
std::vector<std::pair<std::string, std::string>> QueryParameters(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> parameters;
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view piece = query.substr(start, end - start);
    if (!piece.empty()) {
      const size_t equals = piece.find('=');
      parameters.emplace_back(
          PercentDecode(piece.substr(0, equals)),
          equals == std::string_view::npos ? "" : PercentDecode(piece.substr(equals + 1)));
    }
    start = end + 1;
  }
  return parameters;
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return Hex(digest, sizeof digest);
}

std::string FormatTimestamp(Clock::time_point time) {
  const std::time_t seconds = Clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[32];
  const size_t size = std::strftime(buffer, sizeof buffer, "%Y%m%dT%H%M%SZ", &tm);
  return std::string(buffer, size);
}

std::optional<Clock::time_point> ParseTimestamp(std::string_view text) {
  if (text.size() != 16 || text[8] != 'T' || text[15] != 'Z') return std::nullopt;
  auto number = [&](size_t at, size_t digits) -> int {
    int value = 0;
    for (size_t i = at; i < at + digits; ++i) {
      if (text[i] < '0' || text[i] > '9') return -1;
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  std::tm tm{};
  tm.tm_year = number(0, 4) - 1900;
  tm.tm_mon = number(4, 2) - 1;
  tm.tm_mday = number(6, 2);
  tm.tm_hour = number(9, 2);
  tm.tm_min = number(11, 2);
  tm.tm_sec = number(13, 2);
  if (tm.tm_year < 0 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
      tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 || tm.tm_sec < 0 ||
      tm.tm_sec > 60) {
    return std::nullopt;
  }
  return Clock::from_time_t(timegm(&tm));
}

bool HasSignature(const RequestView& request) {
  if (FindHeader(request.headers, "authorization")) return true;
  const std::string_view query = SplitTarget(request.target).second;
  if (query.empty()) return false;
  for (const auto& [name, value] : QueryParameters(query)) {
    if (std::find(std::begin(kQueryParameters), std::end(kQueryParameters), name) !=
        std::end(kQueryParameters)) {
      return true;
    }
  }
  return false;
}

Result<SignedRequest> ParseSignature(const RequestView& request) {
  if (const std::string* authorization = FindHeader(request.headers, "authorization")) {
    // Another scheme (SigV2's "AWS AKID:…", Basic, …) counts as no token at all.
    const std::string_view value = Trim(*authorization);
    if (value.substr(0, 5) != "AWS4-") return Error::MissingAuthenticationToken();
    return ParseAuthorizationHeader(request, value);
  }
  if (!HasSignature(request)) return Error::MissingAuthenticationToken();
  return ParsePresignedQuery(QueryParameters(SplitTarget(request.target).second));
}

std::string CanonicalUri(std::string_view path) {
  std::vector<std::string_view> segments;
  for (std::string_view segment : Split(path, '/')) {
    if (segment.empty() || segment == ".") continue;
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
      continue;
    }
    segments.push_back(segment);
  }
  std::string normalized = "/";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) normalized += '/';
    normalized += segments[i];
  }
  if (!segments.empty() && !path.empty() && path.back() == '/') normalized += '/';
  // Non-S3 services encode the path as sent once more (AWS: "URI-encode each segment twice").
  std::string out;
  out += UriEncode(normalized, true);
  return out;
}

std::string CanonicalQuery(std::string_view query, bool drop_signature) {
  std::vector<std::pair<std::string, std::string>> encoded;
  for (const auto& [name, value] : QueryParameters(query)) {
    if (drop_signature && name == "X-Amz-Signature") continue;
    std::pair<std::string, std::string> pair;
    pair.first = UriEncode(name, false);
    pair.second = UriEncode(value, false);
    encoded.push_back(std::move(pair));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (i > 0) out += '&';
    out += encoded[i].first;
    out += '=';
    out += encoded[i].second;
  }
  return out;
}

std::string CanonicalHeaders(std::span<const Header> headers,
                             std::span<const std::string_view> signed_names) {
  std::string out;
  for (std::string_view name : signed_names) {
    out += Lower(name);
    out += ':';
    bool first = true;
    for (const Header& header : headers) {
      if (!IEquals(header.first, name)) continue;
      if (!first) out += ',';
      first = false;
      // Trimmed, with every run of whitespace folded to one space.
      bool pending_space = false;
      for (char c : Trim(header.second)) {
        if (c == ' ' || c == '\t') {
          pending_space = true;
          continue;
        }
        if (pending_space) out += ' ';
        pending_space = false;
        out += c;
      }
    }
    out += '\n';
  }
  return out;
}

std::string CanonicalRequest(const RequestView& request, const SignedRequest& signed_request,
                             std::string_view payload_hash) {
  const auto [path, query] = SplitTarget(request.target);
  const std::string signed_headers = Lower(signed_request.signed_headers);
  std::vector<std::string_view> names;
  for (std::string_view name : Split(signed_headers, ';')) {
    if (!name.empty()) names.push_back(name);
  }
  std::string out(request.method);
  out += '\n';
  out += signed_request.s3 ? std::string(path.empty() ? "/" : path) : CanonicalUri(path);
  out += '\n';
  out += CanonicalQuery(query, signed_request.presigned);
  out += '\n';
  out += CanonicalHeaders(request.headers, names);
  out += '\n';
  out += signed_headers;
  out += '\n';
  out += payload_hash;
  return out;
}

std::string StringToSign(std::string_view timestamp, std::string_view scope,
                         std::string_view canonical_request) {
  std::string out(kAlgorithm);
  out += '\n';
  out += timestamp;
  out += '\n';
  out += scope;
  out += '\n';
  out += Sha256Hex(canonical_request);
  return out;
}

std::string SigningKey(std::string_view secret, std::string_view date, std::string_view region,
                       std::string_view service) {
  std::string key = Hmac("AWS4" + std::string(secret), date);
  key = Hmac(key, region);
  key = Hmac(key, service);
  return Hmac(key, kTerminator);
}

std::string SignatureOf(std::string_view signing_key, std::string_view string_to_sign) {
  const std::string mac = Hmac(signing_key, string_to_sign);
  return Hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
}

Result<Identity> Verify(const RequestView& request, const Credentials& credentials,
                        Clock::time_point now) {
  DDBD_ASSIGN_OR_RETURN(SignedRequest signed_request, ParseSignature(request));
  DDBD_RETURN_IF_ERROR(CheckTime(signed_request, now));
  if (!SignsHost(signed_request.signed_headers)) {
    return Error::InvalidSignature("'Host' must be a 'SignedHeader' in the AWS Authorization.");
  }
  if (signed_request.algorithm != kAlgorithm) {
    return Error::IncompleteSignature("Unsupported AWS 'algorithm': '" + signed_request.algorithm +
                                      "' (only AWS4-HMAC-SHA256 for now). ");
  }
  DDBD_ASSIGN_OR_RETURN(Scope scope, ParseCredential(signed_request));
  const Credential* credential = credentials.Find(scope.access_key);
  if (!credential) {
    return Error::UnrecognizedClient("The security token included in the request is invalid.");
  }
  const std::string canonical = CanonicalRequest(request, signed_request, Sha256Hex(request.body));
  const std::string credential_scope = std::string(scope.date) + "/" + std::string(scope.region) +
                                       "/" + std::string(scope.service) + "/" +
                                       std::string(scope.terminator);
  const std::string expected = SignatureOf(
      SigningKey(credential->secret_access_key, scope.date, scope.region, scope.service),
      StringToSign(signed_request.timestamp, credential_scope, canonical));
  if (!ConstantTimeEquals(expected, signed_request.signature)) {
    return Error::InvalidSignature(std::string(kSignatureMismatch));
  }
  if (!credential->session_token.empty() &&
      !ConstantTimeEquals(credential->session_token, signed_request.security_token)) {
    // Without the final period, as DynamoDB words it for a token.
    return Error::UnrecognizedClient("The security token included in the request is invalid");
  }
  return Identity{std::string(scope.access_key), std::string(scope.region)};
}

std::string Sign(const RequestView& request, std::span<const std::string_view> signed_names,
                 std::string_view access_key, std::string_view secret, std::string_view region,
                 std::string_view timestamp, std::string_view service) {
  const std::string_view date = timestamp.substr(0, 8);
  const std::string scope = std::string(date) + "/" + std::string(region) + "/" +
                            std::string(service) + "/" + std::string(kTerminator);
  SignedRequest signed_request;
  signed_request.timestamp = std::string(timestamp);
  signed_request.s3 = service == "s3";
  for (size_t i = 0; i < signed_names.size(); ++i) {
    if (i > 0) signed_request.signed_headers += ';';
    signed_request.signed_headers += signed_names[i];
  }
  const std::string canonical = CanonicalRequest(request, signed_request, Sha256Hex(request.body));
  const std::string signature = SignatureOf(SigningKey(secret, date, region, service),
                                            StringToSign(timestamp, scope, canonical));
  return std::string(kAlgorithm) + " Credential=" + std::string(access_key) + "/" + scope +
         ", SignedHeaders=" + signed_request.signed_headers + ", Signature=" + signature;
}

}  // namespace ddbd::server::http::sigv4
