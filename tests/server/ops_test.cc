// Handler behaviour through the dispatcher: table and item operations, and DynamoDB's
// validation messages for attribute values, keys and limits.
#include <gtest/gtest.h>

#include "tests/server/server_test_util.h"

namespace ddbd::server {
namespace {

using testing::ServerHarness;

constexpr std::string_view kCreateUsers = R"({
  "TableName": "Users",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                           {"AttributeName": "SK", "AttributeType": "S"}],
  "BillingMode": "PAY_PER_REQUEST"})";

class OpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(server_.Call("CreateTable", std::string(kCreateUsers)).status, 200);
  }
  // Asserts a ValidationException with exactly `message`.
  void ExpectValidation(std::string_view op, std::string body, std::string_view message) {
    auto reply = server_.Call(op, std::move(body));
    EXPECT_EQ(reply.status, 400);
    EXPECT_EQ(reply.ErrorName(), "ValidationException") << reply.body;
    EXPECT_EQ(reply.Message(), message);
  }
  std::string Put(std::string_view item) {
    return R"({"TableName":"Users","Item":)" + std::string(item) + "}";
  }
  ServerHarness server_;
};

TEST_F(OpsTest, PutThenGetReturnsCanonicalItem) {
  auto put = server_.Call("PutItem", Put(R"({"PK":{"S":"USER#1"},"SK":{"S":"PROFILE"},
      "n":{"N":"0010.50"},"b":{"B":"AAE="},"ns":{"NS":["1","2.0"]},"m":{"M":{"x":{"NULL":true}}}})"));
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(put.body, "{}");
  auto get = server_.Call(
      "GetItem", R"({"TableName":"Users","Key":{"PK":{"S":"USER#1"},"SK":{"S":"PROFILE"}}})");
  EXPECT_EQ(get.body, R"({"Item":{"PK":{"S":"USER#1"},"SK":{"S":"PROFILE"},"b":{"B":"AAE="},)"
                      R"("m":{"M":{"x":{"NULL":true}}},"n":{"N":"10.5"},"ns":{"NS":["1","2"]}}})");
}

TEST_F(OpsTest, GetMissingItemIsEmptyObject) {
  auto get =
      server_.Call("GetItem", R"({"TableName":"Users","Key":{"PK":{"S":"x"},"SK":{"S":"y"}}})");
  EXPECT_EQ(get.status, 200);
  EXPECT_EQ(get.body, "{}");
}

TEST_F(OpsTest, ReturnValuesAllOldAndDelete) {
  ASSERT_EQ(server_.Call("PutItem", Put(R"({"PK":{"S":"a"},"SK":{"S":"b"},"v":{"N":"1"}})")).status,
            200);
  auto replaced = server_.Call("PutItem", R"({"TableName":"Users","ReturnValues":"ALL_OLD",
      "Item":{"PK":{"S":"a"},"SK":{"S":"b"},"v":{"N":"2"}}})");
  EXPECT_EQ(replaced.body, R"({"Attributes":{"PK":{"S":"a"},"SK":{"S":"b"},"v":{"N":"1"}}})");
  auto deleted = server_.Call("DeleteItem", R"({"TableName":"Users","ReturnValues":"ALL_OLD",
      "Key":{"PK":{"S":"a"},"SK":{"S":"b"}}})");
  EXPECT_EQ(deleted.body, R"({"Attributes":{"PK":{"S":"a"},"SK":{"S":"b"},"v":{"N":"2"}}})");
  auto again = server_.Call("DeleteItem", R"({"TableName":"Users","ReturnValues":"ALL_OLD",
      "Key":{"PK":{"S":"a"},"SK":{"S":"b"}}})");
  EXPECT_EQ(again.body, "{}");
}

TEST_F(OpsTest, ConsumedCapacityFollowsUnitRules) {
  std::string big(2000, 'x');
  auto put = server_.Call("PutItem", R"({"TableName":"Users","ReturnConsumedCapacity":"TOTAL",
      "Item":{"PK":{"S":"a"},"SK":{"S":"b"},"d":{"S":")" +
                                         big + R"("}}})");
  EXPECT_EQ(put.body, R"({"ConsumedCapacity":{"TableName":"Users","CapacityUnits":2.0,)"
                      R"("WriteCapacityUnits":2.0}})");
  auto get = server_.Call("GetItem", R"({"TableName":"Users","ReturnConsumedCapacity":"INDEXES",
      "ConsistentRead":true,"Key":{"PK":{"S":"a"},"SK":{"S":"b"}}})");
  EXPECT_NE(get.body.find(R"("ConsumedCapacity":{"TableName":"Users","CapacityUnits":1.0,)"
                          R"("ReadCapacityUnits":1.0,"Table":{"CapacityUnits":1.0,)"
                          R"("ReadCapacityUnits":1.0}})"),
            std::string::npos)
      << get.body;
}

