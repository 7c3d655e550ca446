"""Single-item and batch operations through boto3's client and resource APIs."""
from decimal import Decimal

import pytest
from boto3.dynamodb.types import Binary


def test_put_get_roundtrip_all_types(ddb, table_factory):
    table = table_factory()
    item = {
        "PK": {"S": "USER#123"}, "SK": {"S": "PROFILE"},
        "Name": {"S": "Alice"}, "Age": {"N": "030.50"}, "Blob": {"B": b"\x00\xffdata"},
        "Active": {"BOOL": True}, "Nothing": {"NULL": True},
        "Tags": {"SS": ["a", "b"]}, "Scores": {"NS": ["1", "2.5", "-3"]},
        "Blobs": {"BS": [b"x", b"y"]},
        "Nested": {"M": {"list": {"L": [{"S": "one"}, {"N": "2"}, {"M": {}}]}, "empty": {"S": ""}}},
    }
    assert ddb.put_item(TableName=table, Item=item)["ResponseMetadata"]["HTTPStatusCode"] == 200
    got = ddb.get_item(TableName=table, Key={"PK": {"S": "USER#123"}, "SK": {"S": "PROFILE"}},
                       ConsistentRead=True)["Item"]
    expected = dict(item)
    expected["Age"] = {"N": "30.5"}
    assert got["Age"] == {"N": "30.5"}
    assert got["Blob"] == {"B": b"\x00\xffdata"}
    assert sorted(got["Scores"]["NS"]) == ["-3", "1", "2.5"]
    assert sorted(got["Blobs"]["BS"]) == [b"x", b"y"]
    assert got["Nested"] == item["Nested"]
    assert got == {**expected, "Scores": got["Scores"], "Blobs": got["Blobs"]}


def test_numeric_keys_compare_by_value(ddb, table_factory):
    table = table_factory(hash_key=("id", "N"), range_key=None)
    ddb.put_item(TableName=table, Item={"id": {"N": "1000"}, "v": {"S": "first"}})
    ddb.put_item(TableName=table, Item={"id": {"N": "1e3"}, "v": {"S": "second"}})
    got = ddb.get_item(TableName=table, Key={"id": {"N": "1000.0"}})["Item"]
    assert got == {"id": {"N": "1000"}, "v": {"S": "second"}}
    assert ddb.describe_table(TableName=table)["Table"]["ItemCount"] == 1


def test_return_values_and_delete(ddb, table_factory):
    table = table_factory()
    key = {"PK": {"S": "a"}, "SK": {"S": "b"}}
    first = ddb.put_item(TableName=table, Item={**key, "v": {"N": "1"}}, ReturnValues="ALL_OLD")
    assert "Attributes" not in first
    second = ddb.put_item(TableName=table, Item={**key, "v": {"N": "2"}}, ReturnValues="ALL_OLD")
    assert second["Attributes"] == {**key, "v": {"N": "1"}}
    deleted = ddb.delete_item(TableName=table, Key=key, ReturnValues="ALL_OLD")
    assert deleted["Attributes"] == {**key, "v": {"N": "2"}}
    assert "Item" not in ddb.get_item(TableName=table, Key=key)
    assert "Attributes" not in ddb.delete_item(TableName=table, Key=key, ReturnValues="ALL_OLD")


def test_consumed_capacity_units(ddb, table_factory):
    table = table_factory()
    key = {"PK": {"S": "a"}, "SK": {"S": "b"}}
    # 1 KB rounding on writes: 3,000 bytes of payload = 3 units.
    put = ddb.put_item(TableName=table, Item={**key, "d": {"S": "x" * 3000}},
                       ReturnConsumedCapacity="TOTAL")
    assert put["ConsumedCapacity"]["TableName"] == table
    assert put["ConsumedCapacity"]["CapacityUnits"] == 3.0
    # 4 KB rounding on reads, halved when eventually consistent.
    get = ddb.get_item(TableName=table, Key=key, ReturnConsumedCapacity="TOTAL")
    assert get["ConsumedCapacity"]["CapacityUnits"] == 0.5
    strong = ddb.get_item(TableName=table, Key=key, ConsistentRead=True,
                          ReturnConsumedCapacity="INDEXES")
    assert strong["ConsumedCapacity"]["CapacityUnits"] == 1.0
    assert strong["ConsumedCapacity"]["Table"]["CapacityUnits"] == 1.0
    missing = ddb.delete_item(TableName=table, Key={"PK": {"S": "zz"}, "SK": {"S": "zz"}},
                              ReturnConsumedCapacity="TOTAL")
    assert missing["ConsumedCapacity"]["CapacityUnits"] == 1.0


