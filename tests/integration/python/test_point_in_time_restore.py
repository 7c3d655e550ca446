"""RestoreTableToPointInTime: a table with point-in-time recovery restored to three points of a
sequence of writes, updates, deletes and a Time to Live expiry gives exactly the items of each
point (every attribute type; its GSI rebuilt), and every error DynamoDB answers. The server's
clock is frozen and moved, so each point is exact."""
import time
from datetime import datetime, timezone

import pytest

from conftest import DdbdProcess, normalized

T0 = 1_800_000_000  # the clock starts here, frozen
BIG = "1234567890123456789012345678901234567.8"  # 38 digits


def at(seconds):
    """The server's clock moved to T0 + seconds."""
    return datetime.fromtimestamp(T0 + seconds, timezone.utc).isoformat().replace("+00:00", "Z")


@pytest.fixture(scope="module")
def history():
    """A table whose history has three known points: P1 = T0+20, P2 = T0+40, P3 = T0+60."""
    server = DdbdProcess("--in-memory").start()
    ddb = server.client()
    clock = lambda seconds: server.control("PUT", "/ddbd/clock", {"Now": at(seconds)})
    clock(0)
    ddb.create_table(
        TableName="Ledger", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "owner", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "ByOwner", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}]}])
    ddb.update_time_to_live(TableName="Ledger", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    ddb.update_continuous_backups(
        TableName="Ledger", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    put = lambda item: ddb.put_item(TableName="Ledger", Item=item)
    clock(10)
    put({"pk": {"S": "a1"}, "owner": {"S": "ann"}, "n": {"N": BIG}, "b": {"B": b"\x00\xff"},
         "ss": {"SS": ["x", "y"]}, "ns": {"NS": ["1", BIG]}, "bs": {"BS": [b"\x01"]},
         "doc": {"M": {"l": {"L": [{"S": "deep"}, {"NULL": True}, {"BOOL": False}]}}}})
    put({"pk": {"S": "a2"}, "owner": {"S": "bob"}})
    put({"pk": {"S": "a3"}, "owner": {"S": "ann"}, "v": {"N": "1"}})
    clock(30)
    ddb.update_item(TableName="Ledger", Key={"pk": {"S": "a1"}},
                    UpdateExpression="SET v = :v REMOVE ss", ExpressionAttributeValues={":v": {"N": "2"}})
    ddb.delete_item(TableName="Ledger", Key={"pk": {"S": "a2"}})
    put({"pk": {"S": "a4"}, "owner": {"S": "bob"}})
    put({"pk": {"S": "a5"}, "owner": {"S": "cy"}, "expires": {"N": str(T0 + 45)}})
    clock(50)
    assert server.control("POST", "/ddbd/ttl/sweep")[0] == 200  # a5 expires
    put({"pk": {"S": "a3"}, "owner": {"S": "cy"}, "v": {"N": "3"}})
    clock(60 + 600)  # P3 is now more than five minutes ago: restorable
    yield server, ddb
    server.cleanup()


def restore(ddb, target, **when):
    answer = ddb.restore_table_to_point_in_time(SourceTableName="Ledger",
                                                TargetTableName=target, **when)
    deadline = time.monotonic() + 30
    while ddb.describe_table(TableName=target)["Table"]["TableStatus"] != "ACTIVE":
        assert time.monotonic() < deadline, f"{target} did not become ACTIVE"
        time.sleep(0.05)
    return answer["TableDescription"]




def items(ddb, table):
    found = ddb.scan(TableName=table)["Items"]
    return {item["pk"]["S"]: normalized(item) for item in found}


def test_each_point_restores_exactly_the_items_it_had(history):
    _, ddb = history
    restore(ddb, "AtP1", RestoreDateTime=datetime.fromtimestamp(T0 + 20, timezone.utc))
    restore(ddb, "AtP2", RestoreDateTime=datetime.fromtimestamp(T0 + 40, timezone.utc))
    restore(ddb, "AtP3", RestoreDateTime=datetime.fromtimestamp(T0 + 60, timezone.utc))
    p1 = items(ddb, "AtP1")
    assert sorted(p1) == ["a1", "a2", "a3"]
    assert p1["a1"] == {"pk": {"S": "a1"}, "owner": {"S": "ann"}, "n": {"N": BIG},
                        "b": {"B": b"\x00\xff"}, "ss": {"SS": ["x", "y"]},
                        "ns": {"NS": sorted(["1", BIG])}, "bs": {"BS": [b"\x01"]},
                        "doc": {"M": {"l": {"L": [{"S": "deep"}, {"NULL": True},
                                                  {"BOOL": False}]}}}}
    assert p1["a3"]["v"] == {"N": "1"}
    p2 = items(ddb, "AtP2")
    assert sorted(p2) == ["a1", "a3", "a4", "a5"]
    assert p2["a1"]["v"] == {"N": "2"} and "ss" not in p2["a1"]
    assert p2["a5"]["expires"] == {"N": str(T0 + 45)}
    p3 = items(ddb, "AtP3")
    assert sorted(p3) == ["a1", "a3", "a4"]  # a5 expired at T0+50
    assert p3["a3"] == {"pk": {"S": "a3"}, "owner": {"S": "cy"}, "v": {"N": "3"}}
    assert items(ddb, "AtP3") == items(ddb, "Ledger")
    # The index is rebuilt from the restored items, and the counts are theirs.
    by_owner = ddb.query(TableName="AtP1", IndexName="ByOwner",
                         KeyConditionExpression="#o = :o", ExpressionAttributeNames={"#o": "owner"},
                         ExpressionAttributeValues={":o": {"S": "ann"}})["Items"]
    assert sorted(item["pk"]["S"] for item in by_owner) == ["a1", "a3"]
    assert ddb.describe_table(TableName="AtP2")["Table"]["ItemCount"] == 4


def test_the_restored_table_says_where_and_when_it_came_from(history):
    server, ddb = history
    described = restore(ddb, "Latest", UseLatestRestorableTime=True)
    assert described["TableStatus"] == "CREATING"
    summary = ddb.describe_table(TableName="Latest")["Table"]["RestoreSummary"]
    source_arn = ddb.describe_table(TableName="Ledger")["Table"]["TableArn"]
    assert sorted(summary) == ["RestoreDateTime", "RestoreInProgress", "SourceTableArn"]
    assert (summary["SourceTableArn"], summary["RestoreDateTime"].timestamp(),
            summary["RestoreInProgress"]) == (source_arn, T0 + 360, False)
    assert items(ddb, "Latest") == items(ddb, "Ledger")
    assert ddb.list_backups()["BackupSummaries"] == []  # its point-in-time copy is no backup


def test_the_window_is_the_recovery_period_reported(history):
    _, ddb = history
    description = ddb.describe_continuous_backups(TableName="Ledger")[
        "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert description["EarliestRestorableDateTime"].timestamp() == T0
    assert description["LatestRestorableDateTime"].timestamp() == T0 + 360


@pytest.mark.parametrize("when", [T0 - 1, T0 + 361])
def test_a_time_outside_the_window_is_refused(history, when):
    _, ddb = history
    with pytest.raises(ddb.exceptions.InvalidRestoreTimeException) as refused:
        ddb.restore_table_to_point_in_time(
            SourceTableName="Ledger", TargetTableName="Outside",
            RestoreDateTime=datetime.fromtimestamp(when, timezone.utc))
    assert refused.value.response["Error"]["Message"] == (
        "RestoreDateTime must be between EarliestRestorableDateTime and LatestRestorableDateTime")


def test_errors(history):
    server, ddb = history
    ddb.create_table(TableName="NoPitr", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    with pytest.raises(ddb.exceptions.PointInTimeRecoveryUnavailableException) as refused:
        ddb.restore_table_to_point_in_time(SourceTableName="NoPitr", TargetTableName="Xyz",
                                           UseLatestRestorableTime=True)
    assert refused.value.response["Error"]["Message"] == (
        "Point in time recovery is not enabled for table 'NoPitr'")
    with pytest.raises(ddb.exceptions.TableNotFoundException):
        ddb.restore_table_to_point_in_time(SourceTableName="Missing", TargetTableName="Xyz",
                                           UseLatestRestorableTime=True)
    with pytest.raises(ddb.exceptions.TableAlreadyExistsException):
        ddb.restore_table_to_point_in_time(SourceTableName="Ledger", TargetTableName="NoPitr",
                                           UseLatestRestorableTime=True)
    for when in ({}, {"UseLatestRestorableTime": True,
                      "RestoreDateTime": datetime.fromtimestamp(T0 + 20, timezone.utc)}):
        with pytest.raises(ddb.exceptions.ClientError) as refused:
            ddb.restore_table_to_point_in_time(SourceTableName="Ledger", TargetTableName="Xyz",
                                               **when)
        assert refused.value.response["Error"]["Code"] == "ValidationException"
    # Disabling forgets the history: enabled again, the window starts over.
    ddb.update_continuous_backups(
        TableName="NoPitr", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    with pytest.raises(ddb.exceptions.InvalidRestoreTimeException):
        ddb.restore_table_to_point_in_time(
            SourceTableName="NoPitr", TargetTableName="Xyz",
            RestoreDateTime=datetime.fromtimestamp(T0 + 20, timezone.utc))


def test_point_in_time_restore_with_overrides(history):
    server, ddb = history
    description = restore(ddb, "LedgerLean", RestoreDateTime=datetime.fromtimestamp(
        T0 + 60, timezone.utc), GlobalSecondaryIndexOverride=[],
        SSESpecificationOverride={"Enabled": True, "SSEType": "KMS"})
    table = ddb.describe_table(TableName="LedgerLean")["Table"]
    assert "GlobalSecondaryIndexes" not in table
    assert table["SSEDescription"]["SSEType"] == "KMS"
    assert table["ItemCount"] == 3
