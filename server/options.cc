// Option parsing.
#include "server/options.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <thread>

#include "model/clock.h"

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
    std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
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

// The usage text, all of it (a constant: --help prints it as it is).
constexpr std::string_view kUsage = R"(Usage: ddbd [options]

  --port N              TCP port to listen on (default 8000)
  --address ADDR        address to bind (default 0.0.0.0)
  --db-path DIR         data directory of the on-disk database (default ./ddbd-data)
  --in-memory           keep everything in memory; nothing is written to disk
  --s3-root DIR         the local S3 of exports and imports: s3://bucket/key is the file
                        DIR/bucket/key (default: s3/ in the data directory; in memory
                        with --in-memory)
  --s3-endpoint URL     keep them on an S3-compatible server instead (http://host:port),
                        signed with AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
                        (AWS_SESSION_TOKEN, AWS_REGION)
  --kinesis-endpoint URL
                        deliver the changes of tables with a Kinesis streaming
                        destination to this Kinesis-compatible server (http://host:port),
                        signed as for --s3-endpoint; without it the destinations' statuses
                        change but nothing is delivered
  --triggers FILE       create (or replace) the stream triggers FILE lists at start-up:
                        {"Triggers": [{"Name": …, "TableName": …, "Url" or "Command": …,
                        "StartingPosition": …}]} (see /ddbd/triggers in the README)
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
  --block-cache-mb N    memory for cached blocks of stored data, with their indexes and
                        filters (default 64); with 64 MB of memtables, the data's bound
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
  --start-time TIME     start with the clock frozen at TIME (epoch seconds or ISO 8601,
                        e.g. 2024-03-01T12:00:00Z); see PUT /ddbd/clock
  --no-control-api      answer 404 on every /ddbd/ path except /ddbd/health (the
                        control API: namespaces, the clock, TTL sweeps)
  --gsi-lag-ms N        make GSIs eventually consistent: an index entry becomes visible
                        to Query and Scan N ms (by the server's clock) after its write
  --replication-delay-ms N
                        how long, by the server's clock, a change of a global table's
                        replica takes to reach the other replicas (default 100; the
                        regions are namespaces with --isolate region)
  --enforce-capacity    throttle as DynamoDB does: provisioned RCU/WCU with 300 s of
                        burst, on-demand maximums, 3,000 RCU / 1,000 WCU per partition
                        key value per second (refilled by the server's clock)
  --cors ORIGINS        origins allowed to call from a browser, comma-separated
                        (default *: every origin)
  --log-level LEVEL     error, warning, info (the default) or debug
  --log-format FORMAT   text (the default: "ddbd: <message> key=value"), logfmt or json
                        (one object per line), each with the time and the level
  --log-requests        log one line per request: its id (x-amzn-RequestId), method,
                        operation, table, status, error type, capacity units and time
                        taken (answers of status 500 and above are always logged, with
                        their cause)
  --report-on-exit FILE write the access-pattern report (as GET /ddbd/report?format=text
                        answers it) to FILE at shutdown
  --health-check        ask the ddbd at --address/--port whether it answers (exit status
                        0 or 1), for container health checks
  --compat PROFILE      none (the default: DynamoDB's behaviour) or dynamodb-local:
                        GET / answers 400 as DynamoDB Local's does, CreateTable ignores
                        AttributeDefinitions no key uses, string sets come back sorted.
                        On by itself when the command line starts with DynamoDB Local's
                        "-jar DynamoDBLocal.jar"; --compat none keeps it off
  --help                print this text

DynamoDB Local's spellings are accepted too: -port N, -dbPath DIR, -inMemory, -cors LIST,
-sharedDb (the default here), -delayTransientStatuses (--transient-status-ms 500),
-optimizeDbBeforeStartup (compacts the database before serving), -disableTelemetry (ddbd
sends none), -help. A command line that starts with "-jar DynamoDBLocal.jar", as compose
files pass it, turns the dynamodb-local profile on (--compat).
)";

}  // namespace

std::string UsageText() { return std::string(kUsage); }

namespace {

// One option: its spellings, whether a value follows it, and what it sets.
struct Option {
  std::vector<std::string_view> names;
  bool takes_value;
  std::function<Status(CommandLine&, const std::string& name, const std::string& value)> apply;
};

// An option with an integer value in [min, max], assigned by `set`.
template <typename Set>
Option IntOption(std::vector<std::string_view> names, int min, int max, Set set) {
  return {std::move(names), true,
          [min, max, set](CommandLine& cl, const std::string& name,
                          const std::string& value) -> Status {
            DDBD_ASSIGN_OR_RETURN(int parsed, ParseInt(name, value, min, max));
            set(cl, parsed);
            return OkStatus();
          }};
}

// An option without a value.
template <typename Set>
Option Flag(std::vector<std::string_view> names, Set set) {
  return {std::move(names), false, [set](CommandLine& cl, const std::string&, const std::string&) {
            set(cl);
            return OkStatus();
          }};
}

Result<std::vector<std::string>> ParseOrigins(const std::string& name, const std::string& list) {
  std::vector<std::string> origins;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    std::string origin = list.substr(start, comma - start);
    origin.erase(0, origin.find_first_not_of(' '));
    origin.erase(origin.find_last_not_of(' ') + 1);
    if (!origin.empty()) origins.push_back(std::move(origin));
    start = comma + 1;
  }
  if (origins.empty()) return Error::Validation("invalid value for " + name + ": '" + list + "'");
  return origins;
}

using std::chrono::milliseconds;

std::vector<Option> NetworkOptions() {
  return {
      IntOption({"--port", "-port"}, 0, 65535,
                [](CommandLine& cl, int v) { cl.server.port = static_cast<uint16_t>(v); }),
      {{"--address"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) {
         cl.server.address = v;
         return OkStatus();
       }},
      IntOption({"--threads"}, 1, 256, [](CommandLine& cl, int v) { cl.server.threads = v; }),
      IntOption({"--max-connections"}, 1, 1 << 20,
                [](CommandLine& cl, int v) {
                  cl.server.max_connections = v;
                  cl.max_connections_set = true;
                }),
      IntOption({"--header-timeout-ms"}, 1, 86'400'000,
                [](CommandLine& cl, int v) { cl.server.header_timeout = milliseconds(v); }),
      IntOption({"--body-timeout-ms"}, 1, 86'400'000,
                [](CommandLine& cl, int v) { cl.server.body_timeout = milliseconds(v); }),
      IntOption({"--idle-timeout-ms"}, 1, 86'400'000,
                [](CommandLine& cl, int v) { cl.server.idle_timeout = milliseconds(v); }),
      {{"--tls-cert"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) {
         cl.server.tls_certificate = v;
         return OkStatus();
       }},
      {{"--tls-key"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) {
         cl.server.tls_private_key = v;
         return OkStatus();
       }},
      {{"--cors", "-cors"},
       true,
       [](CommandLine& cl, const std::string& name, const std::string& v) -> Status {
         DDBD_ASSIGN_OR_RETURN(cl.service.cors_origins, ParseOrigins(name, v));
         return OkStatus();
       }},
  };
}

std::vector<Option> StorageOptions() {
  return {
      {{"--db-path", "-dbPath"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) {
         cl.storage.path = v;
         return OkStatus();
       }},
      Flag({"--in-memory", "-inMemory"}, [](CommandLine& cl) { cl.storage.in_memory = true; }),
      {{"--s3-root"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) {
         cl.service.s3_root = v;
         return OkStatus();
       }},
      {{"--s3-endpoint"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) -> Status {
         DDBD_ASSIGN_OR_RETURN(cl.service.s3_endpoint, ParseAwsEndpoint(v, "--s3-endpoint"));
         ReadAwsCredentials(cl.service.s3_endpoint);
         return OkStatus();
       }},
      {{"--triggers"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) {
         cl.triggers_file = v;
         return OkStatus();
       }},
      {{"--kinesis-endpoint"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) -> Status {
         DDBD_ASSIGN_OR_RETURN(cl.service.kinesis_endpoint,
                               ParseAwsEndpoint(v, "--kinesis-endpoint"));
         ReadAwsCredentials(cl.service.kinesis_endpoint);
         return OkStatus();
       }},
      // Up to 1 GB: the flag exists to lower DynamoDB's 10 GB limit in tests.
      IntOption({"--item-collection-limit-bytes"}, 1, 1 << 30,
                [](CommandLine& cl, int v) { cl.storage.item_collection_limit_bytes = v; }),
      IntOption({"--max-wal-mb"}, 1, 1 << 20,
                [](CommandLine& cl, int v) { cl.storage.max_wal_bytes = uint64_t(v) << 20; }),
      IntOption({"--block-cache-mb"}, 1, 1 << 20,
                [](CommandLine& cl, int v) { cl.storage.block_cache_bytes = uint64_t(v) << 20; }),
      Flag({"-optimizeDbBeforeStartup"},
           [](CommandLine& cl) { cl.storage.compact_on_open = true; }),
  };
}

std::vector<Option> AccessOptions() {
  return {
      {{"--isolate"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) -> Status {
         DDBD_ASSIGN_OR_RETURN(cl.service.isolation, ParseIsolation(v));
         return OkStatus();
       }},
      Flag({"-sharedDb"}, [](CommandLine& cl) { cl.service.isolation = Isolation{}; }),
      Flag({"--require-auth"}, [](CommandLine& cl) { cl.service.require_authentication = true; }),
      {{"--credentials"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& path) -> Status {
         DDBD_ASSIGN_OR_RETURN(Credentials credentials, Credentials::Load(path));
         cl.notes.push_back("verifying request signatures against " +
                            std::to_string(credentials.size()) + " access key" +
                            (credentials.size() == 1 ? "" : "s") + " from " + path);
         cl.service.credentials = std::make_shared<const Credentials>(std::move(credentials));
         return OkStatus();
       }},
      {{"--region"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) {
         cl.service.default_region = v;
         return OkStatus();
       }},
  };
}

std::vector<Option> BehaviourOptions() {
  return {
      Flag({"-delayTransientStatuses"},
           [](CommandLine& cl) {
             if (cl.service.transient_status_delay.count() == 0) {
               cl.service.transient_status_delay = milliseconds(500);
             }
           }),
      IntOption(
          {"--transient-status-ms"}, 0, 3'600'000,
          [](CommandLine& cl, int v) { cl.service.transient_status_delay = milliseconds(v); }),
      IntOption({"--ttl-interval-ms"}, 10, 86'400'000,
                [](CommandLine& cl, int v) { cl.service.ttl_interval = milliseconds(v); }),
      IntOption({"--gsi-lag-ms"}, 0, 86'400'000,
                [](CommandLine& cl, int v) { cl.service.gsi_lag_ms = v; }),
      IntOption({"--replication-delay-ms"}, 0, 86'400'000,
                [](CommandLine& cl, int v) { cl.service.replication_delay = milliseconds(v); }),
      IntOption({"--background-threads"}, 1, 64,
                [](CommandLine& cl, int v) { cl.service.background_threads = size_t(v); }),
      IntOption({"--vector-index-allocation-ms"}, 0, 3'600'000,
                [](CommandLine& cl, int v) { cl.service.vector_allocation = milliseconds(v); }),
      IntOption({"--vector-index-build-ms"}, 0, 3'600'000,
                [](CommandLine& cl, int v) { cl.service.vector_build_minimum = milliseconds(v); }),
      IntOption(
          {"--vector-exact-threshold"}, 1, 1 << 30,
          [](CommandLine& cl, int v) { cl.service.vector_search.exact_threshold = size_t(v); }),
      Flag({"--exact-vector-search"},
           [](CommandLine& cl) { cl.service.vector_search.exact_only = true; }),
      {{"--start-time"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) -> Status {
         Result<int64_t> start = ParseTimeMs(v);
         if (!start.ok())
           return Error::Validation("invalid value for --start-time: " + start.error().message());
         cl.service.start_time_ms = *start;
         return OkStatus();
       }},
      Flag({"--no-control-api"}, [](CommandLine& cl) { cl.service.control_api = false; }),
      Flag({"--enforce-capacity"}, [](CommandLine& cl) { cl.service.enforce_capacity = true; }),
  };
}

std::vector<Option> ProcessOptions() {
  return {
      {{"--log-format"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) -> Status {
         std::optional<log::Format> format = log::ParseFormat(v);
         if (!format) {
           return Error::Validation("invalid value for --log-format: '" + v +
                                    "' (text, logfmt or json)");
         }
         cl.log_format = *format;
         return OkStatus();
       }},
      {{"--log-level"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) -> Status {
         std::optional<log::Level> level = log::ParseLevel(v);
         if (!level) {
           return Error::Validation("invalid value for --log-level: '" + v +
                                    "' (expected error, warning, info or debug)");
         }
         cl.log_level = *level;
         return OkStatus();
       }},
      Flag({"--log-requests"}, [](CommandLine& cl) { cl.service.log_requests = true; }),
      {{"--report-on-exit"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& v) -> Status {
         cl.report_on_exit = v;
         return OkStatus();
       }},
      Flag({"--health-check"}, [](CommandLine& cl) { cl.health_check = true; }),
      Flag({"--help", "-help", "-h"}, [](CommandLine& cl) { cl.help = true; }),
      // Nothing to disable: ddbd reports nothing anywhere.
      Flag({"-disableTelemetry"}, [](CommandLine&) {}),
      {{"--compat"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& profile) -> Status {
         if (profile == "none") {
           cl.service.compat = CompatProfile::kNone;
         } else if (profile == "dynamodb-local") {
           cl.service.compat = CompatProfile::kDynamoDbLocal;
         } else {
           return Error::Validation("invalid value for --compat: '" + profile +
                                    "' (none or dynamodb-local)");
         }
         cl.compat_set = true;
         return OkStatus();
       }},
      // DynamoDB Local's java command line, as compose files and scripts pass it.
      {{"-jar"},
       true,
       [](CommandLine& cl, const std::string&, const std::string& jar) {
         const std::string name = jar.substr(jar.find_last_of('/') + 1);
         if (name == "DynamoDBLocal.jar") cl.dynamodb_local_jar = true;
         cl.notes.push_back("ignoring '-jar " + jar + "': a DynamoDB Local argument; ddbd is a " +
                            "native binary");
         return OkStatus();
       }},
  };
}

const Option* FindOption(std::string_view name) {
  static const std::vector<Option> options = [] {
    std::vector<Option> all;
    for (auto group :
         {NetworkOptions, StorageOptions, AccessOptions, BehaviourOptions, ProcessOptions}) {
      for (Option& option : group()) all.push_back(std::move(option));
    }
    return all;
  }();
  for (const Option& option : options) {
    if (std::find(option.names.begin(), option.names.end(), name) != option.names.end()) {
      return &option;
    }
  }
  return nullptr;
}

// -Dname=value and -X… options of a java command line.
bool IsJvmOption(const std::string& arg) {
  return arg.size() > 2 && (arg.starts_with("-D") || arg.starts_with("-X"));
}

}  // namespace

Result<CommandLine> ParseCommandLine(const std::vector<std::string>& args) {
  CommandLine cl;
  cl.storage.path = "ddbd-data";
  unsigned cores = std::thread::hardware_concurrency();
  cl.server.threads = static_cast<int>(cores < 2 ? 2 : cores);
  // DynamoDB Local's java command line may begin with JVM options, as the amazon/dynamodb-local
  // image's users pass them ("-Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar").
  size_t first = 0;
  while (first < args.size() && IsJvmOption(args[first])) {
    cl.notes.push_back("ignoring '" + args[first] + "': a Java option; ddbd is a native binary");
    ++first;
  }
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const Option* option = FindOption(arg);
    if (!option) return Error::Validation("unknown option: " + arg);
    std::string value;
    if (option->takes_value) {
      if (i + 1 >= args.size()) return Error::Validation("missing value for " + arg);
      value = args[++i];
    }
    DDBD_RETURN_IF_ERROR(option->apply(cl, arg, value));
  }
  if (cl.server.tls_certificate.empty() != cl.server.tls_private_key.empty()) {
    return Error::Validation("--tls-cert and --tls-key go together");
  }
  const bool started_as_dynamodb_local =
      cl.dynamodb_local_jar && args.size() >= first + 2 && args[first] == "-jar";
  if (started_as_dynamodb_local && !cl.compat_set) {
    cl.service.compat = CompatProfile::kDynamoDbLocal;
  }
  if (cl.service.compat == CompatProfile::kDynamoDbLocal) {
    cl.notes.push_back(
        std::string("DynamoDB Local compatibility profile on") +
        (cl.compat_set ? "" : " (the command line is DynamoDB Local's)") +
        ": GET / answers 400, unused AttributeDefinitions are ignored, string sets come back "
        "sorted; --compat none turns it off");
  }
  return cl;
}

}  // namespace ddbd::server