def test_resource_api_with_decimals_and_binary(server, table_factory):
    name = table_factory()
    table = server.resource().Table(name)
    table.put_item(Item={"PK": "USER#1", "SK": "PROFILE", "balance": Decimal("12.50"),
                         "raw": Binary(b"\x01\x02"), "tags": {"x", "y"}, "meta": {"n": 1}})
    item = table.get_item(Key={"PK": "USER#1", "SK": "PROFILE"})["Item"]
    assert item["balance"] == Decimal("12.5")
    assert item["raw"] == Binary(b"\x01\x02")
    assert item["tags"] == {"x", "y"}
    assert item["meta"] == {"n": Decimal(1)}
    table.delete_item(Key={"PK": "USER#1", "SK": "PROFILE"})
    assert "Item" not in table.get_item(Key={"PK": "USER#1", "SK": "PROFILE"})


def test_batch_write_and_get(ddb, table_factory):
    a = table_factory()
    b = table_factory(hash_key=("id", "N"), range_key=None)
    response = ddb.batch_write_item(RequestItems={
        a: [{"PutRequest": {"Item": {"PK": {"S": "p"}, "SK": {"S": str(i)}}}} for i in range(20)],
        b: [{"PutRequest": {"Item": {"id": {"N": str(i)}, "x": {"S": "y"}}}} for i in range(5)],
    }, ReturnConsumedCapacity="TOTAL")
    assert response["UnprocessedItems"] == {}
    units = {c["TableName"]: c["CapacityUnits"] for c in response["ConsumedCapacity"]}
    assert units == {a: 20.0, b: 5.0}

    got = ddb.batch_get_item(RequestItems={
        a: {"Keys": [{"PK": {"S": "p"}, "SK": {"S": "3"}}, {"PK": {"S": "p"}, "SK": {"S": "nope"}}],
            "ConsistentRead": True},
        b: {"Keys": [{"id": {"N": "4"}}]},
    })
    assert got["Responses"][a] == [{"PK": {"S": "p"}, "SK": {"S": "3"}}]
    assert got["Responses"][b] == [{"id": {"N": "4"}, "x": {"S": "y"}}]
    assert got["UnprocessedKeys"] == {}

    ddb.batch_write_item(RequestItems={
        a: [{"DeleteRequest": {"Key": {"PK": {"S": "p"}, "SK": {"S": str(i)}}}} for i in range(10)]})
    assert ddb.describe_table(TableName=a)["Table"]["ItemCount"] == 10


def test_batch_write_is_all_or_nothing(ddb, table_factory):
    table = table_factory()
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": {"PK": {"S": "ok"}, "SK": {"S": "1"}}}},
            {"PutRequest": {"Item": {"PK": {"S": "bad"}, "SK": {"N": "1"}}}},
        ]})
    assert error.value.response["Error"]["Code"] == "ValidationException"
    assert "Item" not in ddb.get_item(TableName=table, Key={"PK": {"S": "ok"}, "SK": {"S": "1"}})


def test_batch_writer_loads_many_items(server, table_factory):
    name = table_factory()
    table = server.resource().Table(name)
    with table.batch_writer() as writer:
        for i in range(300):
            writer.put_item(Item={"PK": f"p{i % 7}", "SK": f"{i:05d}", "n": i})
    assert server.client().describe_table(TableName=name)["Table"]["ItemCount"] == 300


def test_item_of_exactly_400_kb_is_accepted(ddb, table_factory):
    table = table_factory()
    # "PK"+"SK"+"d" = 5 bytes of names, "a"+"b" = 2 bytes of keys.
    ddb.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "b"},
                                        "d": {"S": "x" * (409600 - 7)}})
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "b"},
                                            "d": {"S": "x" * (409600 - 6)}})
    assert error.value.response["Error"]["Message"] == "Item size has exceeded the maximum allowed size"


def test_batch_get_projections(ddb, table_factory):
    table = table_factory()
    ddb.put_item(TableName=table, Item={"PK": {"S": "a"}, "SK": {"S": "1"}, "x": {"N": "1"},
                                        "m": {"M": {"keep": {"S": "k"}, "drop": {"S": "d"}}}})
    got = ddb.batch_get_item(RequestItems={table: {
        "Keys": [{"PK": {"S": "a"}, "SK": {"S": "1"}}],
        "ProjectionExpression": "#m.keep, x", "ExpressionAttributeNames": {"#m": "m"}}})
    assert got["Responses"][table] == [{"x": {"N": "1"}, "m": {"M": {"keep": {"S": "k"}}}}]
    got = ddb.batch_get_item(RequestItems={table: {
        "Keys": [{"PK": {"S": "a"}, "SK": {"S": "1"}}], "AttributesToGet": ["SK", "x"]}})
    assert got["Responses"][table] == [{"SK": {"S": "1"}, "x": {"N": "1"}}]
