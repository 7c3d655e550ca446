// Protocol-level behaviour of the front end (spec/limits.md §1): routing, error envelopes,
// standard headers.
#include "server/http/exchange.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "server/http/content_coding.h"
#include "server/http/sigv4.h"
#include "tests/server/server_test_util.h"

namespace ddbd::server {
namespace {

using testing::ServerHarness;

std::string HeaderOf(const http::HttpReply& reply, std::string_view name) {
  for (const auto& [key, value] : reply.headers) {
    if (key == name) return value;
  }
  return "";
}

http::HttpRequest Post(std::string target, std::string body) {
  http::HttpRequest request;
  request.method = "POST";
  request.path = "/";
  request.content_type = "application/x-amz-json-1.0";
  request.target = std::move(target);
  request.body = std::move(body);
  return request;
}

TEST(ExchangeTest, HealthCheckOnGet) {
  ServerHarness server;
  http::HttpRequest request;
  request.method = "GET";
  request.path = "/";
  auto reply = server.Raw(request);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "healthy: dynamodb.us-east-1.amazonaws.com ");
}

TEST(ExchangeTest, HealthCheckNamesTheHostCalled) {
  ServerHarness server;
  http::HttpRequest request;
  request.method = "GET";
  request.path = "/";
  request.host = "dynamodb.eu-west-3.amazonaws.com";
  EXPECT_EQ(server.Raw(request).body, "healthy: dynamodb.eu-west-3.amazonaws.com ");
  request.host = "localhost:8000";
  EXPECT_EQ(server.Raw(request).body, "healthy: localhost ");
  request.host = "[::1]:8000";
  EXPECT_EQ(server.Raw(request).body, "healthy: [::1] ");
}

TEST(ExchangeTest, OtherMethodsAreUnknownOperations) {
  ServerHarness server;
  http::HttpRequest request;
  request.method = "PUT";
  request.path = "/";
  auto reply = server.Raw(request);
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.body, "<UnknownOperationException/>\n");
}

TEST(ExchangeTest, WrongContentTypeWithBodyIs404) {
  ServerHarness server;
  auto request = Post("DynamoDB_20120810.ListTables", "{}");
  request.content_type = "text/plain";
  auto reply = server.Raw(request);
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.body, "<UnknownOperationException/>\n");
}

TEST(ExchangeTest, UnknownOrMissingTarget) {
  ServerHarness server;
  for (std::string target :
       {"", "DynamoDB_20120810.Nope", "Foo.ListTables", "DynamoDB_20111205.ListTables"}) {
    auto reply = server.Raw(Post(target, "{}"));
    EXPECT_EQ(reply.status, 400) << target;
    EXPECT_EQ(reply.body, R"({"__type":"com.amazon.coral.service#UnknownOperationException"})");
  }
}

TEST(ExchangeTest, MalformedJsonIsABareSerializationException) {
  ServerHarness server;
  for (std::string body : {"", "{", "[]", "null", "\"x\"", "{\"a\":}"}) {
    auto reply = server.Raw(Post("DynamoDB_20120810.ListTables", body));
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_EQ(reply.body, R"({"__type":"com.amazon.coral.service#SerializationException"})");
  }
}

TEST(ExchangeTest, WrongMemberTypeIsASerializationExceptionWithCapitalMessage) {
  ServerHarness server;
  auto reply = server.Call("DescribeTable", R"({"TableName": 123})");
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body, R"({"__type":"com.amazon.coral.service#SerializationException",)"
                        R"("Message":"NUMBER_VALUE cannot be converted to String"})");
  EXPECT_EQ(server.Call("DescribeTable", R"({"TableName": true})").Message(),
            "TRUE_VALUE cannot be converted to String");
  EXPECT_EQ(server.Call("DescribeTable", R"({"TableName": 1.5})").Message(),
            "DECIMAL_VALUE cannot be converted to String");
  EXPECT_EQ(server.Call("DescribeTable", R"({"TableName": {}})").Message(),
            "Start of structure or map found where not expected");
  EXPECT_EQ(server.Call("ListTables", R"({"Limit": "5"})").Message(),
            "STRING_VALUE cannot be converted to Long");
}

TEST(ExchangeTest, EveryReplyCarriesRequestIdAndCrc) {
  ServerHarness server;
  auto reply = server.Raw(Post("DynamoDB_20120810.ListTables", "{}"));
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.content_type, "application/x-amz-json-1.0");
  EXPECT_EQ(reply.body, R"({"TableNames":[]})");
  std::string id = HeaderOf(reply, "x-amzn-RequestId");
  EXPECT_EQ(id.size(), 52u);
  EXPECT_EQ(id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), std::string::npos);
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(reply.body.data()),
                    static_cast<uInt>(reply.body.size()));
  EXPECT_EQ(HeaderOf(reply, "x-amz-crc32"), std::to_string(crc));

  auto error = server.Raw(Post("DynamoDB_20120810.Nope", "{}"));
  crc = crc32(0L, reinterpret_cast<const Bytef*>(error.body.data()),
              static_cast<uInt>(error.body.size()));
  EXPECT_EQ(HeaderOf(error, "x-amz-crc32"), std::to_string(crc));
}

