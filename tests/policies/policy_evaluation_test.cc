// Explicit denies: which statements deny which requests.
#include "policies/policy_evaluation.h"

#include <gtest/gtest.h>

#include "policies/policy_document.h"

namespace ddbd::policies {
namespace {

constexpr std::string_view kBob = "arn:aws:iam::000000000000:user/BOB";
constexpr std::string_view kTable = "arn:aws:dynamodb:us-east-1:000000000000:table/T";

std::string Normalized(std::string_view text) {
  auto document = NormalizePolicy(text, PolicyTarget::kTable);
  EXPECT_TRUE(document.ok()) << document.error().message();
  return document.ok() ? *document : std::string();
}

TEST(PolicyEvaluation, ADenyCoversItsPrincipalsActionsAndResources) {
  const std::string document =
      Normalized(R"({"Statement":[{"Effect":"Deny","Principal":{"AWS":"000000000000"},)"
                 R"("NotAction":["dynamodb:Get*","dynamodb:Query"],"Resource":"*"}]})");
  EXPECT_TRUE(ExplicitlyDenies(document, {kBob, "dynamodb:PutItem", kTable}));
  EXPECT_FALSE(ExplicitlyDenies(document, {kBob, "dynamodb:GetItem", kTable}));
  // Another account's caller is not its root's.
  EXPECT_FALSE(ExplicitlyDenies(
      document, {"arn:aws:iam::111122223333:user/BOB", "dynamodb:PutItem", kTable}));
  const std::string by_resource =
      Normalized(R"({"Statement":[{"Effect":"Deny","Principal":"*","Action":"dynamodb:Query",)"
                 R"("NotResource":"arn:aws:dynamodb:us-east-1:000000000000:table/T/index/*"}]})");
  EXPECT_TRUE(ExplicitlyDenies(by_resource, {kBob, "dynamodb:Query", kTable}));
  EXPECT_FALSE(
      ExplicitlyDenies(by_resource, {kBob, "dynamodb:Query", std::string(kTable) + "/index/I"}));
}

TEST(PolicyEvaluation, AllowsAndConditionalStatementsDenyNothing) {
  EXPECT_FALSE(ExplicitlyDenies(
      Normalized(R"({"Statement":[{"Effect":"Allow","Principal":{"AWS":"000000000000"},)"
                 R"("Action":"dynamodb:*","Resource":"*"}]})"),
      {kBob, "dynamodb:PutItem", kTable}));
  EXPECT_FALSE(ExplicitlyDenies(
      Normalized(R"({"Statement":[{"Effect":"Deny","Principal":"*","Action":"dynamodb:*",)"
                 R"("Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]})"),
      {kBob, "dynamodb:PutItem", kTable}));
}

}  // namespace
}  // namespace ddbd::policies
