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


def test_key_conditions_mix_with_filter_and_projection(ddb, table):
    """DynamoDBMapper queries send KeyConditions with a FilterExpression and a
    ProjectionExpression; only KeyConditionExpression conflicts with KeyConditions."""
    response = ddb.query(TableName=table,
                         KeyConditions={"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "P"}]}},
                         FilterExpression="n >= :min", ProjectionExpression="SK, #n",
                         ExpressionAttributeNames={"#n": "n"}, ExpressionAttributeValues={":min": {"N": "3"}})
    assert response["Items"] == [{"SK": {"S": "S3"}, "n": {"N": "3"}}, {"SK": {"S": "S4"}, "n": {"N": "4"}}]
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.query(TableName=table,
                  KeyConditions={"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "P"}]}},
                  KeyConditionExpression="PK = :p", ExpressionAttributeValues={":p": {"S": "P"}})
    assert error.value.response["Error"]["Message"] == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}")
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.query(TableName=table,
                  KeyConditions={"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "P"}]}},
                  QueryFilter={"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}},
                  FilterExpression="n >= :min", ExpressionAttributeValues={":min": {"N": "3"}})
    assert error.value.response["Error"]["Message"] == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {QueryFilter} Expression parameters: {FilterExpression}")


def test_empty_legacy_maps_mean_no_condition(ddb, table):
    key_conditions = {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "P"}]}}
    assert ddb.query(TableName=table, KeyConditions=key_conditions, QueryFilter={})["Count"] == 5
    assert ddb.scan(TableName=table, ScanFilter={})["Count"] == 5
    ddb.put_item(TableName=table, Item={"PK": {"S": "P"}, "SK": {"S": "S0"}, "n": {"N": "100"}}, Expected={})
    ddb.delete_item(TableName=table, Key={"PK": {"S": "P"}, "SK": {"S": "S1"}}, Expected={})
    ddb.update_item(TableName=table, Key={"PK": {"S": "P"}, "SK": {"S": "S2"}}, Expected={},
                    AttributeUpdates={"n": {"Action": "PUT", "Value": {"N": "200"}}})
    numbers = sorted(int(i["n"]["N"]) for i in ddb.scan(TableName=table)["Items"])
    assert numbers == [3, 4, 100, 200]


def test_not_contains_needs_the_attribute(ddb, table):
    ddb.put_item(TableName=table, Item={"PK": {"S": "P"}, "SK": {"S": "bare"}})
    response = ddb.scan(TableName=table, ScanFilter={
        "tags": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "even"}]}})
    assert sorted(i["SK"]["S"] for i in response["Items"]) == ["S1", "S3"]
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.put_item(TableName=table, Item={"PK": {"S": "P"}, "SK": {"S": "bare"}, "x": {"S": "1"}},
                     Expected={"tags": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "x"}]}})
    # The expression form is true for a missing attribute.
    assert ddb.scan(TableName=table, FilterExpression="NOT contains(tags, :v)",
                    ExpressionAttributeValues={":v": {"S": "even"}})["Count"] == 3


def legacy_error(raw, operation, body):
    status, name, message, _ = raw(operation, body)
    assert (status, name) == (400, "ValidationException"), message
    return message


