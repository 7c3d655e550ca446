// Base64 (RFC 4648, padded) for B and BS values, validated as DynamoDB does.
#pragma once

#include <string>
#include <string_view>

#include "model/result.h"

namespace ddbd::wire {

std::string Base64Encode(std::string_view bytes);
// SerializationException with DynamoDB's message for malformed input.
Result<std::string> Base64Decode(std::string_view text);

}  // namespace ddbd::wire
