"""Eventually consistent GSIs (--gsi-lag-ms): a GSI entry becomes visible to Query and Scan
N ms after its write, by the server's clock — what DynamoDB does, so code that reads a GSI right
after writing fails here as it would there. Until then a reader sees the entry the item had
before (at its old index key), in index order. Tables and LSIs stay exact.

The clock is frozen (--start-time) and moved with PUT /ddbd/clock, so each step is exact."""
import pytest

from conftest import DdbdProcess

LAG_MS = 1000


@pytest.fixture(scope="module", params=["in-memory", "on-disk"])
def server(request):
    extra = ["--in-memory"] if request.param == "in-memory" else []
    process = DdbdProcess(*extra, "--gsi-lag-ms", str(LAG_MS),
                          "--start-time", "2030-01-01T00:00:00Z").start()
    yield process
    process.cleanup()


@pytest.fixture(scope="module")
def ddb(server):
    ddb = server.client()
    ddb.create_table(
        TableName="Orders", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("pk", "sk", "status", "placed", "local")],
        GlobalSecondaryIndexes=[{
            "IndexName": "byStatus",
            "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
                          {"AttributeName": "placed", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["total"]}}],
        LocalSecondaryIndexes=[{
            "IndexName": "byLocal",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "local", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])
    return ddb


def advance(server, ms):
    status, body = server.control("PUT", "/ddbd/clock", {"Advance": ms / 1000})
    assert status == 200, body


def order(pk, status, placed, total, **more):
    item = {"pk": {"S": pk}, "sk": {"S": "order"}, "status": {"S": status},
            "placed": {"S": placed}, "total": {"N": str(total)}}
    item.update({name: {"S": value} for name, value in more.items()})
    return item


def by_status(ddb, status, **kwargs):
    """(pk, total) of each order the GSI shows for `status`, in index order."""
    answer = ddb.query(TableName="Orders", IndexName="byStatus",
                       KeyConditionExpression="#s = :s", ExpressionAttributeNames={"#s": "status"},
                       ExpressionAttributeValues={":s": {"S": status}}, **kwargs)
    return [(item["pk"]["S"], int(item["total"]["N"])) for item in answer["Items"]]


def scan_index(ddb):
    answer = ddb.scan(TableName="Orders", IndexName="byStatus")
    return sorted((item["pk"]["S"], item["status"]["S"]) for item in answer["Items"])


