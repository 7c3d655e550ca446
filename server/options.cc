// Option parsing.
#include "server/options.h"

#include <algorithm>
#include <charconv>
#include <thread>

namespace ddbd::server {
namespace {

Result<int> ParseInt(const std::string& option, const std::string& text, int min, int max) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return Error::Validation("invalid value for " + option + ": '" + text + "'");
  }
  return value;
}

Result<Isolation> ParseIsolation(const std::string& text) {
  Isolation isolation;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos
                                                                     : comma - start);
    if (part == "access-key") {
      isolation.by_access_key = true;
    } else if (part == "region") {
      isolation.by_region = true;
    } else if (part != "none") {
      return Error::Validation("invalid value for --isolate: '" + text +
                               "' (expected access-key, region, access-key,region or none)");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return isolation;
}

}  // namespace

std::string UsageText() {
  return R"(Usage: ddbd [options]

  --port N              TCP port to listen on (default 8000)
  --address ADDR        address to bind (default 0.0.0.0)
  --db-path DIR         data directory of the on-disk database (default ./ddbd-data)
  --in-memory           keep everything in memory; nothing is written to disk
  --isolate WHAT        separate tables by the request's credentials:
                        access-key, region, access-key,region or none (default none:
                        every client sees the same tables)
  --threads N           I/O threads (default: number of cores, at least 2)
  --max-connections N   connections served at once; more are answered 503
                        ServiceUnavailable and closed (default: 4096, or fewer when the
                        open-file limit is low: the limit less a quarter for storage and 64)
  --header-timeout-ms N time a client has to send a request's header, from connecting or
                        from the header's first byte (default 10000)
  --body-timeout-ms N   time a client has to send a request's body and to take its reply
                        (default 60000)
  --idle-timeout-ms N   how long a kept-alive connection may wait for its next request
                        (default 60000)
  --require-auth        reject unsigned requests (MissingAuthenticationTokenException)
                        without checking their signatures
  --credentials FILE    verify the SigV4 signature of every request against the access
                        keys in FILE: lines 'ACCESS_KEY_ID SECRET [SESSION_TOKEN]' ('#'
                        comments), or an AWS shared credentials file (~/.aws/credentials)
  --tls-cert FILE --tls-key FILE
                        serve HTTPS with this certificate (chain) and private key, both
                        PEM files, instead of plain HTTP
  --item-collection-limit-bytes N
                        size limit of an item collection on tables with local secondary
                        indexes (default 10 GB; lower it to test the limit)
  --max-wal-mb N        bound of the write-ahead log (default 64): past it, memtables are
                        flushed so old log files can go; also bounds the replay at start
  --region NAME         region used in ARNs when a request is not signed (default us-east-1)
  --vector-index-allocation-ms N
                        keep a vector index added by UpdateTable N ms in its allocation phase
                        (CREATING, Backfilling false, not searchable) before it backfills
  --vector-index-build-ms N
                        take at least N ms from such a request to the index being ACTIVE
  --vector-exact-threshold N
                        search vector partitions (or filtered candidates) of up to N entries
                        exactly, larger ones through HNSW graphs (default: by dimensions,
                        4096 at 128, 512 at 1024)
  --exact-vector-search answer SearchVectors by exact search only (no HNSW graphs): fully
                        deterministic results, slower on large indexes
  --transient-status-ms N
                        keep tables and indexes N ms in CREATING, UPDATING and DELETING
                        (default 0: state changes are immediate)
  --background-threads N
                        threads for background work (index backfills, vector graph
                        builds, Time to Live, delayed status changes); default: the
                        number of cores, at least 2
  --ttl-interval-ms N   how often expired items of tables with Time to Live enabled are
                        looked for and deleted (default 1000; DynamoDB takes up to days)
  --cors ORIGINS        origins allowed to call from a browser, comma-separated
                        (default *: every origin)
  --log-level LEVEL     error, warning, info (the default) or debug
  --log-requests        log one line per request: its id (x-amzn-RequestId), method,
                        operation, status, error type and time taken
  --health-check        ask the ddbd at --address/--port whether it answers (exit status
                        0 or 1), for container health checks
  --help                print this text

DynamoDB Local's spellings are accepted too: -port N, -dbPath DIR, -inMemory, -cors LIST,
-sharedDb (the default here), -delayTransientStatuses (--transient-status-ms 500),
-optimizeDbBeforeStartup (compacts the database before serving), -disableTelemetry (ddbd sends none), -help; a leading "-jar DynamoDBLocal.jar",
as compose files pass it, is ignored.
)";
}