TEST_F(OpsTest, AttributeValueValidation) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{}})",
       "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"S":"a","N":"1"}})",
       "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
       "supported datatypes"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"NULL":false}})",
       "One or more parameter values were invalid: Null attribute value types must have the "
       "value of true"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"SS":[]}})",
       "One or more parameter values were invalid: An string set  may not be empty"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"NS":[]}})",
       "One or more parameter values were invalid: An number set  may not be empty"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"BS":[]}})",
       "One or more parameter values were invalid: Binary sets should not be empty"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"SS":["a","a"]}})",
       "One or more parameter values were invalid: Input collection [a, a] contains duplicates."},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"NS":["1","1.0"]}})",
       "Input collection contains duplicates"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"BS":["AA==","AA=="]}})",
       "One or more parameter values were invalid: Input collection [AA==, AA==]of type BS "
       "contains duplicates."},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"N":"abc"}})",
       "The parameter cannot be converted to a numeric value: abc"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"N":""}})",
       "The parameter cannot be converted to a numeric value"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"N":"1e126"}})",
       "Number overflow. Attempting to store a number with magnitude larger than supported range"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"N":"1e-131"}})",
       "Number underflow. Attempting to store a number with magnitude smaller than supported "
       "range"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"N":"1.23456789012345678901234567890123456789"}})",
       "Attempting to store more than 38 significant digits in a Number"},
      {R"({"PK":{"S":"a"},"SK":{"S":"b"},"":{"S":"x"}})",
       "One or more parameter values were invalid: Empty attribute name"},
  };
  for (const auto& [item, message] : cases) ExpectValidation("PutItem", Put(item), message);
}

TEST_F(OpsTest, NestingLimitIs32Levels) {
  auto nest = [](int maps) {
    std::string value = R"({"S":"x"})";
    for (int i = 0; i < maps; ++i) value = R"({"M":{"k":)" + value + "}}";
    return value;
  };
  EXPECT_EQ(server_.Call("PutItem", Put(R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":)" + nest(31) + "}"))
                .status,
            200);
  ExpectValidation("PutItem", Put(R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":)" + nest(32) + "}"),
                   "Nesting Levels have exceeded supported limits: Attributes in the item have "
                   "nested levels beyond supported limit");
}

TEST_F(OpsTest, Base64ErrorsAreSerializationExceptions) {
  auto reply = server_.Call("PutItem", Put(R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"B":"abc"}})"));
  EXPECT_EQ(reply.ErrorName(), "SerializationException");
  EXPECT_EQ(reply.Message(),
            "Base64 encoded length is expected a multiple of 4 bytes but found: 3");
  reply = server_.Call("PutItem", Put(R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"B":"ab!d"}})"));
  EXPECT_EQ(reply.Message(), "only base-64-encoded strings are convertible to bytes");
  reply = server_.Call("PutItem", Put(R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"B":"AB=="}})"));
  EXPECT_EQ(reply.Message(), "Invalid last non-pad Base64 character dectected");
  reply = server_.Call("PutItem", Put(R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"N":5}})"));
  EXPECT_EQ(reply.Message(), "NUMBER_VALUE cannot be converted to String");
}

TEST_F(OpsTest, KeyValidationOnWrites) {
  ExpectValidation("PutItem", Put(R"({"SK":{"S":"b"}})"),
                   "One or more parameter values were invalid: Missing the key PK in the item");
  ExpectValidation("PutItem", Put(R"({"PK":{"N":"1"},"SK":{"S":"b"}})"),
                   "One or more parameter values were invalid: Type mismatch for key PK expected: "
                   "S actual: N");
  ExpectValidation("PutItem", Put(R"({"PK":{"S":""},"SK":{"S":"b"}})"),
                   "One or more parameter values are not valid. The AttributeValue for a key "
                   "attribute cannot contain an empty string value. Key: PK");
  ExpectValidation("PutItem",
                   Put(R"({"PK":{"S":")" + std::string(2049, 'p') + R"("},"SK":{"S":"b"}})"),
                   "One or more parameter values were invalid: Size of hashkey has exceeded the "
                   "maximum size limit of2048 bytes");
  ExpectValidation("PutItem",
                   Put(R"({"PK":{"S":"a"},"SK":{"S":")" + std::string(1025, 's') + R"("}})"),
                   "One or more parameter values were invalid: Aggregated size of all range keys "
                   "has exceeded the size limit of 1024 bytes");
  EXPECT_EQ(server_
                .Call("PutItem", Put(R"({"PK":{"S":")" + std::string(2048, 'p') +
                                     R"("},"SK":{"S":")" + std::string(1024, 's') + R"("}})"))
                .status,
            200);
}

