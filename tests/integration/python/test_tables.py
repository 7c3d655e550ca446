"""Control plane through boto3: create, describe, list, update, delete, tags, waiters."""
import datetime

import pytest


def test_create_describe_delete_with_waiters(ddb):
    response = ddb.create_table(
        TableName="Users", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        Tags=[{"Key": "env", "Value": "test"}])
    created = response["TableDescription"]
    assert created["TableName"] == "Users"
    assert created["TableStatus"] in ("CREATING", "ACTIVE")
    ddb.get_waiter("table_exists").wait(TableName="Users", WaiterConfig={"Delay": 1})

    table = ddb.describe_table(TableName="Users")["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert table["KeySchema"] == [{"AttributeName": "PK", "KeyType": "HASH"},
                                  {"AttributeName": "SK", "KeyType": "RANGE"}]
    assert table["AttributeDefinitions"] == [{"AttributeName": "PK", "AttributeType": "S"},
                                             {"AttributeName": "SK", "AttributeType": "S"}]
    assert table["TableArn"] == "arn:aws:dynamodb:us-east-1:000000000000:table/Users"
    assert len(table["TableId"]) == 36
    assert table["ItemCount"] == 0 and table["TableSizeBytes"] == 0
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert table["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0,
                                              "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs((now - table["CreationDateTime"]).total_seconds()) < 60

    ddb.put_item(TableName="Users", Item={"PK": {"S": "u"}, "SK": {"S": "s"}, "a": {"S": "xyz"}})
    table = ddb.describe_table(TableName="Users")["Table"]
    assert table["ItemCount"] == 1
    assert table["TableSizeBytes"] == len("PK") + 1 + len("SK") + 1 + len("a") + 3

    deleted = ddb.delete_table(TableName="Users")["TableDescription"]
    assert deleted["TableStatus"] == "DELETING"
    ddb.get_waiter("table_not_exists").wait(TableName="Users", WaiterConfig={"Delay": 1})
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.describe_table(TableName="Users")


def test_recreated_table_starts_empty(ddb, table_factory):
    name = table_factory(name="Recreated")
    ddb.put_item(TableName=name, Item={"PK": {"S": "a"}, "SK": {"S": "b"}})
    ddb.delete_table(TableName=name)
    table_factory(name="Recreated")
    assert "Item" not in ddb.get_item(TableName=name, Key={"PK": {"S": "a"}, "SK": {"S": "b"}})
    assert ddb.describe_table(TableName=name)["Table"]["ItemCount"] == 0


def test_provisioned_table_and_update(ddb, table_factory):
    name = table_factory(BillingMode="PROVISIONED",
                         ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 3})
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == 3
    assert table["BillingModeSummary"]["BillingMode"] == "PROVISIONED"

    updated = ddb.update_table(TableName=name, ProvisionedThroughput={
        "ReadCapacityUnits": 10, "WriteCapacityUnits": 1})["TableDescription"]
    assert updated["ProvisionedThroughput"]["ReadCapacityUnits"] == 10
    assert updated["ProvisionedThroughput"]["WriteCapacityUnits"] == 1
    assert updated["ProvisionedThroughput"]["NumberOfDecreasesToday"] == 1
    assert "LastIncreaseDateTime" in updated["ProvisionedThroughput"]

    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.update_table(TableName=name, ProvisionedThroughput={
            "ReadCapacityUnits": 10, "WriteCapacityUnits": 1})
    assert error.value.response["Error"]["Message"].startswith(
        "The provisioned throughput for the table will not change.")

    on_demand = ddb.update_table(TableName=name, BillingMode="PAY_PER_REQUEST")["TableDescription"]
    assert on_demand["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert on_demand["ProvisionedThroughput"]["ReadCapacityUnits"] == 0

    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.update_table(TableName=name, BillingMode="PROVISIONED")
    assert error.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits "
        "must both be specified when BillingMode is PROVISIONED")


