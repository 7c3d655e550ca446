// The output report of a bulk operation, written to its output bucket under
// "<prefix>/AWSDynamoDB/<operation id>/": JSON Lines parts — errors/part-NNNNN.json (records or
// objects that could not be read or failed validation: with OutputType ERROR) and
// condition-check-failures/part-NNNNN.json (the attempted item and the existing one: with
// CONDITION_CHECK_FAILURE) — and, once the operation ends, manifest.json listing them with
// the operation's counts. Every line points at its input record (bucket, key, 0-based index).
//
// Lines wait in the record (committed with the checkpoints) until a part's worth is there;
// a part is written before the checkpoint that clears its lines, so a crash in between
// writes the same part again.
//
// Entry points: AddErrorLine, AddConditionFailureLine, FlushReport, WriteManifest.
#pragma once

#include <optional>
#include <string_view>

#include "model/attribute_value.h"
#include "model/error.h"
#include "objects/object_store.h"
#include "portability/bulk_record.h"

namespace ddbd::portability {

// Counts a record that failed (FailedItemCount) and keeps its line when ERROR is reported.
void AddErrorLine(BulkRecord& record, std::string_view object_key, size_t index,
                  const Error& error);
// Counts a condition that did not hold and keeps its line when CONDITION_CHECK_FAILURE is
// reported.
void AddConditionFailureLine(BulkRecord& record, std::string_view object_key, size_t index,
                             const Item& attempted, const std::optional<Item>& existing);

// Writes the pending lines as the next parts once they fill a part — or whatever is pending
// when `all` — and clears them.
Status FlushReport(objects::ObjectStore& store, BulkRecord& record, bool all);

// Writes manifest.json of an ended operation (after FlushReport with `all`). Nothing is
// written when the operation has no output bucket.
Status WriteManifest(objects::ObjectStore& store, const BulkRecord& record);

// The key of the report's object `name` ("manifest.json", "errors/part-00000.json").
std::string ReportKey(const BulkRecord& record, std::string_view name);

}  // namespace ddbd::portability