TEST(ExchangeTest, EchoesApplicationJson) {
  ServerHarness server;
  auto request = Post("DynamoDB_20120810.ListTables", "{}");
  request.content_type = "application/json; charset=utf-8";
  EXPECT_EQ(server.Raw(request).content_type, "application/json");
}

TEST(ExchangeTest, AcceptsGzipBodies) {
  ServerHarness server;
  std::string json = R"({"Limit": 5})";
  std::string compressed(256, '\0');
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  stream.next_in = reinterpret_cast<Bytef*>(json.data());
  stream.avail_in = static_cast<uInt>(json.size());
  stream.next_out = reinterpret_cast<Bytef*>(compressed.data());
  stream.avail_out = static_cast<uInt>(compressed.size());
  deflate(&stream, Z_FINISH);
  compressed.resize(stream.total_out);
  deflateEnd(&stream);
  auto request = Post("DynamoDB_20120810.ListTables", compressed);
  request.content_encoding = "gzip";
  auto reply = server.Raw(request);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, R"({"TableNames":[]})");

  auto broken = Post("DynamoDB_20120810.ListTables", "not gzip");
  broken.content_encoding = "gzip";
  EXPECT_EQ(server.Raw(broken).status, 500);
}

std::string Compress(std::string_view data, int window_bits) {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string Decompress(std::string_view data) {
  z_stream stream{};
  inflateInit2(&stream, 15 + 32);
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

TEST(ExchangeTest, AcceptsConcatenatedGzipMembers) {
  ServerHarness server;
  auto request = Post("DynamoDB_20120810.ListTables",
                      Compress(R"({"Limit")", 15 + 16) + Compress(R"(: 5})", 15 + 16));
  request.content_encoding = "gzip";
  auto reply = server.Raw(request);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, R"({"TableNames":[]})");

  auto trailing = Post("DynamoDB_20120810.ListTables", Compress("{}", 15 + 16) + "junk");
  trailing.content_encoding = "gzip";
  EXPECT_EQ(server.Raw(trailing).status, 500);
}

// What DynamoDB picks for each Accept-Encoding, as ScyllaDB Alternator's
// test_compressed_response.py recorded it against DynamoDB.
TEST(ContentCodingTest, FollowsAcceptEncodingAsDynamoDBDoes) {
  using http::ResponseCoding;
  const std::pair<std::string_view, ResponseCoding> cases[] = {
      {"", ResponseCoding::kIdentity},
      {"identity", ResponseCoding::kIdentity},
      {"br", ResponseCoding::kIdentity},
      {"x-gzip", ResponseCoding::kIdentity},
      {"gzip", ResponseCoding::kGzip},
      {"deflate", ResponseCoding::kDeflate},
      {"gzip, deflate", ResponseCoding::kGzip},
      {"br, identity, deflate, gzip", ResponseCoding::kDeflate},
      {"GZIP, identity", ResponseCoding::kGzip},
      {"dog, gzip ,, cat", ResponseCoding::kGzip},
      {"gzip;q=0.8, deflate;q=0.5", ResponseCoding::kGzip},
      {"br, gzip;q=0, deflate; q = 0.5 , identity;q=0", ResponseCoding::kDeflate},
      {"*", ResponseCoding::kGzip},
      {"*, deflate;q=0.5", ResponseCoding::kGzip},
      {"*, deflate", ResponseCoding::kDeflate},
      {"*, identity", ResponseCoding::kGzip},
      {"*, gzip;q=0.5", ResponseCoding::kDeflate},
      {"gzip ;q=0", ResponseCoding::kIdentity},
      {"identity;q=0", ResponseCoding::kIdentity},
      {"*;q=0", ResponseCoding::kIdentity},
      {"*;q=0.5,identity", ResponseCoding::kGzip},
      {"gzip;q=0.5,identity;q=0.8", ResponseCoding::kGzip},
      {"br;q=0.8,identity;q=0.5,*;q=0", ResponseCoding::kIdentity},
      {"\"gzip\"", ResponseCoding::kIdentity},
      {"gzip br", ResponseCoding::kIdentity},
      {"gzip:q=1", ResponseCoding::kIdentity},
      {"deflate;q=0.5, gzip;q=31", ResponseCoding::kGzip},
      {"gzip;q=31,deflate;q=51", ResponseCoding::kGzip},
      {"deflate;q=0.5, gzip;q=0.2", ResponseCoding::kDeflate},
      {"deflate;q=0.5, gzip;q=1;q=0.2", ResponseCoding::kGzip},
      {"deflate;q=0.5,gzip;q=0.", ResponseCoding::kDeflate},
      {"deflate;q=0.5,gzip;q=0.x", ResponseCoding::kGzip},
      {"deflate;q=-0.5,gzip;q=0.2", ResponseCoding::kGzip},
      {"gzip;nq=1;q=0 ", ResponseCoding::kIdentity},
      {"gzip;q=0, gzip;q=1, gzip;q=0", ResponseCoding::kGzip},
      {"br,identity;q=0.5,gzip;q=0.0001", ResponseCoding::kGzip},
  };
  for (const auto& [accept, expected] : cases) {
    EXPECT_EQ(http::ChooseResponseCoding(accept), expected) << accept;
  }
}

TEST(ExchangeTest, CompressesLargeBodiesAndTheCrcCoversTheBytesSent) {
  ServerHarness server;
  ASSERT_EQ(server
                .Call("CreateTable", R"({"TableName":"big","BillingMode":"PAY_PER_REQUEST",
      "KeySchema":[{"AttributeName":"p","KeyType":"HASH"}],
      "AttributeDefinitions":[{"AttributeName":"p","AttributeType":"S"}]})")
                .status,
            200);
  const std::string value(http::kCompressionThreshold, 'x');
  ASSERT_EQ(server
                .Call("PutItem",
                      R"({"TableName":"big","Item":{"p":{"S":"k"},"x":{"S":")" + value + R"("}}})")
                .status,
            200);
  auto get = Post("DynamoDB_20120810.GetItem", R"({"TableName":"big","Key":{"p":{"S":"k"}}})");
  const std::string plain = server.Raw(get).body;
  ASSERT_GE(plain.size(), http::kCompressionThreshold);

  for (auto [accept, window_bits] : {std::pair{"gzip", 15 + 16}, std::pair{"deflate", 15}}) {
    get.accept_encoding = accept;
    auto reply = server.Raw(get);
    EXPECT_EQ(HeaderOf(reply, "Content-Encoding"), accept);
    EXPECT_LT(reply.body.size(), plain.size() / 10);
    EXPECT_EQ(Decompress(reply.body), plain);
    EXPECT_EQ(reply.body.substr(0, 2), Compress(plain, window_bits).substr(0, 2));  // format
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(reply.body.data()),
                      static_cast<uInt>(reply.body.size()));
    EXPECT_EQ(HeaderOf(reply, "x-amz-crc32"), std::to_string(crc));
  }
  // Small bodies go as they are, whatever the client accepts.
  auto small = Post("DynamoDB_20120810.ListTables", "{}");
  small.accept_encoding = "gzip";
  auto reply = server.Raw(small);
  EXPECT_EQ(reply.body, R"({"TableNames":["big"]})");
  EXPECT_EQ(HeaderOf(reply, "Content-Encoding"), "");
}

