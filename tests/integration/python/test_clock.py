"""The controllable clock (/ddbd/clock, --start-time) and on-demand Time to Live sweeps
(/ddbd/ttl/sweep): every time ddbd reports and every time-driven behaviour follows it."""
import datetime
import time

import pytest

from conftest import DdbdProcess


@pytest.fixture(scope="module")
def server():
    # TTL passes every 50 ms: were they to run under a test-controlled clock, the tests below
    # that count a sweep's deletions would see it.
    process = DdbdProcess("--ttl-interval-ms", "50").start()
    yield process
    process.cleanup()


def clock(server):
    status, body = server.control("GET", "/ddbd/clock")
    assert status == 200
    return body


def set_clock(server, body):
    status, answer = server.control("PUT", "/ddbd/clock", body)
    assert status == 200, answer
    return answer


def ms(seconds):
    """Epoch seconds as the clock's whole milliseconds (JSON numbers are not exact decimals)."""
    return round(seconds * 1000)


def make_table(client, name, **kwargs):
    client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        **kwargs)


def test_the_clock_starts_as_the_system_clock(server):
    before = time.time()
    body = clock(server)
    after = time.time()
    assert body["Mode"] == "system"
    assert before - 0.01 <= body["Now"] <= after + 0.01


def test_refusals_change_nothing(server):
    reading = clock(server)
    for body, message in (
            ({"Now": reading["Now"] - 3600}, "the clock cannot move backwards"),
            ({"Advance": -1}, "the clock cannot move backwards: Advance must be >= 0"),
            ({"Now": "yesterday"}, "not a time: 'yesterday'"),
            ({"Now": 2e9, "Advance": 1}, "Now and Advance cannot be given together"),
            ({"Speed": 2}, "Unknown member 'Speed'"),
            ({}, "PUT /ddbd/clock takes"),
            ({"Run": "yes"}, None)):
        status, answer = server.control("PUT", "/ddbd/clock", body)
        assert status == 400, body
        assert answer["__type"].endswith("ValidationException") or \
            answer["__type"].endswith("SerializationException"), answer
        if message:
            assert message in answer["message"], answer
    assert clock(server)["Mode"] == "system"


