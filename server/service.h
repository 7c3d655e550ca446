// Service: the process-wide state every request uses — storage, the catalog, options, the
// clock, the background executor and the subsystems that run on it (vector indexes, index
// backfills, Time to Live, stream retention, ClientRequestTokens) — wired together once: the
// constructor registers the write parts (index entries, stream records, expiries) with the
// database, and the isolation rule maps a request's credentials to a table namespace.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backups/history_part.h"
#include "backups/history_retention.h"
#include "capacity/governor.h"
#include "faults/injector.h"
#include "index/backfill.h"
#include "index/entries_part.h"
#include "index/gsi_lag.h"
#include "insight/access_patterns.h"
#include "kinesis/capture_part.h"
#include "kinesis/publisher.h"
#include "model/clock.h"
#include "model/executor.h"
#include "objects/object_store.h"
#include "portability/bulk_jobs.h"
#include "portability/export_jobs.h"
#include "portability/import_jobs.h"
#include "replication/replicator.h"
#include "replication/stamps_part.h"
#include "server/credentials.h"
#include "server/metrics.h"
#include "server/s3_endpoint.h"
#include "storage/catalog.h"
#include "storage/database.h"
#include "streams/records_part.h"
#include "streams/retention.h"
#include "transactions/client_tokens.h"
#include "triggers/triggers.h"
#include "ttl/expiry_part.h"
#include "ttl/sweeper.h"
#include "vector/vector_index.h"
#include "vector/vector_indexes.h"

namespace ddbd::server {

// The namespace of requests that name none (and of every client without --isolate).
inline constexpr std::string_view kDefaultNamespace = "default";

// Which parts of the request's credential scope separate table namespaces.
struct Isolation {
  bool by_access_key = false;
  bool by_region = false;
  bool enabled() const { return by_access_key || by_region; }
  std::string Describe() const;
};

// A compatibility profile: behaviours of another local DynamoDB that tools and test suites
// depend on, reproduced where they differ from DynamoDB's (README, "Coming from DynamoDB
// Local"). kNone is DynamoDB's behaviour.
enum class CompatProfile {
  kNone,
  // DynamoDB Local's: GET / answers 400 MissingAuthenticationToken (readiness checks wait for
  // it), CreateTable ignores AttributeDefinitions no key uses, string sets come back sorted, a
  // missing table's ResourceNotFoundException says "Cannot do operations on a non-existent
  // table" whatever the operation.
  kDynamoDbLocal,
};

struct ServiceOptions {
  Isolation isolation;
  CompatProfile compat = CompatProfile::kNone;
  bool require_authentication = false;  // answer MissingAuthenticationToken without a signature
  // The keys whose SigV4 signatures are verified on every request (--credentials); null:
  // signatures are not checked and any credentials are accepted.
  std::shared_ptr<const Credentials> credentials;
  std::string default_region = "us-east-1";
  vector::SearchTuning vector_search;
  // Origins allowed to make browser (CORS) requests: empty or "*" allows every origin, as
  // DynamoDB does; otherwise only those listed (DynamoDB Local's -cors list).
  std::vector<std::string> cors_origins;
  // A vector index added by UpdateTable stays this long in its allocation phase (CREATING,
  // Backfilling false, not yet searchable) and takes at least `vector_build_minimum` from
  // request to ACTIVE: DynamoDB's phases, shortened, so that client readiness logic can be
  // tested. Both zero by default.
  std::chrono::milliseconds vector_allocation{0};
  std::chrono::milliseconds vector_build_minimum{0};
  // DynamoDB Local's -delayTransientStatuses: how long tables and indexes stay CREATING,
  // UPDATING or DELETING (0: state changes are immediate, as DynamoDB Local's default).
  std::chrono::milliseconds transient_status_delay{0};
  // Log one line per request (--log-requests).
  bool log_requests = false;
  // Pause between two passes of the Time to Live sweeper (see ttl::Sweeper) and of stream
  // retention.
  std::chrono::milliseconds ttl_interval{1000};
  // Threads of the background executor (backfills, graph builds, sweeps, delayed status
  // changes); 0: the number of cores, at least 2.
  size_t background_threads = 0;
  // --start-time: the clock starts frozen at this reading (ms since the epoch).
  std::optional<int64_t> start_time_ms;
  // The control API under /ddbd/ (--no-control-api turns it off).
  bool control_api = true;
  // Throttle requests by the tables' capacity and the partition limits (--enforce-capacity).
  bool enforce_capacity = false;
  // GSI entries become visible to reads this long after their write (--gsi-lag-ms; 0: at once).
  int64_t gsi_lag_ms = 0;
  // How long after a change of a global table's replica the other replicas get it
  // (--replication-delay-ms), by the service clock.
  std::chrono::milliseconds replication_delay{100};
  // The local S3 of exports, imports and bulk operations: a directory (--s3-root; by default
  // s3/ in the data directory), or memory when empty (--in-memory).
  std::string s3_root;
  // Or an S3-compatible server (--s3-endpoint), when its host is set.
  S3Endpoint s3_endpoint;
  // Where the changes of tables with a Kinesis streaming destination are delivered
  // (--kinesis-endpoint), when its host is set; otherwise they are not captured at all.
  AwsEndpoint kinesis_endpoint;
};

// The credential scope of a SigV4-signed request ("Credential=AKID/date/region/service/…").
struct CredentialScope {
  std::string access_key;
  std::string region;
};
// Empty fields when the header is absent or not SigV4.
CredentialScope ParseCredentialScope(std::string_view authorization);

class Service {
 public:
  // Wires the subsystems and registers the write parts with `db`. The service's clock follows
  // `base_clock` (the system's; a ManualClock in tests) until the control API changes it.
  // REQUIRES: called before any write; `db`, `catalog` and `base_clock` outlive the service.
  Service(storage::Database& db, storage::Catalog& catalog, ServiceOptions options,
          const Clock& base_clock = Clock::System());
  // Stops the background work (what has not started is resumed at the next start).
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  storage::Database& db() { return db_; }
  storage::Catalog& catalog() { return catalog_; }
  const ServiceOptions& options() const { return options_; }
  const Clock& clock() const { return clock_; }
  // The same clock, to freeze, advance or run (the control API).
  ControllableClock& controllable_clock() { return clock_; }
  Executor& executor() { return executor_; }
  objects::ObjectStore& objects() { return *objects_; }
  portability::ExportJobs& exports() { return exports_; }
  portability::ImportJobs& imports() { return imports_; }
  portability::BulkJobs& bulk_operations() { return bulk_operations_; }
  vector::VectorIndexes& vectors() { return vectors_; }
  index::Backfills& backfills() { return backfills_; }
  ttl::Sweeper& ttl() { return ttl_; }
  // The fault rules of the control API (/ddbd/faults).
  faults::FaultInjector& faults() { return faults_; }
  // The throughput limits with --enforce-capacity; null without.
  capacity::CapacityGovernor* capacity() { return capacity_.get(); }
  // What the requests did to each table and index (GET /ddbd/report).
  insight::AccessPatterns& access_patterns() { return access_patterns_; }
  // The GSI propagation lag with --gsi-lag-ms; null without.
  const index::GsiLag* gsi_lag() const { return gsi_lag_.get(); }
  // What GET /metrics reports.
  Metrics& metrics() { return metrics_; }
  // Replication between the replicas of global tables.
  replication::Replicator& replicator() { return replicator_; }
  // The stream triggers (/ddbd/triggers, --triggers).
  triggers::Triggers& triggers() { return triggers_; }
  // TransactWriteItems' ClientRequestTokens of the last ten minutes.
  transactions::ClientTokens& client_tokens() { return client_tokens_; }

