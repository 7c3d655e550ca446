// POSTs of trigger batches to handlers.
#include "server/trigger_http.h"

#include "server/aws_endpoint.h"

namespace ddbd::server {
namespace {

class TriggerHttpClient : public triggers::HttpClient {
 public:
  Result<Reply> Post(std::string_view url, std::string_view body, std::chrono::milliseconds timeout,
                     const std::atomic<bool>& cancelled) override {
    DDBD_ASSIGN_OR_RETURN(AwsEndpoint endpoint, ParseAwsEndpoint(url, "the URL"));
    SignedCall call;
    call.method = "POST";
    call.target = endpoint.base_path.empty() ? "/" : endpoint.base_path;
    call.headers = {{"content-type", "application/json"}};
    call.body = body;
    call.max_reply_bytes = 6 * 1024 * 1024;
    call.timeout = timeout;
    call.cancelled = &cancelled;
    DDBD_ASSIGN_OR_RETURN(HttpReply reply, Call(endpoint, call));
    return Reply{reply.status, reply.function_error, std::move(reply.body)};
  }
};

}  // namespace

std::unique_ptr<triggers::HttpClient> NewTriggerHttpClient() {
  return std::make_unique<TriggerHttpClient>();
}

}  // namespace ddbd::server
