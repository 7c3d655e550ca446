"""On-demand backups through boto3: CreateBackup copies the items as they are, the table can
change or go away, RestoreTableFromBackup brings the copy back under a new name with its
indexes; DescribeBackup, ListBackups, DeleteBackup, and DynamoDB's refusals."""
import pytest


def make_table(ddb, name):
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"},
                                           {"AttributeName": "team", "AttributeType": "S"}],
                     GlobalSecondaryIndexes=[{
                         "IndexName": "ByTeam", "Projection": {"ProjectionType": "ALL"},
                         "KeySchema": [{"AttributeName": "team", "KeyType": "HASH"}]}])


def test_backup_then_restore_under_a_new_name(ddb):
    make_table(ddb, "Original")
    for n in range(30):
        ddb.put_item(TableName="Original", Item={"pk": {"S": f"p{n % 3}"}, "sk": {"N": str(n)},
                                                 "team": {"S": "red" if n % 2 else "blue"}})
    details = ddb.create_backup(TableName="Original", BackupName="before-change")["BackupDetails"]
    assert details["BackupName"] == "before-change"
    assert details["BackupStatus"] == "AVAILABLE"
    assert details["BackupType"] == "USER"
    assert details["BackupSizeBytes"] > 0
    arn = details["BackupArn"]
    assert arn.startswith("arn:aws:dynamodb:us-east-1:000000000000:table/Original/backup/")

    # Later changes, even deleting the table, do not touch the backup.
    ddb.delete_item(TableName="Original", Key={"pk": {"S": "p0"}, "sk": {"N": "0"}})
    ddb.delete_table(TableName="Original")

    description = ddb.describe_backup(BackupArn=arn)["BackupDescription"]
    assert description["SourceTableDetails"]["TableName"] == "Original"
    assert description["SourceTableDetails"]["ItemCount"] == 30
    assert description["SourceTableFeatureDetails"]["GlobalSecondaryIndexes"] == [{"IndexName": "ByTeam"}]

    # As in DynamoDB, the restore runs in the background: the table is CREATING, with its
    # restore in progress, until every item is in.
    restored = ddb.restore_table_from_backup(TargetTableName="Restored", BackupArn=arn)
    answered = restored["TableDescription"]
    assert answered["TableName"] == "Restored"
    assert answered["TableStatus"] == "CREATING"
    assert answered["RestoreSummary"]["RestoreInProgress"] is True
    assert answered["RestoreSummary"]["SourceBackupArn"] == arn
    assert answered["ItemCount"] == 0
    ddb.get_waiter("table_exists").wait(TableName="Restored",
                                        WaiterConfig={"Delay": 0.05, "MaxAttempts": 600})
    assert ddb.describe_table(TableName="Restored")["Table"]["ItemCount"] == 30
    items = ddb.scan(TableName="Restored", ConsistentRead=True)["Items"]
    assert sorted(int(item["sk"]["N"]) for item in items) == list(range(30))
    reds = ddb.query(TableName="Restored", IndexName="ByTeam",
                     KeyConditionExpression="team = :t",
                     ExpressionAttributeValues={":t": {"S": "red"}})["Items"]
    assert len(reds) == 15
    table = ddb.describe_table(TableName="Restored")["Table"]
    summary = table["RestoreSummary"]
    assert summary["SourceBackupArn"] == arn
    assert summary["SourceTableArn"].endswith(":table/Original")
    assert summary["RestoreInProgress"] is False
    assert table["GlobalSecondaryIndexes"][0]["ItemCount"] == 30
    assert table["TableStatus"] == "ACTIVE"


def test_list_and_delete(ddb):
    make_table(ddb, "Listed")
    first = ddb.create_backup(TableName="Listed", BackupName="one")["BackupDetails"]["BackupArn"]
    second = ddb.create_backup(TableName="Listed", BackupName="two")["BackupDetails"]["BackupArn"]
    summaries = ddb.list_backups(TableName="Listed")["BackupSummaries"]
    assert [s["BackupName"] for s in summaries] == ["one", "two"]
    page = ddb.list_backups(TableName="Listed", Limit=1)
    assert [s["BackupArn"] for s in page["BackupSummaries"]] == [first]
    rest = ddb.list_backups(TableName="Listed", ExclusiveStartBackupArn=page["LastEvaluatedBackupArn"])
    assert [s["BackupArn"] for s in rest["BackupSummaries"]] == [second]

    deleted = ddb.delete_backup(BackupArn=first)["BackupDescription"]["BackupDetails"]
    assert deleted["BackupStatus"] == "DELETED"
    assert [s["BackupName"] for s in ddb.list_backups(TableName="Listed")["BackupSummaries"]] == ["two"]
    with pytest.raises(ddb.exceptions.BackupNotFoundException) as missing:
        ddb.describe_backup(BackupArn=first)
    assert missing.value.response["Error"]["Message"] == f"Backup not found: {first}"


def test_refusals(ddb):
    make_table(ddb, "Guarded")
    arn = ddb.create_backup(TableName="Guarded", BackupName="bak")["BackupDetails"]["BackupArn"]
    with pytest.raises(ddb.exceptions.TableAlreadyExistsException) as exists:
        ddb.restore_table_from_backup(TargetTableName="Guarded", BackupArn=arn)
    assert exists.value.response["Error"]["Message"] == "Table already exists: Guarded"
    with pytest.raises(ddb.exceptions.TableNotFoundException) as missing:
        ddb.create_backup(TableName="NoSuchTable", BackupName="bak")
    assert missing.value.response["Error"]["Message"] == "Table not found: NoSuchTable"
    with pytest.raises(ddb.exceptions.ClientError) as invalid:
        ddb.create_backup(TableName="Guarded", BackupName="no spaces")
    assert invalid.value.response["Error"]["Message"] == (
        "1 validation error detected: Value 'no spaces' at 'backupName' failed to satisfy "
        "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")


