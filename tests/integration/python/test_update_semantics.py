"""UpdateItem semantics DynamoDB users rely on: what an update of a missing item creates, and
how several list-element SETs past the end of a list are applied."""
import pytest


@pytest.fixture
def streamed(ddb, table_factory):
    return table_factory(StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})


def stream_events(server, ddb, table):
    streams = server.client(service="dynamodbstreams")
    arn = ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return [r["eventName"] for r in streams.get_records(ShardIterator=iterator)["Records"]]


@pytest.mark.parametrize("update", [
    {"UpdateExpression": "REMOVE a"},
    {"UpdateExpression": "REMOVE a, b.c, l[0]"},
    {"UpdateExpression": "DELETE s :v", "ExpressionAttributeValues": {":v": {"SS": ["x"]}}},
    {"UpdateExpression": "REMOVE a DELETE s :v", "ExpressionAttributeValues": {":v": {"SS": ["x"]}}},
    {"AttributeUpdates": {"a": {"Action": "DELETE"}}},
    {"AttributeUpdates": {"s": {"Action": "DELETE", "Value": {"SS": ["x"]}}}},
])
def test_removing_from_a_missing_item_creates_nothing(server, ddb, streamed, update):
    key = {"PK": {"S": "missing"}, "SK": {"S": "x"}}
    response = ddb.update_item(TableName=streamed, Key=key, ReturnValues="ALL_NEW", **update)
    assert "Attributes" not in response
    assert "Item" not in ddb.get_item(TableName=streamed, Key=key)
    assert ddb.scan(TableName=streamed)["Count"] == 0
    assert stream_events(server, ddb, streamed) == []


def test_an_update_that_also_sets_creates_the_item(ddb, table_factory):
    table = table_factory()
    key = {"PK": {"S": "k"}, "SK": {"S": "x"}}
    response = ddb.update_item(TableName=table, Key=key, UpdateExpression="REMOVE a SET b = :b",
                               ExpressionAttributeValues={":b": {"N": "1"}}, ReturnValues="ALL_NEW")
    assert response["Attributes"] == {**key, "b": {"N": "1"}}
    # An empty update creates the key-only item.
    other = {"PK": {"S": "k"}, "SK": {"S": "y"}}
    ddb.update_item(TableName=table, Key=other)
    assert ddb.get_item(TableName=table, Key=other)["Item"] == other
    ddb.update_item(TableName=table, Key={"PK": {"S": "k"}, "SK": {"S": "z"}}, AttributeUpdates={})
    assert ddb.scan(TableName=table)["Count"] == 3


def test_removing_from_an_existing_item_still_writes(ddb, table_factory):
    table = table_factory()
    key = {"PK": {"S": "k"}, "SK": {"S": "x"}}
    ddb.put_item(TableName=table, Item={**key, "a": {"S": "1"}, "b": {"S": "2"}})
    response = ddb.update_item(TableName=table, Key=key, UpdateExpression="REMOVE a", ReturnValues="ALL_NEW")
    assert response["Attributes"] == {**key, "b": {"S": "2"}}


def test_list_sets_past_the_end_append_in_index_order(ddb, table_factory):
    table = table_factory()
    key = {"PK": {"S": "k"}, "SK": {"S": "x"}}

    def update(initial, expression, values):
        ddb.put_item(TableName=table, Item={**key, "c": {"L": [{"N": str(n)} for n in initial]}})
        response = ddb.update_item(TableName=table, Key=key, UpdateExpression=expression,
                                   ExpressionAttributeValues={k: {"N": str(v)} for k, v in values.items()},
                                   ReturnValues="ALL_NEW")
        return [int(e["N"]) for e in response["Attributes"]["c"]["L"]]

    # Every index is judged against the list as it was: c[2] is past the end too.
    assert update([1, 3], "SET c[4] = :m, c[2] = :t", {":m": -1, ":t": 3}) == [1, 3, 3, -1]
    assert update([], "SET c[84] = :a, c[37] = :b, c[17] = :c", {":a": 1, ":b": 2, ":c": 3}) == [3, 2, 1]
    # In-range elements are replaced where they are; removals apply to the old positions.
    assert update([1, 2, 3], "SET c[9] = :x, c[0] = :y, c[3] = :z", {":x": 9, ":y": 0, ":z": 3}) == [0, 2, 3, 3, 9]
    assert update([1, 2, 3], "SET c[5] = :x REMOVE c[0]", {":x": 5}) == [2, 3, 5]


def test_remove_through_a_missing_parent(ddb, table_factory):
    table = table_factory()
    key = {"PK": {"S": "k"}, "SK": {"S": "x"}}
    ddb.put_item(TableName=table, Item={**key, "m": {"M": {"a": {"S": "1"}}}, "s": {"S": "text"}})
    for expression in ("REMOVE nope.deeper", "REMOVE nope[1]", "REMOVE s.inside", "REMOVE m.a, nope.x"):
        with pytest.raises(ddb.exceptions.ClientError) as error:
            ddb.update_item(TableName=table, Key=key, UpdateExpression=expression)
        assert error.value.response["Error"]["Message"] == (
            "The document path provided in the update expression is invalid for update"), expression
    # A missing last step is no error.
    ddb.update_item(TableName=table, Key=key, UpdateExpression="REMOVE m.nope, nothing")
    assert ddb.get_item(TableName=table, Key=key)["Item"] == {**key, "m": {"M": {"a": {"S": "1"}}}, "s": {"S": "text"}}
