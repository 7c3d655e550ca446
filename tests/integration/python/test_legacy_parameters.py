"""Legacy (pre-expression) parameters, as older SDK mappers send them, through boto3."""
import pytest


@pytest.fixture
def table(ddb, table_factory):
    name = table_factory()
    for i in range(5):
        ddb.put_item(TableName=name, Item={"PK": {"S": "P"}, "SK": {"S": f"S{i}"}, "n": {"N": str(i)},
                                           "tags": {"SS": ["even" if i % 2 == 0 else "odd"]}})
    return name


def test_expected_value_and_exists(ddb, table):
    key = {"PK": {"S": "P"}, "SK": {"S": "S1"}}
    ddb.put_item(TableName=table, Item={**key, "n": {"N": "10"}},
                 Expected={"n": {"Value": {"N": "1"}}})
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.put_item(TableName=table, Item={**key, "n": {"N": "11"}},
                     Expected={"n": {"Value": {"N": "1"}}})
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.put_item(TableName=table, Item=key, Expected={"PK": {"Exists": False}})
    ddb.put_item(TableName=table, Item={"PK": {"S": "new"}, "SK": {"S": "x"}},
                 Expected={"PK": {"Exists": False}})
    ddb.delete_item(TableName=table, Key=key,
                    Expected={"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "5"}]},
                              "nope": {"ComparisonOperator": "NULL"}},
                    ConditionalOperator="AND")
    assert "Item" not in ddb.get_item(TableName=table, Key=key)


def test_expected_errors(ddb, table):
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.put_item(TableName=table, Item={"PK": {"S": "P"}, "SK": {"S": "x"}},
                     Expected={"n": {"Exists": True}})
    assert error.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: Value must be provided when Exists is true for "
        "Attribute: n")
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.put_item(TableName=table, Item={"PK": {"S": "P"}, "SK": {"S": "x"}},
                     Expected={"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}]}})
    assert error.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN "
        "ComparisonOperator")
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.put_item(TableName=table, Item={"PK": {"S": "P"}, "SK": {"S": "x"}},
                     Expected={"n": {"Exists": False}}, ConditionExpression="attribute_exists(PK)")
    assert error.value.response["Error"]["Message"] == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}")


def test_attribute_updates(ddb, table):
    key = {"PK": {"S": "P"}, "SK": {"S": "S2"}}
    response = ddb.update_item(TableName=table, Key=key, AttributeUpdates={
        "n": {"Action": "ADD", "Value": {"N": "5"}},
        "tags": {"Action": "DELETE", "Value": {"SS": ["even"]}},
        "label": {"Action": "PUT", "Value": {"S": "hello"}},
        "list": {"Action": "ADD", "Value": {"L": [{"S": "a"}]}},
    }, ReturnValues="ALL_NEW")
    assert response["Attributes"] == {**key, "n": {"N": "7"}, "label": {"S": "hello"},
                                      "list": {"L": [{"S": "a"}]}}
    ddb.update_item(TableName=table, Key=key, AttributeUpdates={"label": {"Action": "DELETE"}})
    assert "label" not in ddb.get_item(TableName=table, Key=key)["Item"]


def test_key_conditions_query_filter_and_attributes_to_get(ddb, table):
    response = ddb.query(TableName=table, KeyConditions={
        "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "P"}]},
        "SK": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"S": "S1"}, {"S": "S3"}]}},
        QueryFilter={"tags": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "odd"}]}},
        AttributesToGet=["SK"])
    assert response["Items"] == [{"SK": {"S": "S1"}}, {"SK": {"S": "S3"}}]
    assert response["ScannedCount"] == 3


def test_scan_filter_with_or(ddb, table):
    response = ddb.scan(TableName=table, ScanFilter={
        "n": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "1"}]},
        "SK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "S4"}]}},
        ConditionalOperator="OR")
    assert sorted(i["SK"]["S"] for i in response["Items"]) == ["S0", "S4"]


def test_get_item_attributes_to_get(ddb, table):
    item = ddb.get_item(TableName=table, Key={"PK": {"S": "P"}, "SK": {"S": "S0"}},
                        AttributesToGet=["n", "missing"])["Item"]
    assert item == {"n": {"N": "0"}}
