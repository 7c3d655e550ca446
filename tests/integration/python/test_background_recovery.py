"""Background work interrupted by SIGKILL is finished at the next start, never left half-done.

Each test kills the server while a table or index is between states (a delayed status
change, a GSI backfill, a restore), starts it again on the same data and checks that the
table reaches the state the acknowledged request asked for, with exactly the right items.
"""
import datetime
import http.client
import json
import os
import signal
import threading
import time

import pytest

from conftest import DdbdProcess, until_finished, use_namespace
from test_logging import Drained

DELAY_MS = 3000
KEYS = dict(KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST")
PK = {"AttributeName": "pk", "AttributeType": "S"}
GROUP = {"AttributeName": "group", "AttributeType": "S"}


def by_group_index(name="ByGroup"):
    return {"IndexName": name, "KeySchema": [{"AttributeName": "group", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}


def load(client, table, count, group="g"):
    """Writes `count` items pk=0..count-1, each with `group` and a 200-byte payload."""
    payload = "x" * 200
    for start in range(0, count, 25):
        requests = [{"PutRequest": {"Item": {"pk": {"S": str(i)}, "group": {"S": group},
                                             "payload": {"S": payload}}}}
                    for i in range(start, min(start + 25, count))]
        pending = {table: requests}
        while pending:
            pending = client.batch_write_item(RequestItems=pending)["UnprocessedItems"]


def wait_for(predicate, timeout=60.0, what="condition", pause=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(pause)
    raise AssertionError(f"timed out waiting for {what}")


def table_status(client, name):
    try:
        return client.describe_table(TableName=name)["Table"]["TableStatus"]
    except client.exceptions.ResourceNotFoundException:
        return None


def index_statuses(client, name):
    table = client.describe_table(TableName=name)["Table"]
    return {i["IndexName"]: i["IndexStatus"] for i in table.get("GlobalSecondaryIndexes", [])}


def count_group(client, table, index="ByGroup", group="g"):
    pages = client.get_paginator("query").paginate(
        TableName=table, IndexName=index, Select="COUNT",
        KeyConditionExpression="#g = :g", ExpressionAttributeNames={"#g": "group"},
        ExpressionAttributeValues={":g": {"S": group}})
    return sum(page["Count"] for page in pages)


def scan_count(client, table):
    pages = client.get_paginator("scan").paginate(TableName=table, Select="COUNT")
    return sum(page["Count"] for page in pages)


@pytest.fixture
def restartable():
    """restartable(*args) starts a server; .restart() SIGKILLs it and starts it again on the
    same data with the same arguments."""
    servers = []

    class Restartable:
        def __init__(self, *args):
            self.args = args
            self.process = DdbdProcess(*args).start()
            servers.append(self.process)
            self.client = self.process.client()

        def kill_and_restart(self):
            self.process.stop(signal.SIGKILL)
            self.process = DdbdProcess(*self.args, data_dir=self.process.data_dir).start()
            servers.append(self.process)
            self.client = self.process.client()

    yield Restartable
    for process in servers:
        process.stop(signal.SIGKILL)
    if servers:
        servers[0].cleanup()


def test_table_killed_while_creating_becomes_active(restartable):
    server = restartable("--transient-status-ms", str(DELAY_MS))
    server.client.create_table(TableName="Fresh", AttributeDefinitions=[PK], **KEYS)
    assert table_status(server.client, "Fresh") == "CREATING"
    server.kill_and_restart()
    wait_for(lambda: table_status(server.client, "Fresh") == "ACTIVE", what="ACTIVE")
    server.client.put_item(TableName="Fresh", Item={"pk": {"S": "a"}})
    assert server.client.get_item(TableName="Fresh", Key={"pk": {"S": "a"}})["Item"] == {
        "pk": {"S": "a"}}


def test_table_killed_while_deleting_is_gone(restartable):
    server = restartable("--transient-status-ms", "0")
    server.client.create_table(TableName="Doomed", AttributeDefinitions=[PK], **KEYS)
    server.client.put_item(TableName="Doomed", Item={"pk": {"S": "a"}})
    server.args = ("--transient-status-ms", str(DELAY_MS))
    server.kill_and_restart()
    server.client.delete_table(TableName="Doomed")
    assert table_status(server.client, "Doomed") == "DELETING"
    server.kill_and_restart()
    wait_for(lambda: table_status(server.client, "Doomed") is None, what="the table to go")
    # The name is free again, and the new table starts empty.
    server.client.create_table(TableName="Doomed", AttributeDefinitions=[PK], **KEYS)
    wait_for(lambda: table_status(server.client, "Doomed") == "ACTIVE", what="ACTIVE")
    assert scan_count(server.client, "Doomed") == 0


def test_index_killed_while_deleting_is_gone_and_another_can_be_added(restartable):
    server = restartable()
    server.client.create_table(TableName="Shrinking", AttributeDefinitions=[PK, GROUP],
                               GlobalSecondaryIndexes=[by_group_index()], **KEYS)
    load(server.client, "Shrinking", 10)
    server.args = ("--transient-status-ms", str(DELAY_MS))
    server.kill_and_restart()
    server.client.update_table(TableName="Shrinking",
                               GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "ByGroup"}}])
    assert index_statuses(server.client, "Shrinking") == {"ByGroup": "DELETING"}
    server.kill_and_restart()
    wait_for(lambda: table_status(server.client, "Shrinking") == "ACTIVE"
             and index_statuses(server.client, "Shrinking") == {}, what="the index to go")
    server.client.update_table(
        TableName="Shrinking", AttributeDefinitions=[GROUP],
        GlobalSecondaryIndexUpdates=[{"Create": by_group_index("Again")}])
    wait_for(lambda: index_statuses(server.client, "Shrinking") == {"Again": "ACTIVE"},
             what="the new index")
    assert count_group(server.client, "Shrinking", "Again") == 10


def test_index_killed_while_creating_becomes_active_with_every_entry(restartable):
    server = restartable()
    server.client.create_table(TableName="Growing", AttributeDefinitions=[PK], **KEYS)
    load(server.client, "Growing", 200)
    server.args = ("--transient-status-ms", str(DELAY_MS))
    server.kill_and_restart()
    server.client.update_table(
        TableName="Growing", AttributeDefinitions=[GROUP],
        GlobalSecondaryIndexUpdates=[{"Create": by_group_index()}])
    assert index_statuses(server.client, "Growing") == {"ByGroup": "CREATING"}
    server.kill_and_restart()
    wait_for(lambda: index_statuses(server.client, "Growing") == {"ByGroup": "ACTIVE"},
             what="the index to become ACTIVE")
    assert count_group(server.client, "Growing") == 200
    table = server.client.describe_table(TableName="Growing")["Table"]
    assert table["GlobalSecondaryIndexes"][0]["ItemCount"] == 200


def test_backfill_killed_midway_completes_after_restart(restartable):
    server = restartable()
    server.client.create_table(TableName="Big", AttributeDefinitions=[PK], **KEYS)
    load(server.client, "Big", 20000)
    server.client.update_table(
        TableName="Big", AttributeDefinitions=[GROUP],
        GlobalSecondaryIndexUpdates=[{"Create": by_group_index()}])
    time.sleep(0.05)  # the backfill of 20,000 items is under way
    server.kill_and_restart()
    wait_for(lambda: index_statuses(server.client, "Big") == {"ByGroup": "ACTIVE"},
             timeout=60, what="the index to become ACTIVE")
    assert count_group(server.client, "Big") == 20000
    table = server.client.describe_table(TableName="Big")["Table"]
    assert table["GlobalSecondaryIndexes"][0]["ItemCount"] == 20000
    assert table["ItemCount"] == 20000


def test_restore_killed_midway_starts_over_at_the_next_start(restartable):
    server = restartable()
    server.client.create_table(TableName="Source", AttributeDefinitions=[PK, GROUP],
                               GlobalSecondaryIndexes=[by_group_index()], **KEYS)
    load(server.client, "Source", 30000)
    arn = server.client.create_backup(TableName="Source",
                                      BackupName="full")["BackupDetails"]["BackupArn"]
    restored = server.client.restore_table_from_backup(TargetTableName="Copy", BackupArn=arn)
    assert restored["TableDescription"]["TableStatus"] == "CREATING"
    # Killed at once: the restore of 30,000 items, in slices of 1,000 in the background, has
    # only begun. The next start finds the table CREATING and starts the restore over.
    server.kill_and_restart()
    Drained(server.process).wait_for(r"restore started table=Copy backup=\S+ items_done=0 "
                                     r"items_total=30000")
    # The restore was answered: it completes, never half done.
    wait_for(lambda: table_status(server.client, "Copy") == "ACTIVE", what="ACTIVE")
    assert scan_count(server.client, "Copy") == 30000
    assert count_group(server.client, "Copy") == 30000
    table = server.client.describe_table(TableName="Copy")["Table"]
    assert table["ItemCount"] == 30000
    assert table["RestoreSummary"]["RestoreInProgress"] is False


def test_point_in_time_restore_killed_midway_starts_over_at_the_next_start(restartable):
    server = restartable()
    control = server.process.control
    control("PUT", "/ddbd/clock", {"Now": "2027-01-15T08:00:00Z"})  # frozen: exact points
    server.client.create_table(TableName="Source", AttributeDefinitions=[PK, GROUP],
                               GlobalSecondaryIndexes=[by_group_index()], **KEYS)
    server.client.update_continuous_backups(
        TableName="Source",
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    control("PUT", "/ddbd/clock", {"Advance": 10})
    load(server.client, "Source", 30000)
    control("PUT", "/ddbd/clock", {"Advance": 10})
    for i in range(100):  # gone from the table, there at the point restored
        server.client.delete_item(TableName="Source", Key={"pk": {"S": str(i)}})
    control("PUT", "/ddbd/clock", {"Advance": 600})
    point = datetime.datetime(2027, 1, 15, 8, 0, 15, tzinfo=datetime.timezone.utc)
    restored = server.client.restore_table_to_point_in_time(
        SourceTableName="Source", TargetTableName="Copy", RestoreDateTime=point)
    assert restored["TableDescription"]["TableStatus"] == "CREATING"
    server.kill_and_restart()  # the restore has only begun
    log = Drained(server.process)
    log.wait_for(r"restore started table=Copy backup=\S+ items_done=0 items_total=30000")
    wait_for(lambda: table_status(server.client, "Copy") == "ACTIVE", what="ACTIVE")
    assert scan_count(server.client, "Copy") == 30000
    assert count_group(server.client, "Copy") == 30000
    assert "Item" in server.client.get_item(TableName="Copy", Key={"pk": {"S": "7"}})
    assert scan_count(server.client, "Source") == 29900
    log.wait_for(r"restore finished table=Copy")
    # The point-in-time copy it wrote from was never a backup of the user's.
    assert server.client.list_backups(BackupType="ALL")["BackupSummaries"] == []


def test_snapshot_restore_killed_midway_is_rolled_back(restartable):
    server = restartable()
    use_namespace(server.client, "fixture")
    server.client.create_table(TableName="Copy", AttributeDefinitions=[PK, GROUP],
                               GlobalSecondaryIndexes=[by_group_index()], **KEYS)
    load(server.client, "Copy", 30000)
    assert server.process.control("PUT", "/ddbd/namespaces/fixture/snapshots/full")[0] == 200
    server.process.control("DELETE", "/ddbd/namespaces/fixture")
    process = server.process
    kill_while_restoring(server, lambda: process.control(
        "POST", "/ddbd/namespaces/fixture/snapshots/full/restore"), namespace="fixture")
    use_namespace(server.client, "fixture")
    # Never answered, so rolled back: no half-restored table; the snapshot is intact.
    assert table_status(server.client, "Copy") is None
    status, restored = server.process.control(
        "POST", "/ddbd/namespaces/fixture/snapshots/full/restore")
    assert status == 200, restored
    assert scan_count(server.client, "Copy") == 30000
    assert count_group(server.client, "Copy") == 30000
    assert server.client.describe_table(TableName="Copy")["Table"]["ItemCount"] == 30000


def kill_while_restoring(server, restore, namespace=None):
    """Runs `restore` on a thread, kills the server while the restored table "Copy" is CREATING
    and starts it again. A request runs on the I/O thread its connection was dealt to (in
    turn), so the restore blocks one of them: two connections opened first watch it, one of
    them from a free thread, and the first to see CREATING checks that the table can be
    neither read nor written then and kills the server at once (a snapshot restore copies 30k
    items in tens of milliseconds)."""
    watchers = [Watcher(server.process, namespace=namespace, kill=True) for _ in range(2)]
    answers = []
    threading.Thread(target=lambda: _ignore_errors(lambda: answers.append(restore())),
                     daemon=True).start()
    for watcher in watchers:
        watcher.start()
    wait_for(lambda: any(w.seen_creating for w in watchers), timeout=60,
             what="the restored table, CREATING")
    watcher = next(w for w in watchers if w.seen_creating)
    assert watcher.seen_creating == (400, "ResourceNotFoundException")
    server.kill_and_restart()
    assert answers == []  # killed mid-restore, as the caller means it to be


class Watcher(threading.Thread):
    """Polls DescribeTable for "Copy" on one kept-alive connection; the first time it sees
    the table CREATING it tries a GetItem: seen_creating = (its status, its error type). With
    `kill`, it then SIGKILLs the server at once."""

    def __init__(self, process, namespace=None, kill=False):
        super().__init__(daemon=True)
        self.connection = http.client.HTTPConnection("127.0.0.1", process.port, timeout=60)
        self.namespace = namespace
        self.pid = process.proc.pid if kill else None
        self.call("ListTables", {})  # accepted now, before the restore starts
        self.seen_creating = None

    def call(self, operation, body):
        headers = {"Content-Type": "application/x-amz-json-1.0",
                   "X-Amz-Target": "DynamoDB_20120810." + operation}
        if self.namespace:
            headers["X-Ddbd-Namespace"] = self.namespace
        self.connection.request("POST", "/", body=json.dumps(body), headers=headers)
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")

    def run(self):
        try:
            while not self.seen_creating:
                status, body = self.call("DescribeTable", {"TableName": "Copy"})
                if status != 200:
                    continue
                if body["Table"]["TableStatus"] == "ACTIVE":
                    return
                status, body = self.call("GetItem", {"TableName": "Copy",
                                                     "Key": {"pk": {"S": "1"}}})
                if self.pid:
                    os.kill(self.pid, signal.SIGKILL)
                self.seen_creating = (status, body.get("__type", "").split("#")[-1])
        except (OSError, http.client.HTTPException):
            pass  # the server was killed


def _ignore_errors(call):
    try:
        call()
    except Exception:  # the server is killed under the request
        pass


def wait_job(describe, field):
    return until_finished(describe, field, field, timeout=120)


def test_import_killed_midway_runs_again_at_the_next_start(restartable):
    import gzip
    import json
    server = restartable()
    lines = "".join(json.dumps({"Item": {"pk": {"S": str(i)}, "group": {"S": "g"},
                                         "payload": {"S": "x" * 200}}}) + "\n"
                    for i in range(40000))
    folder = os.path.join(server.process.data_dir, "db", "s3", "source", "in")
    os.makedirs(folder)
    for part in range(2):
        with open(os.path.join(folder, f"part{part}.json.gz"), "wb") as f:
            f.write(gzip.compress("".join(lines.splitlines(True)[part::2]).encode()))
    answer = server.client.import_table(
        S3BucketSource={"S3Bucket": "source", "S3KeyPrefix": "in/"}, InputFormat="DYNAMODB_JSON",
        InputCompressionType="GZIP", TableCreationParameters={
            "TableName": "Imported", "AttributeDefinitions": [PK, GROUP],
            "GlobalSecondaryIndexes": [by_group_index()], **KEYS})
    arn = answer["ImportTableDescription"]["ImportArn"]
    server.kill_and_restart()  # the import has only begun
    assert table_status(server.client, "Imported") in ("CREATING", "ACTIVE")
    description = wait_job(lambda: server.client.describe_import(ImportArn=arn)[
        "ImportTableDescription"], "ImportStatus")
    assert description["ImportStatus"] == "COMPLETED"
    assert (description["ProcessedItemCount"], description["ImportedItemCount"],
            description["ErrorCount"]) == (40000, 40000, 0)
    assert table_status(server.client, "Imported") == "ACTIVE"
    assert scan_count(server.client, "Imported") == 40000
    assert count_group(server.client, "Imported") == 40000


def test_export_killed_midway_runs_again_at_the_next_start(restartable):
    import gzip
    import json
    server = restartable()
    server.client.create_table(TableName="Source", AttributeDefinitions=[PK], **KEYS)
    server.client.update_continuous_backups(
        TableName="Source", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    load(server.client, "Source", 30000)
    arn = server.client.describe_table(TableName="Source")["Table"]["TableArn"]
    answer = server.client.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports")
    export_arn = answer["ExportDescription"]["ExportArn"]
    for i in range(100):  # after the export time: not in the export
        server.client.delete_item(TableName="Source", Key={"pk": {"S": str(i)}})
    server.kill_and_restart()
    description = wait_job(lambda: server.client.describe_export(ExportArn=export_arn)[
        "ExportDescription"], "ExportStatus")
    assert description["ExportStatus"] == "COMPLETED" and description["ItemCount"] == 30000
    root = os.path.join(server.process.data_dir, "db", "s3", "exports")
    with open(os.path.join(root, description["ExportManifest"])) as f:
        files_key = json.load(f)["manifestFilesS3Key"]
    keys = set()
    with open(os.path.join(root, files_key)) as f:
        for entry in map(json.loads, f):
            with open(os.path.join(root, entry["dataFileS3Key"]), "rb") as data:
                keys |= {json.loads(line)["Item"]["pk"]["S"]
                         for line in gzip.decompress(data.read()).decode().splitlines()}
    assert len(keys) == 30000 and "7" in keys
