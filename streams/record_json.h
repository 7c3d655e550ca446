// The JSON of one stream record, for its two readers: the Streams API's GetRecords and a
// stream trigger's handler (Lambda's event). Both carry eventID, eventName, eventVersion,
// eventSource, awsRegion and dynamodb {ApproximateCreationDateTime, Keys, NewImage,
// OldImage, SequenceNumber, SizeBytes, StreamViewType}, and userIdentity for Time to Live
// deletions; they differ where the Streams API and Lambda do: the time (epoch seconds as a
// timestamp, or whole seconds), userIdentity's member names (PrincipalId/Type, or
// type/principalId) and Lambda's eventSourceARN.
//
// Entry point: WriteRecord. Pure; thread-safe.
#pragma once

#include "model/table_def.h"
#include "storage/stream_record.h"
#include "wire/json_writer.h"

namespace ddbd::streams {

enum class RecordReader { kGetRecords, kLambda };

// Writes the record as an object. The images are those the stream's view type carries.
void WriteRecord(wire::JsonWriter& out, const TableDef& table, const StreamSpec& stream,
                 const storage::StreamRecord& record, RecordReader reader);

}  // namespace ddbd::streams