TEST(ExchangeTest, OversizedBodyIs413) {
  ServerHarness server;
  auto request = Post("DynamoDB_20120810.ListTables", std::string(16 * 1024 * 1024 + 1, ' '));
  EXPECT_EQ(server.Raw(request).status, 413);
}

TEST(ExchangeTest, MissingAuthenticationWhenRequired) {
  ServiceOptions options;
  options.require_authentication = true;
  ServerHarness server(options);
  auto reply = server.Call("ListTables", "{}", "");
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body,
            R"({"__type":"com.amazon.coral.service#MissingAuthenticationTokenException",)"
            R"("message":"Request is missing Authentication Token"})");
  EXPECT_EQ(server.Call("ListTables", "{}").status, 200);
}

// With --credentials: a signed request is served; what fails verification is answered
// before the body is read as JSON (a broken body still gets the signature's error).
http::HttpRequest SignedPost(std::string target, std::string body, std::string_view secret) {
  http::HttpRequest request = Post(std::move(target), std::move(body));
  const std::string timestamp = http::sigv4::FormatTimestamp(std::chrono::system_clock::now());
  request.host = "localhost:8000";
  request.headers = {{"Host", request.host},
                     {"Content-Type", request.content_type},
                     {"X-Amz-Date", timestamp},
                     {"X-Amz-Target", request.target}};
  std::vector<std::string_view> names = {"content-type", "host", "x-amz-date", "x-amz-target"};
  request.authorization = http::sigv4::Sign(
      http::sigv4::RequestView{request.method, request.path, request.headers, request.body}, names,
      "AKIDTEST", secret, "eu-west-1", timestamp);
  request.headers.emplace_back("Authorization", request.authorization);
  return request;
}