def test_a_new_item_reaches_the_gsi_after_the_lag_while_the_table_is_exact(server, ddb):
    ddb.put_item(TableName="Orders", Item=order("new", "NEW", "2030-01-01", 10, local="l1"))
    assert by_status(ddb, "NEW") == []
    assert ("new", "NEW") not in scan_index(ddb)
    # The table and its LSI see the write at once.
    key = {"pk": {"S": "new"}, "sk": {"S": "order"}}
    assert ddb.get_item(TableName="Orders", Key=key, ConsistentRead=True)["Item"]["total"] == {
        "N": "10"}
    local = ddb.query(TableName="Orders", IndexName="byLocal", ConsistentRead=True,
                      KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": {"S": "new"}})
    assert local["Count"] == 1
    advance(server, LAG_MS - 1)
    assert by_status(ddb, "NEW") == []
    advance(server, 1)
    assert by_status(ddb, "NEW") == [("new", 10)]
    assert ("new", "NEW") in scan_index(ddb)


def test_an_update_shows_the_old_entry_at_its_old_key_until_the_lag_passes(server, ddb):
    ddb.put_item(TableName="Orders", Item=order("moved", "OPEN", "2030-01-02", 20))
    advance(server, LAG_MS)
    ddb.update_item(TableName="Orders", Key={"pk": {"S": "moved"}, "sk": {"S": "order"}},
                    UpdateExpression="SET #s = :s, #t = :t",
                    ExpressionAttributeNames={"#s": "status", "#t": "total"},
                    ExpressionAttributeValues={":s": {"S": "SHIPPED"}, ":t": {"N": "25"}})
    assert by_status(ddb, "OPEN") == [("moved", 20)]
    assert by_status(ddb, "SHIPPED") == []
    advance(server, LAG_MS)
    assert by_status(ddb, "OPEN") == []
    assert by_status(ddb, "SHIPPED") == [("moved", 25)]


def test_a_projected_attribute_changes_in_place_after_the_lag(server, ddb):
    ddb.put_item(TableName="Orders", Item=order("priced", "PRICED", "2030-01-03", 30))
    advance(server, LAG_MS)
    ddb.put_item(TableName="Orders", Item=order("priced", "PRICED", "2030-01-03", 31))
    assert by_status(ddb, "PRICED") == [("priced", 30)]
    advance(server, LAG_MS)
    assert by_status(ddb, "PRICED") == [("priced", 31)]


def test_a_deleted_item_stays_in_the_gsi_until_the_lag_passes(server, ddb):
    ddb.put_item(TableName="Orders", Item=order("gone", "GONE", "2030-01-04", 40))
    advance(server, LAG_MS)
    ddb.delete_item(TableName="Orders", Key={"pk": {"S": "gone"}, "sk": {"S": "order"}})
    assert by_status(ddb, "GONE") == [("gone", 40)]
    advance(server, LAG_MS)
    assert by_status(ddb, "GONE") == []


def test_writes_within_the_window_become_visible_one_by_one(server, ddb):
    key = {"pk": {"S": "steps"}, "sk": {"S": "order"}}
    ddb.put_item(TableName="Orders", Item=order("steps", "STEP-A", "2030-01-05", 1))
    advance(server, LAG_MS // 2)
    ddb.update_item(TableName="Orders", Key=key, UpdateExpression="SET #s = :s",
                    ExpressionAttributeNames={"#s": "status"},
                    ExpressionAttributeValues={":s": {"S": "STEP-B"}})
    assert (by_status(ddb, "STEP-A"), by_status(ddb, "STEP-B")) == ([], [])
    advance(server, LAG_MS // 2)  # the first write is visible, the second not yet
    assert (by_status(ddb, "STEP-A"), by_status(ddb, "STEP-B")) == ([("steps", 1)], [])
    advance(server, LAG_MS // 2)
    assert (by_status(ddb, "STEP-A"), by_status(ddb, "STEP-B")) == ([], [("steps", 1)])


def test_lagging_entries_keep_index_order_across_pages_both_ways(server, ddb):
    for pk, placed in (("o1", "2030-02-01"), ("o3", "2030-02-03"), ("o5", "2030-02-05")):
        ddb.put_item(TableName="Orders", Item=order(pk, "PAGED", placed, int(pk[1])))
    advance(server, LAG_MS)
    # o3 moves later (visible: still at 02-03), o2 is new (not visible), o5 is deleted
    # (visible until the lag passes).
    ddb.put_item(TableName="Orders", Item=order("o3", "PAGED", "2030-02-09", 3))
    ddb.put_item(TableName="Orders", Item=order("o2", "PAGED", "2030-02-02", 2))
    ddb.delete_item(TableName="Orders", Key={"pk": {"S": "o5"}, "sk": {"S": "order"}})
    for forward, expected in ((True, ["o1", "o3", "o5"]), (False, ["o5", "o3", "o1"])):
        seen, start = [], None
        while True:
            kwargs = {"Limit": 1, "ScanIndexForward": forward}
            if start:
                kwargs["ExclusiveStartKey"] = start
            answer = ddb.query(TableName="Orders", IndexName="byStatus",
                               KeyConditionExpression="#s = :s",
                               ExpressionAttributeNames={"#s": "status"},
                               ExpressionAttributeValues={":s": {"S": "PAGED"}}, **kwargs)
            seen += [item["pk"]["S"] for item in answer["Items"]]
            start = answer.get("LastEvaluatedKey")
            if not start:
                break
        assert seen == expected
    assert ddb.query(TableName="Orders", IndexName="byStatus", Select="COUNT",
                     KeyConditionExpression="#s = :s", ExpressionAttributeNames={"#s": "status"},
                     ExpressionAttributeValues={":s": {"S": "PAGED"}})["Count"] == 3
    advance(server, LAG_MS)
    assert [pk for pk, _ in by_status(ddb, "PAGED")] == ["o1", "o2", "o3"]


def test_a_restart_makes_every_entry_visible(server, ddb):
    if "--in-memory" in server.extra_args:
        pytest.skip("an in-memory server has nothing left after a restart")
    ddb.put_item(TableName="Orders", Item=order("restart", "RESTART", "2030-01-06", 60))
    assert by_status(ddb, "RESTART") == []
    server.stop()
    server.start()
    fresh = server.client()
    assert by_status(fresh, "RESTART") == [("restart", 60)]
