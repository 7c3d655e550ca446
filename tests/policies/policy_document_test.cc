// Resource-based policy documents: DynamoDB's normal form and its refusals.
#include "policies/policy_document.h"

#include <gtest/gtest.h>

namespace ddbd::policies {
namespace {

TEST(PolicyDocument, NormalizesAsGetResourcePolicyReturnsIt) {
  // Keys in IAM's order, one-element lists as their element, an account id as its root ARN,
  // one statement object as a list, conditions and unknown members kept as they are.
  const auto normalized = NormalizePolicy(R"({
      "Statement": {"Resource": ["arn:aws:dynamodb:us-east-1:000000000000:table/T"],
                    "Condition": {"StringEquals": {"aws:PrincipalTag/team": ["a", "b"]}},
                    "NotAction": ["dynamodb:DeleteItem"], "Effect": "Allow",
                    "Principal": {"AWS": ["111122223333", "arn:aws:iam::444455556666:role/r"]}},
      "Version": "2012-10-17", "Id": "p1"})",
                                          PolicyTarget::kTable);
  ASSERT_TRUE(normalized.ok()) << normalized.error().message();
  EXPECT_EQ(*normalized,
            R"({"Version":"2012-10-17","Id":"p1","Statement":[{"Effect":"Allow","Principal":)"
            R"({"AWS":["arn:aws:iam::111122223333:root","arn:aws:iam::444455556666:role/r"]},)"
            R"("NotAction":"dynamodb:DeleteItem",)"
            R"("Resource":"arn:aws:dynamodb:us-east-1:000000000000:table/T","Condition":)"
            R"({"StringEquals":{"aws:PrincipalTag/team":["a","b"]}}}]})");
}

TEST(PolicyDocument, StreamActionsBelongToStreamPoliciesAndConditionsBoundAnAllowToAll) {
  const std::string stream_policy =
      R"({"Statement":[{"Effect":"Allow","Principal":{"AWS":"111122223333"},)"
      R"("Action":"dynamodb:GetRecords","Resource":"*"}]})";
  EXPECT_TRUE(NormalizePolicy(stream_policy, PolicyTarget::kStream).ok());
  EXPECT_FALSE(NormalizePolicy(stream_policy, PolicyTarget::kTable).ok());
  const std::string conditioned =
      R"({"Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem",)"
      R"("Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}]})";
  EXPECT_TRUE(NormalizePolicy(conditioned, PolicyTarget::kTable).ok());
}

TEST(PolicyDocument, RefusesWhatDynamoDbRefuses) {
  const std::string prefix = "One or more parameter values were invalid: Invalid policy document: ";
  const std::pair<std::string, std::string> cases[] = {
      {"", prefix + "This policy contains invalid Json"},
      {"[1]", prefix + "This policy contains invalid Json"},
      {R"({"Version":"2012-10-17"})", prefix + "Missing required field Statement"},
      {R"({"Statement":[]})", prefix + "Could not parse the policy: Statement is empty!"},
      {R"({"Statement":[{"Principal":"*","Action":"a","Resource":"*"}]})",
       prefix + "Missing required field Effect"},
      {R"({"Statement":[{"Effect":"Deny","Action":"a","Resource":"*"}]})",
       prefix + "Missing required field Principal"},
      {R"({"Statement":[{"Effect":"Maybe","Principal":"*","Action":"a","Resource":"*"}]})",
       prefix + "Invalid effect: \"Maybe\""},
  };
  for (const auto& [text, message] : cases) {
    auto normalized = NormalizePolicy(text, PolicyTarget::kTable);
    ASSERT_FALSE(normalized.ok()) << text;
    EXPECT_EQ(normalized.error().code(), ErrorCode::kValidation);
    EXPECT_EQ(normalized.error().message(), message) << text;
  }
  EXPECT_EQ(
      NormalizePolicy(std::string(kMaxPolicyBytes + 1, ' '), PolicyTarget::kTable)
          .error()
          .message(),
      "One or more parameter values were invalid: Maximum policy size of 20480 bytes exceeded");
}

}  // namespace
}  // namespace ddbd::policies
