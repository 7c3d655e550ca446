"""DynamoDB Streams through boto3's dynamodbstreams client and raw HTTP: DynamoDB's refusals
of stream settings, the Streams API's validation, and Time to Live deletions recorded as
the service's own."""
import base64
import json
import time

import pytest

from conftest import DdbdProcess, raw_call


@pytest.fixture(scope="module")
def server():
    process = DdbdProcess("--ttl-interval-ms", "100").start()
    yield process
    process.cleanup()


@pytest.fixture(scope="module")
def streams(server):
    return server.client(service="dynamodbstreams")


def make_table(ddb, name, stream=None):
    kwargs = {"StreamSpecification": stream} if stream else {}
    return ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                            **kwargs)["TableDescription"]


def records_of(streams, arn):
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return streams.get_records(ShardIterator=iterator)["Records"]


def error_of(server, operation, body, prefix="DynamoDB_20120810."):
    status, _, data = raw_call(server.endpoint, operation, body, target_prefix=prefix)
    parsed = json.loads(data)
    return status, parsed["__type"].split("#")[1], parsed.get("message", parsed.get("Message"))


def test_a_table_without_a_stream_describes_none(ddb):
    description = make_table(ddb, "NoStream")
    for member in ("StreamSpecification", "LatestStreamArn", "LatestStreamLabel"):
        assert member not in description
    # A disabled specification on CreateTable means no stream.
    description = make_table(ddb, "NoStreamEither", {"StreamEnabled": False})
    assert "LatestStreamArn" not in description


@pytest.mark.parametrize("spec, message", [
    ({"StreamEnabled": True},
     "One or more parameter values were invalid: If stream is being enabled then UpdateViewType "
     "is required"),
    ({"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"},
     "One or more parameter values were invalid: If stream is being disabled, then "
     "UpdateViewType must not be specified"),
    ({"StreamViewType": "KEYS_ONLY"},
     "1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to "
     "satisfy constraint: Member must not be null"),
    ({"StreamEnabled": True, "StreamViewType": "EVERYTHING"},
     "1 validation error detected: Value 'EVERYTHING' at 'streamSpecification.streamViewType' "
     "failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, "
     "NEW_AND_OLD_IMAGES, KEYS_ONLY]"),
])
def test_malformed_stream_specifications(server, ddb, spec, message):
    if "StreamErrors" not in ddb.list_tables()["TableNames"]:
        make_table(ddb, "StreamErrors")
    body = {"TableName": "StreamErrors", "StreamSpecification": spec}
    assert error_of(server, "UpdateTable", body) == (400, "ValidationException", message)
    assert "LatestStreamArn" not in ddb.describe_table(TableName="StreamErrors")["Table"]


def test_reenabling_makes_a_new_stream_and_both_are_listed(ddb, streams):
    first = make_table(ddb, "Restreamed", {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    ddb.update_table(TableName="Restreamed", StreamSpecification={"StreamEnabled": False})
    # At once: labels are milliseconds, and a new stream never reuses the last one's.
    second = ddb.update_table(TableName="Restreamed", StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "OLD_IMAGE"})["TableDescription"]
    assert second["LatestStreamArn"] != first["LatestStreamArn"]
    assert second["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "OLD_IMAGE"}
    listed = streams.list_streams(TableName="Restreamed")["Streams"]
    assert [s["StreamArn"] for s in listed] == [first["LatestStreamArn"], second["LatestStreamArn"]]
    assert streams.describe_stream(StreamArn=first["LatestStreamArn"])[
        "StreamDescription"]["StreamStatus"] == "DISABLED"
    # Paging.
    page = streams.list_streams(TableName="Restreamed", Limit=1)
    assert [s["StreamArn"] for s in page["Streams"]] == [first["LatestStreamArn"]]
    rest = streams.list_streams(TableName="Restreamed",
                                ExclusiveStartStreamArn=page["LastEvaluatedStreamArn"])
    assert [s["StreamArn"] for s in rest["Streams"]] == [second["LatestStreamArn"]]


def test_streams_api_errors(server, ddb):
    arn = make_table(ddb, "StreamApi", {"StreamEnabled": True,
                                        "StreamViewType": "KEYS_ONLY"})["LatestStreamArn"]
    streams_prefix = "DynamoDBStreams_20120810."
    missing = arn.replace("StreamApi", "Nowhere")
    assert error_of(server, "DescribeStream", {"StreamArn": missing}, streams_prefix) == (
        400, "ResourceNotFoundException",
        f"Requested resource not found: Stream: {missing} not found")
    assert error_of(server, "GetShardIterator",
                    {"StreamArn": arn, "ShardId": "shardId-nope", "ShardIteratorType": "LATEST"},
                    streams_prefix) == (
        400, "ResourceNotFoundException", "Requested resource not found: Shard does not exist")
    assert error_of(server, "GetShardIterator",
                    {"StreamArn": arn, "ShardId": "x", "ShardIteratorType": "SOMEWHERE"},
                    streams_prefix) == (
        400, "ValidationException",
        "1 validation error detected: Value 'SOMEWHERE' at 'shardIteratorType' failed to satisfy "
        "constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST, "
        "AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER]")
    bogus = base64.b64encode(b"no bar here").decode()
    assert error_of(server, "GetRecords", {"ShardIterator": bogus}, streams_prefix) == (
        400, "ValidationException", "Invalid ShardIterator")
    assert error_of(server, "GetRecords", {"ShardIterator": bogus, "Limit": 1001},
                    streams_prefix) == (
        400, "ValidationException",
        "1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: "
        "Member must have value less than or equal to 1000")
    # A DynamoDB operation under the Streams prefix is unknown there, and the reverse.
    assert error_of(server, "ListTables", {}, streams_prefix)[1] == "UnknownOperationException"
    assert error_of(server, "ListStreams", {})[1] == "UnknownOperationException"


def test_ttl_deletions_are_the_services_own(ddb, streams):
    arn = make_table(ddb, "StreamTtl", {"StreamEnabled": True,
                                        "StreamViewType": "OLD_IMAGE"})["LatestStreamArn"]
    ddb.update_time_to_live(TableName="StreamTtl",
                            TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    ddb.put_item(TableName="StreamTtl", Item={"pk": {"S": "gone"},
                                              "exp": {"N": str(int(time.time()) - 5)}})
    deadline = time.monotonic() + 10
    while len(records_of(streams, arn)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    inserted, removed = records_of(streams, arn)
    assert inserted["eventName"] == "INSERT" and "userIdentity" not in inserted
    assert removed["eventName"] == "REMOVE"
    assert removed["userIdentity"] == {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
    assert removed["dynamodb"]["OldImage"]["pk"] == {"S": "gone"}
    assert removed["dynamodb"]["Keys"] == {"pk": {"S": "gone"}}
