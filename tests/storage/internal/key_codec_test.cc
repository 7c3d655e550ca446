// RocksDB keys: items group by partition, bounds are exact.
#include "storage/internal/key_codec.h"

#include <gtest/gtest.h>

namespace ddbd::storage {
namespace {

TEST(KeyCodecTest, ItemKeysGroupByPartition) {
  PrimaryKey a{AttributeValue::String("p"), AttributeValue::String("x")};
  PrimaryKey b{AttributeValue::String("p"), AttributeValue::String("y")};
  std::string prefix = PartitionPrefix(7, AttributeValue::String("p"));
  EXPECT_EQ(ItemKey(7, a).compare(0, prefix.size(), prefix), 0);
  EXPECT_EQ(ItemKey(7, b).compare(0, prefix.size(), prefix), 0);
  EXPECT_LT(ItemKey(7, a), ItemKey(7, b));
  EXPECT_LT(TablePrefix(7), ItemKey(7, a));
  EXPECT_LT(ItemKey(7, b), TablePrefix(8));
}

TEST(KeyCodecTest, PrefixSuccessor) {
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xFF", 2)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\xFF\xFF", 2)), "");
}

}  // namespace
}  // namespace ddbd::storage
