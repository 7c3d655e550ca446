// Writes an export's objects in DynamoDB's export layout (docs/FORMAT-EXPORT… in
// docs/ARCHITECTURE.md): `_started`, gzip data files of JSON Lines (DYNAMODB_JSON) or Ion
// text (ION), `manifest-files.json` (a line per data file: item count, MD5, ETag, key),
// `manifest-summary.json` and an `.md5` beside each manifest (base64 of its MD5).
//
// A full export writes the items of its point-in-time copy (ExportRecord::copy_id) under
// AWSDynamoDB/<id>/data/; an incremental one, for each item written in [from, to), its keys,
// the time of its last write there and its images (NewImage: its state at `to`, when it
// exists; OldImage: at `from`, with NEW_AND_OLD_IMAGES), under the shared AWSDynamoDB/data/.
//
// Entry point: WriteExport.
#pragma once

#include "model/table_def.h"
#include "objects/object_store.h"
#include "portability/export_record.h"
#include "storage/database.h"

namespace ddbd::portability {

// Writes every object of the export; fills in its item count and billed size. A failure
// leaves the record as it was and is returned (the caller fails the export with it).
// `table` is the exported table's definition (its keys).
Status WriteExport(storage::Database& db, objects::ObjectStore& store, const TableDef& table,
                   ExportRecord& record);

}  // namespace ddbd::portability