def test_deletion_protection(raw):
    # Over raw HTTP: Debian's botocore predates DeletionProtectionEnabled.
    schema = {"BillingMode": "PAY_PER_REQUEST",
              "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
              "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}]}
    status, _, _, body = raw("CreateTable", {"TableName": "Protected",
                                             "DeletionProtectionEnabled": True, **schema})
    assert status == 200
    assert body["TableDescription"]["DeletionProtectionEnabled"] is True
    _, _, _, body = raw("DescribeTable", {"TableName": "Protected"})
    assert body["Table"]["DeletionProtectionEnabled"] is True
    status, name, message, _ = raw("DeleteTable", {"TableName": "Protected"})
    assert (status, name, message) == (
        400, "ValidationException",
        "Resource cannot be deleted as it is currently protected against deletion. "
        "Disable deletion protection first.")
    _, _, _, body = raw("UpdateTable", {"TableName": "Protected",
                                        "DeletionProtectionEnabled": False})
    assert body["TableDescription"]["DeletionProtectionEnabled"] is False
    status, _, _, body = raw("DeleteTable", {"TableName": "Protected"})
    assert status == 200 and body["TableDescription"]["TableStatus"] == "DELETING"


def test_sse_and_table_class_are_reported(ddb, table_factory):
    name = table_factory(SSESpecification={"Enabled": True, "SSEType": "KMS"},
                         TableClass="STANDARD_INFREQUENT_ACCESS")
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["SSEDescription"]["Status"] == "ENABLED"
    assert table["SSEDescription"]["SSEType"] == "KMS"
    assert table["SSEDescription"]["KMSMasterKeyArn"].startswith("arn:aws:kms:us-east-1:")
    assert table["TableClassSummary"] == {"TableClass": "STANDARD_INFREQUENT_ACCESS"}


def test_list_tables_pagination(ddb, table_factory):
    names = sorted(table_factory(name=f"list_{i:02d}") for i in range(5))
    first = ddb.list_tables(ExclusiveStartTableName="list_", Limit=3)
    assert first["TableNames"] == names[:3]
    assert first["LastEvaluatedTableName"] == names[2]
    second = ddb.list_tables(ExclusiveStartTableName=first["LastEvaluatedTableName"], Limit=3)
    assert second["TableNames"][:2] == names[3:]
    paginated = [n for page in ddb.get_paginator("list_tables").paginate(
        PaginationConfig={"PageSize": 2}) for n in page["TableNames"]]
    assert [n for n in paginated if n.startswith("list_")] == names


def test_tags(ddb, table_factory):
    name = table_factory(Tags=[{"Key": "env", "Value": "dev"}])
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "core"},
                                            {"Key": "env", "Value": "prod"}])
    tags = ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]
    assert sorted((t["Key"], t["Value"]) for t in tags) == [("env", "prod"), ("team", "core")]
    ddb.untag_resource(ResourceArn=arn, TagKeys=["env"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "core"}]
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.list_tags_of_resource(ResourceArn=arn.replace(name, "NoSuchTable"))


def test_table_arn_works_as_table_name(ddb, table_factory):
    name = table_factory()
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    put = ddb.put_item(TableName=arn, Item={"PK": {"S": "a"}, "SK": {"S": "b"}},
                       ReturnConsumedCapacity="TOTAL")
    # DynamoDB echoes the table as the request named it.
    assert put["ConsumedCapacity"]["TableName"] == arn
    assert ddb.get_item(TableName=name, Key={"PK": {"S": "a"}, "SK": {"S": "b"}})["Item"]


def test_describe_limits_and_endpoints(server, ddb):
    limits = ddb.describe_limits()
    assert limits["AccountMaxReadCapacityUnits"] == 80000
    assert limits["TableMaxWriteCapacityUnits"] == 40000
    endpoints = ddb.describe_endpoints()["Endpoints"]
    assert endpoints == [{"Address": f"127.0.0.1:{server.port}", "CachePeriodInMinutes": 1440}]


def test_duplicate_attribute_definitions(raw):
    for second_type in ("S", "N"):
        status, name, message, _ = raw("CreateTable", {
            "TableName": "DuplicateDefinitions", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "pk", "AttributeType": second_type}]})
        assert (status, name, message) == (400, "ValidationException", "Attribute Name is duplicated: pk")
