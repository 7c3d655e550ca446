// Fuzz target: the whole request path — HTTP exchange (server/http/exchange: CORS, health
// check, content type and coding, X-Amz-Target, credentials), JSON parsing, dispatch and every
// operation handler — against an in-memory database where every input finds the same two
// tables: "items" (partition key pk:S) and "sorted" (pk:S, sort key sk:N, a GSI "gsi" on a:S,
// a stream), with one item each. The control API (/ddbd/…) is reached by the input's path;
// fault rules it sets are cleared after each input. Checks: no crash, no UB, no leak, and every
// reply is a well-formed HTTP reply (a status of 200..599; for JSON replies a body simdjson
// parses).
//
// The input is written like an HTTP request, so corpus files are readable:
//   POST /
//   X-Amz-Target: DynamoDB_20120810.PutItem
//   Content-Type: application/x-amz-json-1.0
//
//   {"TableName":"items","Item":{"pk":{"S":"a"}}}
// The first line is the method and path; header names are case-insensitive; an input
// without a blank line has no body.
#include <simdjson.h>
#include <strings.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "server/http/exchange.h"
#include "server/service.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace {

using namespace ddbd;
using server::http::HttpReply;
using server::http::HttpRequest;

// A SigV4 Authorization header for `access_key`: the Service isolates namespaces by it.
std::string Authorization(std::string_view access_key) {
  return "AWS4-HMAC-SHA256 Credential=" + std::string(access_key) +
         "/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc";
}

// The setup requests every input starts from.
constexpr std::pair<std::string_view, std::string_view> kSetup[] = {
    {"CreateTable",
     R"({"TableName":"items","BillingMode":"PAY_PER_REQUEST",
         "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
         "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]})"},
    {"CreateTable",
     R"({"TableName":"sorted","BillingMode":"PAY_PER_REQUEST",
         "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},
                                 {"AttributeName":"sk","AttributeType":"N"},
                                 {"AttributeName":"a","AttributeType":"S"}],
         "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},
                      {"AttributeName":"sk","KeyType":"RANGE"}],
         "GlobalSecondaryIndexes":[{"IndexName":"gsi",
             "KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],
             "Projection":{"ProjectionType":"ALL"}}],
         "StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}})"},
    {"PutItem",
     R"({"TableName":"items","Item":{"pk":{"S":"a"},"n":{"N":"1"},"l":{"L":[{"S":"x"}]}}})"},
    {"PutItem",
     R"({"TableName":"sorted","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"a":{"S":"v"},"m":{"M":{"k":{"BOOL":true}}}}})"},
};

// Opening a database costs about 100 ms under ASan, so one database serves many inputs, each
// in a namespace of its own (isolation by access key): every input starts from the same
// freshly created tables and items, and its tables are deleted after it. Backups and other
// account-wide leftovers go when the database is replaced, every kInputsPerDatabase inputs.
class Server {
 public:
  static constexpr int kInputsPerDatabase = 500;

  Server() {
    db_ = std::move(storage::Database::Open({"", true})).value();
    catalog_ = std::move(storage::Catalog::Load(*db_)).value();
    server::ServiceOptions options;
    options.isolation.by_access_key = true;
    service_ = std::make_unique<server::Service>(*db_, *catalog_, std::move(options));
    service_->StartBackground();
  }

  // The reply to `request`, made in a new namespace that holds the setup tables. The request
  // is signed for that namespace unless it carries an Authorization header of its own.
  HttpReply Exchange(HttpRequest& request) {
    const std::string authorization = Authorization("FUZZ" + std::to_string(++inputs_));
    for (const auto& [operation, body] : kSetup) {
      HttpReply reply = Call(operation, body, authorization);
      if (reply.status != 200) {  // the harness itself is broken
        std::fprintf(stderr, "setup %.*s failed: %s\n", int(operation.size()), operation.data(),
                     reply.body.c_str());
        std::abort();
      }
    }
    if (request.authorization.empty()) request.authorization = authorization;
    HttpReply reply = server::http::HandleExchange(*service_, request);
    DeleteTables(authorization);
    // Fault rules an input set (PUT /ddbd/faults) would change how later inputs run, and a
    // trigger it set would keep running (a Command one would run whatever the input wrote).
    service_->faults().Clear();
    for (const auto& trigger : service_->triggers().List()) {
      if (!service_->triggers().Delete(trigger.definition.name).ok()) std::abort();
    }
    return reply;
  }

