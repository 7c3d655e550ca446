// The background side of exports.
#include "portability/export_jobs.h"

#include "model/log.h"
#include "portability/bulk_record.h"
#include "portability/export_writer.h"
#include "portability/import_record.h"

namespace ddbd::portability {

Status ExportJobs::Start(const ExportRecord& record) {
  DDBD_RETURN_IF_ERROR(db_.PutJob(kExportJob, record.id, EncodeExport(record)));
  executor_.Run([this, record] { Run(record); });
  return OkStatus();
}

void ExportJobs::ResumeInterrupted() {
  auto records = All();
  if (!records.ok()) return;
  for (ExportRecord& record : *records) {
    if (record.status != JobStatus::kInProgress) continue;
    log::Info("resuming export %s", ExportArn(record).c_str());
    executor_.Run([this, record = std::move(record)] { Run(record); });
  }
}

Result<std::optional<ExportRecord>> ExportJobs::Find(std::string_view id) {
  return FindJob(db_, kExportJob, id, &DecodeExport);
}

Result<std::vector<ExportRecord>> ExportJobs::All() {
  return AllJobs(db_, kExportJob, &DecodeExport);
}

void ExportJobs::StartRetention(storage::Database& db, const Clock& clock, Executor& executor,
                                Executor::Duration interval) {
  RunEvery(executor, interval, "export, import and bulk operation records",
           [&db, &clock]() -> Status {
             const int64_t before = clock.NowMs() - kJobRecordRetentionMs;
             for (char kind : {kExportJob, kImportJob, kBulkJob}) {
               auto forgotten = ForgetEndedJobs(db, kind, before);
               if (!forgotten.ok()) return forgotten.error();
             }
             return OkStatus();
           });
}

void ExportJobs::Run(ExportRecord record) {
  if (executor_.stopping()) return;  // runs again at the next start
  const Status outcome = Export(record);
  Finish(std::move(record), outcome);
}

Status ExportJobs::Export(ExportRecord& record) {
  const auto table = catalog_.FindById(record.table_id);
  if (!table || table->table_uuid != record.table_uuid) {
    record.failure_code = "TableNotFoundException";
    return Error::ResourceNotFound("The table was deleted before the export ended");
  }
  if (!record.incremental) {
    if (record.copy_id != 0) {  // a crash cut the last copy short: it starts over
      DDBD_RETURN_IF_ERROR(db_.DropItems(record.copy_id));
    } else {
      DDBD_ASSIGN_OR_RETURN(record.copy_id, catalog_.AllocateId());
      DDBD_RETURN_IF_ERROR(db_.PutJob(kExportJob, record.id, EncodeExport(record)));
    }
    DDBD_ASSIGN_OR_RETURN(storage::TableStats copied, db_.CopyItems(table->id, record.copy_id));
    auto rewound = db_.RewindCopy(*table, record.copy_id, record.export_time_ms, copied);
    if (!rewound.ok()) return std::move(rewound).error();
  }
  record.end_ms = clock_.NowMs();
  return WriteExport(db_, store_, *table, record);
}

void ExportJobs::Finish(ExportRecord record, const Status& outcome) {
  if (record.copy_id != 0) {
    db_.DropItems(record.copy_id).IgnoreError();
    record.copy_id = 0;
  }
  if (outcome.ok()) {
    record.status = JobStatus::kCompleted;
    log::Info("export %s completed: %lld items", ExportArn(record).c_str(),
              static_cast<long long>(record.item_count));
  } else {
    record.status = JobStatus::kFailed;
    record.end_ms = clock_.NowMs();
    // The object store's "no such bucket" is a ResourceNotFound; any other failure to write
    // is, for a DynamoDB user, S3 refusing access.
    if (!record.failure_code) {
      record.failure_code = outcome.error().code() == ErrorCode::kResourceNotFound
                                ? "S3NoSuchBucket"
                                : "S3AccessDenied";
    }
    record.failure_message = outcome.error().message();
    log::Warning("export %s failed: %s", ExportArn(record).c_str(),
                 outcome.error().message().c_str());
  }
  db_.PutJob(kExportJob, record.id, EncodeExport(record)).IgnoreError();
}

}  // namespace ddbd::portability
