"""UpdateItem and conditional writes through boto3, with the seed guides' patterns."""
from decimal import Decimal

import pytest


@pytest.fixture
def table(ddb, table_factory):
    return table_factory()


def key(pk="USER#123", sk="PROFILE"):
    return {"PK": {"S": pk}, "SK": {"S": sk}}


def test_atomic_counter_creates_then_increments(ddb, table):
    for expected in ("1", "2", "3"):
        response = ddb.update_item(TableName=table, Key=key(),
                                   UpdateExpression="SET view_count = if_not_exists(view_count, :zero) + :inc",
                                   ExpressionAttributeValues={":inc": {"N": "1"}, ":zero": {"N": "0"}},
                                   ReturnValues="UPDATED_NEW")
        assert response["Attributes"] == {"view_count": {"N": expected}}


def test_seed_counter_on_existing_item(ddb, table):
    ddb.put_item(TableName=table, Item={**key(), "view_count": {"N": "41"}})
    ddb.update_item(TableName=table, Key=key(), UpdateExpression="SET view_count = view_count + :inc",
                    ExpressionAttributeValues={":inc": {"N": "1"}})
    assert ddb.get_item(TableName=table, Key=key())["Item"]["view_count"] == {"N": "42"}


def test_counter_on_missing_attribute_fails(ddb, table):
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.update_item(TableName=table, Key=key(), UpdateExpression="SET view_count = view_count + :inc",
                        ExpressionAttributeValues={":inc": {"N": "1"}})
    assert error.value.response["Error"]["Message"] == (
        "The provided expression refers to an attribute that does not exist in the item")
    assert "Item" not in ddb.get_item(TableName=table, Key=key())


def test_write_sharding_add(ddb, table):
    for _ in range(5):
        ddb.update_item(TableName=table, Key=key("COUNTER#3", "TOTAL"), UpdateExpression="ADD #val :inc",
                        ExpressionAttributeNames={"#val": "value"},
                        ExpressionAttributeValues={":inc": {"N": "2.5"}})
    item = ddb.get_item(TableName=table, Key=key("COUNTER#3", "TOTAL"))["Item"]
    assert item["value"] == {"N": "12.5"}


def test_exact_decimal_arithmetic(ddb, table):
    ddb.put_item(TableName=table, Item={**key(), "n": {"N": "0.1"}})
    ddb.update_item(TableName=table, Key=key(), UpdateExpression="SET n = n + :x",
                    ExpressionAttributeValues={":x": {"N": "0.2"}})
    assert ddb.get_item(TableName=table, Key=key())["Item"]["n"] == {"N": "0.3"}
    ddb.put_item(TableName=table, Item={**key(), "n": {"N": "9e125"}})
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.update_item(TableName=table, Key=key(), UpdateExpression="SET n = n + :big",
                        ExpressionAttributeValues={":big": {"N": "9e125"}})
    assert error.value.response["Error"]["Message"] == (
        "Number overflow. Attempting to store a number with magnitude larger than supported range")
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.update_item(TableName=table, Key=key(), UpdateExpression="ADD n :tiny",
                        ExpressionAttributeValues={":tiny": {"N": "1"}})
    assert error.value.response["Error"]["Message"] == (
        "Attempting to store more than 38 significant digits in a Number")


def test_balance_decrement_with_condition(ddb, table):
    ddb.put_item(TableName=table, Item={**key("ACCOUNT#1", "BALANCE"), "balance": {"N": "100"}})
    values = {":v": {"N": "60"}}
    ddb.update_item(TableName=table, Key=key("ACCOUNT#1", "BALANCE"),
                    UpdateExpression="SET balance = balance - :v", ConditionExpression="balance >= :v",
                    ExpressionAttributeValues=values)
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.update_item(TableName=table, Key=key("ACCOUNT#1", "BALANCE"),
                        UpdateExpression="SET balance = balance - :v", ConditionExpression="balance >= :v",
                        ExpressionAttributeValues=values)
    assert ddb.get_item(TableName=table, Key=key("ACCOUNT#1", "BALANCE"))["Item"]["balance"] == {"N": "40"}


