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


STREAMS = "DynamoDBStreams_20120810."


def constraint(value, path, rule):
    return (400, "ValidationException",
            f"1 validation error detected: Value '{value}' at '{path}' failed to satisfy "
            f"constraint: Member must {rule}")


def test_describe_stream_shard_filter(server, ddb):
    arn = make_table(ddb, "ShardFilter", {"StreamEnabled": True,
                                          "StreamViewType": "KEYS_ONLY"})["LatestStreamArn"]
    status, _, data = raw_call(server.endpoint, "DescribeStream", {"StreamArn": arn},
                               target_prefix=STREAMS)
    shard = json.loads(data)["StreamDescription"]["Shards"][0]["ShardId"]
    # ddbd has one shard per stream, so a shard never has children.
    status, _, data = raw_call(server.endpoint, "DescribeStream", {
        "StreamArn": arn, "ShardFilter": {"Type": "CHILD_SHARDS", "ShardId": shard}},
        target_prefix=STREAMS)
    description = json.loads(data)["StreamDescription"]
    assert (status, description["Shards"], description["StreamArn"]) == (200, [], arn)

    def describe(shard_filter):
        return error_of(server, "DescribeStream", {"StreamArn": arn, "ShardFilter": shard_filter},
                        STREAMS)
    assert describe({"Type": "PARENT_SHARDS", "ShardId": shard}) == constraint(
        "PARENT_SHARDS", "shardFilter.type", "satisfy enum value set: [CHILD_SHARDS]")
    assert describe({"Type": "CHILD_SHARDS", "ShardId": "shardId-short"}) == constraint(
        "shardId-short", "shardFilter.shardId", "have length greater than or equal to 28")
    assert describe({"Type": "CHILD_SHARDS", "ShardId": "s" * 66}) == constraint(
        "s" * 66, "shardFilter.shardId", "have length less than or equal to 65")
    assert describe({"Type": "CHILD_SHARDS"}) == (
        400, "ValidationException",
        "ShardFilter.ShardId is required when ShardFilter.Type is CHILD_SHARDS")


def test_describe_stream_after_an_unknown_shard_lists_none(server, ddb):
    arn = make_table(ddb, "UnknownShard", {"StreamEnabled": True,
                                           "StreamViewType": "KEYS_ONLY"})["LatestStreamArn"]
    bogus = "zzzzzzzzzzzzzzzzzzzzzzzzsfasdgagadfadfgagkjsdfsfsdjfjks"
    status, _, data = raw_call(server.endpoint, "DescribeStream",
                               {"StreamArn": arn, "ExclusiveStartShardId": bogus},
                               target_prefix=STREAMS)
    assert (status, json.loads(data)["StreamDescription"]["Shards"]) == (200, [])
    assert error_of(server, "DescribeStream",
                    {"StreamArn": arn, "ExclusiveStartShardId": "shardId-1"}, STREAMS) == \
        constraint("shardId-1", "exclusiveStartShardId", "have length greater than or equal to 28")


@pytest.mark.parametrize("operation, extra", [
    ("DescribeStream", {}),
    ("GetShardIterator", {"ShardId": "shardId-00000000000000000000-00000000",
                          "ShardIteratorType": "LATEST"}),
])
@pytest.mark.parametrize("arn", [
    "sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf",
    "arn:aws:dynamodb:us-east-1:000000000000:table/StreamApi",
    "arn:aws:s3:us-east-1:000000000000:table/StreamApi/stream/2026-01-01T00:00:00.000",
    "arn:aws:dynamodb:us-east-1:000000000000:table/a;b/stream/2026-01-01T00:00:00.000",
])
def test_malformed_stream_arns_are_invalid(server, operation, extra, arn):
    assert error_of(server, operation, {"StreamArn": arn, **extra}, STREAMS) == (
        400, "ValidationException", "Invalid StreamArn")


def test_sequence_number_with_trim_horizon_or_latest_is_rejected(server, ddb):
    arn = make_table(ddb, "NoSequence", {"StreamEnabled": True,
                                         "StreamViewType": "KEYS_ONLY"})["LatestStreamArn"]
    _, _, data = raw_call(server.endpoint, "DescribeStream", {"StreamArn": arn},
                          target_prefix=STREAMS)
    shard = json.loads(data)["StreamDescription"]["Shards"][0]
    sequence = shard["SequenceNumberRange"]["StartingSequenceNumber"]
    for kind in ("TRIM_HORIZON", "LATEST"):
        assert error_of(server, "GetShardIterator", {
            "StreamArn": arn, "ShardId": shard["ShardId"], "ShardIteratorType": kind,
            "SequenceNumber": sequence}, STREAMS) == (
            400, "ValidationException",
            f"Must not specify a SequenceNumber for shard iterator type {kind}")


def test_list_streams_limit_and_start_arn_validation(server):
    assert error_of(server, "ListStreams", {"Limit": 0}, STREAMS) == constraint(
        "0", "limit", "have value greater than or equal to 1")
    assert error_of(server, "ListStreams", {"Limit": 101}, STREAMS) == constraint(
        "101", "limit", "have value less than or equal to 100")
    assert error_of(server, "ListStreams", {"ExclusiveStartStreamArn": "abc"}, STREAMS) == \
        constraint("abc", "exclusiveStartStreamArn", "have length greater than or equal to 37")
    assert error_of(server, "ListStreams", {
        "ExclusiveStartStreamArn": "kossaapaaasdafsdaasdasdasdasasdasfadfadfasdasdas"},
        STREAMS) == (400, "ValidationException", "Invalid ExclusiveStartStreamArn")


def test_list_streams_continues_after_a_deleted_tables_stream(ddb, streams):
    spec = {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    make_table(ddb, "PageAfterA", spec)
    gone = make_table(ddb, "PageAfterB", spec)["LatestStreamArn"]
    kept = make_table(ddb, "PageAfterC", spec)["LatestStreamArn"]
    everything = [s["StreamArn"] for s in streams.list_streams()["Streams"]]
    expected = everything[everything.index(gone) + 1:]
    ddb.delete_table(TableName="PageAfterB")
    page = streams.list_streams(ExclusiveStartStreamArn=gone)["Streams"]
    assert [s["StreamArn"] for s in page] == expected
    assert page[0]["StreamArn"] == kept
