// Credential-scope parsing and the isolation rule.
#include "server/service.h"

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
  std::string_view credential = authorization.substr(start, end == std::string_view::npos
                                                                ? std::string_view::npos
                                                                : end - start);
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

Status Service::StartVectorIndexes(index::Maintainer& maintainer,
                                   std::optional<std::string> graph_dir) {
  maintainer.SetVectorListener([vectors = vectors_.get()](
                                   std::vector<storage::VectorEntryChange> changes) {
    vectors->Apply(std::move(changes));
  });
  graph_dir_ = std::move(graph_dir);
  vectors_->Load(db_, catalog_, graph_dir_);
  return OkStatus();
}

Status Service::SaveVectorGraphs() {
  if (!graph_dir_) return OkStatus();
  return vectors_->SaveGraphs(db_, *graph_dir_);
}

Service::~Service() {
  std::lock_guard lock(background_mutex_);
  for (auto& background : background_) background.thread.join();
}

void Service::RunInBackground(std::function<void()> work) {
  std::lock_guard lock(background_mutex_);
  std::erase_if(background_, [](BackgroundThread& background) {
    if (!background.done->load()) return false;
    background.thread.join();
    return true;
  });
  auto done = std::make_shared<std::atomic<bool>>(false);
  background_.push_back({done, std::thread([work = std::move(work), done] {
                           work();
                           done->store(true);
                         })});
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

}  // namespace ddbd::server
