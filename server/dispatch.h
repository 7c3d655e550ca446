// The dispatch table: operation name → handler. Entry points: FindOperation, Dispatch.
#pragma once

#include <string>
#include <string_view>

#include "server/op_context.h"

namespace ddbd::server {

using Handler = Result<std::string> (*)(OpContext&, const Request&);

enum class Access : uint8_t { kAdmin, kRead, kWrite };

struct Operation {
  std::string_view name;
  Handler handler;
  Access access;
};

// nullptr for an operation ddbd does not know.
const Operation* FindOperation(std::string_view name);

// Runs one operation; a C++ exception escaping a handler is a bug, logged and answered with
// InternalServerError.
Result<std::string> Dispatch(const Operation& operation, OpContext& ctx, const Request& req);

}  // namespace ddbd::server
