// ddbd's entry point: parse options, open the database, serve until SIGINT/SIGTERM, then
// flush and close so that every acknowledged write is on disk.
#include <pthread.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

#include "model/log.h"
#include "server/control/control_api.h"
#include "server/file_limits.h"
#include "server/health_check.h"
#include "server/http/server.h"
#include "server/ops/recovery.h"
#include "server/options.h"
#include "storage/catalog.h"
#include "storage/database.h"
#include "wire/attribute_value_json.h"

using namespace ddbd;

namespace {

// After the server has stopped: the vector graphs saved, background work stopped, the
// database flushed, and a summary logged. The process's exit status.
int Shutdown(server::Service& service, storage::Database& db,
             std::chrono::steady_clock::time_point started, const std::string& report_file) {
  if (!report_file.empty()) {
    // Before the background stops: the report reads the catalog and the tables' figures.
    const std::string report =
        server::control::ReportText(server::control::BuildReport(service, insight::Prices{}));
    std::ofstream out(report_file, std::ios::binary | std::ios::trunc);
    out << report;
    if (!out.flush()) log::Error("cannot write the report to %s", report_file.c_str());
  }
  if (Status saved = service.SaveVectorGraphs(); !saved.ok()) {
    log::Warning("vector graphs not saved (rebuilt at the next start): %s",
                 saved.error().message().c_str());
  }
  // No background write may follow the flush: what has not started is resumed next time.
  service.StopBackground();
  if (Status flushed = db.Flush(); !flushed.ok()) {
    log::Error("%s", flushed.error().message().c_str());
    return 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  log::Event(log::Level::kInfo, "stopped",
             {{"uptime_s", seconds, 1},
              {"requests", static_cast<int64_t>(service.metrics().RequestsAnswered())}});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Result<server::CommandLine> parsed =
      server::ParseCommandLine(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.ok()) {
    std::fprintf(stderr, "ddbd: %s\n\n%s", parsed.error().message().c_str(),
                 server::UsageText().c_str());
    return 2;
  }
  const auto started = std::chrono::steady_clock::now();
  server::CommandLine& cl = *parsed;
  log::SetLevel(cl.log_level);
  log::SetFormat(cl.log_format);
  if (cl.help) {
    std::fputs(server::UsageText().c_str(), stdout);
    return 0;
  }
  if (cl.health_check) return server::HealthCheck(cl.server.address, cl.server.port);

  // Signals are taken by a dedicated thread; every other thread inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  // Descriptors for RocksDB's files are set aside before any connection can take them.
  const server::FileBudget budget = server::SplitFileLimit(server::RaiseOpenFileLimit());
  cl.storage.max_open_files = budget.storage_files;
  if (!cl.max_connections_set) cl.server.max_connections = budget.max_connections;

  auto db = storage::Database::Open(cl.storage);
  if (!db.ok()) {
    log::Error("cannot open database: %s", db.error().message().c_str());
    return 1;
  }
  auto catalog = storage::Catalog::Load(**db);
  if (!catalog.ok()) {
    log::Error("cannot load catalog: %s", catalog.error().message().c_str());
    return 1;
  }
  if (cl.service.s3_root.empty() && !cl.storage.in_memory) {
    cl.service.s3_root = cl.storage.path + "/s3";
  }
  wire::SetStringSetsSorted(cl.service.compat == server::CompatProfile::kDynamoDbLocal);
  server::Service service(**db, **catalog, cl.service);
  // HNSW graphs saved by the last clean shutdown live beside the database.
  std::optional<std::string> graph_dir;
  if (!cl.storage.in_memory) graph_dir = cl.storage.path + "/vector-graphs";
  service.StartBackground(graph_dir);
  server::ops::ResumeInterruptedWork(service);
  if (!cl.triggers_file.empty()) {
    if (Status loaded = server::control::LoadTriggersFile(service, cl.triggers_file);
        !loaded.ok()) {
      log::Error("%s", loaded.error().message().c_str());
      return 1;
    }
  }
  server::http::HttpServer http(service, cl.server);
  if (Status started = http.Start(); !started.ok()) {
    log::Error("%s", started.error().message().c_str());
    return 1;
  }
  for (const auto& note : cl.notes) log::Info("%s", note.c_str());
  log::Info("listening on %s:%u%s; storage: %s; S3: %s; isolation: %s; max connections: %d",
            cl.server.address.c_str(), http.port(), cl.server.tls() ? " (https)" : "",
            cl.storage.in_memory ? "in memory" : cl.storage.path.c_str(),
            service.objects().Describe().c_str(), cl.service.isolation.Describe().c_str(),
            cl.server.max_connections);

  std::thread signal_thread([&] {
    int received = 0;
    sigwait(&signals, &received);
    log::Info("signal %d, shutting down", received);
    http.Stop();
  });
  http.Run();
  signal_thread.join();
  return Shutdown(service, **db, started, cl.report_on_exit);
}
