// Database: the records of data-movement jobs, in the catalog under J ‖ kind ‖ id.
#include "storage/internal/database_impl.h"

namespace ddbd::storage {
Status Database::PutJob(char kind, std::string_view id, std::string_view bytes) {
  rocksdb::Status status =
      impl_->db->Put(impl_->write_options, impl_->catalog, JobKey(kind, id), bytes);
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Result<std::optional<std::string>> Database::GetJob(char kind, std::string_view id) {
  std::string bytes;
  rocksdb::Status status =
      impl_->db->Get(rocksdb::ReadOptions(), impl_->catalog, JobKey(kind, id), &bytes);
  if (status.IsNotFound()) return std::optional<std::string>();
  if (!status.ok()) return StorageError(status);
  return std::optional<std::string>(std::move(bytes));
}

Status Database::DeleteJob(char kind, std::string_view id) {
  rocksdb::Status status =
      impl_->db->Delete(impl_->write_options, impl_->catalog, JobKey(kind, id));
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Result<std::vector<Database::JobRecord>> Database::Jobs(char kind) {
  std::vector<JobRecord> jobs;
  const std::string prefix = JobKey(kind, {});
  std::unique_ptr<rocksdb::Iterator> it(
      impl_->db->NewIterator(rocksdb::ReadOptions(), impl_->catalog));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    jobs.push_back(
        {std::string(it->key().ToStringView().substr(prefix.size())), it->value().ToString()});
  }
  if (!it->status().ok()) return StorageError(it->status());
  return jobs;
}

}  // namespace ddbd::storage