def test_a_frozen_clock_is_what_every_timestamp_shows(server):
    frozen_at = int(time.time()) + 86400  # tomorrow, on a whole second
    iso = datetime.datetime.fromtimestamp(frozen_at, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    assert set_clock(server, {"Now": iso}) == {"Now": frozen_at, "Mode": "frozen"}
    time.sleep(0.05)
    assert clock(server) == {"Now": frozen_at, "Mode": "frozen"}
    ddb = server.client()
    make_table(ddb, "Stamped",
               StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    description = ddb.describe_table(TableName="Stamped")["Table"]
    assert description["CreationDateTime"].timestamp() == frozen_at
    ddb.put_item(TableName="Stamped", Item={"pk": {"S": "a"}})
    streams = server.client(service="dynamodbstreams")
    arn = description["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    record = streams.get_records(ShardIterator=iterator)["Records"][0]
    assert record["dynamodb"]["ApproximateCreationDateTime"].timestamp() == frozen_at
    backup = ddb.create_backup(TableName="Stamped", BackupName="bak")["BackupDetails"]
    assert backup["BackupCreationDateTime"].timestamp() == frozen_at


def test_advance_and_run(server):
    start = ms(clock(server)["Now"])
    advanced = set_clock(server, {"Advance": 1.5})
    assert (ms(advanced["Now"]), advanced["Mode"]) == (start + 1500, "frozen")
    advanced = set_clock(server, {"Advance": 3600})
    assert (ms(advanced["Now"]), advanced["Mode"]) == (start + 3_601_500, "frozen")
    running = set_clock(server, {"Run": True})
    assert running["Mode"] == "offset"
    assert ms(running["Now"]) >= start + 3_601_500
    time.sleep(0.2)
    later = clock(server)
    assert later["Mode"] == "offset"
    assert start + 3_601_650 <= ms(later["Now"]) <= start + 3_606_500
    # A running clock advanced keeps running; {"Run": false} freezes it where it stands.
    assert set_clock(server, {"Advance": 60})["Mode"] == "offset"
    frozen = set_clock(server, {"Run": False})
    assert frozen["Mode"] == "frozen"
    assert ms(frozen["Now"]) >= ms(later["Now"]) + 60_000
    # Epoch seconds as a number or a string freeze too.
    assert ms(set_clock(server, {"Now": frozen["Now"] + 10})["Now"]) == ms(frozen["Now"]) + 10_000
    assert set_clock(server, {"Now": str(int(frozen["Now"]) + 20)})["Now"] == int(
        frozen["Now"]) + 20


def test_ttl_expiry_through_the_clock_with_the_streams_remove_record(server):
    ddb = server.client()
    make_table(ddb, "Sessions",
               StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    ddb.update_time_to_live(TableName="Sessions", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expireAt"})
    now = int(clock(server)["Now"]) + 1  # a whole second, so the times below are exact
    set_clock(server, {"Now": now})
    ddb.put_item(TableName="Sessions", Item={"pk": {"S": "s1"}, "expireAt": {"N": str(now + 60)}})
    ddb.put_item(TableName="Sessions", Item={"pk": {"S": "s2"}, "expireAt": {"N": str(now + 600)}})

    status, swept = server.control("POST", "/ddbd/ttl/sweep")
    assert (status, swept["Deleted"]) == (200, 0)
    set_clock(server, {"Advance": 61})
    time.sleep(0.2)  # periodic passes (every 50 ms) leave expiry to the test now
    assert "Item" in ddb.get_item(TableName="Sessions", Key={"pk": {"S": "s1"}})
    status, swept = server.control("POST", "/ddbd/ttl/sweep")
    assert status == 200
    assert swept == {"Deleted": 1, "Now": now + 61}
    assert "Item" not in ddb.get_item(TableName="Sessions", Key={"pk": {"S": "s1"}})
    assert "Item" in ddb.get_item(TableName="Sessions", Key={"pk": {"S": "s2"}})

    streams = server.client(service="dynamodbstreams")
    arn = ddb.describe_table(TableName="Sessions")["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = streams.get_records(ShardIterator=iterator)["Records"]
    assert [r["eventName"] for r in records] == ["INSERT", "INSERT", "REMOVE"]
    remove = records[2]
    assert remove["userIdentity"] == {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
    assert remove["dynamodb"]["Keys"] == {"pk": {"S": "s1"}}
    assert remove["dynamodb"]["OldImage"]["expireAt"] == {"N": str(now + 60)}
    assert remove["dynamodb"]["ApproximateCreationDateTime"].timestamp() == now + 61


def test_a_sweep_waits_for_the_ttl_backfill_of_existing_items(server):
    ddb = server.client()
    make_table(ddb, "Backfilled")
    now = int(clock(server)["Now"])
    for start in range(0, 3000, 25):
        ddb.batch_write_item(RequestItems={"Backfilled": [
            {"PutRequest": {"Item": {"pk": {"S": str(i)}, "ttl": {"N": str(now - 10)}}}}
            for i in range(start, start + 25)]})
    ddb.update_time_to_live(TableName="Backfilled", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ttl"})
    status, swept = server.control("POST", "/ddbd/ttl/sweep")
    assert (status, swept["Deleted"]) == (200, 3000)
    assert ddb.scan(TableName="Backfilled", Select="COUNT")["Count"] == 0


def test_start_time_starts_a_server_with_a_frozen_clock_in_the_past():
    process = DdbdProcess("--in-memory", "--start-time", "2020-02-29T12:00:00Z").start()
    try:
        assert process.control("GET", "/ddbd/clock") == (200, {"Now": 1582977600,
                                                              "Mode": "frozen"})
        ddb = process.client()
        make_table(ddb, "Old")
        created = ddb.describe_table(TableName="Old")["Table"]["CreationDateTime"]
        assert created.timestamp() == 1582977600
    finally:
        process.cleanup()


def test_an_invalid_start_time_is_refused_at_start():
    import subprocess
    from conftest import BINARY
    result = subprocess.run([BINARY, "--in-memory", "--start-time", "soon"],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 2
    assert "invalid value for --start-time: not a time: 'soon'" in result.stderr


def stream_iterator(server, ddb, table):
    streams = server.client(service="dynamodbstreams")
    arn = ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return streams, iterator


def test_shard_iterators_expire_after_fifteen_minutes_of_the_clock(server):
    ddb = server.client()
    make_table(ddb, "Iterated",
               StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    ddb.put_item(TableName="Iterated", Item={"pk": {"S": "a"}})
    start = int(clock(server)["Now"]) + 1
    set_clock(server, {"Now": start})
    streams, iterator = stream_iterator(server, ddb, "Iterated")
    set_clock(server, {"Advance": 900})  # exactly 15 minutes: still valid
    answer = streams.get_records(ShardIterator=iterator)
    assert len(answer["Records"]) == 1
    following = answer["NextShardIterator"]  # issued now, 15 minutes from now
    set_clock(server, {"Advance": 1})
    with pytest.raises(streams.exceptions.ExpiredIteratorException) as raised:
        streams.get_records(ShardIterator=iterator)
    created = datetime.datetime.fromtimestamp(start, datetime.timezone.utc)
    assert raised.value.response["Error"]["Message"] == (
        "Iterator expired. The iterator was created at time "
        f"{created.strftime('%a %b %d %H:%M:%S UTC %Y')} while right now it is "
        f"{(created + datetime.timedelta(seconds=901)).strftime('%a %b %d %H:%M:%S UTC %Y')} "
        "which is further in the future than the tolerated delay of 900000 milliseconds.")
    assert streams.get_records(ShardIterator=following)["Records"] == []


def test_stream_records_older_than_a_day_of_the_clock_are_trimmed(server):
    ddb = server.client()
    make_table(ddb, "Retained",
               StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    ddb.put_item(TableName="Retained", Item={"pk": {"S": "old"}})
    set_clock(server, {"Advance": 24 * 3600 + 1})
    ddb.put_item(TableName="Retained", Item={"pk": {"S": "new"}})
    deadline = time.monotonic() + 10
    while True:  # retention runs in the background, every 50 ms here
        streams, iterator = stream_iterator(server, ddb, "Retained")
        keys = [r["dynamodb"]["Keys"]["pk"]["S"]
                for r in streams.get_records(ShardIterator=iterator)["Records"]]
        if keys == ["new"] or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert keys == ["new"]


def test_reads_positioned_before_trimmed_records_get_trimmed_data_access(server):
    ddb = server.client()
    make_table(ddb, "Trimmed",
               StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    ddb.put_item(TableName="Trimmed", Item={"pk": {"S": "first"}})
    set_clock(server, {"Advance": 23 * 3600 + 55 * 60})  # the record is 23 h 55 min old
    ddb.put_item(TableName="Trimmed", Item={"pk": {"S": "second"}})
    streams, iterator = stream_iterator(server, ddb, "Trimmed")
    records = streams.get_records(ShardIterator=iterator)["Records"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in records] == ["first", "second"]
    first, second = (r["dynamodb"]["SequenceNumber"] for r in records)
    # Ten minutes on, the first record is past 24 hours: an iterator issued before that (still
    # within its 15 minutes) would read it, and gets TrimmedDataAccessException, as would an
    # iterator asked for at or after its sequence number; TRIM_HORIZON starts after it.
    set_clock(server, {"Advance": 600})
    with pytest.raises(streams.exceptions.TrimmedDataAccessException) as raised:
        streams.get_records(ShardIterator=iterator)
    assert raised.value.response["Error"]["Message"] == (
        "The data you are trying to access has been trimmed")
    arn = ddb.describe_table(TableName="Trimmed")["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    with pytest.raises(streams.exceptions.TrimmedDataAccessException):
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                   ShardIteratorType="AT_SEQUENCE_NUMBER", SequenceNumber=first)
    after_first = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="AFTER_SEQUENCE_NUMBER",
        SequenceNumber=first)["ShardIterator"]
    at_second = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="AT_SEQUENCE_NUMBER",
        SequenceNumber=second)["ShardIterator"]
    _, horizon = stream_iterator(server, ddb, "Trimmed")
    for fresh in (after_first, at_second, horizon):
        records = streams.get_records(ShardIterator=fresh)["Records"]
        assert [r["dynamodb"]["SequenceNumber"] for r in records] == [second]


def test_client_request_tokens_are_remembered_ten_minutes_of_the_clock(server):
    ddb = server.client()
    make_table(ddb, "Tokens")

    def put(value):
        ddb.transact_write_items(ClientRequestToken="token-1", TransactItems=[{"Put": {
            "TableName": "Tokens", "Item": {"pk": {"S": "k"}, "v": {"S": value}}}}])

    put("first")
    set_clock(server, {"Advance": 599})
    with pytest.raises(ddb.exceptions.IdempotentParameterMismatchException):
        put("second")
    set_clock(server, {"Advance": 2})  # past ten minutes: the token is forgotten
    put("second")
    assert ddb.get_item(TableName="Tokens", Key={"pk": {"S": "k"}})["Item"]["v"] == {"S": "second"}
