// An S3 client just large enough for the local S3's four calls.
#include "server/s3_endpoint.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdlib>

#include "server/http/sigv4.h"

namespace ddbd::server {
namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = boost::asio::ip::tcp;

constexpr auto kTimeout = std::chrono::seconds(60);
// Objects are read whole (as the directory store reads them); larger ones are refused.
constexpr uint64_t kMaxObjectBytes = uint64_t{1} << 30;

struct Reply {
  unsigned status = 0;
  std::string body;
};

std::string XmlUnescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
      continue;
    }
    const size_t end = text.find(';', i);
    const std::string_view entity = text.substr(i + 1, end - i - 1);
    if (entity == "amp")
      out.push_back('&');
    else if (entity == "lt")
      out.push_back('<');
    else if (entity == "gt")
      out.push_back('>');
    else if (entity == "quot")
      out.push_back('"');
    else if (entity == "apos")
      out.push_back('\'');
    else if (entity.starts_with("#x"))
      out.push_back(static_cast<char>(std::stoi(std::string(entity.substr(2)), nullptr, 16)));
    else if (entity.starts_with("#"))
      out.push_back(static_cast<char>(std::stoi(std::string(entity.substr(1)))));
    if (end == std::string_view::npos) break;
    i = end;
  }
  return out;
}

// The text of each <tag>…</tag> in `xml`, in order.
std::vector<std::string_view> Elements(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> found;
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  for (size_t at = xml.find(open); at != std::string_view::npos; at = xml.find(open, at)) {
    const size_t begin = at + open.size();
    const size_t end = xml.find(close, begin);
    if (end == std::string_view::npos) break;
    found.push_back(xml.substr(begin, end - begin));
    at = end + close.size();
  }
  return found;
}

class S3EndpointStore final : public objects::ObjectStore {
 public:
  explicit S3EndpointStore(S3Endpoint endpoint) : endpoint_(std::move(endpoint)) {}

  Result<bool> HasBucket(std::string_view bucket) override {
    DDBD_ASSIGN_OR_RETURN(Reply reply, Call(bhttp::verb::head, BucketPath(bucket), ""));
    if (reply.status == 200) return true;
    if (reply.status == 404) return false;
    return Failure("HeadBucket", reply);
  }

  Status Put(std::string_view bucket, std::string_view key, std::string_view bytes) override {
    DDBD_RETURN_IF_ERROR(objects::CheckObjectKey(key));
    DDBD_ASSIGN_OR_RETURN(Reply reply, Call(bhttp::verb::put, ObjectPath(bucket, key), bytes));
    if (reply.status == 200) return OkStatus();
    return Failure("PutObject", reply);
  }

  Result<std::string> Get(std::string_view bucket, std::string_view key) override {
    DDBD_ASSIGN_OR_RETURN(Reply reply, Call(bhttp::verb::get, ObjectPath(bucket, key), ""));
    if (reply.status == 200) return std::move(reply.body);
    return Failure("GetObject", reply);
  }

  Result<std::vector<objects::ObjectEntry>> List(std::string_view bucket,
                                                 std::string_view prefix) override {
    std::vector<objects::ObjectEntry> entries;
    std::string token;
    do {
      std::string target =
          BucketPath(bucket) + "?list-type=2&prefix=" + http::sigv4::UriEncode(prefix, false);
      if (!token.empty()) target += "&continuation-token=" + http::sigv4::UriEncode(token, false);
      DDBD_ASSIGN_OR_RETURN(Reply reply, Call(bhttp::verb::get, target, ""));
      if (reply.status == 404) return entries;  // no bucket: nothing in it
      if (reply.status != 200) return Failure("ListObjectsV2", reply);
      for (std::string_view contents : Elements(reply.body, "Contents")) {
        const auto keys = Elements(contents, "Key");
        const auto sizes = Elements(contents, "Size");
        if (keys.empty()) continue;
        entries.push_back(
            {XmlUnescape(keys[0]),
             sizes.empty() ? 0 : std::strtoull(std::string(sizes[0]).c_str(), nullptr, 10)});
      }
      const auto truncated = Elements(reply.body, "IsTruncated");
      const auto next = Elements(reply.body, "NextContinuationToken");
      token =
          !truncated.empty() && truncated[0] == "true" && !next.empty() ? XmlUnescape(next[0]) : "";
    } while (!token.empty());
    return entries;
  }

  std::string Describe() const override {
    return "endpoint http://" + endpoint_.host + ":" + endpoint_.port + endpoint_.base_path;
  }

 private:
  std::string BucketPath(std::string_view bucket) const {
    return endpoint_.base_path + "/" + http::sigv4::UriEncode(bucket, false);
  }
  std::string ObjectPath(std::string_view bucket, std::string_view key) const {
    return BucketPath(bucket) + "/" + http::sigv4::UriEncode(key, true);
  }