TEST(ExchangeTest, VerifiesSignaturesWithCredentials) {
  ServiceOptions options;
  auto credentials = Credentials::Parse("AKIDTEST s3cret\n");
  ASSERT_TRUE(credentials.ok());
  options.credentials = std::make_shared<const Credentials>(std::move(credentials).value());
  ServerHarness server(options);
  auto reply = server.Raw(SignedPost("DynamoDB_20120810.ListTables", "{}", "s3cret"));
  EXPECT_EQ(reply.status, 200) << reply.body;

  reply = server.Raw(SignedPost("DynamoDB_20120810.ListTables", "not json", "wrong"));
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("com.amazon.coral.service#InvalidSignatureException"),
            std::string::npos)
      << reply.body;
  // The unknown operation is reported first, as DynamoDB does.
  reply = server.Raw(SignedPost("DynamoDB_20120810.Nope", "{}", "wrong"));
  EXPECT_NE(reply.body.find("UnknownOperationException"), std::string::npos) << reply.body;
  EXPECT_EQ(server.Call("ListTables", "{}", "").ErrorName(), "MissingAuthenticationTokenException");
  EXPECT_EQ(server.Call("ListTables", "{}").ErrorName(), "IncompleteSignatureException");
  // The health check stays unauthenticated.
  http::HttpRequest health;
  health.method = "GET";
  health.path = "/";
  EXPECT_EQ(server.Raw(health).status, 200);
}

TEST(ExchangeTest, CorsPreflight) {
  ServerHarness server;
  http::HttpRequest request;
  request.method = "OPTIONS";
  request.path = "/";
  request.origin = "http://localhost:3000";
  request.access_control_request_headers = "content-type,x-amz-target";
  request.access_control_request_method = "POST";
  auto reply = server.Raw(request);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "");
  EXPECT_EQ(HeaderOf(reply, "Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(HeaderOf(reply, "Access-Control-Allow-Headers"), "content-type,x-amz-target");
  EXPECT_EQ(HeaderOf(reply, "Access-Control-Allow-Methods"), "POST");
  EXPECT_EQ(HeaderOf(reply, "Access-Control-Max-Age"), "172800");
  EXPECT_EQ(HeaderOf(reply, "Access-Control-Expose-Headers"),
            "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date");
}

TEST(ExchangeTest, CorsRepliesExposeDynamoDBsHeaders) {
  ServerHarness server;
  auto request = Post("DynamoDB_20120810.ListTables", "{}");
  request.origin = "http://localhost:3000";
  auto reply = server.Raw(request);
  EXPECT_EQ(HeaderOf(reply, "Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(HeaderOf(reply, "Access-Control-Expose-Headers"),
            "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date");
  EXPECT_EQ(HeaderOf(reply, "Access-Control-Max-Age"), "");
  EXPECT_EQ(HeaderOf(server.Raw(Post("DynamoDB_20120810.ListTables", "{}")),
                     "Access-Control-Expose-Headers"),
            "");
}

TEST(ServiceTest, ParsesCredentialScope) {
  auto scope = ParseCredentialScope(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/eu-west-2/dynamodb/aws4_request, "
      "SignedHeaders=host;x-amz-date, "
      "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
  EXPECT_EQ(scope.access_key, "AKIDEXAMPLE");
  EXPECT_EQ(scope.region, "eu-west-2");
  EXPECT_EQ(ParseCredentialScope("").access_key, "");
}

}  // namespace
}  // namespace ddbd::server
