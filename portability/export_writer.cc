// The export layout, written.
#include "portability/export_writer.h"

#include "portability/compression.h"
#include "portability/ion_text.h"
#include "portability/job_naming.h"
#include "wire/attribute_value_json.h"

namespace ddbd::portability {
namespace {

// A data file is closed at this many bytes of lines (before compression).
constexpr size_t kDataFileBytes = 64 << 20;

// Accumulates lines into data files and lists them for manifest-files.json.
class DataFiles {
 public:
  DataFiles(objects::ObjectStore& store, const ExportRecord& record)
      : store_(store), record_(record), ion_(record.format == "ION") {
    folder_ = ExportRoot(record) + (record.incremental ? "" : record.id + "/") + "data/";
  }

  bool ion() const { return ion_; }
  std::string& line() { return lines_; }
  Status EndLine() {
    lines_.push_back('\n');
    ++items_;
    if (lines_.size() >= kDataFileBytes) return Flush();
    return OkStatus();
  }
  // Writes the last file (an empty one when nothing was written at all, as DynamoDB writes
  // one per partition, empty or not).
  Status Finish() {
    if (items_ > 0 || files_ == 0) return Flush();
    return OkStatus();
  }
  const std::string& manifest() const { return manifest_; }

 private:
  Status Flush() {
    const std::string compressed = GzipCompress(lines_);
    const std::string key = folder_ + DataFileName(record_.id + "/" + std::to_string(files_)) +
                            (ion_ ? ".ion.gz" : ".json.gz");
    DDBD_RETURN_IF_ERROR(store_.Put(record_.bucket, key, compressed));
    wire::JsonWriter entry;
    entry.BeginObject().Key("itemCount").Int(items_);
    entry.Key("md5Checksum").String(Md5Base64(compressed));
    entry.Key("etag").String(SinglePartEtag(compressed));
    entry.Key("dataFileS3Key").String(key).EndObject();
    manifest_ += entry.Take();
    manifest_.push_back('\n');
    ++files_;
    items_ = 0;
    lines_.clear();
    return OkStatus();
  }

