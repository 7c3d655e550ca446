"""What ddbd keeps grows with the data, not with the traffic: idempotency tokens keep a digest,
the write-ahead log is bounded, old RocksDB info logs are capped."""
import glob
import os
import signal
import uuid

import pytest

from conftest import DdbdProcess


def status_mb(pid, field):
    """VmRSS (resident now) or VmHWM (the peak so far) of process `pid`, in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field}")


@pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                    reason="AddressSanitizer's quarantine holds freed memory: RSS says nothing")
def test_transaction_tokens_do_not_keep_their_requests():
    server = DdbdProcess().start()
    try:
        client = server.client()
        client.create_table(TableName="Tokens", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        big = "v" * 150_000

        def check():
            # A condition check on a missing item: nothing is written, so only what the
            # token keeps can grow the process.
            client.transact_write_items(
                ClientRequestToken=str(uuid.uuid4()),
                TransactItems=[{"ConditionCheck": {
                    "TableName": "Tokens", "Key": {"pk": {"S": "absent"}},
                    "ConditionExpression": "attribute_not_exists(pk) OR #b = :big",
                    "ExpressionAttributeNames": {"#b": "b"},
                    "ExpressionAttributeValues": {":big": {"S": big}}}}])

        for _ in range(50):  # warm up allocator pools and caches
            check()
        before = status_mb(server.proc.pid, "VmRSS")
        for _ in range(400):  # 60 MB of requests, each with its own token
            check()
        grown_mb = status_mb(server.proc.pid, "VmRSS") - before
        assert grown_mb < 20, f"RSS grew {grown_mb:.1f} MB over 400 tokened transactions"
    finally:
        server.cleanup()


@pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                    reason="AddressSanitizer's quarantine holds freed memory: RSS says nothing")
def test_stored_data_takes_the_block_cache_and_memtables_not_more():
    # 240 MB of items, more than the memtables (64 MB) and the block cache (8 MB here) hold,
    # then a read of all of them: the process's peak stays within those two bounds
    # plus what it takes empty.
    server = DdbdProcess("--block-cache-mb", "8").start()
    try:
        client = server.client()
        client.create_table(TableName="Big", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        empty_mb = status_mb(server.proc.pid, "VmHWM")
        payload = "".join(chr(97 + (i * 7919) % 26) for i in range(4000))
        for batch in range(2400):  # 60,000 items of 4 KB
            items = [{"PutRequest": {"Item": {"pk": {"S": f"{batch}-{i}"},
                                              "p": {"S": payload}}}} for i in range(25)]
            pending = {"Big": items}
            while pending:
                pending = client.batch_write_item(RequestItems=pending)["UnprocessedItems"]
        counted, start = 0, {}
        while True:  # reads every block of the table
            page = client.scan(TableName="Big", Select="COUNT", **start)
            counted += page["Count"]
            if "LastEvaluatedKey" not in page:
                break
            start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}
        assert counted == 60000
        for n in range(0, 60000, 997):
            key = {"pk": {"S": f"{n // 25}-{n % 25}"}}
            assert client.get_item(TableName="Big", Key=key)["Item"]["p"]["S"] == payload
        grown_mb = status_mb(server.proc.pid, "VmHWM") - empty_mb
        assert grown_mb < 64 + 8 + 40, f"peak RSS grew {grown_mb:.0f} MB"  # 256 MB with a 512 MB cache
    finally:
        server.cleanup()


def wal_bytes(data_dir):
    return sum(os.path.getsize(path) for path in glob.glob(os.path.join(data_dir, "db", "*.log")))


def test_write_ahead_log_stays_within_its_bound():
    server = DdbdProcess("--max-wal-mb", "8").start()
    try:
        client = server.client()
        client.create_table(
            TableName="Logged", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{"IndexName": "ByG",
                                     "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        payload = "p" * 1000
        largest = 0
        for batch in range(1000):  # 25,000 items of 1 KB: ~50 MB through the log
            items = [{"PutRequest": {"Item": {"pk": {"S": f"{batch}-{i}"},
                                              "g": {"S": str(i)}, "p": {"S": payload}}}}
                     for i in range(25)]
            pending = {"Logged": items}
            while pending:
                pending = client.batch_write_item(RequestItems=pending)["UnprocessedItems"]
            if batch % 50 == 0:
                largest = max(largest, wal_bytes(server.data_dir))
        largest = max(largest, wal_bytes(server.data_dir))
        assert largest <= 3 * 8 << 20, f"write-ahead log reached {largest >> 20} MB"
        server.stop(signal.SIGKILL)
        again = DdbdProcess(data_dir=server.data_dir).start()
        try:
            table = again.client().describe_table(TableName="Logged")["Table"]
            assert table["ItemCount"] == 25000
        finally:
            again.stop()
    finally:
        server.cleanup()


def test_old_info_logs_are_capped():
    first = DdbdProcess().start()
    try:
        first.stop()
        for _ in range(8):
            DdbdProcess(data_dir=first.data_dir).start().stop()
        old_logs = glob.glob(os.path.join(first.data_dir, "db", "LOG.old.*"))
        assert len(old_logs) <= 3, old_logs
    finally:
        first.cleanup()


def test_errors_that_echo_the_request_are_capped(ddb, table_factory):
    table = table_factory(range_key=None)
    names = {f"#n{i}": f"attr{i}" for i in range(20000)}
    try:
        ddb.get_item(TableName=table, Key={"PK": {"S": "a"}}, ProjectionExpression="PK",
                     ExpressionAttributeNames=names)
        raise AssertionError("unused names were accepted")
    except ddb.exceptions.ClientError as error:
        message = error.response["Error"]["Message"]
    assert message.startswith(
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#n0, #n1, ")
    assert message.endswith(", ...}")
    assert len(message) < 1200, len(message)


def test_constraint_errors_echo_at_most_a_bounded_prefix_of_a_value(raw):
    # A 4 MB table name is too long, and the error quotes it.
    status, error, message, _ = raw("DescribeTable", {"TableName": "n" * (4 << 20)})
    assert (status, error) == (400, "ValidationException")
    assert message.startswith("1 validation error detected: Value 'nnnn")
    assert "...' at 'tableName' failed to satisfy constraint" in message
    assert len(message) < 20_000, len(message)
