// The regions of global tables and the scopes of their replicas.
#include "replication/regions.h"

#include <algorithm>
#include <array>

namespace ddbd::replication {
namespace {

// In the order the error message lists them.
constexpr std::array<std::string_view, 34> kRegions = {
    "af-south-1",     "ap-east-1",      "ap-east-2",      "ap-northeast-1", "ap-northeast-2",
    "ap-northeast-3", "ap-south-1",     "ap-south-2",     "ap-southeast-1", "ap-southeast-2",
    "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-7", "ca-central-1",
    "ca-west-1",      "eu-central-1",   "eu-central-2",   "eu-north-1",     "eu-south-1",
    "eu-south-2",     "eu-west-1",      "eu-west-2",      "eu-west-3",      "il-central-1",
    "me-central-1",   "me-south-1",     "mx-central-1",   "sa-east-1",      "us-east-1",
    "us-east-2",      "us-west-1",      "us-west-2",      "us-gov-west-1",
};

}  // namespace

bool IsReplicaRegion(std::string_view region) {
  return std::find(kRegions.begin(), kRegions.end(), region) != kRegions.end();
}

std::string ReplicaRegionList() {
  std::string list = "[";
  for (std::string_view region : kRegions) {
    if (list.size() > 1) list += ", ";
    list += region;
  }
  return list + "]";
}

bool RegionIsolated(std::string_view scope) {
  const size_t slash = scope.rfind('/');
  return slash != std::string_view::npos && slash + 1 < scope.size();
}

std::string ScopeInRegion(std::string_view scope, std::string_view region) {
  return std::string(scope.substr(0, scope.rfind('/') + 1)) + std::string(region);
}

}  // namespace ddbd::replication