TEST_F(OpsTest, KeyParameterMustMatchSchema) {
  for (std::string key : {R"({"PK":{"S":"a"}})", R"({"PK":{"S":"a"},"SK":{"N":"1"}})",
                          R"({"PK":{"S":"a"},"SK":{"S":"b"},"x":{"S":"c"}})",
                          R"({"PK":{"S":"a"},"other":{"S":"b"}})"}) {
    ExpectValidation("GetItem", R"({"TableName":"Users","Key":)" + key + "}",
                     "The provided key element does not match the schema");
    ExpectValidation("DeleteItem", R"({"TableName":"Users","Key":)" + key + "}",
                     "The provided key element does not match the schema");
  }
}

TEST_F(OpsTest, ItemSizeLimit) {
  // Names "PK","SK","d" (5 bytes) + values "a","b" (2) + the payload = 409,600 exactly.
  std::string fits(409600 - 7, 'x');
  EXPECT_EQ(
      server_.Call("PutItem", Put(R"({"PK":{"S":"a"},"SK":{"S":"b"},"d":{"S":")" + fits + R"("}})"))
          .status,
      200);
  ExpectValidation("PutItem",
                   Put(R"({"PK":{"S":"a"},"SK":{"S":"b"},"d":{"S":")" + fits + R"(x"}})"),
                   "Item size has exceeded the maximum allowed size");
}

TEST_F(OpsTest, MissingTableAndEnvelopeOrder) {
  auto missing = server_.Call("GetItem", R"({"TableName":"Nope","Key":{"PK":{"S":"a"}}})");
  EXPECT_EQ(missing.ErrorName(), "ResourceNotFoundException");
  EXPECT_EQ(missing.Message(), "Requested resource not found");
  // A malformed request against a missing table reports the validation error.
  ExpectValidation("GetItem", R"({"TableName":"Nope"})",
                   "1 validation error detected: Value null at 'key' failed to satisfy "
                   "constraint: Member must not be null");
  ExpectValidation("GetItem", R"({"TableName":"a;","Key":{}})",
                   "2 validation errors detected: Value 'a;' at 'tableName' failed to satisfy "
                   "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; "
                   "Value 'a;' at 'tableName' failed to satisfy constraint: Member must have "
                   "length greater than or equal to 3");
  ExpectValidation("PutItem", R"({"TableName":"Users","Item":{"PK":{"S":"a"},"SK":{"S":"b"}},
      "ReturnValues":"ALL_NEW"})",
                   "ReturnValues can only be ALL_OLD or NONE");
  ExpectValidation("PutItem", R"({"TableName":"Users","Item":{"PK":{"S":"a"},"SK":{"S":"b"}},
      "ReturnValues":"SOME"})",
                   "1 validation error detected: Value 'SOME' at 'returnValues' failed to satisfy "
                   "constraint: Member must satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, "
                   "ALL_NEW, UPDATED_NEW]");
}

TEST_F(OpsTest, ExpressionValuesWithoutExpression) {
  ExpectValidation("PutItem", R"({"TableName":"Users","Item":{"PK":{"S":"a"},"SK":{"S":"b"}},
      "ExpressionAttributeValues":{":v":{"S":"x"}}})",
                   "ExpressionAttributeValues can only be specified when using expressions: "
                   "ConditionExpression is null");
  ExpectValidation("GetItem", R"({"TableName":"Users","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},
      "ExpressionAttributeNames":{"#n":"x"}})",
                   "ExpressionAttributeNames can only be specified when using expressions");
}