  objects::ObjectStore& store_;
  const ExportRecord& record_;
  const bool ion_;
  std::string folder_;
  std::string lines_;
  int64_t items_ = 0;
  int files_ = 0;
  std::string manifest_;
};

void AppendImage(DataFiles& files, std::string_view name, const AttributeMap& image) {
  std::string& out = files.line();
  if (files.ion()) {
    out.append(name).push_back(':');
    WriteIonStruct(image, out);
    return;
  }
  wire::JsonWriter json;
  wire::WriteAttributeMap(json, image);
  out.push_back('"');
  out.append(name).append("\":").append(json.Take());
}

Status WriteFullItems(storage::Database& db, const TableDef& table, ExportRecord& record,
                      DataFiles& files) {
  TableDef copy = table;
  copy.id = record.copy_id;
  record.item_count = 0;
  record.billed_size_bytes = 0;
  auto cursor = db.ScanHashRange(copy, 0, UINT64_MAX, std::nullopt);
  for (; cursor->Valid(); cursor->Next()) {
    DDBD_ASSIGN_OR_RETURN(Item item, cursor->item());
    files.line().append(files.ion() ? "$ion_1_0 {" : "{");
    AppendImage(files, "Item", item);
    files.line().push_back('}');
    DDBD_RETURN_IF_ERROR(files.EndLine());
    ++record.item_count;
    record.billed_size_bytes += static_cast<int64_t>(ItemSize(item));
  }
  return cursor->status();
}

AttributeMap KeysOf(const TableDef& table, const PrimaryKey& key) {
  AttributeMap keys;
  keys.emplace(table.partition_key.name, key.partition);
  if (table.sort_key && key.sort) keys.emplace(table.sort_key->name, *key.sort);
  return keys;
}

Status WriteChange(const TableDef& table, const ExportRecord& record,
                   const storage::Database::HistoryChange& change, const std::optional<Item>& now,
                   DataFiles& files) {
  std::string& out = files.line();
  const std::string micros = std::to_string(change.last_write_ms * 1000);
  if (files.ion()) {
    out.append("$ion_1_0 {Metadata:{WriteTimestampMicros:").append(micros).append(".},");
  } else {
    out.append("{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"").append(micros).append("\"}},");
  }
  AppendImage(files, "Keys", KeysOf(table, change.key));
  if (record.view_type == "NEW_AND_OLD_IMAGES" && change.before) {
    out.push_back(',');
    AppendImage(files, "OldImage", *change.before);
  }
  if (now) {
    out.push_back(',');
    AppendImage(files, "NewImage", *now);
  }
  out.push_back('}');
  return files.EndLine();
}

Status WriteChanges(storage::Database& db, const TableDef& table, ExportRecord& record,
                    DataFiles& files) {
  record.item_count = 0;
  record.billed_size_bytes = 0;
  return db.ReadHistoryBetween(record.history_id, record.from_ms - 1, record.to_ms - 1,
                               [&](storage::Database::HistoryChange change) -> Status {
                                 std::optional<Item> now = std::move(change.after);
                                 if (!change.written_since) {
                                   DDBD_ASSIGN_OR_RETURN(now, db.GetItem(table, change.key));
                                 }
                                 if (!change.before && !now)
                                   return OkStatus();  // put and deleted within the period
                                 ++record.item_count;
                                 record.billed_size_bytes +=
                                     static_cast<int64_t>(now ? ItemSize(*now) : 0);
                                 return WriteChange(table, record, change, now, files);
                               });
}

std::string ManifestSummary(const ExportRecord& record, int64_t end_ms,
                            const std::string& files_key) {
  wire::JsonWriter out;
  auto optional = [&](std::string_view key, const std::optional<std::string>& value) {
    out.Key(key);
    if (value) {
      out.String(*value);
    } else {
      out.Raw("null");
    }
  };
  out.BeginObject().Key("version").String(record.incremental ? "2023-08-01" : "2020-06-30");
  out.Key("exportArn").String(ExportArn(record));
  out.Key("startTime").String(IsoTime(record.start_ms)).Key("endTime").String(IsoTime(end_ms));
  out.Key("tableArn").String(record.table_arn).Key("tableId").String(record.table_uuid);
  if (record.incremental) {
    out.Key("exportFromTime").String(IsoTime(record.from_ms));
    out.Key("exportToTime").String(IsoTime(record.to_ms));
  } else {
    out.Key("exportTime").String(IsoTime(record.export_time_ms));
  }
  out.Key("s3Bucket").String(record.bucket);
  optional("s3Prefix", record.prefix);
  out.Key("s3SseAlgorithm").String(record.sse_algorithm);
  optional("s3SseKmsKeyId", record.kms_key_id);
  out.Key("manifestFilesS3Key").String(files_key);
  out.Key("billedSizeBytes").Int(record.billed_size_bytes);
  out.Key("itemCount").Int(record.item_count);
  out.Key("outputFormat").String(record.format);
  if (record.incremental) {
    out.Key("outputView").String(record.view_type);
    out.Key("exportType").String("INCREMENTAL_EXPORT");
  }
  out.EndObject();
  return out.Take();
}

// Writes a manifest and its .md5 beside it.
Status PutManifest(objects::ObjectStore& store, const ExportRecord& record,
                   const std::string& json_key, const std::string& json) {
  DDBD_RETURN_IF_ERROR(store.Put(record.bucket, json_key, json));
  const std::string md5_key = json_key.substr(0, json_key.size() - 4) + "md5";
  return store.Put(record.bucket, md5_key, Md5Base64(json));
}

}  // namespace

Status WriteExport(storage::Database& db, objects::ObjectStore& store, const TableDef& table,
                   ExportRecord& record) {
  const std::string folder = ExportRoot(record) + record.id + "/";
  DDBD_RETURN_IF_ERROR(store.Put(record.bucket, folder + "_started", ""));
  DataFiles files(store, record);
  DDBD_RETURN_IF_ERROR(record.incremental ? WriteChanges(db, table, record, files)
                                          : WriteFullItems(db, table, record, files));
  DDBD_RETURN_IF_ERROR(files.Finish());
  const std::string files_key = folder + "manifest-files.json";
  DDBD_RETURN_IF_ERROR(PutManifest(store, record, files_key, files.manifest()));
  return PutManifest(store, record, folder + "manifest-summary.json",
                     ManifestSummary(record, record.end_ms, files_key));
}

}  // namespace ddbd::portability
