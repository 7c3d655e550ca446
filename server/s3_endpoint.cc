// An S3 client just large enough for the local S3's four calls.
#include "server/s3_endpoint.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "server/http/sigv4.h"

namespace ddbd::server {
namespace {

// Objects are read whole (as the directory store reads them); larger ones are refused.
constexpr uint64_t kMaxObjectBytes = uint64_t{1} << 30;

using Reply = HttpReply;

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
    DDBD_ASSIGN_OR_RETURN(Reply reply, Call("HEAD", BucketPath(bucket), ""));
    if (reply.status == 200) return true;
    if (reply.status == 404) return false;
    return Failure("HeadBucket", reply);
  }

  Status Put(std::string_view bucket, std::string_view key, std::string_view bytes) override {
    DDBD_RETURN_IF_ERROR(objects::CheckObjectKey(key));
    DDBD_ASSIGN_OR_RETURN(Reply reply, Call("PUT", ObjectPath(bucket, key), bytes));
    if (reply.status == 200) return OkStatus();
    return Failure("PutObject", reply);
  }

  Result<std::string> Get(std::string_view bucket, std::string_view key) override {
    DDBD_ASSIGN_OR_RETURN(Reply reply, Call("GET", ObjectPath(bucket, key), ""));
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
      DDBD_ASSIGN_OR_RETURN(Reply reply, Call("GET", target, ""));
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

  std::string Describe() const override { return "endpoint " + endpoint_.Describe(); }

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

  Result<Reply> Call(std::string_view method, const std::string& target, std::string_view body) {
    Result<HttpReply> reply =
        CallSigned(endpoint_, "s3", {method, target, {}, body, kMaxObjectBytes});
    if (!reply.ok()) {
      return Error::Internal("S3 endpoint " + Describe() + ": " + reply.error().message());
    }
    return std::move(reply).value();
  }

  S3Endpoint endpoint_;
};

}  // namespace

std::unique_ptr<objects::ObjectStore> OpenS3Endpoint(S3Endpoint endpoint) {
  return std::make_unique<S3EndpointStore>(std::move(endpoint));
}

}  // namespace ddbd::server
