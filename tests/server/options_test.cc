// The command line: ddbd's own options and DynamoDB Local's spellings of the same things.
#include "server/options.h"

#include <gtest/gtest.h>

#include "server/file_limits.h"

namespace ddbd::server {
namespace {

CommandLine Parse(std::vector<std::string> args) {
  auto parsed = ParseCommandLine(args);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message());
  return parsed.ok() ? std::move(parsed).value() : CommandLine{};
}

std::string Failure(std::vector<std::string> args) {
  auto parsed = ParseCommandLine(args);
  return parsed.ok() ? "(accepted)" : parsed.error().message();
}

TEST(OptionsTest, DefaultsServeOnPort8000FromAnOnDiskDatabase) {
  CommandLine cl = Parse({});
  EXPECT_EQ(cl.server.port, 8000);
  EXPECT_EQ(cl.storage.path, "ddbd-data");
  EXPECT_FALSE(cl.storage.in_memory);
  EXPECT_FALSE(cl.storage.compact_on_open);
  EXPECT_TRUE(cl.notes.empty());
}

TEST(OptionsTest, ConnectionsAreBoundedInNumberAndTime) {
  CommandLine cl = Parse({});
  EXPECT_EQ(cl.server.header_timeout, std::chrono::seconds(10));
  EXPECT_EQ(cl.server.body_timeout, std::chrono::seconds(60));
  EXPECT_EQ(cl.server.idle_timeout, std::chrono::seconds(60));
  EXPECT_FALSE(cl.max_connections_set);
  cl = Parse({"--max-connections", "20", "--header-timeout-ms", "500", "--body-timeout-ms", "700",
              "--idle-timeout-ms", "900"});
  EXPECT_EQ(cl.server.max_connections, 20);
  EXPECT_TRUE(cl.max_connections_set);
  EXPECT_EQ(cl.server.header_timeout, std::chrono::milliseconds(500));
  EXPECT_EQ(cl.server.body_timeout, std::chrono::milliseconds(700));
  EXPECT_EQ(cl.server.idle_timeout, std::chrono::milliseconds(900));
  EXPECT_EQ(Failure({"--max-connections", "0"}), "invalid value for --max-connections: '0'");
  EXPECT_EQ(Failure({"--idle-timeout-ms", "x"}), "invalid value for --idle-timeout-ms: 'x'");
}

TEST(OptionsTest, StoredDataTakesABoundedBlockCache) {
  EXPECT_EQ(Parse({}).storage.block_cache_bytes, uint64_t{64} << 20);
  EXPECT_EQ(Parse({"--block-cache-mb", "512"}).storage.block_cache_bytes, uint64_t{512} << 20);
  EXPECT_EQ(Failure({"--block-cache-mb", "0"}), "invalid value for --block-cache-mb: '0'");
}

TEST(FileLimitsTest, StorageKeepsItsDescriptorsWhateverTheLimit) {
  EXPECT_EQ(SplitFileLimit(256).storage_files, 64);
  EXPECT_EQ(SplitFileLimit(256).max_connections, 256 - 64 - kSpareFiles);
  EXPECT_EQ(SplitFileLimit(1024).storage_files, 256);
  EXPECT_EQ(SplitFileLimit(1024).max_connections, 1024 - 256 - kSpareFiles);
  EXPECT_EQ(SplitFileLimit(1 << 20).storage_files, kMaxStorageFiles);
  EXPECT_EQ(SplitFileLimit(1 << 20).max_connections, kMaxDefaultConnections);
  EXPECT_EQ(SplitFileLimit(20).storage_files, 16);
  EXPECT_EQ(SplitFileLimit(20).max_connections, 1);
}

TEST(OptionsTest, TheControlApiIsOnAndTheClockFollowsTheSystemUnlessTold) {
  CommandLine cl = Parse({});
  EXPECT_TRUE(cl.service.control_api);
  EXPECT_FALSE(cl.service.start_time_ms.has_value());
  cl = Parse({"--no-control-api", "--start-time", "2024-03-01T12:00:00Z"});
  EXPECT_FALSE(cl.service.control_api);
  EXPECT_EQ(cl.service.start_time_ms, 1'709'294'400'000);
  EXPECT_EQ(Parse({"--start-time", "1700000000.5"}).service.start_time_ms, 1'700'000'000'500);
  EXPECT_EQ(Failure({"--start-time", "tomorrow"}),
            "invalid value for --start-time: not a time: 'tomorrow' (expected epoch seconds or "
            "ISO 8601, e.g. 2024-03-01T12:00:00Z)");
}

TEST(OptionsTest, CorsTakesACommaSeparatedAllowList) {
  EXPECT_TRUE(Parse({}).service.cors_origins.empty());  // every origin
  EXPECT_EQ(Parse({"-cors", "http://a.example, https://b.example:8443"}).service.cors_origins,
            (std::vector<std::string>{"http://a.example", "https://b.example:8443"}));
  EXPECT_EQ(Parse({"--cors", "*"}).service.cors_origins, std::vector<std::string>{"*"});
  EXPECT_EQ(Failure({"-cors", " , "}), "invalid value for -cors: ' , '");
  EXPECT_EQ(Failure({"-cors"}), "missing value for -cors");
}

TEST(OptionsTest, TransientStatusesAreDelayedOnlyWhenAsked) {
  EXPECT_EQ(Parse({}).service.transient_status_delay.count(), 0);
  EXPECT_EQ(Parse({"-delayTransientStatuses"}).service.transient_status_delay.count(), 500);
  EXPECT_EQ(Parse({"--transient-status-ms", "50", "-delayTransientStatuses"})
                .service.transient_status_delay.count(),
            50);
  EXPECT_EQ(Parse({"--vector-index-allocation-ms", "30"}).service.vector_allocation.count(), 30);
  EXPECT_TRUE(Parse({"--exact-vector-search"}).service.vector_search.exact_only);
  EXPECT_EQ(Parse({"--vector-exact-threshold", "64"}).service.vector_search.exact_threshold, 64u);
}

TEST(OptionsTest, TtlPassesEverySecondUnlessTold) {
  EXPECT_EQ(Parse({}).service.ttl_interval.count(), 1000);
  EXPECT_EQ(Parse({"--ttl-interval-ms", "100"}).service.ttl_interval.count(), 100);
  EXPECT_FALSE(ParseCommandLine({"--ttl-interval-ms", "0"}).ok());
}

TEST(OptionsTest, DynamoDbLocalSpellingsMeanTheSameAsOurs) {
  CommandLine local = Parse({"-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory", "-port", "8001",
                             "-disableTelemetry"});
  EXPECT_EQ(local.server.port, 8001);
  EXPECT_TRUE(local.storage.in_memory);
  EXPECT_EQ(local.service.isolation.Describe(), Isolation{}.Describe());
  ASSERT_EQ(local.notes.size(), 2u);
  EXPECT_EQ(
      local.notes[0],
      "ignoring '-jar DynamoDBLocal.jar': a DynamoDB Local argument; ddbd is a native binary");
  EXPECT_EQ(local.notes[1],
            "DynamoDB Local compatibility profile on (the command line is DynamoDB Local's): "
            "GET / answers 400, unused AttributeDefinitions are ignored, string sets come back "
            "sorted; --compat none turns it off");

  CommandLine on_disk = Parse({"-dbPath", "/tmp/somewhere", "-optimizeDbBeforeStartup"});
  EXPECT_EQ(on_disk.storage.path, "/tmp/somewhere");
  EXPECT_TRUE(on_disk.storage.compact_on_open);
  EXPECT_TRUE(Parse({"-help"}).help);
}

// DynamoDB Local's command line switches its profile on, wherever its jar lives; --compat,
// before or after it, decides instead; without the jar first, DynamoDB's behaviour stays.
TEST(OptionsTest, DynamoDbLocalCommandLineTurnsItsProfileOn) {
  EXPECT_EQ(Parse({}).service.compat, CompatProfile::kNone);
  EXPECT_EQ(Parse({"-jar", "DynamoDBLocal.jar", "-sharedDb"}).service.compat,
            CompatProfile::kDynamoDbLocal);
  EXPECT_EQ(Parse({"-jar", "/opt/local/DynamoDBLocal.jar"}).service.compat,
            CompatProfile::kDynamoDbLocal);
  EXPECT_EQ(Parse({"-jar", "DynamoDBLocal.jar", "--compat", "none"}).service.compat,
            CompatProfile::kNone);
  EXPECT_EQ(Parse({"--compat", "none", "-jar", "DynamoDBLocal.jar"}).service.compat,
            CompatProfile::kNone);
  EXPECT_EQ(Parse({"--compat", "dynamodb-local"}).service.compat, CompatProfile::kDynamoDbLocal);
  EXPECT_EQ(Parse({"-inMemory", "-jar", "DynamoDBLocal.jar"}).service.compat, CompatProfile::kNone);
  EXPECT_EQ(Parse({"-jar", "other.jar"}).service.compat, CompatProfile::kNone);
  // The amazon/dynamodb-local image's users pass JVM options before the jar.
  CommandLine with_jvm_options = Parse({"-Djava.library.path=./DynamoDBLocal_lib", "-Xmx512m",
                                        "-jar", "DynamoDBLocal.jar", "-inMemory"});
  EXPECT_EQ(with_jvm_options.service.compat, CompatProfile::kDynamoDbLocal);
  EXPECT_TRUE(with_jvm_options.storage.in_memory);
  EXPECT_EQ(with_jvm_options.notes[0],
            "ignoring '-Djava.library.path=./DynamoDBLocal_lib': a Java option; ddbd is a native "
            "binary");
  EXPECT_EQ(Failure({"-inMemory", "-Dx=y"}), "unknown option: -Dx=y");
  EXPECT_EQ(Parse({"--compat", "dynamodb-local"}).notes,
            std::vector<std::string>{
                "DynamoDB Local compatibility profile on: GET / answers 400, unused "
                "AttributeDefinitions are ignored, string sets come back sorted; --compat none "
                "turns it off"});
  EXPECT_EQ(Failure({"--compat", "localstack"}),
            "invalid value for --compat: 'localstack' (none or dynamodb-local)");
}

TEST(OptionsTest, BadOptionsAreNamed) {
  EXPECT_EQ(Failure({"--no-such-flag"}), "unknown option: --no-such-flag");
  EXPECT_EQ(Failure({"-port"}), "missing value for -port");
  EXPECT_EQ(Failure({"-jar"}), "missing value for -jar");
  EXPECT_NE(Failure({"--port", "70000"}), "(accepted)");
  EXPECT_NE(Failure({"--isolate", "tenant"}), "(accepted)");
}

TEST(OptionsTest, TlsNeedsBothCertificateAndKey) {
  EXPECT_FALSE(Parse({}).server.tls());
  CommandLine cl = Parse({"--tls-cert", "cert.pem", "--tls-key", "key.pem"});
  EXPECT_TRUE(cl.server.tls());
  EXPECT_EQ(cl.server.tls_certificate, "cert.pem");
  EXPECT_EQ(cl.server.tls_private_key, "key.pem");
  EXPECT_EQ(Failure({"--tls-cert", "cert.pem"}), "--tls-cert and --tls-key go together");
  EXPECT_EQ(Failure({"--tls-key", "key.pem"}), "--tls-cert and --tls-key go together");
}

TEST(OptionsTest, CredentialsAreLoadedWhenParsed) {
  EXPECT_EQ(Parse({}).service.credentials, nullptr);
  EXPECT_EQ(Failure({"--credentials", "/nonexistent/keys"}),
            "cannot read credentials file '/nonexistent/keys'");
  EXPECT_EQ(Failure({"--credentials"}), "missing value for --credentials");
}

}  // namespace
}  // namespace ddbd::server