  // Starts the background work of a serving process: filling the vector indexes from
  // storage (attaching the graphs a clean shutdown saved in `graph_dir`, for on-disk
  // databases), Time to Live passes and stream retention.
  // REQUIRES: called once, before serving.
  void StartBackground(std::optional<std::string> graph_dir = std::nullopt);
  // Saves the vector indexes' graphs for the next start (clean shutdown, after serving).
  Status SaveVectorGraphs();
  // Ends the background work: waits for the tasks running, drops the others (resumed from
  // storage at the next start). Idempotent.
  void StopBackground() {
    triggers_.Stop();
    executor_.Stop();
  }
  // The table namespace (scope) of a request with this credential scope and no
  // X-Ddbd-Namespace header.
  std::string ScopeOf(const CredentialScope& credentials) const;
  // The scope a namespace name stands for: "default" is the scope "" (the tables every
  // client shares without isolation), any other name the scope of that name. Names are 1–64
  // characters of [A-Za-z0-9_.-], so they never meet an isolation scope ("key/region").
  // ValidationException for another name.
  static Result<std::string> ScopeOfNamespace(std::string_view name);
  // The name the control API shows for a scope: "default" for "", the scope itself otherwise.
  static std::string NamespaceOfScope(std::string_view scope);

 private:
  // Storage, as the vector indexes see it.
  class VectorEntrySource : public vector::EntrySource {
   public:
    explicit VectorEntrySource(storage::Database& db) : db_(db) {}
    Status ForEachEntry(uint64_t index_id, const std::function<void(Item)>& visit) override {
      return db_.ForEachIndexEntry(index_id, visit);
    }
    uint64_t LatestSequence() const override { return db_.LatestSequence(); }

   private:
    storage::Database& db_;
  };

  storage::Database& db_;
  storage::Catalog& catalog_;
  const ServiceOptions options_;
  ControllableClock clock_;
  // The executor's tasks use everything below it, so it is destroyed (stopped) first.
  vector::VectorIndexes vectors_;
  VectorEntrySource vector_source_;
  replication::StampsPart stamps_part_;
  index::EntriesPart index_part_;
  streams::RecordsPart stream_part_;
  ttl::ExpiryPart expiry_part_;
  backups::HistoryPart history_part_;
  index::Backfills backfills_;
  ttl::Sweeper ttl_;
  streams::Retention retention_;
  replication::Replicator replicator_;
  kinesis::CapturePart kinesis_part_;
  std::unique_ptr<kinesis::KinesisTransport> kinesis_transport_;  // null: nothing delivered
  kinesis::Publisher kinesis_publisher_;
  transactions::ClientTokens client_tokens_;
  faults::FaultInjector faults_;
  std::unique_ptr<capacity::CapacityGovernor> capacity_;
  std::unique_ptr<objects::ObjectStore> objects_;
  portability::ExportJobs exports_;
  portability::ImportJobs imports_;
  portability::BulkJobs bulk_operations_;
  insight::AccessPatterns access_patterns_;
  std::unique_ptr<index::GsiLag> gsi_lag_;
  std::optional<std::string> graph_dir_;
  Metrics metrics_;
  triggers::Triggers triggers_;
  Executor executor_;
};

}  // namespace ddbd::server
