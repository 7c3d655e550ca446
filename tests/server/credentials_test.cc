// The --credentials file: its plain and INI forms, and the mistakes it reports.
#include "server/credentials.h"

#include <gtest/gtest.h>

namespace ddbd::server {
namespace {

std::string Failure(std::string_view text) {
  auto parsed = Credentials::Parse(text);
  return parsed.ok() ? "(accepted)" : parsed.error().message();
}

TEST(CredentialsTest, PlainLinesWithComments) {
  auto parsed =
      Credentials::Parse("# test keys\n\nAKID1 secret1\n  AKID2\tsecret2   token2  \r\n# end\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(parsed->size(), 2u);
  ASSERT_NE(parsed->Find("AKID1"), nullptr);
  EXPECT_EQ(parsed->Find("AKID1")->secret_access_key, "secret1");
  EXPECT_EQ(parsed->Find("AKID1")->session_token, "");
  EXPECT_EQ(parsed->Find("AKID2")->session_token, "token2");
  EXPECT_EQ(parsed->Find("AKID3"), nullptr);
  EXPECT_EQ(parsed->first_access_key(), "AKID1");
}

TEST(CredentialsTest, AwsSharedCredentialsFile) {
  auto parsed = Credentials::Parse(
      "; shared file\n[default]\naws_access_key_id = AKIDDEFAULT\n"
      "aws_secret_access_key=secret/with+chars=\nregion = eu-west-1\n\n"
      "[role]\nrole_arn = arn:aws:iam::123456789012:role/x\n"
      "[temp]\naws_access_key_id=ASIATEMP\naws_secret_access_key = s\naws_session_token = t\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_EQ(parsed->size(), 2u);
  EXPECT_EQ(parsed->Find("AKIDDEFAULT")->secret_access_key, "secret/with+chars=");
  EXPECT_EQ(parsed->Find("ASIATEMP")->session_token, "t");
}

TEST(CredentialsTest, ReportsMistakesByLine) {
  EXPECT_EQ(Failure("AKID1\n"),
            "credentials file, line 1: expected 'ACCESS_KEY_ID SECRET_ACCESS_KEY "
            "[SESSION_TOKEN]'");
  EXPECT_EQ(Failure("A s\n\nA t\n"), "credentials file, line 3: access key 'A' is listed twice");
  EXPECT_EQ(Failure("# nothing\n"), "credentials file lists no access key");
  EXPECT_EQ(Failure("[p]\naws_secret_access_key = s\n"),
            "credentials file, line 1: profile has aws_secret_access_key but no "
            "aws_access_key_id");
  EXPECT_EQ(Failure("[p]\naws_access_key_id = A\n"),
            "credentials file, line 1: access key 'A' has no secret");
  EXPECT_EQ(Failure("[p]\njunk\n"), "credentials file, line 2: expected 'name = value'");
}

TEST(CredentialsTest, LoadNamesTheFile) {
  auto loaded = Credentials::Load("/nonexistent/ddbd-credentials");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().message(),
            "cannot read credentials file '/nonexistent/ddbd-credentials'");
}

}  // namespace
}  // namespace ddbd::server
