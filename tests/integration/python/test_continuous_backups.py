"""DescribeContinuousBackups / UpdateContinuousBackups (point-in-time recovery settings), as
infrastructure tools read and write them next to a table."""
import json
import time

import pytest

from conftest import raw_call


def make_table(ddb, name):
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])


def pitr(ddb, table):
    return ddb.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]


def recovery_days(server, table):
    """Read over raw HTTP: older botocore models drop RecoveryPeriodInDays."""
    _, _, data = raw_call(server.endpoint, "DescribeContinuousBackups", {"TableName": table})
    description = json.loads(data)["ContinuousBackupsDescription"]
    return description["PointInTimeRecoveryDescription"].get("RecoveryPeriodInDays")


def test_a_new_table_has_recovery_disabled(ddb):
    make_table(ddb, "PitrFresh")
    assert pitr(ddb, "PitrFresh") == {
        "ContinuousBackupsStatus": "ENABLED",
        "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}}


def test_enable_change_period_disable(server, ddb):
    make_table(ddb, "PitrToggle")
    before = time.time()
    answer = ddb.update_continuous_backups(
        TableName="PitrToggle",
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    description = answer["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert description["PointInTimeRecoveryStatus"] == "ENABLED"
    assert recovery_days(server, "PitrToggle") == 35
    earliest = description["EarliestRestorableDateTime"].timestamp()
    assert before - 1 <= earliest <= time.time() + 1
    assert description["LatestRestorableDateTime"].timestamp() >= earliest

    status, _, _ = raw_call(server.endpoint, "UpdateContinuousBackups", {
        "TableName": "PitrToggle",
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True,
                                             "RecoveryPeriodInDays": 7}})
    assert status == 200
    described = pitr(ddb, "PitrToggle")["PointInTimeRecoveryDescription"]
    assert recovery_days(server, "PitrToggle") == 7
    assert described["EarliestRestorableDateTime"].timestamp() == earliest  # unchanged

    ddb.update_continuous_backups(
        TableName="PitrToggle",
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False})
    assert pitr(ddb, "PitrToggle")["PointInTimeRecoveryDescription"] == {
        "PointInTimeRecoveryStatus": "DISABLED"}
    ddb.update_continuous_backups(
        TableName="PitrToggle",
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    assert recovery_days(server, "PitrToggle") == 35


@pytest.mark.parametrize("operation, body, error, message", [
    ("DescribeContinuousBackups", {"TableName": "PitrNowhere"}, "TableNotFoundException",
     "Table not found: PitrNowhere"),
    ("UpdateContinuousBackups",
     {"TableName": "PitrNowhere",
      "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}},
     "TableNotFoundException", "Table not found: PitrNowhere"),
    ("UpdateContinuousBackups", {"TableName": "PitrErrors"}, "ValidationException",
     "1 validation error detected: Value null at 'pointInTimeRecoverySpecification' failed to "
     "satisfy constraint: Member must not be null"),
    ("UpdateContinuousBackups",
     {"TableName": "PitrErrors", "PointInTimeRecoverySpecification": {}}, "ValidationException",
     "1 validation error detected: Value null at "
     "'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy "
     "constraint: Member must not be null"),
    ("UpdateContinuousBackups",
     {"TableName": "PitrErrors", "PointInTimeRecoverySpecification": {
         "PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": 36}},
     "ValidationException",
     "1 validation error detected: Value '36' at "
     "'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: "
     "Member must have value less than or equal to 35"),
    ("UpdateContinuousBackups",
     {"TableName": "PitrErrors", "PointInTimeRecoverySpecification": {
         "PointInTimeRecoveryEnabled": False, "RecoveryPeriodInDays": 7}},
     "ValidationException",
     "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time "
     "recovery."),
])
def test_refusals(server, ddb, operation, body, error, message):
    if "PitrErrors" not in ddb.list_tables()["TableNames"]:
        make_table(ddb, "PitrErrors")
    status, _, data = raw_call(server.endpoint, operation, body)
    parsed = json.loads(data)
    assert (status, parsed["__type"].split("#")[1], parsed["message"]) == (400, error, message)
    assert pitr(ddb, "PitrErrors")["PointInTimeRecoveryDescription"] == {
        "PointInTimeRecoveryStatus": "DISABLED"}
