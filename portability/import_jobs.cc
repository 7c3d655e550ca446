// The background side of imports.
#include "portability/import_jobs.h"

#include <unordered_map>

#include "model/log.h"
#include "portability/compression.h"
#include "portability/import_reader.h"
#include "storage/write.h"
#include "wire/json_writer.h"

namespace ddbd::portability {
namespace {

// Items per write batch, as a restore writes them.
constexpr size_t kBatchItems = 100;
// An object is read whole: one that decompresses to more is refused (an error of the import).
constexpr size_t kMaxObjectBytes = size_t{1} << 30;

ImportFormat FormatOf(const ImportRecord& record, const TableDef& table) {
  ImportFormat format;
  format.kind = record.format == "ION"   ? ImportFormat::Kind::kIon
                : record.format == "CSV" ? ImportFormat::Kind::kCsv
                                         : ImportFormat::Kind::kDynamoDbJson;
  if (record.delimiter && !record.delimiter->empty()) format.delimiter = (*record.delimiter)[0];
  format.headers = record.header_list;
  for (const auto& definition : table.attribute_definitions) {
    format.key_types.emplace(definition.name, definition.type);
  }
  return format;
}

Compression CompressionOf(const ImportRecord& record) {
  return record.compression == "GZIP"   ? Compression::kGzip
         : record.compression == "ZSTD" ? Compression::kZstd
                                        : Compression::kNone;
}

// The items of one object, written a batch at a time; duplicates of a key in a batch split it
// (the write path takes each item once), the last one written last.
class BatchWriter {
 public:
  BatchWriter(storage::Database& db, const TableDef& table) : db_(db), table_(table) {}

  Status Add(PrimaryKey key, Item item) {
    if (keys_.contains(key) || writes_.size() == kBatchItems) DDBD_RETURN_IF_ERROR(Flush());
    keys_.emplace(key, writes_.size());
    writes_.push_back(storage::Replacement(table_, std::move(key), std::move(item)));
    return OkStatus();
  }
  Status Flush() {
    if (writes_.empty()) return OkStatus();
    written_ += writes_.size();
    keys_.clear();
    auto done = db_.WriteItems(std::exchange(writes_, {}));
    if (!done.ok()) return std::move(done).error();
    return OkStatus();
  }
  int64_t written() const { return static_cast<int64_t>(written_); }

 private:
  storage::Database& db_;
  const TableDef& table_;
  std::vector<storage::ItemWrite> writes_;
  std::unordered_map<PrimaryKey, size_t, PrimaryKeyHash> keys_;
  size_t written_ = 0;
};

void AddError(ImportRecord& record, std::string_view key, size_t index, std::string_view message) {
  ++record.error_count;
  if (record.error_records.size() >= kMaxErrorRecords) return;
  wire::JsonWriter out;
  out.BeginObject().Key("itemS3Pointer").BeginObject();
  out.Key("bucket").String(record.bucket).Key("key").String(key);
  out.Key("itemIndex").Int(static_cast<int64_t>(index)).EndObject();
  out.Key("importArn").String(ImportArn(record));
  out.Key("errorMessages").BeginArray().String(message).EndArray();
  out.EndObject();
  record.error_records.push_back(out.Take());
}

}  // namespace

Status ImportJobs::Start(const ImportRecord& record) {
  DDBD_RETURN_IF_ERROR(db_.PutJob(kImportJob, record.id, EncodeImport(record)));
  if (record.status == JobStatus::kInProgress) executor_.Run([this, record] { Run(record); });
  return OkStatus();
}

std::set<uint64_t> ImportJobs::ResumeInterrupted() {
  std::set<uint64_t> tables;
  auto records = All();
  if (!records.ok()) return tables;
  for (ImportRecord& record : *records) {
    if (record.status != JobStatus::kInProgress) continue;
    log::Info("resuming import %s", ImportArn(record).c_str());
    tables.insert(record.table_id);
    record.processed_bytes = record.processed_items = record.imported_items = 0;
    record.error_count = 0;
    record.error_records.clear();
    executor_.Run([this, record = std::move(record)] { Run(record); });
  }
  return tables;
}

Result<std::optional<ImportRecord>> ImportJobs::Find(std::string_view id) {
  return FindJob(db_, kImportJob, id, &DecodeImport);
}

Result<std::vector<ImportRecord>> ImportJobs::All() {
  return AllJobs(db_, kImportJob, &DecodeImport);
}

Status ImportJobs::ImportObjects(const TableDef& table, ImportRecord& record) {
  const ImportFormat format = FormatOf(record, table);
  DDBD_ASSIGN_OR_RETURN(auto objects, store_.List(record.bucket, record.key_prefix.value_or("")));
  BatchWriter writer(db_, table);
  for (const objects::ObjectEntry& object : objects) {
    DDBD_ASSIGN_OR_RETURN(std::string bytes, store_.Get(record.bucket, object.key));
    Result<std::string> text = Decompress(CompressionOf(record), bytes, kMaxObjectBytes);
    if (!text.ok()) {
      ++record.processed_items;
      AddError(record, object.key, 0, text.error().message());
      continue;
    }
    record.processed_bytes += static_cast<int64_t>(text->size());
    Status written = OkStatus();
    size_t records = 0;
    Status read = ReadObjectItems(
        format, *text,
        [&](size_t index, Result<Item> item) {
          if (!written.ok()) return;
          Result<PrimaryKey> key =
              item.ok() ? check_(table, *item) : Result<PrimaryKey>(item.error());
          if (!key.ok()) {
            AddError(record, object.key, index, key.error().message());
            return;
          }
          written = writer.Add(std::move(*key), std::move(*item));
        },
        records);
    DDBD_RETURN_IF_ERROR(written);
    record.processed_items += static_cast<int64_t>(records);
    if (!read.ok()) AddError(record, object.key, records - 1, read.error().message());
  }
  DDBD_RETURN_IF_ERROR(writer.Flush());
  record.imported_items = writer.written();
  return OkStatus();
}

void ImportJobs::Run(ImportRecord record) {
  if (executor_.stopping()) return;  // runs again at the next start
  const auto table = catalog_.FindById(record.table_id);
  Status imported =
      table && table->table_uuid == record.table_uuid
          ? ImportObjects(*table, record)
          : Status(Error::ResourceNotFound("The table was deleted during the import"));
  if (imported.ok()) {
    auto activated = catalog_.Modify(record.table_id, [](TableDef& complete) {
      complete.status = TableStatus::kActive;
      return OkStatus();
    });
    if (!activated.ok()) imported = activated.error();
  }
  record.end_ms = clock_.NowMs();
  if (!imported.ok()) {
    record.status = JobStatus::kFailed;
    record.failure_code = "InternalServerError";
    record.failure_message = imported.error().message();
  } else if (record.error_count > 0) {
    record.status = JobStatus::kFailed;
    record.failure_code = "ItemValidationError";
    record.failure_message =
        "Some of the items failed validation checks and were not imported. Please check "
        "CloudWatch error logs for more details.";
  } else {
    record.status = JobStatus::kCompleted;
  }
  log::Info("import %s %s: %lld items imported, %lld errors", ImportArn(record).c_str(),
            JobStatusName(record.status), static_cast<long long>(record.imported_items),
            static_cast<long long>(record.error_count));
  db_.PutJob(kImportJob, record.id, EncodeImport(record)).IgnoreError();
}

}  // namespace ddbd::portability
