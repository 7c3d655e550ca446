// Where a global table's replicas live. A region is a table namespace of the server only when
// requests are isolated by region (--isolate region): a table's scope is then
// "<access key>/<region>", and its replica in another region is the table of the same name in
// the scope with that region. Without region isolation every region sees the same tables, so
// a replica is recorded in the replication group but holds no data of its own.
//
// Entry points: IsReplicaRegion, RegionIsolated, ScopeInRegion, ReplicaRegionList.
#pragma once

#include <string>
#include <string_view>

namespace ddbd::replication {

// Whether `region` is one where global tables can have a replica (AWS's commercial regions).
bool IsReplicaRegion(std::string_view region);
// Those regions, as DynamoDB's error message lists them: "[ap-east-1, ap-northeast-1, …]".
std::string ReplicaRegionList();

// Whether tables of `scope` are separated by region.
bool RegionIsolated(std::string_view scope);
// The scope of the tables of `region` that belong to the same credentials as `scope`.
// REQUIRES: RegionIsolated(scope).
std::string ScopeInRegion(std::string_view scope, std::string_view region);

}  // namespace ddbd::replication