TEST_F(OpsTest, CreateTableValidation) {
  auto exists = server_.Call("CreateTable", std::string(kCreateUsers));
  EXPECT_EQ(exists.ErrorName(), "ResourceInUseException");
  EXPECT_EQ(exists.Message(), "Table already exists: Users");
  ExpectValidation("CreateTable", R"({"KeySchema":[],"AttributeDefinitions":[]})",
                   "The parameter 'TableName' is required but was not present in the request");
  ExpectValidation("CreateTable",
                   R"({"TableName":"T1x","KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],
                      "AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"}]})",
                   "One or more parameter values were invalid: ReadCapacityUnits and "
                   "WriteCapacityUnits must both be specified when BillingMode is PROVISIONED");
  ExpectValidation("CreateTable",
                   R"({"TableName":"T1x","BillingMode":"PAY_PER_REQUEST",
                      "ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1},
                      "KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],
                      "AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"}]})",
                   "One or more parameter values were invalid: Neither ReadCapacityUnits nor "
                   "WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
  ExpectValidation("CreateTable",
                   R"({"TableName":"T1x","BillingMode":"PAY_PER_REQUEST",
                      "KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],
                      "AttributeDefinitions":[{"AttributeName":"b","AttributeType":"S"}]})",
                   "One or more parameter values were invalid: Some index key attributes are not "
                   "defined in AttributeDefinitions. Keys: [a], AttributeDefinitions: [b]");
  ExpectValidation("CreateTable",
                   R"({"TableName":"T1x","BillingMode":"PAY_PER_REQUEST",
                      "KeySchema":[{"AttributeName":"a","KeyType":"RANGE"}],
                      "AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"}]})",
                   "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  ExpectValidation("CreateTable",
                   R"({"TableName":"T1x","BillingMode":"PAY_PER_REQUEST",
                      "KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],
                      "AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"},
                                              {"AttributeName":"b","AttributeType":"S"}]})",
                   "One or more parameter values were invalid: Number of attributes in KeySchema "
                   "does not exactly match number of attributes defined in AttributeDefinitions");
  ExpectValidation("CreateTable",
                   R"({"TableName":"T1x","BillingMode":"PAY_PER_REQUEST",
                      "KeySchema":[{"AttributeName":"a","KeyType":"HASH"},
                                   {"AttributeName":"a","KeyType":"RANGE"}],
                      "AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"},
                                              {"AttributeName":"b","AttributeType":"S"}]})",
                   "Both the Hash Key and the Range Key element in the KeySchema have the same "
                   "name");
  ExpectValidation("CreateTable",
                   R"({"TableName":"T1x","BillingMode":"FREE",
                      "KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],
                      "AttributeDefinitions":[{"AttributeName":"a","AttributeType":"X"}]})",
                   "2 validation errors detected: Value 'X' at "
                   "'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: "
                   "Member must satisfy enum value set: [S, N, B]; Value 'FREE' at 'billingMode' "
                   "failed to satisfy constraint: Member must satisfy enum value set: "
                   "[PROVISIONED, PAY_PER_REQUEST]");
}

TEST_F(OpsTest, DescribeListUpdateDeleteTable) {
  auto described = server_.Call("DescribeTable", R"({"TableName":"Users"})");
  EXPECT_NE(described.body.find(R"("TableStatus":"ACTIVE")"), std::string::npos);
  EXPECT_NE(
      described.body.find(R"("TableArn":"arn:aws:dynamodb:us-east-1:000000000000:table/Users")"),
      std::string::npos);
  auto missing = server_.Call("DescribeTable", R"({"TableName":"Nope"})");
  EXPECT_EQ(missing.ErrorName(), "ResourceNotFoundException");
  EXPECT_EQ(missing.Message(), "Requested resource not found: Table: Nope not found");

  auto updated =
      server_.Call("UpdateTable", R"({"TableName":"Users","DeletionProtectionEnabled":true})");
  EXPECT_NE(updated.body.find(R"("DeletionProtectionEnabled":true)"), std::string::npos);
  ExpectValidation("DeleteTable", R"({"TableName":"Users"})",
                   "Resource cannot be deleted as it is currently protected against deletion. "
                   "Disable deletion protection first.");
  ASSERT_EQ(
      server_.Call("UpdateTable", R"({"TableName":"Users","DeletionProtectionEnabled":false})")
          .status,
      200);
  ExpectValidation("UpdateTable", R"({"TableName":"Users"})",
                   "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
                   "GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required");
  auto deleted = server_.Call("DeleteTable", R"({"TableName":"Users"})");
  EXPECT_NE(deleted.body.find(R"("TableStatus":"DELETING")"), std::string::npos);
  EXPECT_EQ(server_.Call("ListTables", "{}").body, R"({"TableNames":[]})");
}

