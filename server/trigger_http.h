// The HTTP client of stream triggers (triggers::HttpClient): a plain, unsigned POST of a
// batch to a handler's URL, through server/aws_endpoint's exchange (bounded by the
// trigger's timeout, cut short when the server stops). It lives in server/ because the HTTP
// client does.
//
// Entry point: NewTriggerHttpClient.
#pragma once

#include <memory>

#include "triggers/invoker.h"

namespace ddbd::server {

std::unique_ptr<triggers::HttpClient> NewTriggerHttpClient();

}  // namespace ddbd::server
