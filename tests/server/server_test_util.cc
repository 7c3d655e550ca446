#include "tests/server/server_test_util.h"

namespace ddbd::server::testing {

std::string Reply::ErrorName() const {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body).get(root) != simdjson::SUCCESS) return "<not json>";
  std::string_view type;
  if (root["__type"].get(type) != simdjson::SUCCESS) return "";
  return std::string(type.substr(type.find('#') + 1));
}

std::string Reply::Message() const {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body).get(root) != simdjson::SUCCESS) return "<not json>";
  std::string_view message;
  if (root["message"].get(message) == simdjson::SUCCESS) return std::string(message);
  if (root["Message"].get(message) == simdjson::SUCCESS) return std::string(message);
  return "";
}

ServerHarness::ServerHarness(ServiceOptions options) {
  db_ = std::move(storage::Database::Open({"", true})).value();
  catalog_ = std::move(storage::Catalog::Load(*db_)).value();
  service_ = std::make_unique<Service>(*db_, *catalog_, std::move(options));
  service_->StartBackground();
}

std::string ServerHarness::DefaultAuthorization(std::string_view access_key,
                                                std::string_view region) {
  return "AWS4-HMAC-SHA256 Credential=" + std::string(access_key) + "/20260101/" +
         std::string(region) + "/dynamodb/aws4_request, SignedHeaders=host, Signature=abc";
}

http::HttpReply ServerHarness::Raw(http::HttpRequest request) {
  return http::HandleExchange(*service_, request);
}

Reply ServerHarness::Call(std::string_view operation, std::string body) {
  return Call(operation, std::move(body), DefaultAuthorization());
}

Reply ServerHarness::Call(std::string_view operation, std::string body, std::string authorization) {
  http::HttpRequest request;
  request.method = "POST";
  request.path = "/";
  request.content_type = "application/x-amz-json-1.0";
  request.target = "DynamoDB_20120810." + std::string(operation);
  request.headers = {{"Content-Type", request.content_type}, {"X-Amz-Target", request.target}};
  if (!authorization.empty()) request.headers.emplace_back("Authorization", authorization);
  request.authorization = std::move(authorization);
  request.body = std::move(body);
  http::HttpReply raw = Raw(std::move(request));
  return Reply{raw.status, raw.body, raw};
}

}  // namespace ddbd::server::testing
