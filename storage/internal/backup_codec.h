// The catalog record of an on-demand backup. Entry points: EncodeBackup, DecodeBackup (which
// also reads the JSON records earlier versions wrote).
#pragma once

#include <string>
#include <string_view>

#include "model/result.h"
#include "storage/backup_record.h"

namespace ddbd::storage {

std::string EncodeBackup(const BackupRecord& backup);
Result<BackupRecord> DecodeBackup(std::string_view bytes);

}  // namespace ddbd::storage
