"""Snapshots of namespaces (/ddbd/namespaces/{ns}/snapshots/{name}): save, list, restore, fork
and delete; what a restored table keeps (items, indexes, statistics, stream and TTL settings)
and that snapshots survive a restart."""
import pytest

from conftest import DdbdProcess


@pytest.fixture(scope="module")
def server():
    process = DdbdProcess().start()
    yield process
    process.cleanup()


ITEMS = 600


def load_fixture(server, namespace):
    ddb = server.client(namespace=namespace)
    ddb.create_table(
        TableName="Orders", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "status", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "ByStatus", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}]}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    ddb.update_time_to_live(TableName="Orders", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expireAt"})
    ddb.create_table(TableName="Users", BillingMode="PROVISIONED",
                     ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 3},
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    for start in range(0, ITEMS, 25):
        ddb.batch_write_item(RequestItems={"Orders": [{"PutRequest": {"Item": {
            "pk": {"S": f"c{i % 10}"}, "sk": {"N": str(i)},
            "status": {"S": "open" if i % 3 else "shipped"}, "body": {"S": "x" * 200}}}}
            for i in range(start, start + 25)]})
    ddb.put_item(TableName="Users", Item={"id": {"S": "u1"}, "name": {"S": "Ada"}})
    return ddb


def shipped(ddb):
    return ddb.query(TableName="Orders", IndexName="ByStatus", Select="COUNT",
                     KeyConditionExpression="#s = :s", ExpressionAttributeNames={"#s": "status"},
                     ExpressionAttributeValues={":s": {"S": "shipped"}})["Count"]


def test_save_list_restore_fork_and_delete(server):
    ddb = load_fixture(server, "fixture")
    size = sum(ddb.describe_table(TableName=t)["Table"]["TableSizeBytes"]
               for t in ("Orders", "Users"))
    status, saved = server.control("PUT", "/ddbd/namespaces/fixture/snapshots/base")
    assert status == 200, saved
    assert {k: saved[k] for k in ("Namespace", "Name", "TableCount", "ItemCount", "SizeBytes")} \
        == {"Namespace": "fixture", "Name": "base", "TableCount": 2, "ItemCount": ITEMS + 1,
            "SizeBytes": size}
    status, listed = server.control("GET", "/ddbd/snapshots")
    assert status == 200
    assert listed == {"Snapshots": [saved]}

    # The test changes everything, then restores.
    before = ddb.describe_table(TableName="Orders")["Table"]
    old_stream = before["LatestStreamArn"]
    ddb.delete_item(TableName="Orders", Key={"pk": {"S": "c0"}, "sk": {"N": "0"}})
    ddb.delete_table(TableName="Users")
    ddb.create_table(TableName="Scratch", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    status, restored = server.control("POST", "/ddbd/namespaces/fixture/snapshots/base/restore")
    assert status == 200, restored
    assert restored["Namespace"] == "fixture"
    assert restored["Snapshot"] == saved
    assert ddb.list_tables()["TableNames"] == ["Orders", "Users"]
    orders = ddb.describe_table(TableName="Orders")["Table"]
    assert orders["ItemCount"] == ITEMS
    assert orders["TableSizeBytes"] == before["TableSizeBytes"]
    assert [(i["IndexName"], i["ItemCount"], i["IndexSizeBytes"], i["IndexStatus"])
            for i in orders["GlobalSecondaryIndexes"]] == [
        (i["IndexName"], i["ItemCount"], i["IndexSizeBytes"], "ACTIVE")
        for i in before["GlobalSecondaryIndexes"]]
    assert before["GlobalSecondaryIndexes"][0]["ItemCount"] == ITEMS
    assert orders["TableStatus"] == "ACTIVE"
    assert "RestoreSummary" not in orders
    assert orders["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    assert orders["LatestStreamArn"] != old_stream  # a new stream: records are not restored
    assert ddb.describe_time_to_live(TableName="Orders")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expireAt"}
    assert "Item" in ddb.get_item(TableName="Orders", Key={"pk": {"S": "c0"}, "sk": {"N": "0"}})
    assert shipped(ddb) == ITEMS // 3
    users = ddb.describe_table(TableName="Users")["Table"]
    assert users["ProvisionedThroughput"]["WriteCapacityUnits"] == 3
    assert ddb.get_item(TableName="Users", Key={"id": {"S": "u1"}})["Item"]["name"] == {"S": "Ada"}

    # Forks: one fixture, many workers, each on its own copy.
    for worker in ("w1", "w2"):
        status, forked = server.control("POST", "/ddbd/namespaces/fixture/snapshots/base/fork",
                                        {"To": worker})
        assert (status, forked["Namespace"]) == (200, worker)
    w1, w2 = server.client(namespace="w1"), server.client(namespace="w2")
    w1.delete_item(TableName="Orders", Key={"pk": {"S": "c1"}, "sk": {"N": "1"}})
    assert w1.describe_table(TableName="Orders")["Table"]["ItemCount"] == ITEMS - 1
    assert w2.describe_table(TableName="Orders")["Table"]["ItemCount"] == ITEMS
    assert ddb.describe_table(TableName="Orders")["Table"]["ItemCount"] == ITEMS
    assert shipped(w2) == ITEMS // 3
    # The fork's stream carries the fork's own changes.
    streams = server.client(service="dynamodbstreams", namespace="w1")
    arn = w1.describe_table(TableName="Orders")["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = streams.get_records(ShardIterator=iterator)["Records"]
    assert [(r["eventName"], r["dynamodb"]["Keys"]["sk"]["N"]) for r in records] == [
        ("REMOVE", "1")]

    status, refused = server.control("POST", "/ddbd/namespaces/fixture/snapshots/base/fork",
                                     {"To": "w1"})
    assert status == 400
    assert refused["__type"].endswith("#ResourceInUseException")
    assert "Namespace 'w1' has tables" in refused["message"]

    status, deleted = server.control("DELETE", "/ddbd/namespaces/fixture/snapshots/base")
    assert (status, deleted) == (200, saved)
    assert server.control("GET", "/ddbd/snapshots") == (200, {"Snapshots": []})
    status, missing = server.control("POST", "/ddbd/namespaces/fixture/snapshots/base/restore")
    assert status == 404
    assert missing == {"__type": "ddbd#NotFoundException",
                       "message": "No snapshot 'base' of namespace 'fixture'"}
    for namespace in ("fixture", "w1", "w2"):
        server.control("DELETE", f"/ddbd/namespaces/{namespace}")


def table_with_one_item(server, namespace):
    """A client of `namespace`, holding the table "Tab" with the item {"id": "1"}."""
    ddb = server.client(namespace=namespace)
    ddb.create_table(TableName="Tab", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    ddb.put_item(TableName="Tab", Item={"id": {"S": "1"}})
    return ddb


def test_saving_again_replaces_the_snapshot(server):
    ddb = table_with_one_item(server, "resave")
    assert server.control("PUT", "/ddbd/namespaces/resave/snapshots/s")[1]["ItemCount"] == 1
    ddb.put_item(TableName="Tab", Item={"id": {"S": "2"}})
    assert server.control("PUT", "/ddbd/namespaces/resave/snapshots/s")[1]["ItemCount"] == 2
    ddb.delete_table(TableName="Tab")
    server.control("POST", "/ddbd/namespaces/resave/snapshots/s/restore")
    assert ddb.scan(TableName="Tab")["Count"] == 2
    assert [s["Name"] for s in server.control("GET", "/ddbd/snapshots")[1]["Snapshots"]] == ["s"]
    server.control("DELETE", "/ddbd/namespaces/resave/snapshots/s")
    server.control("DELETE", "/ddbd/namespaces/resave")


def test_a_namespace_holding_only_snapshots_is_listed(server):
    ddb = table_with_one_item(server, "kept-only-as-snapshot")
    server.control("PUT", "/ddbd/namespaces/kept-only-as-snapshot/snapshots/one")
    server.control("PUT", "/ddbd/namespaces/kept-only-as-snapshot/snapshots/two")
    assert server.control("DELETE", "/ddbd/namespaces/kept-only-as-snapshot")[0] == 200
    # Its tables are gone, but it still holds something that can be restored.
    listed = server.control("GET", "/ddbd/namespaces")[1]["Namespaces"]
    assert {"Name": "kept-only-as-snapshot", "TableCount": 0, "ItemCount": 0,
            "SnapshotCount": 2} in listed
    assert server.control("GET", "/ddbd/namespaces/kept-only-as-snapshot") == (
        200, {"Name": "kept-only-as-snapshot", "TableCount": 0, "ItemCount": 0,
              "SnapshotCount": 2, "Tables": []})
    for name in ("one", "two"):
        server.control("DELETE", f"/ddbd/namespaces/kept-only-as-snapshot/snapshots/{name}")
    names = [n["Name"] for n in server.control("GET", "/ddbd/namespaces")[1]["Namespaces"]]
    assert "kept-only-as-snapshot" not in names


def test_ttl_works_on_a_restored_table(server):
    ddb = server.client(namespace="ttl-restored")
    ddb.create_table(TableName="Sessions", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    ddb.update_time_to_live(TableName="Sessions", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "exp"})
    now = int(server.control("GET", "/ddbd/clock")[1]["Now"])
    ddb.put_item(TableName="Sessions", Item={"id": {"S": "old"}, "exp": {"N": str(now + 30)}})
    server.control("PUT", "/ddbd/namespaces/ttl-restored/snapshots/s")
    server.control("POST", "/ddbd/namespaces/ttl-restored/snapshots/s/restore")
    server.control("PUT", "/ddbd/clock", {"Advance": 31})
    status, swept = server.control("POST", "/ddbd/ttl/sweep")
    assert (status, swept["Deleted"]) == (200, 1)
    assert ddb.scan(TableName="Sessions")["Count"] == 0
    server.control("PUT", "/ddbd/clock", {"Run": True})
    server.control("DELETE", "/ddbd/namespaces/ttl-restored/snapshots/s")
    server.control("DELETE", "/ddbd/namespaces/ttl-restored")


@pytest.mark.parametrize("method,path,body,status,message", [
    ("PUT", "/ddbd/namespaces/ok/snapshots/bad name", None, 400, "Invalid snapshot name"),
    ("PUT", "/ddbd/namespaces/bad*ns/snapshots/s", None, 400, "Invalid namespace name"),
    ("DELETE", "/ddbd/namespaces/ok/snapshots/none", None, 404, "No snapshot 'none'"),
    ("POST", "/ddbd/namespaces/ok/snapshots/none/fork", {"To": "x"}, 404, "No snapshot 'none'"),
    ("POST", "/ddbd/namespaces/ok/snapshots/none/fork", {}, 400, "fork takes {\"To\""),
    ("POST", "/ddbd/namespaces/ok/snapshots/none/fork", {"To": "a b"}, 400,
     "Invalid namespace name"),
    ("GET", "/ddbd/namespaces/ok/snapshots/s", None, 405, "GET is not allowed"),
])
def test_snapshot_errors(server, method, path, body, status, message):
    got, answer = server.control(method, path.replace(" ", "%20"), body)
    assert got == status, answer
    assert message in answer["message"]


def test_snapshots_survive_a_restart():
    process = DdbdProcess().start()
    try:
        load_fixture(process, "durable")
        process.control("PUT", "/ddbd/namespaces/durable/snapshots/kept")
        process.control("DELETE", "/ddbd/namespaces/durable")
        process.stop()
        process.start()
        status, listed = process.control("GET", "/ddbd/snapshots")
        assert status == 200
        assert [(s["Namespace"], s["Name"], s["ItemCount"]) for s in listed["Snapshots"]] == [
            ("durable", "kept", ITEMS + 1)]
        assert process.control("POST", "/ddbd/namespaces/durable/snapshots/kept/restore")[0] == 200
        ddb = process.client(namespace="durable")
        assert ddb.describe_table(TableName="Orders")["Table"]["ItemCount"] == ITEMS
        assert shipped(ddb) == ITEMS // 3
    finally:
        process.cleanup()


def test_lsi_item_collections_and_statistics_come_back_with_the_snapshot():
    # Item collections of 5,000 bytes at most: the restored collection must still be full.
    process = DdbdProcess("--in-memory", "--item-collection-limit-bytes", "5000").start()
    try:
        ddb = process.client(namespace="lsi")
        ddb.create_table(
            TableName="Threads", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "forum", "KeyType": "HASH"},
                       {"AttributeName": "subject", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "forum", "AttributeType": "S"},
                                  {"AttributeName": "subject", "AttributeType": "S"},
                                  {"AttributeName": "posted", "AttributeType": "N"}],
            LocalSecondaryIndexes=[{"IndexName": "ByPosted",
                                    "Projection": {"ProjectionType": "ALL"},
                                    "KeySchema": [{"AttributeName": "forum", "KeyType": "HASH"},
                                                  {"AttributeName": "posted",
                                                   "KeyType": "RANGE"}]}])

        def post(i):
            ddb.put_item(TableName="Threads", Item={
                "forum": {"S": "f"}, "subject": {"S": f"s{i}"}, "posted": {"N": str(i)},
                "text": {"S": "t" * 900}})

        posted = 0
        with pytest.raises(ddb.exceptions.ItemCollectionSizeLimitExceededException):
            while posted < 10:
                post(posted)
                posted += 1
        assert 1 <= posted < 10
        process.control("PUT", "/ddbd/namespaces/lsi/snapshots/s")
        process.control("DELETE", "/ddbd/namespaces/lsi")
        assert process.control("POST", "/ddbd/namespaces/lsi/snapshots/s/restore")[0] == 200
        with pytest.raises(ddb.exceptions.ItemCollectionSizeLimitExceededException):
            post(posted)
        newest = ddb.query(TableName="Threads", IndexName="ByPosted", ScanIndexForward=False,
                           Limit=1, KeyConditionExpression="forum = :f",
                           ExpressionAttributeValues={":f": {"S": "f"}})["Items"][0]
        assert newest["subject"] == {"S": f"s{posted - 1}"}
        table = ddb.describe_table(TableName="Threads")["Table"]
        assert table["ItemCount"] == posted
        assert table["LocalSecondaryIndexes"][0]["ItemCount"] == posted
    finally:
        process.cleanup()


def test_vector_indexes_are_searchable_after_a_restore_and_in_a_fork(server):
    """Raw HTTP: the botocore here predates vector search."""
    import json
    from conftest import raw_call

    def call(namespace, operation, body):
        status, _, data = raw_call(server.endpoint, operation, body,
                                   headers={"X-Ddbd-Namespace": namespace})
        assert status == 200, data
        return json.loads(data)

    call("vectors", "CreateTable", {
        "TableName": "Docs", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "VectorIndexes": [{"IndexName": "Semantic", "Dimensions": 3, "DistanceFunction": "COSINE",
                           "VectorAttribute": {"AttributeName": "embedding"},
                           "Projection": {"ProjectionType": "ALL"}}]})
    for name, vector in (("x", (1, 0, 0)), ("y", (0, 1, 0)), ("z", (0, 0, 1))):
        call("vectors", "PutItem", {"TableName": "Docs", "Item": {
            "id": {"S": name}, "embedding": {"L": [{"N": str(v)} for v in vector]}}})

    def nearest(namespace, vector):
        answer = call(namespace, "SearchVectors", {
            "TableName": "Docs", "IndexName": "Semantic", "TopK": 1,
            "SearchVector": [{"N": str(v)} for v in vector]})
        return [hit["Item"]["id"]["S"] for hit in answer["SearchResults"]]

    assert nearest("vectors", (0.1, 0.9, 0)) == ["y"]
    assert server.control("PUT", "/ddbd/namespaces/vectors/snapshots/v")[0] == 200
    server.control("DELETE", "/ddbd/namespaces/vectors")
    assert server.control("POST", "/ddbd/namespaces/vectors/snapshots/v/restore")[0] == 200
    assert nearest("vectors", (0.1, 0.9, 0)) == ["y"]
    assert nearest("vectors", (0, 0.2, 0.9)) == ["z"]
    assert server.control("POST", "/ddbd/namespaces/vectors/snapshots/v/fork",
                          {"To": "vectors-2"})[0] == 200
    assert nearest("vectors-2", (0.9, 0.1, 0)) == ["x"]
    for namespace in ("vectors", "vectors-2"):
        server.control("DELETE", f"/ddbd/namespaces/{namespace}")
    server.control("DELETE", "/ddbd/namespaces/vectors/snapshots/v")
