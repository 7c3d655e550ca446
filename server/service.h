// Service: the process-wide state every request uses (storage, catalog, options), and the
// isolation rule that maps a request's credentials to a table namespace.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <string_view>

#include "index/index_entries.h"
#include "server/client_tokens.h"
#include "server/credentials.h"
#include "server/ttl_sweeper.h"
#include "server/vector_indexes.h"
#include "storage/catalog.h"
#include "storage/database.h"
#include "vector/vector_index.h"

namespace ddbd::server {

// Which parts of the request's credential scope separate table namespaces.
struct Isolation {
  bool by_access_key = false;
  bool by_region = false;
  bool enabled() const { return by_access_key || by_region; }
  std::string Describe() const;
};

struct ServiceOptions {
  Isolation isolation;
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
  // Pause between two passes of the Time to Live sweeper (see TtlSweeper).
  std::chrono::milliseconds ttl_interval{1000};
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
  Service(storage::Database& db, storage::Catalog& catalog, ServiceOptions options)
      : db_(db),
        catalog_(catalog),
        options_(std::move(options)),
        vectors_(std::make_unique<VectorIndexes>(options_.vector_search)),
        ttl_(db, catalog, options_.ttl_interval) {}
  // Waits for background work (index backfills) to finish.
  ~Service();

  storage::Database& db() { return db_; }
  storage::Catalog& catalog() { return catalog_; }
  const ServiceOptions& options() const { return options_; }
  VectorIndexes& vectors() { return *vectors_; }
  // Deletes expired items of tables with Time to Live enabled; main starts it once serving
  // and stops it before the database is flushed and closed.
  TtlSweeper& ttl() { return ttl_; }
  // TransactWriteItems' ClientRequestTokens of the last ten minutes.
  ClientTokens& client_tokens() { return client_tokens_; }
  // Has `maintainer` keep the in-memory vector indexes current and starts filling them from
  // storage in the background, attaching the graphs a clean shutdown saved in `graph_dir`
  // (on-disk databases). REQUIRES: called once, before serving.
  Status StartVectorIndexes(index::Maintainer& maintainer,
                            std::optional<std::string> graph_dir = std::nullopt);
  // Saves the vector indexes' graphs for the next start (clean shutdown, after serving).
  Status SaveVectorGraphs();
  // The table namespace of a request with this credential scope.
  std::string ScopeOf(const CredentialScope& credentials) const;
  // Runs `work` on its own thread; the Service waits for it on destruction. Threads that
  // have finished are joined at the next call, so their stacks do not accumulate.
  void RunInBackground(std::function<void()> work);

 private:
  storage::Database& db_;
  storage::Catalog& catalog_;
  ServiceOptions options_;
  std::unique_ptr<VectorIndexes> vectors_;  // outlives the background work below
  std::optional<std::string> graph_dir_;
  TtlSweeper ttl_;
  ClientTokens client_tokens_;
  struct BackgroundThread {
    std::shared_ptr<std::atomic<bool>> done;
    std::thread thread;
  };
  std::mutex background_mutex_;
  std::vector<BackgroundThread> background_;
};

}  // namespace ddbd::server
