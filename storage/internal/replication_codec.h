// Encoding of a table's replication group (table record field 27, storage/FORMAT.md).
#pragma once

#include <string>
#include <string_view>

#include "model/replication.h"

namespace ddbd::storage {

std::string EncodeReplication(const ReplicationGroup& group);
// False when `payload` is not one EncodeReplication wrote.
bool DecodeReplication(std::string_view payload, ReplicationGroup& group);

}  // namespace ddbd::storage
