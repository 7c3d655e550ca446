// A table's replication group survives its encoding, every member of it; a cut record is
// refused.
#include "storage/internal/replication_codec.h"

#include <gtest/gtest.h>

namespace ddbd::storage {
namespace {

ReplicationGroup FullGroup() {
  ReplicationGroup group;
  ReplicaSpec east{.region = "us-east-1"};
  ReplicaSpec west{.region = "us-west-2", .status = ReplicaStatus::kCreating};
  west.read_capacity_override = 7;
  west.max_read_request_units_override = 40;
  west.table_class_override = "STANDARD_INFREQUENT_ACCESS";
  west.table_class_changed_ms = 1'700'000'000'123;
  west.kms_master_key_id = "arn:aws:kms:us-west-2:000000000000:key/k";
  west.indexes.push_back(
      {"ByGenre", 3, std::nullopt,
       AutoScaling{1, 9, false, "role", ScalingPolicy{"p", 70.5, true, 60, {}}}});
  west.read_scaling = AutoScaling{2, 4, true, "", std::nullopt};
  group.replicas = {east, west};
  group.strong_consistency = true;
  group.witnesses = {"us-east-2"};
  group.write_scaling = AutoScaling{5, 50, false, "role", ScalingPolicy{"w", 10, {}, {}, 300}};
  group.index_write_scaling = {{"ByGenre", AutoScaling{1, 2, false, "r", std::nullopt}}};
  return group;
}

TEST(ReplicationCodecTest, RoundTripsEveryMember) {
  const ReplicationGroup group = FullGroup();
  ReplicationGroup decoded;
  ASSERT_TRUE(DecodeReplication(EncodeReplication(group), decoded));
  EXPECT_EQ(decoded, group);
}

TEST(ReplicationCodecTest, RejectsEveryTruncation) {
  const std::string bytes = EncodeReplication(FullGroup());
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    ReplicationGroup decoded;
    EXPECT_FALSE(DecodeReplication(bytes.substr(0, cut), decoded)) << cut;
  }
}

}  // namespace
}  // namespace ddbd::storage