FILTER_CASES = [
    ({"n": {"ComparisonOperator": "LT", "AttributeValueList": [{"L": []}]}},
     "One or more parameter values were invalid: ComparisonOperator LT is not valid for L AttributeValue type"),
    ({"n": {"ComparisonOperator": "GE", "AttributeValueList": [{"M": {}}]}},
     "One or more parameter values were invalid: ComparisonOperator GE is not valid for M AttributeValue type"),
    ({"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"SS": ["a"]}]}},
     "One or more parameter values were invalid: ComparisonOperator GT is not valid for SS AttributeValue type"),
    ({"n": {"ComparisonOperator": "LE", "AttributeValueList": [{"BOOL": True}]}},
     "One or more parameter values were invalid: ComparisonOperator LE is not valid for BOOL AttributeValue type"),
    ({"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"L": []}, {"L": []}]}},
     "One or more parameter values were invalid: ComparisonOperator BETWEEN is not valid for L AttributeValue type"),
    ({"n": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"N": "1"}]}},
     "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"),
    ({"n": {"ComparisonOperator": "CONTAINS", "AttributeValueList": []}},
     "One or more parameter values were invalid: Invalid number of argument(s) for the CONTAINS ComparisonOperator"),
    ({"n": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "a"}, {"S": "b"}]}},
     "One or more parameter values were invalid: Invalid number of argument(s) for the CONTAINS ComparisonOperator"),
    ({"n": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"L": [{"S": "a"}]}]}},
     "One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for L AttributeValue type"),
    ({"n": {"ComparisonOperator": "IN", "AttributeValueList": [{"S": "a"}, {"N": "1"}]}},
     "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"),
    ({"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "5"}, {"N": "1"}]}},
     "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"),
    ({"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}, {"S": "5"}]}},
     "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"),
    ({"n": {"ComparisonOperator": "eq", "AttributeValueList": [{"N": "1"}]}},
     "1 validation error detected: Value 'eq' at 'scanFilter.n.member.comparisonOperator' failed to "
     "satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, "
     "GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"),
]


@pytest.mark.parametrize("scan_filter,message", FILTER_CASES)
def test_legacy_condition_refusals(raw, table, scan_filter, message):
    assert legacy_error(raw, "Scan", {"TableName": table, "ScanFilter": scan_filter}) == message


def test_legacy_condition_refusals_in_expected_and_key_conditions(raw, ddb, table):
    item = {"PK": {"S": "P"}, "SK": {"S": "new"}}
    assert legacy_error(raw, "PutItem", {"TableName": table, "Item": item, "Expected": {
        "n": {"ComparisonOperator": "LT", "AttributeValueList": [{"L": []}]}}}) == (
        "One or more parameter values were invalid: ComparisonOperator LT is not valid for L AttributeValue type")
    assert legacy_error(raw, "PutItem", {"TableName": table, "Item": item, "Expected": {
        "n": {"ComparisonOperator": "GT"}}}) == (
        "One or more parameter values were invalid: Value or AttributeValueList must be used with "
        "ComparisonOperator: GT for Attribute: n")
    assert legacy_error(raw, "PutItem", {"TableName": table, "Item": item, "Expected": {
        "n": {"ComparisonOperator": "Eq", "Exists": True}}}) == (
        "1 validation error detected: Value 'Eq' at 'expected.n.member.comparisonOperator' failed to "
        "satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, "
        "GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]")
    assert legacy_error(raw, "PutItem", {"TableName": table, "Item": item,
                                         "ConditionalOperator": "OR"}) == (
        "ConditionalOperator cannot be used without Filter or Expected")
    assert legacy_error(raw, "Query", {"TableName": table, "KeyConditions": {
        "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "P"}]},
        "SK": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"N": "1"}]}}}) == (
        "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type")
    assert "Item" not in ddb.get_item(TableName=table, Key=item)


def test_attribute_update_refusals(raw, ddb, table):
    key = {"PK": {"S": "P"}, "SK": {"S": "S1"}}
    before = ddb.get_item(TableName=table, Key=key)["Item"]
    assert legacy_error(raw, "UpdateItem", {"TableName": table, "Key": key, "AttributeUpdates": {
        "n": {"Action": "REPLACE", "Value": {"N": "1"}}}}) == (
        "1 validation error detected: Value 'REPLACE' at 'attributeUpdates.n.member.action' failed to "
        "satisfy constraint: Member must satisfy enum value set: [ADD, DELETE, PUT]")
    assert legacy_error(raw, "UpdateItem", {"TableName": table, "Key": key, "AttributeUpdates": {
        "n": {"Action": "DELETE", "Value": {"N": "1"}}}}) == (
        "One or more parameter values were invalid: DELETE action with value is not supported for the type N")
    assert legacy_error(raw, "UpdateItem", {"TableName": table, "Key": key, "AttributeUpdates": {
        "n": {"Action": "ADD", "Value": {"S": "x"}}}}) == (
        "One or more parameter values were invalid: ADD action is not supported for the type S")
    assert ddb.get_item(TableName=table, Key=key)["Item"] == before


def test_attributes_to_get_refusals(raw, table):
    key = {"PK": {"S": "P"}, "SK": {"S": "S1"}}
    assert legacy_error(raw, "GetItem", {"TableName": table, "Key": key, "AttributesToGet": ["n", "tags", "n"]}) == (
        "One or more parameter values were invalid: Duplicate value in attribute name: n")
    assert legacy_error(raw, "Scan", {"TableName": table, "AttributesToGet": [f"a{i}" for i in range(256)]}) == (
        "1 validation error detected: Value '[...]' at 'attributesToGet' failed to satisfy constraint: "
        "Member must have length less than or equal to 255")


def test_attributes_to_get_names_are_at_most_65535_characters(raw, table):
    # The API model's AttributeName: at most 65,535 characters, a constraint on each member.
    key = {"PK": {"S": "P"}, "SK": {"S": "S1"}}
    long_name = "n" * 65536
    echoed = ("[a, " + long_name + "]")[:16 * 1024] + "..."
    assert legacy_error(raw, "GetItem", {"TableName": table, "Key": key, "AttributesToGet": ["a", long_name]}) == (
        f"1 validation error detected: Value '{echoed}' at 'attributesToGet' failed to satisfy constraint: "
        "Member must satisfy constraint: [Member must have length less than or equal to 65535]")
    status, _, _, _ = raw("GetItem", {"TableName": table, "Key": key, "AttributesToGet": ["a", "n" * 65535]})
    assert status == 200
