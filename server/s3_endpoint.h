// The local S3 on an S3-compatible server (--s3-endpoint URL): objects::ObjectStore over
// S3's REST API — HeadBucket, PutObject, GetObject, ListObjectsV2 — path-style
// (URL/bucket/key), signed with SigV4 (service "s3") through server/aws_endpoint.h. It lives
// in server/ because the HTTP client (Boost.Beast) and the signing (http/sigv4) do.
//
// Buckets are the server's: unlike the directory and memory stores, writing to a bucket that
// does not exist fails (an export then fails with S3NoSuchBucket, as in DynamoDB).
//
// Entry points: S3Endpoint, OpenS3Endpoint.
#pragma once

#include <memory>
#include <string>

#include "model/result.h"
#include "objects/object_store.h"
#include "server/aws_endpoint.h"

namespace ddbd::server {

// Where the local S3 is and the credentials to sign with (ParseAwsEndpoint, ReadAwsCredentials).
using S3Endpoint = AwsEndpoint;

std::unique_ptr<objects::ObjectStore> OpenS3Endpoint(S3Endpoint endpoint);

}  // namespace ddbd::server
