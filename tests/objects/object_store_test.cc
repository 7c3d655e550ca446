// The local S3's stores: the same contract for the directory and the memory store.
#include "objects/object_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ddbd::objects {
namespace {

namespace fs = std::filesystem;

class ObjectStoreTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ddbd-objects-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(reinterpret_cast<uintptr_t>(this)));
    store_ = GetParam() ? OpenDirectoryStore(root_) : NewMemoryStore();
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
  std::unique_ptr<ObjectStore> store_;
};

TEST_P(ObjectStoreTest, PutCreatesTheBucketAndGetReadsTheBytes) {
  EXPECT_FALSE(*store_->HasBucket("b"));
  const std::string bytes("a\0b\xff", 4);
  ASSERT_TRUE(store_->Put("b", "x/y z.json", bytes).ok());
  EXPECT_TRUE(*store_->HasBucket("b"));
  EXPECT_EQ(*store_->Get("b", "x/y z.json"), bytes);
  ASSERT_TRUE(store_->Put("b", "x/y z.json", "replaced").ok());
  EXPECT_EQ(*store_->Get("b", "x/y z.json"), "replaced");
  const auto missing = store_->Get("b", "nothing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kResourceNotFound);
}

TEST_P(ObjectStoreTest, ListsByPrefixInKeyOrder) {
  for (const char* key : {"data/b", "data/a", "data2/c", "manifest", "data/sub/d"}) {
    ASSERT_TRUE(store_->Put("b", key, key).ok());
  }
  auto listed = store_->List("b", "data");
  ASSERT_TRUE(listed.ok());
  std::vector<std::string> keys;
  for (const auto& entry : *listed) keys.push_back(entry.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"data/a", "data/b", "data/sub/d", "data2/c"}));
  EXPECT_EQ((*listed)[0].size, 6u);
  EXPECT_EQ(store_->List("b", "data/")->size(), 3u);
  EXPECT_EQ(store_->List("b", "")->size(), 5u);
  EXPECT_TRUE(store_->List("nobucket", "")->empty());
}

TEST_P(ObjectStoreTest, RefusesKeysNoFileCanStandFor) {
  for (const char* key : {"", "a//b", "../escape", "a/./b", "trailing/"}) {
    EXPECT_FALSE(store_->Put("b", key, "x").ok()) << key;
  }
  EXPECT_FALSE(store_->Put("b", std::string(1025, 'k'), "x").ok());
}

INSTANTIATE_TEST_SUITE_P(Stores, ObjectStoreTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Directory" : "Memory"; });

TEST(DirectoryStoreTest, AnObjectIsAFileAndPartialWritesAreNotListed) {
  const fs::path root =
      fs::temp_directory_path() / ("ddbd-objects-dir-" + std::to_string(::getpid()));
  auto store = OpenDirectoryStore(root);
  ASSERT_TRUE(store->Put("bucket", "k/v.txt", "hello").ok());
  std::ifstream file(root / "bucket" / "k" / "v.txt");
  std::string text;
  std::getline(file, text);
  EXPECT_EQ(text, "hello");
  std::ofstream(root / "bucket" / "k" / "w.txt.ddbd-partial7") << "half";
  EXPECT_EQ(store->List("bucket", "")->size(), 1u);
  fs::remove_all(root);
}

}  // namespace
}  // namespace ddbd::objects
