// Protocol-level behaviour of the front end (spec/limits.md §1): routing, error envelopes,
// standard headers.
#include "server/http/exchange.h"

#include <gtest/gtest.h>
#include <zlib.h>

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
  for (std::string target : {"", "DynamoDB_20120810.Nope", "Foo.ListTables",
                             "DynamoDB_20111205.ListTables"}) {
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
  EXPECT_EQ(reply.body,
            R"({"__type":"com.amazon.coral.service#SerializationException",)"
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
}

TEST(ServiceTest, ParsesCredentialScope) {
  auto scope = ParseCredentialScope(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/eu-west-2/dynamodb/aws4_request, "
      "SignedHeaders=host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
  EXPECT_EQ(scope.access_key, "AKIDEXAMPLE");
  EXPECT_EQ(scope.region, "eu-west-2");
  EXPECT_EQ(ParseCredentialScope("").access_key, "");
}

}  // namespace
}  // namespace ddbd::server