Result<CommandLine> ParseCommandLine(const std::vector<std::string>& args) {
  CommandLine cl;
  cl.storage.path = "ddbd-data";
  unsigned cores = std::thread::hardware_concurrency();
  cl.server.threads = static_cast<int>(cores < 2 ? 2 : cores);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return Error::Validation("missing value for " + arg);
      return args[++i];
    };
    if (arg == "--port" || arg == "-port") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(int port, ParseInt(arg, text, 0, 65535));
      cl.server.port = static_cast<uint16_t>(port);
    } else if (arg == "--address") {
      DDBD_ASSIGN_OR_RETURN(cl.server.address, value());
    } else if (arg == "--db-path" || arg == "-dbPath") {
      DDBD_ASSIGN_OR_RETURN(cl.storage.path, value());
    } else if (arg == "--in-memory" || arg == "-inMemory") {
      cl.storage.in_memory = true;
    } else if (arg == "--isolate") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(cl.service.isolation, ParseIsolation(text));
    } else if (arg == "--cors" || arg == "-cors") {
      DDBD_ASSIGN_OR_RETURN(std::string list, value());
      cl.service.cors_origins.clear();
      size_t start = 0;
      while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        std::string origin = list.substr(start, comma - start);
        origin.erase(0, origin.find_first_not_of(' '));
        origin.erase(origin.find_last_not_of(' ') + 1);
        if (!origin.empty()) cl.service.cors_origins.push_back(std::move(origin));
        start = comma + 1;
      }
      if (cl.service.cors_origins.empty()) {
        return Error::Validation("invalid value for " + arg + ": '" + list + "'");
      }
    } else if (arg == "-sharedDb") {
      cl.service.isolation = Isolation{};
    } else if (arg == "-delayTransientStatuses") {
      if (cl.service.transient_status_delay.count() == 0) {
        cl.service.transient_status_delay = std::chrono::milliseconds(500);
      }
    } else if (arg == "--transient-status-ms") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(int ms, ParseInt(arg, text, 0, 3'600'000));
      cl.service.transient_status_delay = std::chrono::milliseconds(ms);
    } else if (arg == "--background-threads") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(int threads, ParseInt(arg, text, 1, 64));
      cl.service.background_threads = static_cast<size_t>(threads);
    } else if (arg == "--ttl-interval-ms") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(int ms, ParseInt(arg, text, 10, 86'400'000));
      cl.service.ttl_interval = std::chrono::milliseconds(ms);
    } else if (arg == "-optimizeDbBeforeStartup") {
      cl.storage.compact_on_open = true;
    } else if (arg == "-disableTelemetry") {
      // Nothing to disable: ddbd reports nothing anywhere.
    } else if (arg == "-jar") {
      DDBD_ASSIGN_OR_RETURN(std::string jar, value());
      cl.notes.push_back("ignoring '-jar " + jar + "': a DynamoDB Local argument; ddbd is a " +
                         "native binary");
    } else if (arg == "--max-connections") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(cl.server.max_connections, ParseInt(arg, text, 1, 1 << 20));
      cl.max_connections_set = true;
    } else if (arg == "--header-timeout-ms" || arg == "--body-timeout-ms" ||
               arg == "--idle-timeout-ms") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(int ms, ParseInt(arg, text, 1, 86'400'000));
      (arg == "--header-timeout-ms"  ? cl.server.header_timeout
       : arg == "--body-timeout-ms" ? cl.server.body_timeout
                                    : cl.server.idle_timeout) = std::chrono::milliseconds(ms);
    } else if (arg == "--threads") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(cl.server.threads, ParseInt(arg, text, 1, 256));
    } else if (arg == "--item-collection-limit-bytes") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      // Up to 1 GB: the flag exists to lower DynamoDB's 10 GB limit in tests.
      DDBD_ASSIGN_OR_RETURN(int limit, ParseInt(arg, text, 1, 1 << 30));
      cl.storage.item_collection_limit_bytes = limit;
    } else if (arg == "--max-wal-mb") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(int megabytes, ParseInt(arg, text, 1, 1 << 20));
      cl.storage.max_wal_bytes = uint64_t(megabytes) << 20;
    } else if (arg == "--require-auth") {
      cl.service.require_authentication = true;
    } else if (arg == "--credentials") {
      DDBD_ASSIGN_OR_RETURN(std::string path, value());
      DDBD_ASSIGN_OR_RETURN(Credentials credentials, Credentials::Load(path));
      cl.notes.push_back("verifying request signatures against " +
                         std::to_string(credentials.size()) + " access key" +
                         (credentials.size() == 1 ? "" : "s") + " from " + path);
      cl.service.credentials = std::make_shared<const Credentials>(std::move(credentials));
    } else if (arg == "--vector-index-allocation-ms" || arg == "--vector-index-build-ms") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(int ms, ParseInt(arg, text, 0, 3'600'000));
      (arg == "--vector-index-allocation-ms" ? cl.service.vector_allocation
                                             : cl.service.vector_build_minimum) =
          std::chrono::milliseconds(ms);
    } else if (arg == "--vector-exact-threshold") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      DDBD_ASSIGN_OR_RETURN(int threshold, ParseInt(arg, text, 1, 1 << 30));
      cl.service.vector_search.exact_threshold = static_cast<size_t>(threshold);
    } else if (arg == "--exact-vector-search") {
      cl.service.vector_search.exact_only = true;
    } else if (arg == "--region") {
      DDBD_ASSIGN_OR_RETURN(cl.service.default_region, value());
    } else if (arg == "--tls-cert") {
      DDBD_ASSIGN_OR_RETURN(cl.server.tls_certificate, value());
    } else if (arg == "--tls-key") {
      DDBD_ASSIGN_OR_RETURN(cl.server.tls_private_key, value());
    } else if (arg == "--log-level") {
      DDBD_ASSIGN_OR_RETURN(std::string text, value());
      std::optional<log::Level> level = log::ParseLevel(text);
      if (!level) {
        return Error::Validation("invalid value for --log-level: '" + text +
                                 "' (expected error, warning, info or debug)");
      }
      cl.log_level = *level;
    } else if (arg == "--log-requests") {
      cl.service.log_requests = true;
    } else if (arg == "--health-check") {
      cl.health_check = true;
    } else if (arg == "--help" || arg == "-help" || arg == "-h") {
      cl.help = true;
    } else {
      return Error::Validation("unknown option: " + arg);
    }
  }
  if (cl.server.tls_certificate.empty() != cl.server.tls_private_key.empty()) {
    return Error::Validation("--tls-cert and --tls-key go together");
  }
  return cl;
}

}  // namespace ddbd::server