def test_a_restore_under_way_reports_progress_and_keeps_its_backup():
    """A restore in the background: DescribeTable says it is in progress, its backup cannot be
    deleted (BackupInUseException), and the log counts the items done of the backup's total."""
    from conftest import DdbdProcess
    from test_background_recovery import load, wait_for
    from test_logging import Drained, finished_progress
    process = DdbdProcess("--log-format", "json", "--log-level", "debug").start()
    try:
        log = Drained(process)
        client = process.client()
        client.create_table(TableName="Big", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        load(client, "Big", 30000)
        arn = client.create_backup(TableName="Big", BackupName="all")["BackupDetails"]["BackupArn"]
        client.restore_table_from_backup(TargetTableName="Copy", BackupArn=arn)
        # 30,000 items take longer to restore than these two requests to answer.
        with pytest.raises(client.exceptions.BackupInUseException) as in_use:
            client.delete_backup(BackupArn=arn)
        assert in_use.value.response["Error"]["Message"] == (
            f"Backup is being restored to table Copy: {arn}")
        during = client.describe_table(TableName="Copy")["Table"]
        assert (during["TableStatus"], during["RestoreSummary"]["RestoreInProgress"]) == (
            "CREATING", True)

        wait_for(lambda: client.describe_table(TableName="Copy")["Table"]["TableStatus"]
                 == "ACTIVE", what="the restored table, ACTIVE")
        after = client.describe_table(TableName="Copy")["Table"]
        assert after["RestoreSummary"]["RestoreInProgress"] is False
        assert after["ItemCount"] == 30000
        finished = finished_progress(log, "restore", 30000)
        assert (finished["table"], finished["backup"]) == ("Copy", arn)
        # Once restored, the backup can go.
        deleted = client.delete_backup(BackupArn=arn)["BackupDescription"]["BackupDetails"]
        assert deleted["BackupStatus"] == "DELETED"
    finally:
        process.cleanup()


def wait_active(ddb, name):
    ddb.get_waiter("table_exists").wait(TableName=name,
                                        WaiterConfig={"Delay": 0.05, "MaxAttempts": 600})
    return ddb.describe_table(TableName=name)["Table"]


def test_restore_overrides_indexes_throughput_and_encryption(ddb):
    make_table(ddb, "Overridden")
    for n in range(10):
        ddb.put_item(TableName="Overridden", Item={"pk": {"S": "p"}, "sk": {"N": str(n)},
                                                   "team": {"S": "red" if n % 2 else "blue"}})
    arn = ddb.create_backup(TableName="Overridden", BackupName="bkp")["BackupDetails"]["BackupArn"]
    # Without its GSI, as PROVISIONED with the capacity given, encrypted with a KMS key.
    ddb.restore_table_from_backup(
        TargetTableName="NoIndexes", BackupArn=arn, GlobalSecondaryIndexOverride=[],
        BillingModeOverride="PROVISIONED",
        ProvisionedThroughputOverride={"ReadCapacityUnits": 7, "WriteCapacityUnits": 3},
        SSESpecificationOverride={"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": "k1"})
    table = wait_active(ddb, "NoIndexes")
    assert "GlobalSecondaryIndexes" not in table
    assert table["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert table["ProvisionedThroughput"]["ReadCapacityUnits"] == 7
    assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == 3
    assert table["SSEDescription"]["SSEType"] == "KMS"
    assert table["SSEDescription"]["KMSMasterKeyArn"].endswith(":key/k1")
    assert table["ItemCount"] == 10
    # With another GSI on the backup's attributes: built from the restored items.
    ddb.restore_table_from_backup(
        TargetTableName="OtherIndex", BackupArn=arn, GlobalSecondaryIndexOverride=[{
            "IndexName": "BySk", "Projection": {"ProjectionType": "KEYS_ONLY"},
            "KeySchema": [{"AttributeName": "team", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}]}])
    table = wait_active(ddb, "OtherIndex")
    assert [index["IndexName"] for index in table["GlobalSecondaryIndexes"]] == ["BySk"]
    reds = ddb.query(TableName="OtherIndex", IndexName="BySk",
                     KeyConditionExpression="team = :t AND sk > :n",
                     ExpressionAttributeValues={":t": {"S": "red"}, ":n": {"N": "4"}})["Items"]
    assert [item["sk"]["N"] for item in reds] == ["5", "7", "9"]


def test_restore_override_refusals(ddb):
    make_table(ddb, "Refusing")
    arn = ddb.create_backup(TableName="Refusing", BackupName="bkp")["BackupDetails"]["BackupArn"]
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.restore_table_from_backup(TargetTableName="Ref1", BackupArn=arn,
                                      BillingModeOverride="PROVISIONED")
    assert error.value.response["Error"]["Message"] == (
        "ProvisionedThroughputOverride is required to restore a PAY_PER_REQUEST backup as "
        "PROVISIONED")
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.restore_table_from_backup(
            TargetTableName="Ref2", BackupArn=arn,
            ProvisionedThroughputOverride={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    assert error.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor "
        "WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.restore_table_from_backup(TargetTableName="Ref3", BackupArn=arn,
                                      GlobalSecondaryIndexOverride=[{
                                          "IndexName": "ByNothing",
                                          "Projection": {"ProjectionType": "ALL"},
                                          "KeySchema": [{"AttributeName": "undefined",
                                                         "KeyType": "HASH"}]}])
    assert error.value.response["Error"]["Code"] == "ValidationException"
    for name in ("Ref1", "Ref2", "Ref3"):
        with pytest.raises(ddb.exceptions.ResourceNotFoundException):
            ddb.describe_table(TableName=name)
