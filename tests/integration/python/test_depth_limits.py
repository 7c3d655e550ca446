"""No request, however deep, takes the server down: nesting depths of 10, 1,000 and 100,000 in
every expression grammar, in PartiQL, in legacy condition maps and in the JSON body itself,
each answered with DynamoDB's error (or a result) while the server keeps serving."""
import json

import pytest

from conftest import raw_call

T = "DepthLimits"
KEY = {"pk": {"S": "k"}}
DEPTHS = [10, 1000, 100000]


@pytest.fixture(scope="module", autouse=True)
def table(ddb):
    ddb.create_table(TableName=T, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    ddb.put_item(TableName=T, Item={**KEY, "a": {"S": "x"}})


def answer(server, operation, body):
    status, _, data = raw_call(server.endpoint, operation, body)
    parsed = json.loads(data) if data else {}
    error = parsed.get("__type", "#").split("#", 1)[1] or None
    return status, error, parsed.get("message", parsed.get("Message"))


def still_serving(ddb):
    assert ddb.get_item(TableName=T, Key=KEY)["Item"] == {**KEY, "a": {"S": "x"}}


def nested(depth, opening, middle, closing):
    return opening * depth + middle + closing * depth


def size_error(parameter, text):
    return (400, "ValidationException", f"Invalid {parameter}: Expression size has exceeded the "
                                        f"maximum allowed size; expression size: {len(text)}")


REDUNDANT = "The expression has redundant parentheses;"


@pytest.mark.parametrize("depth", DEPTHS)
def test_condition_expressions(server, ddb, depth):
    values = {":v": {"S": "x"}}
    for text, shallow in [
        (nested(depth, "(", "a = :v", ")"), f"Invalid ConditionExpression: {REDUNDANT}"),
        ("NOT " * depth + "a = :v", None),
        (nested(depth, "size(", "a", ")") + " = :v",
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: size, operand type: N"),
    ]:
        result = answer(server, "PutItem", {"TableName": T, "Item": {**KEY, "a": {"S": "x"}},
                                            "ConditionExpression": text,
                                            "ExpressionAttributeValues": values})
        if len(text) > 4096:
            assert result == size_error("ConditionExpression", text)
        elif depth == 10:
            # NOT ten times over a true comparison is true.
            assert result == ((200, None, None) if shallow is None else (400, "ValidationException", shallow))
        else:
            assert result[:2] == (400, "ValidationException"), result
    still_serving(ddb)


@pytest.mark.parametrize("depth", DEPTHS)
def test_key_condition_filter_projection_and_update_expressions(server, ddb, depth):
    def refused_as_redundant(parameter, text, result):
        if len(text) > 4096:
            assert result == size_error(parameter, text)
        else:
            assert result == (400, "ValidationException", f"Invalid {parameter}: {REDUNDANT}")

    key_condition = nested(depth, "(", "pk = :k", ")")
    refused_as_redundant("KeyConditionExpression", key_condition, answer(
        server, "Query", {"TableName": T, "KeyConditionExpression": key_condition,
                          "ExpressionAttributeValues": {":k": {"S": "k"}}}))
    scan_filter = nested(depth, "(", "a = :v", ")")
    refused_as_redundant("FilterExpression", scan_filter, answer(
        server, "Scan", {"TableName": T, "FilterExpression": scan_filter,
                         "ExpressionAttributeValues": {":v": {"S": "x"}}}))

    projection = ".".join(["a"] * depth)
    result = answer(server, "GetItem", {"TableName": T, "Key": KEY, "ProjectionExpression": projection})
    if len(projection) > 4096:
        assert result == size_error("ProjectionExpression", projection)
    elif depth == 10:
        assert result[0] == 200
    else:
        assert result == (400, "ValidationException",
                          "Invalid ProjectionExpression: The document path has too many nesting "
                          f"levels; nesting levels: {depth}")

    update = "SET b = " + nested(depth, "(", ":v", ")")
    result = answer(server, "UpdateItem", {"TableName": T, "Key": {"pk": {"S": "other"}},
                                           "UpdateExpression": update,
                                           "ExpressionAttributeValues": {":v": {"S": "x"}}})
    if len(update) > 4096:
        assert result == size_error("UpdateExpression", update)
    elif depth == 10:
        assert result == (200, None, None)
    else:
        assert result == (400, "ValidationException", f"Invalid UpdateExpression: {REDUNDANT}")
    still_serving(ddb)


@pytest.mark.parametrize("depth", DEPTHS)
def test_partiql_statements(server, ddb, depth):
    statement = f"SELECT * FROM \"{T}\" WHERE " + nested(depth, "(", "pk = 'k'", ")")
    status, error, _ = answer(server, "ExecuteStatement", {"Statement": statement})
    if depth == 10:
        assert status == 200
    else:
        assert (status, error) == (400, "ValidationException")
    literal = nested(depth, "[", "1", "]")
    status, error, _ = answer(server, "ExecuteStatement",
                              {"Statement": f"INSERT INTO \"{T}\" VALUE {{'pk': 'deep', 'l': {literal}}}"})
    if depth == 10:
        assert status == 200
    else:
        assert (status, error) == (400, "ValidationException")
    still_serving(ddb)


@pytest.mark.parametrize("depth", DEPTHS)
def test_json_bodies(server, ddb, depth):
    # Attribute values nested past DynamoDB's 32 levels.
    item = '{"pk":{"S":"deep"},"x":' + nested(depth, '{"L":[', '{"S":"v"}', "]}") + "}"
    status, error, message = answer(server, "PutItem", '{"TableName":"%s","Item":%s}' % (T, item))
    if depth == 10:
        assert status == 200
    else:
        # JSON nested deeper than 1,024 levels is not read at all (a documented difference).
        assert (status, error) == (400, "SerializationException")
    item = '{"pk":{"S":"deep"},"x":' + nested(33, '{"L":[', '{"S":"v"}', "]}") + "}"
    assert answer(server, "PutItem", '{"TableName":"%s","Item":%s}' % (T, item)) == (
        400, "ValidationException",
        "Nesting Levels have exceeded supported limits: Attributes in the item have nested "
        "levels beyond supported limit")
    # Plain JSON nesting in a member DynamoDB does not read.
    body = '{"TableName":"%s","Key":{"pk":{"S":"k"}},"Unknown":%s}' % (T, nested(depth, "[", "", "]"))
    status, error, _ = answer(server, "GetItem", body)
    if depth == 100000:
        assert (status, error) == (400, "SerializationException")
    else:
        assert status == 200
    still_serving(ddb)


@pytest.mark.parametrize("count", [10, 1000, 10000])
def test_legacy_maps_with_thousands_of_conditions(server, ddb, count):
    """ScanFilter, QueryFilter and Expected with thousands of conditions (a 350 KB body for
    10,000) are combined without nesting thousands deep."""
    everything = ddb.scan(TableName=T)["Count"]
    scan_filter = {f"a{i}": {"ComparisonOperator": "NULL"} for i in range(count)}
    status, _, body = raw_call(server.endpoint, "Scan", {"TableName": T, "ScanFilter": scan_filter})
    assert status == 200
    assert json.loads(body)["Count"] == everything
    status, _, body = raw_call(server.endpoint, "Query", {
        "TableName": T, "KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "k"}]}},
        "QueryFilter": scan_filter, "ConditionalOperator": "OR"})
    assert (status, json.loads(body)["Count"]) == (200, 1)
    expected = {f"a{i}": {"Exists": False} for i in range(count)}
    status, _, _ = raw_call(server.endpoint, "PutItem", {"TableName": T, "Item": {**KEY, "a": {"S": "x"}},
                                                         "Expected": expected})
    assert status == 200
    still_serving(ddb)
