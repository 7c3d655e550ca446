"""What DeleteTable returns: a TableDescription with fewer members than DescribeTable's.

DynamoDB leaves out the key schema, attribute definitions, creation time and indexes
(ScyllaDB Alternator's test_table.py::test_delete_table_description and
test_delete_table_description_with_si, which run against DynamoDB; recorded responses in
dynalite issue #60 and elsewhere)."""
import datetime


def test_delete_table_returns_only_dynamodbs_members(ddb):
    ddb.create_table(
        TableName="DeleteShape", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"},
                   {"AttributeName": "c", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                              {"AttributeName": "c", "AttributeType": "S"},
                              {"AttributeName": "x", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}]}],
        LocalSecondaryIndexes=[{"IndexName": "lsi", "Projection": {"ProjectionType": "ALL"},
                                "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"},
                                              {"AttributeName": "x", "KeyType": "RANGE"}]}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    ddb.put_item(TableName="DeleteShape", Item={"p": {"S": "a"}, "c": {"S": "b"}})
    described = ddb.describe_table(TableName="DeleteShape")["Table"]
    deleted = ddb.delete_table(TableName="DeleteShape")["TableDescription"]
    assert set(deleted) == {"TableName", "TableStatus", "ProvisionedThroughput",
                            "TableSizeBytes", "ItemCount", "TableArn", "TableId",
                            "BillingModeSummary"}
    assert deleted["TableName"] == "DeleteShape"
    assert deleted["TableStatus"] == "DELETING"
    assert deleted["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0,
                                                "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    assert (deleted["TableSizeBytes"], deleted["ItemCount"]) == (len("pacb"), 1)
    assert (deleted["TableArn"], deleted["TableId"]) == (described["TableArn"],
                                                         described["TableId"])
    assert deleted["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert isinstance(deleted["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"],
                      datetime.datetime)


def test_delete_provisioned_table(ddb):
    ddb.create_table(
        TableName="DeleteProvisioned",
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}],
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 3})
    deleted = ddb.delete_table(TableName="DeleteProvisioned")["TableDescription"]
    assert set(deleted) == {"TableName", "TableStatus", "ProvisionedThroughput",
                            "TableSizeBytes", "ItemCount", "TableArn", "TableId"}
    assert deleted["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0,
                                                "ReadCapacityUnits": 5, "WriteCapacityUnits": 3}
