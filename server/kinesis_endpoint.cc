// Kinesis JSON 1.1 calls.
#include "server/kinesis_endpoint.h"

#include <string>

namespace ddbd::server {
namespace {

// Replies of PutRecords are small (an outcome per record); anything larger is not one.
constexpr uint64_t kMaxReplyBytes = 16 << 20;

class KinesisEndpoint final : public kinesis::KinesisTransport {
 public:
  explicit KinesisEndpoint(AwsEndpoint endpoint) : endpoint_(std::move(endpoint)) {}

  Result<kinesis::KinesisReply> Call(std::string_view operation, std::string_view body) override {
    SignedCall call;
    call.method = "POST";
    call.target = endpoint_.base_path + "/";
    call.headers = {{"content-type", "application/x-amz-json-1.1"},
                    {"x-amz-target", "Kinesis_20131202." + std::string(operation)}};
    call.body = body;
    call.max_reply_bytes = kMaxReplyBytes;
    DDBD_ASSIGN_OR_RETURN(HttpReply reply, CallSigned(endpoint_, "kinesis", call));
    return kinesis::KinesisReply{reply.status, std::move(reply.body)};
  }

  std::string Describe() const override { return endpoint_.Describe(); }

 private:
  const AwsEndpoint endpoint_;
};

}  // namespace

std::unique_ptr<kinesis::KinesisTransport> OpenKinesisEndpoint(AwsEndpoint endpoint) {
  return std::make_unique<KinesisEndpoint>(std::move(endpoint));
}

}  // namespace ddbd::server
