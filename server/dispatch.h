// The dispatch tables: X-Amz-Target → handler. Entry points: FindOperation, Dispatch.
#pragma once

#include <string>
#include <string_view>

#include "server/op_context.h"

namespace ddbd::server {

using Handler = Result<std::string> (*)(OpContext&, const Request&);

struct Operation {
  std::string_view name;
  Handler handler;
};

// The operation an X-Amz-Target names ("DynamoDB_20120810.<Op>" or, for the Streams API,
// "DynamoDBStreams_20120810.<Op>"); nullptr for one ddbd does not know.
const Operation* FindOperation(std::string_view target);

// Runs one operation; a C++ exception escaping a handler is a bug, logged and answered with
// InternalServerError.
Result<std::string> Dispatch(const Operation& operation, OpContext& ctx, const Request& req);

}  // namespace ddbd::server