  bool worn_out() const { return inputs_ >= kInputsPerDatabase; }

 private:
  HttpReply Call(std::string_view operation, std::string_view body, const std::string& auth) {
    HttpRequest request{.method = "POST",
                        .path = "/",
                        .content_type = "application/x-amz-json-1.0",
                        .target = "DynamoDB_20120810." + std::string(operation),
                        .authorization = auth,
                        .body = std::string(body)};
    return server::http::HandleExchange(*service_, request);
  }

  void DeleteTables(const std::string& authorization) {
    HttpReply list = Call("ListTables", "{}", authorization);
    simdjson::dom::parser parser;
    simdjson::dom::array names;
    if (parser.parse(list.body)["TableNames"].get(names) != simdjson::SUCCESS) std::abort();
    for (simdjson::dom::element name : names) {
      std::string body = R"({"TableName":")" + std::string(name.get_string().value()) + R"("})";
      Call("DeleteTable", body, authorization);
    }
  }

  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<storage::Catalog> catalog_;
  std::unique_ptr<server::Service> service_;
  int inputs_ = 0;
};

std::string_view NextLine(std::string_view& text) {
  const size_t end = std::min(text.find('\n'), text.size());
  std::string_view line = text.substr(0, end);
  text.remove_prefix(std::min(end + 1, text.size()));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool NameIs(std::string_view name, std::string_view expected) {
  return name.size() == expected.size() &&
         strncasecmp(name.data(), expected.data(), name.size()) == 0;
}

HttpRequest ParseRequest(std::string_view text) {
  HttpRequest request;
  std::string_view first = NextLine(text);
  const size_t space = std::min(first.find(' '), first.size());
  request.method = first.substr(0, space);
  request.path = first.substr(std::min(space + 1, first.size()));
  while (!text.empty()) {
    std::string_view line = NextLine(text);
    if (line.empty()) {
      request.body = text;
      break;
    }
    const size_t colon = std::min(line.find(':'), line.size());
    std::string_view name = line.substr(0, colon);
    std::string_view value = line.substr(std::min(colon + 1, line.size()));
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    struct Field {
      std::string_view name;
      std::string HttpRequest::*member;
    };
    static constexpr Field kFields[] = {
        {"Content-Type", &HttpRequest::content_type},
        {"Content-Encoding", &HttpRequest::content_encoding},
        {"Accept-Encoding", &HttpRequest::accept_encoding},
        {"X-Amz-Target", &HttpRequest::target},
        {"Authorization", &HttpRequest::authorization},
        {"Host", &HttpRequest::host},
        {"Origin", &HttpRequest::origin},
        {"Access-Control-Request-Headers", &HttpRequest::access_control_request_headers},
        {"Access-Control-Request-Method", &HttpRequest::access_control_request_method},
        {"X-Ddbd-Namespace", &HttpRequest::namespace_name},
    };
    for (const Field& field : kFields) {
      if (NameIs(name, field.name)) request.*field.member = value;
    }
  }
  return request;
}

}  // namespace

// LeakSanitizer does not count glibc's per-thread list of thread_local destructors as a root,
// so an executor thread started during an input (threads start on demand, when background
// work such as a TTL backfill arrives) looks as if it leaked the node that
// __cxa_thread_atexit_impl allocated for it. The thread frees the node when it exits (the
// executor joins its threads when the harness replaces its database). Found 21 minutes into a
// long run, after UpdateTimeToLive; not reproducible from the single input.
extern "C" const char* __lsan_default_suppressions() { return "leak:__cxa_thread_atexit_impl\n"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Never destroyed at exit: RocksDB's own statics (its periodic-task scheduler) may be gone
  // by then. A replaced one is closed before the next one opens.
  static Server* server = nullptr;
  if (!server || server->worn_out()) {
    delete server;
    server = new Server();
  }
  HttpRequest request = ParseRequest(std::string_view(reinterpret_cast<const char*>(data), size));
  HttpReply reply = server->Exchange(request);
  if (reply.status < 200 || reply.status > 599) std::abort();
  bool compressed = false;
  for (const auto& [name, value] : reply.headers) compressed |= name == "Content-Encoding";
  if (reply.content_type.find("json") != std::string::npos && !compressed) {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(reply.body).get(root) != simdjson::SUCCESS) std::abort();
  }
  return 0;
}