def test_conditional_put_prevents_overwrite_and_returns_old_item(ddb, raw, table):
    ddb.put_item(TableName=table, Item={**key(), "v": {"S": "first"}},
                 ConditionExpression="attribute_not_exists(PK)")
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException) as error:
        ddb.put_item(TableName=table, Item={**key(), "v": {"S": "second"}},
                     ConditionExpression="attribute_not_exists(PK)")
    assert error.value.response["Error"]["Message"] == "The conditional request failed"
    # Over raw HTTP: Debian's botocore predates ReturnValuesOnConditionCheckFailure.
    status, name, message, body = raw("PutItem", {
        "TableName": table, "Item": {**key(), "v": {"S": "second"}},
        "ConditionExpression": "attribute_not_exists(PK)",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
    assert (status, name, message) == (400, "ConditionalCheckFailedException",
                                       "The conditional request failed")
    assert body["Item"] == {**key(), "v": {"S": "first"}}
    assert ddb.get_item(TableName=table, Key=key())["Item"]["v"] == {"S": "first"}


def test_conditional_delete(ddb, table):
    ddb.put_item(TableName=table, Item={**key(), "status": {"S": "ACTIVE"}})
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.delete_item(TableName=table, Key=key(), ConditionExpression="#s = :s",
                        ExpressionAttributeNames={"#s": "status"},
                        ExpressionAttributeValues={":s": {"S": "INACTIVE"}})
    ddb.delete_item(TableName=table, Key=key(), ConditionExpression="#s = :s",
                    ExpressionAttributeNames={"#s": "status"},
                    ExpressionAttributeValues={":s": {"S": "ACTIVE"}})
    assert "Item" not in ddb.get_item(TableName=table, Key=key())


def test_return_values_of_update(ddb, table):
    ddb.put_item(TableName=table, Item={**key(), "a": {"N": "1"}, "b": {"S": "keep"},
                                        "m": {"M": {"x": {"N": "1"}, "y": {"N": "2"}}}})
    update = dict(TableName=table, Key=key(), UpdateExpression="SET a = :two, m.x = :two REMOVE b",
                  ExpressionAttributeValues={":two": {"N": "2"}})
    old = ddb.update_item(ReturnValues="UPDATED_OLD", **update)["Attributes"]
    assert old == {"a": {"N": "1"}, "b": {"S": "keep"}, "m": {"M": {"x": {"N": "1"}}}}
    new = ddb.update_item(ReturnValues="UPDATED_NEW", **update)["Attributes"]
    assert new == {"a": {"N": "2"}, "m": {"M": {"x": {"N": "2"}}}}
    all_new = ddb.update_item(ReturnValues="ALL_NEW", **update)["Attributes"]
    assert all_new == {**key(), "a": {"N": "2"}, "m": {"M": {"x": {"N": "2"}, "y": {"N": "2"}}}}
    all_old = ddb.update_item(ReturnValues="ALL_OLD", **update)["Attributes"]
    assert all_old == all_new
    assert "Attributes" not in ddb.update_item(ReturnValues="NONE", **update)


def test_null_versus_remove(server, table_factory):
    table = server.resource().Table(table_factory())
    table.put_item(Item={"PK": "ORDER#1", "SK": "META", "note": "x", "tag": "y"})
    table.update_item(Key={"PK": "ORDER#1", "SK": "META"}, UpdateExpression="SET note = :nil REMOVE tag",
                      ExpressionAttributeValues={":nil": None})
    item = table.get_item(Key={"PK": "ORDER#1", "SK": "META"})["Item"]
    assert item == {"PK": "ORDER#1", "SK": "META", "note": None}


def test_list_operations(ddb, table):
    ddb.put_item(TableName=table, Item={**key(), "l": {"L": [{"N": "0"}, {"N": "1"}, {"N": "2"}, {"N": "3"}]}})
    ddb.update_item(TableName=table, Key=key(), UpdateExpression="SET l[0] = :first REMOVE l[1], l[3]",
                    ExpressionAttributeValues={":first": {"S": "zero"}})
    # Removals refer to positions before the update; the rest shifts down.
    assert ddb.get_item(TableName=table, Key=key())["Item"]["l"] == {"L": [{"S": "zero"}, {"N": "2"}]}
    ddb.update_item(TableName=table, Key=key(), UpdateExpression="SET l = list_append(:head, l)",
                    ExpressionAttributeValues={":head": {"L": [{"N": "-1"}]}})
    assert ddb.get_item(TableName=table, Key=key())["Item"]["l"] == {
        "L": [{"N": "-1"}, {"S": "zero"}, {"N": "2"}]}
    ddb.update_item(TableName=table, Key=key(), UpdateExpression="SET l[99] = :x",
                    ExpressionAttributeValues={":x": {"N": "9"}})
    assert ddb.get_item(TableName=table, Key=key())["Item"]["l"]["L"][-1] == {"N": "9"}


def test_sets_add_and_delete(ddb, table):
    ddb.update_item(TableName=table, Key=key(), UpdateExpression="ADD tags :t",
                    ExpressionAttributeValues={":t": {"SS": ["a", "b"]}})
    ddb.update_item(TableName=table, Key=key(), UpdateExpression="ADD tags :t",
                    ExpressionAttributeValues={":t": {"SS": ["b", "c"]}})
    assert sorted(ddb.get_item(TableName=table, Key=key())["Item"]["tags"]["SS"]) == ["a", "b", "c"]
    ddb.update_item(TableName=table, Key=key(), UpdateExpression="DELETE tags :t",
                    ExpressionAttributeValues={":t": {"SS": ["a", "b", "c"]}})
    assert "tags" not in ddb.get_item(TableName=table, Key=key())["Item"]


def test_update_cannot_touch_keys(ddb, table):
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.update_item(TableName=table, Key=key(), UpdateExpression="SET SK = :v",
                        ExpressionAttributeValues={":v": {"S": "x"}})
    assert error.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: Cannot update attribute SK. This attribute is "
        "part of the key")


def test_update_item_without_expression_creates_the_item(ddb, table):
    ddb.update_item(TableName=table, Key=key("NEW", "ITEM"))
    assert ddb.get_item(TableName=table, Key=key("NEW", "ITEM"))["Item"] == key("NEW", "ITEM")


def test_update_size_limit(ddb, table):
    ddb.put_item(TableName=table, Item={**key(), "a": {"S": "x" * 300000}})
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.update_item(TableName=table, Key=key(), UpdateExpression="SET b = :b",
                        ExpressionAttributeValues={":b": {"S": "y" * 200000}})
    assert error.value.response["Error"]["Message"] == (
        "Item size to update has exceeded the maximum allowed size")


def test_resource_api_update(server, table_factory):
    table = server.resource().Table(table_factory())
    response = table.update_item(Key={"PK": "P", "SK": "S"},
                                 UpdateExpression="SET price = :p, tags = :t",
                                 ExpressionAttributeValues={":p": Decimal("9.99"), ":t": {"x"}},
                                 ReturnValues="ALL_NEW")
    assert response["Attributes"] == {"PK": "P", "SK": "S", "price": Decimal("9.99"), "tags": {"x"}}
