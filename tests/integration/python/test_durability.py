"""Data on disk survives SIGKILL and clean shutdowns; restarts keep tables, indexes and counts;
the process's exit status on a bad command line."""
import signal
import subprocess

from conftest import BINARY, DdbdProcess

SCHEMA = dict(BillingMode="PAY_PER_REQUEST",
              KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
              AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])


def test_acknowledged_writes_survive_sigkill():
    first = DdbdProcess().start()
    try:
        client = first.client()
        client.create_table(TableName="Durable", **SCHEMA)
        for i in range(50):
            client.put_item(TableName="Durable", Item={"id": {"S": str(i)}, "n": {"N": str(i)}})
        client.delete_item(TableName="Durable", Key={"id": {"S": "0"}})
        first.stop(signal.SIGKILL)

        second = DdbdProcess(data_dir=first.data_dir).start()
        try:
            client = second.client()
            assert client.get_item(TableName="Durable", Key={"id": {"S": "42"}})["Item"] == {
                "id": {"S": "42"}, "n": {"N": "42"}}
            assert "Item" not in client.get_item(TableName="Durable", Key={"id": {"S": "0"}})
            assert client.describe_table(TableName="Durable")["Table"]["ItemCount"] == 49
        finally:
            second.stop()
    finally:
        first.cleanup()


def test_sigterm_shuts_down_cleanly_and_keeps_data():
    first = DdbdProcess().start()
    try:
        client = first.client()
        client.create_table(TableName="Clean", **SCHEMA)
        client.put_item(TableName="Clean", Item={"id": {"S": "x"}})
        assert first.stop(signal.SIGTERM) == 0
        second = DdbdProcess(data_dir=first.data_dir).start()
        try:
            assert second.client().get_item(TableName="Clean", Key={"id": {"S": "x"}})["Item"]
        finally:
            assert second.stop(signal.SIGINT) == 0
    finally:
        first.cleanup()


def test_in_memory_mode_keeps_nothing():
    server = DdbdProcess("--in-memory").start()
    try:
        client = server.client()
        client.create_table(TableName="Mem", **SCHEMA)
        client.put_item(TableName="Mem", Item={"id": {"S": "1"}})
        assert client.get_item(TableName="Mem", Key={"id": {"S": "1"}})["Item"]
    finally:
        server.stop()
    again = DdbdProcess("--in-memory", data_dir=server.data_dir).start()
    try:
        assert again.client().list_tables()["TableNames"] == []
    finally:
        again.cleanup()
        server.cleanup()


def test_indexes_and_their_counts_survive_a_restart_with_compaction():
    first = DdbdProcess().start()
    try:
        client = first.client()
        client.create_table(
            TableName="Indexed", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in
                                  [("pk", "S"), ("sk", "S"), ("status", "S"), ("total", "N")]],
            GlobalSecondaryIndexes=[{
                "IndexName": "ByStatus",
                "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
                              {"AttributeName": "total", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            LocalSecondaryIndexes=[{
                "IndexName": "ByTotal",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "total", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"}}])
        for i, status in enumerate(["open", "paid", "open", "paid", "paid"]):
            client.put_item(TableName="Indexed", Item={
                "pk": {"S": "c1"}, "sk": {"S": f"o{i}"}, "status": {"S": status},
                "total": {"N": str(10 - i)}})
        first.stop(signal.SIGKILL)

        # DynamoDB Local's flag: the restart compacts the database before serving.
        second = DdbdProcess("-optimizeDbBeforeStartup", data_dir=first.data_dir).start()
        try:
            client = second.client()
            paid = client.query(TableName="Indexed", IndexName="ByStatus",
                                KeyConditionExpression="#s = :s",
                                ExpressionAttributeNames={"#s": "status"},
                                ExpressionAttributeValues={":s": {"S": "paid"}})
            assert [item["sk"]["S"] for item in paid["Items"]] == ["o4", "o3", "o1"]
            cheap = client.query(TableName="Indexed", IndexName="ByTotal",
                                 KeyConditionExpression="pk = :p AND #t < :t",
                                 ExpressionAttributeNames={"#t": "total"},
                                 ExpressionAttributeValues={":p": {"S": "c1"}, ":t": {"N": "8"}})
            assert [item["sk"]["S"] for item in cheap["Items"]] == ["o4", "o3"]
            table = client.describe_table(TableName="Indexed")["Table"]
            assert table["ItemCount"] == 5
            assert table["GlobalSecondaryIndexes"][0]["ItemCount"] == 5
            assert table["LocalSecondaryIndexes"][0]["ItemCount"] == 5
        finally:
            second.stop()
    finally:
        first.cleanup()


def test_unknown_option_prints_usage_and_exits_2():
    result = subprocess.run([BINARY, "-jar", "DynamoDBLocal.jar", "-noSuchFlag"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert result.stderr.startswith("ddbd: unknown option: -noSuchFlag\n\nUsage: ddbd [options]")
