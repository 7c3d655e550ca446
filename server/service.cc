// Credential-scope parsing and the isolation rule.
#include "server/service.h"

#include <algorithm>
#include <thread>

#include "model/log.h"
#include "model/names.h"
#include "model/utf8.h"
#include "server/kinesis_endpoint.h"
#include "server/ops/ops.h"
#include "server/trigger_http.h"

namespace ddbd::server {

std::string Isolation::Describe() const {
  if (by_access_key && by_region) return "access-key,region";
  if (by_access_key) return "access-key";
  if (by_region) return "region";
  return "none (all clients share one set of tables)";
}

CredentialScope ParseCredentialScope(std::string_view authorization) {
  CredentialScope scope;
  constexpr std::string_view kCredential = "Credential=";
  size_t start = authorization.find(kCredential);
  if (start == std::string_view::npos) return scope;
  start += kCredential.size();
  size_t end = authorization.find_first_of(", ", start);
  std::string_view credential = authorization.substr(
      start, end == std::string_view::npos ? std::string_view::npos : end - start);
  // access-key/yyyymmdd/region/service/aws4_request
  size_t slash = credential.find('/');
  scope.access_key = std::string(credential.substr(0, slash));
  if (slash == std::string_view::npos) return scope;
  size_t date_end = credential.find('/', slash + 1);
  if (date_end == std::string_view::npos) return scope;
  size_t region_end = credential.find('/', date_end + 1);
  scope.region = std::string(credential.substr(date_end + 1, region_end == std::string_view::npos
                                                                 ? std::string_view::npos
                                                                 : region_end - date_end - 1));
  return scope;
}

namespace {

// How soon after a change a Kinesis destination's records are sent, at the latest (when the
// endpoint keeps up).
constexpr std::chrono::milliseconds kKinesisDeliveryInterval{100};

size_t BackgroundThreads(size_t configured) {
  if (configured > 0) return configured;
  return std::max<size_t>(2, std::thread::hardware_concurrency());
}

}  // namespace

Service::Service(storage::Database& db, storage::Catalog& catalog, ServiceOptions options,
                 const Clock& base_clock)
    : db_(db),
      catalog_(catalog),
      options_(std::move(options)),
      clock_(base_clock, options_.start_time_ms),
      vectors_(options_.vector_search, executor_),
      vector_source_(db),
      index_part_(catalog),
      expiry_part_(catalog),
      backfills_(db, catalog, index_part_, executor_,
                 index::BackfillTiming{options_.vector_allocation, options_.vector_build_minimum,
                                       options_.transient_status_delay}),
      ttl_(db, catalog, clock_, executor_, options_.ttl_interval),
      retention_(db, catalog, clock_, executor_, options_.ttl_interval),
      replicator_(db, catalog, clock_, executor_, options_.replication_delay),
      kinesis_transport_(!options_.kinesis_endpoint.host.empty()
                             ? OpenKinesisEndpoint(options_.kinesis_endpoint)
                             : nullptr),
      kinesis_publisher_(db, catalog, clock_, executor_, kinesis_transport_.get()),
      client_tokens_(clock_),
      capacity_(options_.enforce_capacity ? std::make_unique<capacity::CapacityGovernor>()
                                          : nullptr),
      objects_(!options_.s3_endpoint.host.empty() ? OpenS3Endpoint(options_.s3_endpoint)
               : options_.s3_root.empty()         ? objects::NewMemoryStore()
                                                  : objects::OpenDirectoryStore(options_.s3_root)),
      exports_(db, catalog, *objects_, executor_, clock_),
      imports_(db, catalog, *objects_, executor_, clock_),
      bulk_operations_(db, catalog, *objects_, executor_, clock_),
      triggers_(db, catalog, clock_, NewTriggerHttpClient()),
      executor_(BackgroundThreads(options_.background_threads)) {
  index_part_.SetVectorListener(
      [this](vector::EntryChange change) { vectors_.Apply(std::move(change)); });
  db_.SetClock(clock_);
  db_.AddWritePart(&stamps_part_);  // first: a replicated change it refuses costs nothing more
  db_.AddWritePart(&index_part_);
  imports_.SetItemCheck(ops::CheckImportedItem);
  bulk_operations_.SetHooks(ops::PrepareBulkPut, ops::MeterBulkPut);
  if (options_.gsi_lag_ms > 0) {
    gsi_lag_ = std::make_unique<index::GsiLag>(catalog_, clock_, options_.gsi_lag_ms);
    db_.AddWritePart(gsi_lag_.get());
  }
  db_.AddWritePart(&stream_part_);
  db_.AddWritePart(&expiry_part_);
  db_.AddWritePart(&history_part_);
  // Without an endpoint nothing would ever deliver the changes: none are captured.
  if (kinesis_transport_) db_.AddWritePart(&kinesis_part_);
}

Service::~Service() { StopBackground(); }

void Service::StartBackground(std::optional<std::string> graph_dir) {
  graph_dir_ = std::move(graph_dir);
  vectors_.Load(vector_source_, catalog_.AllTables(), graph_dir_);
  ttl_.Resume();
  ttl_.Start();
  retention_.SetBeforeTrim([this](const TableDef& table, int64_t before_ms) {
    return replicator_.ApplyBefore(table, before_ms);
  });
  retention_.Start();
  replicator_.Start(std::chrono::milliseconds(25));
  kinesis_publisher_.Start(kKinesisDeliveryInterval, options_.ttl_interval);
  backups::StartHistoryRetention(db_, catalog_, clock_, executor_, options_.ttl_interval);
  portability::ExportJobs::StartRetention(db_, clock_, executor_, options_.ttl_interval);
  if (Status started = triggers_.Start(); !started.ok()) {
    log::Error("stream triggers not started: %s", started.error().message().c_str());
  }
}

Status Service::SaveVectorGraphs() {
  if (!graph_dir_) return OkStatus();
  return vectors_.SaveGraphs(db_.LatestSequence(), *graph_dir_);
}

std::string Service::ScopeOf(const CredentialScope& credentials) const {
  const Isolation& isolation = options_.isolation;
  if (!isolation.enabled()) return {};
  std::string scope;
  if (isolation.by_access_key) scope += credentials.access_key;
  scope.push_back('/');
  if (isolation.by_region) {
    scope += credentials.region.empty() ? options_.default_region : credentials.region;
  }
  return scope;
}

Result<std::string> Service::ScopeOfNamespace(std::string_view name) {
  if (!IsControlName(name)) {
    return Error::Validation("Invalid namespace name '" + QuotableUtf8(name, 64) +
                             "': a namespace name is 1 to 64 characters of A-Z, a-z, 0-9, "
                             "'_', '.' and '-'");
  }
  if (name == kDefaultNamespace) return std::string();
  return std::string(name);
}

std::string Service::NamespaceOfScope(std::string_view scope) {
  return scope.empty() ? std::string(kDefaultNamespace) : std::string(scope);
}

}  // namespace ddbd::server