  // S3's error, in DynamoDB's words for it: a missing bucket or object is ResourceNotFound.
  static Error Failure(std::string_view call, const Reply& reply) {
    const auto codes = Elements(reply.body, "Code");
    const auto messages = Elements(reply.body, "Message");
    const std::string code = codes.empty() ? std::to_string(reply.status) : std::string(codes[0]);
    std::string message =
        (messages.empty() ? "S3 " + std::string(call) + " failed" : XmlUnescape(messages[0])) +
        " (Service: Amazon S3; Status Code: " + std::to_string(reply.status) +
        "; Error Code: " + code + ")";
    if (reply.status == 404) return Error::ResourceNotFound(std::move(message));
    return Error::Internal(std::move(message));
  }

  Result<Reply> Call(bhttp::verb verb, const std::string& target, std::string_view body) {
    try {
      boost::asio::io_context io;
      tcp::resolver resolver(io);
      beast::tcp_stream stream(io);
      stream.expires_after(kTimeout);
      stream.connect(resolver.resolve(endpoint_.host, endpoint_.port));
      bhttp::request<bhttp::string_body> request{verb, target, 11};
      Sign(request, body);
      request.body() = std::string(body);
      request.prepare_payload();
      bhttp::write(stream, request);
      beast::flat_buffer buffer;
      bhttp::response_parser<bhttp::string_body> parser;
      parser.body_limit(kMaxObjectBytes);
      if (verb == bhttp::verb::head) parser.skip(true);
      bhttp::read(stream, buffer, parser);
      beast::error_code ignored;
      stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
      return Reply{parser.get().result_int(), std::move(parser.get().body())};
    } catch (const std::exception& e) {
      return Error::Internal("S3 endpoint " + Describe() + ": " + e.what());
    }
  }

  void Sign(bhttp::request<bhttp::string_body>& request, std::string_view body) const {
    const std::string host = endpoint_.host + (endpoint_.port == "80" ? "" : ":" + endpoint_.port);
    const std::string timestamp = http::sigv4::FormatTimestamp(http::sigv4::Clock::now());
    std::vector<http::sigv4::Header> headers = {
        {"host", host},
        {"x-amz-content-sha256", http::sigv4::Sha256Hex(body)},
        {"x-amz-date", timestamp}};
    std::vector<std::string_view> names = {"host", "x-amz-content-sha256", "x-amz-date"};
    if (!endpoint_.session_token.empty()) {
      headers.emplace_back("x-amz-security-token", endpoint_.session_token);
      names.push_back("x-amz-security-token");
    }
    const std::string target(request.target());
    const std::string authorization = http::sigv4::Sign(
        {std::string_view(request.method_string()), target, headers, body}, names,
        endpoint_.access_key, endpoint_.secret_key, endpoint_.region, timestamp, "s3");
    for (const auto& [name, value] : headers) request.set(name, value);
    request.set(bhttp::field::authorization, authorization);
  }

  S3Endpoint endpoint_;
};

}  // namespace

Result<S3Endpoint> ParseS3Endpoint(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) {
    return Error::Validation("--s3-endpoint must be an http:// URL (https is not spoken)");
  }
  url.remove_prefix(kScheme.size());
  S3Endpoint endpoint;
  const size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = url.substr(slash);
    while (path.ends_with('/')) path.remove_suffix(1);
    endpoint.base_path = std::string(path);
  }
  const size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos) {
    endpoint.port = std::string(authority.substr(colon + 1));
    authority = authority.substr(0, colon);
  }
  if (authority.empty() || endpoint.port.empty() ||
      endpoint.port.find_first_not_of("0123456789") != std::string::npos) {
    return Error::Validation("--s3-endpoint needs a host and a numeric port: http://host:port");
  }
  endpoint.host = std::string(authority);
  return endpoint;
}

void ReadS3Credentials(S3Endpoint& endpoint) {
  auto env = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  };
  endpoint.access_key = env("AWS_ACCESS_KEY_ID");
  endpoint.secret_key = env("AWS_SECRET_ACCESS_KEY");
  endpoint.session_token = env("AWS_SESSION_TOKEN");
  const std::string region =
      !env("AWS_REGION").empty() ? env("AWS_REGION") : env("AWS_DEFAULT_REGION");
  if (!region.empty()) endpoint.region = region;
}

std::unique_ptr<objects::ObjectStore> OpenS3Endpoint(S3Endpoint endpoint) {
  return std::make_unique<S3EndpointStore>(std::move(endpoint));
}

}  // namespace ddbd::server