TEST_F(OpsTest, ListTablesPages) {
  for (std::string name : {"Alpha", "Beta", "Gamma"}) {
    std::string body(kCreateUsers);
    body.replace(body.find("Users"), 5, name);
    ASSERT_EQ(server_.Call("CreateTable", body).status, 200);
  }
  EXPECT_EQ(server_.Call("ListTables", R"({"Limit":2})").body,
            R"({"TableNames":["Alpha","Beta"],"LastEvaluatedTableName":"Beta"})");
  EXPECT_EQ(server_.Call("ListTables", R"({"Limit":2,"ExclusiveStartTableName":"Beta"})").body,
            R"({"TableNames":["Gamma","Users"]})");
  ExpectValidation("ListTables", R"({"Limit":0})",
                   "1 validation error detected: Value '0' at 'limit' failed to satisfy "
                   "constraint: Member must have value greater than or equal to 1");
}

TEST_F(OpsTest, BatchWriteAndGet) {
  auto written = server_.Call("BatchWriteItem", R"({"RequestItems":{"Users":[
      {"PutRequest":{"Item":{"PK":{"S":"a"},"SK":{"S":"1"}}}},
      {"PutRequest":{"Item":{"PK":{"S":"a"},"SK":{"S":"2"}}}},
      {"PutRequest":{"Item":{"PK":{"S":"b"},"SK":{"S":"1"}}}}]}})");
  EXPECT_EQ(written.body, R"({"UnprocessedItems":{}})");
  auto read = server_.Call("BatchGetItem", R"({"RequestItems":{"Users":{"Keys":[
      {"PK":{"S":"a"},"SK":{"S":"2"}},{"PK":{"S":"zzz"},"SK":{"S":"1"}}]}}})");
  EXPECT_EQ(read.body,
            R"({"Responses":{"Users":[{"PK":{"S":"a"},"SK":{"S":"2"}}]},"UnprocessedKeys":{}})");
  ExpectValidation("BatchWriteItem", R"({"RequestItems":{"Users":[
      {"PutRequest":{"Item":{"PK":{"S":"a"},"SK":{"S":"1"}}}},
      {"DeleteRequest":{"Key":{"PK":{"S":"a"},"SK":{"S":"1"}}}}]}})",
                   "Provided list of item keys contains duplicates");
  ExpectValidation("BatchGetItem", R"({"RequestItems":{"Users":{"Keys":[
      {"PK":{"S":"a"},"SK":{"S":"1"}},{"PK":{"S":"a"},"SK":{"S":"1"}}]}}})",
                   "Provided list of item keys contains duplicates");
  ExpectValidation("BatchWriteItem", R"({"RequestItems":{"Users":[{}]}})",
                   "Supplied AttributeValue has more than one datatypes set, must contain exactly "
                   "one of the supported datatypes");
  // A rejected batch writes nothing.
  auto missing_table = server_.Call("BatchWriteItem", R"({"RequestItems":{
      "Users":[{"PutRequest":{"Item":{"PK":{"S":"new"},"SK":{"S":"1"}}}}],
      "Nope":[{"PutRequest":{"Item":{"PK":{"S":"x"},"SK":{"S":"1"}}}}]}})");
  EXPECT_EQ(missing_table.ErrorName(), "ResourceNotFoundException");
  EXPECT_EQ(
      server_.Call("GetItem", R"({"TableName":"Users","Key":{"PK":{"S":"new"},"SK":{"S":"1"}}})")
          .body,
      "{}");
}

TEST_F(OpsTest, IsolationByAccessKey) {
  ServiceOptions options;
  options.isolation.by_access_key = true;
  ServerHarness isolated(options);
  auto a = ServerHarness::DefaultAuthorization("KEYA");
  auto b = ServerHarness::DefaultAuthorization("KEYB");
  ASSERT_EQ(isolated.Call("CreateTable", std::string(kCreateUsers), a).status, 200);
  ASSERT_EQ(isolated.Call("CreateTable", std::string(kCreateUsers), b).status, 200);
  ASSERT_EQ(
      isolated.Call("PutItem", Put(R"({"PK":{"S":"k"},"SK":{"S":"s"},"who":{"S":"A"}})"), a).status,
      200);
  EXPECT_EQ(
      isolated.Call("GetItem", R"({"TableName":"Users","Key":{"PK":{"S":"k"},"SK":{"S":"s"}}})", b)
          .body,
      "{}");
  // Without isolation the second create collides.
  EXPECT_EQ(server_.Call("CreateTable", std::string(kCreateUsers), b).ErrorName(),
            "ResourceInUseException");
}

}  // namespace
}  // namespace ddbd::server
