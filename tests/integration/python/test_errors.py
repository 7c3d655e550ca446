"""DynamoDB's validation errors, each asserted by exception type and exact message.

Requests go over raw HTTP so that client-side validation in the SDK cannot mask the server's
answer. Expected texts come from DynamoDB (spec/limits.md)."""
import pytest

from conftest import raw_call

TABLE = "ErrorsTable"
NUM_TABLE = "ErrorsNumeric"


@pytest.fixture(scope="module", autouse=True)
def tables(ddb):
    ddb.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                                {"AttributeName": "SK", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                           {"AttributeName": "SK", "AttributeType": "S"}])
    ddb.create_table(TableName=NUM_TABLE, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}])


def put(item, **extra):
    return {"TableName": TABLE, "Item": {"PK": {"S": "a"}, "SK": {"S": "b"}, **item}, **extra}


def nested(levels):
    value = {"S": "x"}
    for _ in range(levels):
        value = {"M": {"k": value}}
    return value


KEY_SCHEMA = [{"AttributeName": "a", "KeyType": "HASH"}]
DEFS = [{"AttributeName": "a", "AttributeType": "S"}]

CASES = [
    # (id, operation, body, exception, message)
    ("empty-value", "PutItem", put({"x": {}}), "ValidationException",
     "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
    ("two-types", "PutItem", put({"x": {"S": "a", "N": "1"}}), "ValidationException",
     "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
     "supported datatypes"),
    ("null-false", "PutItem", put({"x": {"NULL": False}}), "ValidationException",
     "One or more parameter values were invalid: Null attribute value types must have the value "
     "of true"),
    ("empty-ss", "PutItem", put({"x": {"SS": []}}), "ValidationException",
     "One or more parameter values were invalid: An string set  may not be empty"),
    ("empty-ns", "PutItem", put({"x": {"NS": []}}), "ValidationException",
     "One or more parameter values were invalid: An number set  may not be empty"),
    ("empty-bs", "PutItem", put({"x": {"BS": []}}), "ValidationException",
     "One or more parameter values were invalid: Binary sets should not be empty"),
    ("dup-ss", "PutItem", put({"x": {"SS": ["a", "a"]}}), "ValidationException",
     "One or more parameter values were invalid: Input collection [a, a] contains duplicates."),
    ("dup-ns", "PutItem", put({"x": {"NS": ["1", "1.0"]}}), "ValidationException",
     "Input collection contains duplicates"),
    ("dup-bs", "PutItem", put({"x": {"BS": ["AA==", "AA=="]}}), "ValidationException",
     "One or more parameter values were invalid: Input collection [AA==, AA==]of type BS "
     "contains duplicates."),
    ("bad-number", "PutItem", put({"x": {"N": "12abc"}}), "ValidationException",
     "The parameter cannot be converted to a numeric value: 12abc"),
    ("empty-number", "PutItem", put({"x": {"N": ""}}), "ValidationException",
     "The parameter cannot be converted to a numeric value"),
    ("overflow", "PutItem", put({"x": {"N": "1e126"}}), "ValidationException",
     "Number overflow. Attempting to store a number with magnitude larger than supported range"),
    ("underflow", "PutItem", put({"x": {"N": "-1e-131"}}), "ValidationException",
     "Number underflow. Attempting to store a number with magnitude smaller than supported range"),
    ("precision", "PutItem", put({"x": {"N": "1.00000000000000000000000000000000000001"}}),
     "ValidationException", "Attempting to store more than 38 significant digits in a Number"),
    ("nesting", "PutItem", put({"x": nested(32)}), "ValidationException",
     "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels "
     "beyond supported limit"),
    ("item-too-big", "PutItem", put({"d": {"S": "x" * 409600}}), "ValidationException",
     "Item size has exceeded the maximum allowed size"),
    ("missing-key", "PutItem", {"TableName": TABLE, "Item": {"PK": {"S": "a"}}},
     "ValidationException", "One or more parameter values were invalid: Missing the key SK in "
     "the item"),
    ("key-type", "PutItem", {"TableName": TABLE, "Item": {"PK": {"S": "a"}, "SK": {"N": "1"}}},
     "ValidationException", "One or more parameter values were invalid: Type mismatch for key "
     "SK expected: S actual: N"),
    ("empty-key", "PutItem", {"TableName": TABLE, "Item": {"PK": {"S": ""}, "SK": {"S": "b"}}},
     "ValidationException", "One or more parameter values are not valid. The AttributeValue for "
     "a key attribute cannot contain an empty string value. Key: PK"),
    ("hash-too-long", "PutItem",
     {"TableName": TABLE, "Item": {"PK": {"S": "p" * 2049}, "SK": {"S": "b"}}},
     "ValidationException", "One or more parameter values were invalid: Size of hashkey has "
     "exceeded the maximum size limit of2048 bytes"),
    ("range-too-long", "PutItem",
     {"TableName": TABLE, "Item": {"PK": {"S": "p"}, "SK": {"S": "s" * 1025}}},
     "ValidationException", "One or more parameter values were invalid: Aggregated size of all "
     "range keys has exceeded the size limit of 1024 bytes"),
    ("get-key-mismatch", "GetItem", {"TableName": TABLE, "Key": {"PK": {"S": "a"}}},
     "ValidationException", "The provided key element does not match the schema"),
    ("get-extra-key", "GetItem",
     {"TableName": TABLE, "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}, "c": {"S": "d"}}},
     "ValidationException", "The provided key element does not match the schema"),
    ("get-key-wrong-type", "GetItem", {"TableName": NUM_TABLE, "Key": {"id": {"S": "1"}}},
     "ValidationException", "The provided key element does not match the schema"),
    ("get-empty-key", "GetItem", {"TableName": TABLE, "Key": {"PK": {"S": ""}, "SK": {"S": "b"}}},
     "ValidationException", "One or more parameter values are not valid. The AttributeValue for "
     "a key attribute cannot contain an empty string value. Key: PK"),
    ("return-values", "PutItem", put({}, ReturnValues="ALL_NEW"), "ValidationException",
     "ReturnValues can only be ALL_OLD or NONE"),
    ("return-values-enum", "DeleteItem",
     {"TableName": TABLE, "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}, "ReturnValues": "ALL"},
     "ValidationException", "1 validation error detected: Value 'ALL' at 'returnValues' failed "
     "to satisfy constraint: Member must satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, "
     "ALL_NEW, UPDATED_NEW]"),
    ("capacity-enum", "GetItem",
     {"TableName": TABLE, "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}},
      "ReturnConsumedCapacity": "ALL"},
     "ValidationException", "1 validation error detected: Value 'ALL' at "
     "'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: "
     "[INDEXES, TOTAL, NONE]"),
    ("missing-item", "PutItem", {"TableName": TABLE}, "ValidationException",
     "1 validation error detected: Value null at 'item' failed to satisfy constraint: Member "
     "must not be null"),
    ("bad-table-name", "GetItem", {"TableName": "ab", "Key": {}}, "ValidationException",
     "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: "
     "Member must have length greater than or equal to 3"),
    ("table-name-pattern", "DescribeTable", {"TableName": "bad name!"}, "ValidationException",
     "1 validation error detected: Value 'bad name!' at 'tableName' failed to satisfy "
     "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
    ("no-such-table", "GetItem", {"TableName": "Missing", "Key": {"PK": {"S": "a"}}},
     "ResourceNotFoundException", "Requested resource not found"),
    ("describe-missing", "DescribeTable", {"TableName": "Missing"},
     "ResourceNotFoundException", "Requested resource not found: Table: Missing not found"),
    ("delete-missing", "DeleteTable", {"TableName": "Missing"},
     "ResourceNotFoundException", "Requested resource not found: Table: Missing not found"),
    ("create-exists", "CreateTable",
     {"TableName": TABLE, "BillingMode": "PAY_PER_REQUEST", "KeySchema": KEY_SCHEMA,
      "AttributeDefinitions": DEFS},
     "ResourceInUseException", "Table already exists: " + TABLE),
    ("create-no-name", "CreateTable", {"KeySchema": KEY_SCHEMA, "AttributeDefinitions": DEFS},
     "ValidationException",
     "The parameter 'TableName' is required but was not present in the request"),
    ("create-no-throughput", "CreateTable",
     {"TableName": "NewT", "KeySchema": KEY_SCHEMA, "AttributeDefinitions": DEFS},
     "ValidationException", "One or more parameter values were invalid: ReadCapacityUnits and "
     "WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"),
    ("create-ppr-throughput", "CreateTable",
     {"TableName": "NewT", "BillingMode": "PAY_PER_REQUEST", "KeySchema": KEY_SCHEMA,
      "AttributeDefinitions": DEFS,
      "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}},
     "ValidationException", "One or more parameter values were invalid: Neither "
     "ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
     "PAY_PER_REQUEST"),
    ("create-throughput-bounds", "CreateTable",
     {"TableName": "NewT", "KeySchema": KEY_SCHEMA, "AttributeDefinitions": DEFS,
      "ProvisionedThroughput": {"ReadCapacityUnits": 1000000000001, "WriteCapacityUnits": 1}},
     "ValidationException", "Given value 1000000000001 for ReadCapacityUnits is out of bounds"),
    ("create-throughput-min", "CreateTable",
     {"TableName": "NewT", "KeySchema": KEY_SCHEMA, "AttributeDefinitions": DEFS,
      "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 1}},
     "ValidationException", "1 validation error detected: Value '0' at "
     "'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have "
     "value greater than or equal to 1"),
    ("create-undefined-key", "CreateTable",
     {"TableName": "NewT", "BillingMode": "PAY_PER_REQUEST", "KeySchema": KEY_SCHEMA,
      "AttributeDefinitions": [{"AttributeName": "b", "AttributeType": "S"}]},
     "ValidationException", "One or more parameter values were invalid: Some index key "
     "attributes are not defined in AttributeDefinitions. Keys: [a], AttributeDefinitions: [b]"),
    ("create-no-definition", "CreateTable",
     {"TableName": "NewT", "BillingMode": "PAY_PER_REQUEST",
      "KeySchema": KEY_SCHEMA + [{"AttributeName": "b", "KeyType": "RANGE"}],
      "AttributeDefinitions": DEFS},
     "ValidationException", "Invalid KeySchema: Some index key attribute have no definition"),
    ("create-first-not-hash", "CreateTable",
     {"TableName": "NewT", "BillingMode": "PAY_PER_REQUEST",
      "KeySchema": [{"AttributeName": "a", "KeyType": "RANGE"}], "AttributeDefinitions": DEFS},
     "ValidationException", "Invalid KeySchema: The first KeySchemaElement is not a HASH key "
     "type"),
    ("create-second-not-range", "CreateTable",
     {"TableName": "NewT", "BillingMode": "PAY_PER_REQUEST",
      "KeySchema": KEY_SCHEMA + [{"AttributeName": "b", "KeyType": "HASH"}],
      "AttributeDefinitions": DEFS + [{"AttributeName": "b", "AttributeType": "S"}]},
     "ValidationException", "Invalid KeySchema: The second KeySchemaElement is not a RANGE key "
     "type"),
    ("create-same-names", "CreateTable",
     {"TableName": "NewT", "BillingMode": "PAY_PER_REQUEST",
      "KeySchema": KEY_SCHEMA + [{"AttributeName": "a", "KeyType": "RANGE"}],
      "AttributeDefinitions": DEFS + [{"AttributeName": "b", "AttributeType": "S"}]},
     "ValidationException", "Both the Hash Key and the Range Key element in the KeySchema have "
     "the same name"),
    ("create-extra-definition", "CreateTable",
     {"TableName": "NewT", "BillingMode": "PAY_PER_REQUEST", "KeySchema": KEY_SCHEMA,
      "AttributeDefinitions": DEFS + [{"AttributeName": "b", "AttributeType": "S"}]},
     "ValidationException", "One or more parameter values were invalid: Number of attributes in "
     "KeySchema does not exactly match number of attributes defined in AttributeDefinitions"),
    ("create-enums", "CreateTable",
     {"TableName": "NewT", "BillingMode": "FREE", "KeySchema": KEY_SCHEMA,
      "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "X"}]},
     "ValidationException", "2 validation errors detected: Value 'X' at "
     "'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must "
     "satisfy enum value set: [S, N, B]; Value 'FREE' at 'billingMode' failed to satisfy "
     "constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"),
    ("update-nothing", "UpdateTable", {"TableName": TABLE}, "ValidationException",
     "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
     "GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required"),
    ("list-limit", "ListTables", {"Limit": 101}, "ValidationException",
     "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member "
     "must have value less than or equal to 100"),
    ("batch-write-dups", "BatchWriteItem",
     {"RequestItems": {TABLE: [
         {"PutRequest": {"Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}}},
         {"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}}}]}},
     "ValidationException", "Provided list of item keys contains duplicates"),
    ("batch-write-numeric-dups", "BatchWriteItem",
     {"RequestItems": {NUM_TABLE: [
         {"PutRequest": {"Item": {"id": {"N": "1000"}}}},
         {"PutRequest": {"Item": {"id": {"N": "1e3"}}}}]}},
     "ValidationException", "Provided list of item keys contains duplicates"),
    ("batch-get-dups", "BatchGetItem",
     {"RequestItems": {TABLE: {"Keys": [{"PK": {"S": "a"}, "SK": {"S": "b"}},
                                        {"PK": {"S": "a"}, "SK": {"S": "b"}}]}}},
     "ValidationException", "Provided list of item keys contains duplicates"),
    ("batch-get-too-many", "BatchGetItem",
     {"RequestItems": {
         TABLE: {"Keys": [{"PK": {"S": str(i)}, "SK": {"S": "b"}} for i in range(60)]},
         NUM_TABLE: {"Keys": [{"id": {"N": str(i)}} for i in range(41)]}}},
     "ValidationException", "Too many items requested for the BatchGetItem call"),
    ("batch-write-too-many", "BatchWriteItem",
     {"RequestItems": {TABLE: [{"PutRequest": {"Item": {"PK": {"S": str(i)}, "SK": {"S": "b"}}}}
                               for i in range(26)]}},
     "ValidationException", None),
    ("eav-without-expression", "PutItem",
     put({}, ExpressionAttributeValues={":v": {"S": "x"}}), "ValidationException",
     "ExpressionAttributeValues can only be specified when using expressions: "
     "ConditionExpression is null"),
    ("ean-without-expression", "DeleteItem",
     {"TableName": TABLE, "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}},
      "ExpressionAttributeNames": {"#n": "x"}},
     "ValidationException", "ExpressionAttributeNames can only be specified when using "
     "expressions"),
    ("tag-bad-arn", "TagResource", {"ResourceArn": "not-an-arn", "Tags": [{"Key": "k", "Value": "v"}]},
     "ValidationException", "One or more parameter values were invalid: ARNs must start with 'arn:': "
     "not-an-arn"),
    ("tag-not-table-arn", "TagResource", {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:x/y",
                                          "Tags": [{"Key": "k", "Value": "v"}]},
     "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input "
     "arn:aws:dynamodb:us-east-1:000000000000:x/y"),
    ("tag-empty", "TagResource",
     {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/" + TABLE, "Tags": []},
     "ValidationException", "Atleast one Tag needs to be provided as Input."),
    ("untag-empty", "UntagResource",
     {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/" + TABLE, "TagKeys": []},
     "ValidationException", "Atleast one Tag Key needs to be provided as Input."),
    ("wrong-json-type", "PutItem", put({"x": {"N": 5}}), "SerializationException",
     "NUMBER_VALUE cannot be converted to String"),
    ("base64-length", "PutItem", put({"x": {"B": "abc"}}), "SerializationException",
     "Base64 encoded length is expected a multiple of 4 bytes but found: 3"),
]


@pytest.mark.parametrize("operation,body,exception,message",
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_error(raw, operation, body, exception, message):
    status, name, actual_message, _ = raw(operation, body)
    assert status == 400
    assert name == exception
    if message is None:
        assert actual_message.startswith("1 validation error detected: ")
        assert actual_message.endswith("failed to satisfy constraint: Map value must satisfy "
                                       "constraint: [Member must have length less than or equal "
                                       "to 25, Member must have length greater than or equal "
                                       "to 1]")
    else:
        assert actual_message == message


def test_catalogue_is_large_enough():
    assert len({(c[3], c[4]) for c in CASES}) >= 30


def test_failed_write_changes_nothing(raw, ddb):
    raw("PutItem", put({"x": {"SS": []}}))
    assert "Item" not in ddb.get_item(TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "b"}})


# DynamoDB's order: deserialisation (a wrongly typed member is a SerializationException even
# when a required member is missing), then the model's constraints, then rules that need no
# table, and only then the table itself (ResourceNotFoundException).
PRECEDENCE = [
    ("GetItem", {"Key": 5}, "SerializationException"),
    ("PutItem", {"Item": "x"}, "SerializationException"),
    ("DeleteItem", {"Key": []}, "SerializationException"),
    ("UpdateItem", {"Key": 1}, "SerializationException"),
    ("Query", {"Limit": "x"}, "SerializationException"),
    ("Scan", {"Limit": "x"}, "SerializationException"),
    ("DescribeTable", {"TableName": 5}, "SerializationException"),
    ("DeleteTable", {"TableName": []}, "SerializationException"),
    ("CreateTable", {"KeySchema": "x"}, "SerializationException"),
    ("UpdateTable", {"ProvisionedThroughput": 3}, "SerializationException"),
    ("BatchGetItem", {"RequestItems": 5}, "SerializationException"),
    ("BatchWriteItem", {"RequestItems": "x"}, "SerializationException"),
    ("TransactWriteItems", {"TransactItems": 5}, "SerializationException"),
    ("TransactGetItems", {"TransactItems": "x"}, "SerializationException"),
    ("UpdateTimeToLive", {"TimeToLiveSpecification": 5}, "SerializationException"),
    ("ListTagsOfResource", {"NextToken": 5}, "SerializationException"),
    ("TagResource", {"Tags": 5}, "SerializationException"),
    ("ExecuteStatement", {"Parameters": 5}, "SerializationException"),
    ("ListTables", {"Limit": "x"}, "SerializationException"),
    ("DescribeBackup", {"BackupArn": 5}, "SerializationException"),
    ("DeleteBackup", {"BackupArn": []}, "SerializationException"),
    ("ListBackups", {"Limit": "x"}, "SerializationException"),
    ("RestoreTableFromBackup", {"BackupArn": 5}, "SerializationException"),
    ("DescribeContinuousBackups", {"TableName": 5}, "SerializationException"),
    ("UpdateContinuousBackups", {"PointInTimeRecoverySpecification": 5}, "SerializationException"),
    ("SearchVectors", {"TopK": "x"}, "SerializationException"),
    ("BatchExecuteStatement", {"Statements": 5}, "SerializationException"),
    ("ExecuteTransaction", {"TransactStatements": 5}, "SerializationException"),
    ("UntagResource", {"TagKeys": 5}, "SerializationException"),
    ("DescribeContinuousBackups", {"TableName": "no"}, "ValidationException"),
    ("UpdateContinuousBackups", {"TableName": "Missing", "PointInTimeRecoverySpecification": {}},
     "ValidationException"),
    ("CreateBackup", {"TableName": "Missing", "BackupName": "b"}, "ValidationException"),
    ("SearchVectors", {"TableName": "Missing", "IndexName": "ix", "TopK": 0,
                       "SearchVector": [{"N": "1"}]}, "ValidationException"),
    ("ExecuteStatement", {"Statement": "SELECT * FROM Missing WHERE ((a = 1"}, "ValidationException"),
    ("GetItem", {"TableName": "Missing", "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "a,,b"},
     "ValidationException"),
    ("PutItem", {"TableName": "Missing", "Item": {"pk": {"S": "a"}}, "ConditionExpression": "a = :v"},
     "ValidationException"),
    ("PutItem", {"TableName": "Missing", "Item": {"pk": {"S": "a"}, "s": {"SS": []}}}, "ValidationException"),
    ("DeleteItem", {"TableName": "Missing", "Key": {"pk": {"S": "a"}}, "ReturnValues": "ALL_NEW"},
     "ValidationException"),
    ("UpdateItem", {"TableName": "Missing", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET a = :v"},
     "ValidationException"),
    ("UpdateItem", {"TableName": "Missing", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD a :v",
                    "ExpressionAttributeValues": {":v": {"S": "x"}}}, "ValidationException"),
    ("Query", {"TableName": "Missing", "KeyConditionExpression": "pk = :v"}, "ValidationException"),
    ("Query", {"TableName": "Missing", "KeyConditionExpression": "pk = :v",
               "ExpressionAttributeValues": {":v": {"L": []}}, "FilterExpression": "a < :v"},
     "ValidationException"),
    ("Scan", {"TableName": "Missing", "Segment": 1}, "ValidationException"),
    ("Scan", {"TableName": "Missing", "ScanFilter": {"a": {"ComparisonOperator": "LT",
                                                           "AttributeValueList": [{"L": []}]}}},
     "ValidationException"),
    ("BatchGetItem", {"RequestItems": {"Missing": {"Keys": [{"pk": {"S": "a"}}, {"pk": {"S": "a"}}]}}},
     "ValidationException"),
    ("TransactWriteItems", {"TransactItems": [{"Put": {"TableName": "Missing", "Item": {"pk": {"S": "a"}},
                                                       "ConditionExpression": "a = :v"}}]},
     "ValidationException"),
    ("TransactGetItems", {"TransactItems": [{"Get": {"TableName": "Missing", "Key": {"pk": {"S": "a"}},
                                                     "ProjectionExpression": "a,,b"}}]},
     "ValidationException"),
    ("UpdateTimeToLive", {"TableName": "Missing", "TimeToLiveSpecification": {"Enabled": True,
                                                                           "AttributeName": ""}},
     "ValidationException"),
]


@pytest.mark.parametrize("operation,body,exception", PRECEDENCE,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(PRECEDENCE)])
def test_precedence(raw, operation, body, exception):
    status, name, message, _ = raw(operation, body)
    assert (status, name) == (400, exception), message


@pytest.mark.parametrize("operation,body", [
    ("ListStreams", {"Limit": "x"}), ("DescribeStream", {"Limit": "x"}),
    ("GetShardIterator", {"ShardId": 5}), ("GetRecords", {"Limit": "x"}),
])
def test_streams_precedence(server, operation, body):
    """The Streams API deserialises first too: a wrongly typed member before a missing one."""
    import json as _json
    status, _, data = raw_call(server.endpoint, operation, body,
                               target_prefix="DynamoDBStreams_20120810.")
    assert (status, _json.loads(data)["__type"].split("#")[1]) == (400, "SerializationException")
