// The Kinesis endpoint of --kinesis-endpoint: kinesis::KinesisTransport over the Kinesis
// JSON 1.1 API (POST / with X-Amz-Target "Kinesis_20131202.<operation>" and Content-Type
// application/x-amz-json-1.1), signed with SigV4 for service "kinesis" by the credentials of
// the usual AWS environment variables (server/aws_endpoint.h). It lives in server/ because
// the HTTP client and the signing do.
//
// Entry point: OpenKinesisEndpoint.
#pragma once

#include <memory>

#include "kinesis/put_records.h"
#include "server/aws_endpoint.h"

namespace ddbd::server {

std::unique_ptr<kinesis::KinesisTransport> OpenKinesisEndpoint(AwsEndpoint endpoint);

}  // namespace ddbd::server
