"""Time to Live: UpdateTimeToLive / DescribeTimeToLive with DynamoDB's rules and messages, and
the background deletion of expired items (from the table, its indexes and its statistics),
driven through boto3, raw HTTP and the seed guide's AWS CLI command."""
import json
import os
import shutil
import subprocess
import time

import pytest

from conftest import DdbdProcess, raw_call

FIVE_YEARS = 5 * 365 * 86400


@pytest.fixture(scope="module")
def server():
    # Passes every 100 ms, so that expiry is observable within a test.
    process = DdbdProcess("--ttl-interval-ms", "100").start()
    yield process
    process.cleanup()


def make_table(ddb, name, gsi=False):
    kwargs = {}
    definitions = [{"AttributeName": "pk", "AttributeType": "S"},
                   {"AttributeName": "sk", "AttributeType": "N"}]
    if gsi:
        definitions.append({"AttributeName": "owner", "AttributeType": "S"})
        kwargs["GlobalSecondaryIndexes"] = [{
            "IndexName": "ByOwner", "Projection": {"ProjectionType": "KEYS_ONLY"},
            "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}]}]
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=definitions, **kwargs)


def enable(ddb, table, attribute="expiresAt"):
    return ddb.update_time_to_live(
        TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": attribute})


def description(ddb, table):
    return ddb.describe_time_to_live(TableName=table)["TimeToLiveDescription"]


def wait_for(predicate, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def sort_keys(ddb, table):
    items = ddb.scan(TableName=table, ConsistentRead=True)["Items"]
    return sorted(int(item["sk"]["N"]) for item in items)


def test_a_new_table_has_ttl_disabled(ddb):
    make_table(ddb, "TtlFresh")
    assert description(ddb, "TtlFresh") == {"TimeToLiveStatus": "DISABLED"}


def test_enable_then_disable(ddb):
    make_table(ddb, "TtlToggle")
    answer = enable(ddb, "TtlToggle")
    assert answer["TimeToLiveSpecification"] == {"Enabled": True, "AttributeName": "expiresAt"}
    assert description(ddb, "TtlToggle") == {"TimeToLiveStatus": "ENABLED",
                                             "AttributeName": "expiresAt"}
    # DescribeTable does not report TTL (DynamoDB keeps it out of TableDescription).
    assert "TimeToLiveDescription" not in ddb.describe_table(TableName="TtlToggle")["Table"]

    answer = ddb.update_time_to_live(
        TableName="TtlToggle", TimeToLiveSpecification={"Enabled": False, "AttributeName": "expiresAt"})
    assert answer["TimeToLiveSpecification"] == {"Enabled": False, "AttributeName": "expiresAt"}
    assert description(ddb, "TtlToggle") == {"TimeToLiveStatus": "DISABLED"}
    # Another attribute may be chosen once TTL is disabled.
    enable(ddb, "TtlToggle", "validUntil")
    assert description(ddb, "TtlToggle") == {"TimeToLiveStatus": "ENABLED",
                                             "AttributeName": "validUntil"}


def test_the_setting_survives_a_restart():
    process = DdbdProcess().start()
    try:
        client = process.client()
        make_table(client, "TtlDurable")
        enable(client, "TtlDurable", "gone")
        process.stop()
        process.start()
        assert description(process.client(), "TtlDurable") == {"TimeToLiveStatus": "ENABLED",
                                                                "AttributeName": "gone"}
    finally:
        process.cleanup()


@pytest.mark.parametrize("body, message", [
    ({"TableName": "TtlErrors"},
     "1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy "
     "constraint: Member must not be null"),
    ({"TableName": "TtlErrors", "TimeToLiveSpecification": {"AttributeName": "x"}},
     "1 validation error detected: Value null at 'timeToLiveSpecification.enabled' failed to "
     "satisfy constraint: Member must not be null"),
    ({"TableName": "TtlErrors", "TimeToLiveSpecification": {"Enabled": True}},
     "1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' "
     "failed to satisfy constraint: Member must not be null"),
    ({"TableName": "TtlErrors", "TimeToLiveSpecification": {"Enabled": False}},
     "1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' "
     "failed to satisfy constraint: Member must not be null"),
    ({"TableName": "TtlErrors", "TimeToLiveSpecification": {"Enabled": True, "AttributeName": ""}},
     "1 validation error detected: Value '' at 'timeToLiveSpecification.attributeName' failed "
     "to satisfy constraint: Member must have length greater than or equal to 1"),
    ({"TableName": "TtlErrors", "TimeToLiveSpecification": {"Enabled": True, "AttributeName": "a" * 256}},
     "1 validation error detected: Value '" + "a" * 256 + "' at "
     "'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have "
     "length less than or equal to 255"),
    ({"TableName": "TtlErrors", "TimeToLiveSpecification": {}},
     "2 validation errors detected: Value null at 'timeToLiveSpecification.attributeName' "
     "failed to satisfy constraint: Member must not be null; Value null at "
     "'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null"),
    ({"TimeToLiveSpecification": {"Enabled": True, "AttributeName": "x"}},
     "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: "
     "Member must not be null"),
])
def test_malformed_specifications_are_refused(server, ddb, body, message):
    if "TtlErrors" not in ddb.list_tables()["TableNames"]:
        make_table(ddb, "TtlErrors")
    status, _, data = raw_call(server.endpoint, "UpdateTimeToLive", body)
    parsed = json.loads(data)
    assert status == 400
    assert parsed["__type"] == "com.amazon.coral.validate#ValidationException"
    assert parsed["message"] == message
    assert description(ddb, "TtlErrors") == {"TimeToLiveStatus": "DISABLED"}


def test_changes_that_change_nothing_are_refused(ddb):
    make_table(ddb, "TtlRefusals")
    with pytest.raises(ddb.exceptions.ClientError) as refused:
        ddb.update_time_to_live(TableName="TtlRefusals",
                                TimeToLiveSpecification={"Enabled": False, "AttributeName": "e"})
    assert refused.value.response["Error"] == {"Code": "ValidationException",
                                               "Message": "TimeToLive is already disabled"}
    enable(ddb, "TtlRefusals", "e")
    expectations = [
        ({"Enabled": True, "AttributeName": "e"}, "TimeToLive is already enabled"),
        ({"Enabled": True, "AttributeName": "f"},
         "TimeToLive is active on a different AttributeName: current AttributeName is e"),
        ({"Enabled": False, "AttributeName": "f"},
         "TimeToLive is active on a different AttributeName: current AttributeName is e"),
    ]
    for spec, message in expectations:
        with pytest.raises(ddb.exceptions.ClientError) as refused:
            ddb.update_time_to_live(TableName="TtlRefusals", TimeToLiveSpecification=spec)
        assert refused.value.response["Error"] == {"Code": "ValidationException", "Message": message}
    assert description(ddb, "TtlRefusals") == {"TimeToLiveStatus": "ENABLED", "AttributeName": "e"}


def test_missing_tables(ddb):
    with pytest.raises(ddb.exceptions.ResourceNotFoundException) as missing:
        enable(ddb, "TtlNoSuchTable")
    assert missing.value.response["Error"]["Message"] == \
        "Requested resource not found: Table: TtlNoSuchTable not found"
    with pytest.raises(ddb.exceptions.ResourceNotFoundException) as missing:
        ddb.describe_time_to_live(TableName="TtlNoSuchTable")
    assert missing.value.response["Error"]["Message"] == \
        "Requested resource not found: Table: TtlNoSuchTable not found"


def test_expired_items_are_deleted_with_their_index_entries(ddb):
    make_table(ddb, "TtlExpiry", gsi=True)
    now = int(time.time())
    values = {
        1: {"N": str(now - 60)},                          # expired a minute ago: deleted
        2: {"N": f"{now - 3600}.5"},                      # fractional seconds: deleted
        3: {"N": str(now + 3600)},                        # expires in an hour: kept
        4: {"S": str(now - 60)},                          # not a Number: ignored
        5: {"N": str(now - FIVE_YEARS - 30 * 86400)},     # over five years past: ignored
        6: {"NS": [str(now - 60)]},                       # a set, not a Number: ignored
        7: None,                                          # no TTL attribute: kept
        8: {"N": str(now - 10)},                          # expired: deleted
    }
    for sk, value in values.items():
        item = {"pk": {"S": "p"}, "sk": {"N": str(sk)}, "owner": {"S": "ann"}}
        if value is not None:
            item["expiresAt"] = value
        ddb.put_item(TableName="TtlExpiry", Item=item)
    # Nothing is deleted before TTL is enabled.
    time.sleep(0.3)
    assert sort_keys(ddb, "TtlExpiry") == [1, 2, 3, 4, 5, 6, 7, 8]

    enable(ddb, "TtlExpiry")
    wait_for(lambda: sort_keys(ddb, "TtlExpiry") == [3, 4, 5, 6, 7])
    assert sort_keys(ddb, "TtlExpiry") == [3, 4, 5, 6, 7]
    owners = ddb.query(TableName="TtlExpiry", IndexName="ByOwner",
                       KeyConditionExpression="#o = :o", ExpressionAttributeNames={"#o": "owner"},
                       ExpressionAttributeValues={":o": {"S": "ann"}})["Items"]
    assert sorted(int(item["sk"]["N"]) for item in owners) == [3, 4, 5, 6, 7]
    table = ddb.describe_table(TableName="TtlExpiry")["Table"]
    assert table["ItemCount"] == 5
    assert table["GlobalSecondaryIndexes"][0]["ItemCount"] == 5


def test_an_item_given_a_later_expiry_is_kept(ddb):
    make_table(ddb, "TtlExtend")
    enable(ddb, "TtlExtend")
    soon = int(time.time()) + 2
    ddb.put_item(TableName="TtlExtend",
                 Item={"pk": {"S": "p"}, "sk": {"N": "1"}, "expiresAt": {"N": str(soon)}})
    ddb.put_item(TableName="TtlExtend",
                 Item={"pk": {"S": "p"}, "sk": {"N": "2"}, "expiresAt": {"N": str(soon)}})
    ddb.update_item(TableName="TtlExtend", Key={"pk": {"S": "p"}, "sk": {"N": "1"}},
                    UpdateExpression="SET expiresAt = expiresAt + :day",
                    ExpressionAttributeValues={":day": {"N": "86400"}})
    assert wait_for(lambda: sort_keys(ddb, "TtlExtend") == [1])
    time.sleep(0.3)
    assert sort_keys(ddb, "TtlExtend") == [1]


def test_disabling_stops_deletions(ddb):
    make_table(ddb, "TtlStopped")
    enable(ddb, "TtlStopped")
    ddb.update_time_to_live(TableName="TtlStopped",
                            TimeToLiveSpecification={"Enabled": False, "AttributeName": "expiresAt"})
    ddb.put_item(TableName="TtlStopped", Item={"pk": {"S": "p"}, "sk": {"N": "1"},
                                               "expiresAt": {"N": str(int(time.time()) - 5)}})
    time.sleep(0.5)  # five passes of the sweeper
    assert sort_keys(ddb, "TtlStopped") == [1]


def test_seed_cli_enable_ttl(server, ddb):
    aws = shutil.which("aws")
    if aws is None:
        pytest.fail("the AWS CLI is not installed (the test command installs Debian's awscli)")
    make_table(ddb, "TtlCli")
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDCLI", AWS_SECRET_ACCESS_KEY="secret",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="", AWS_CONFIG_FILE="/dev/null")
    # The seed guide's command, unchanged but for the table name and --endpoint-url.
    result = subprocess.run(
        [aws, "dynamodb", "update-time-to-live", "--table-name", "TtlCli",
         "--time-to-live-specification", "Enabled=true,AttributeName=expireAt",
         "--endpoint-url", server.endpoint, "--output", "json"],
        env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"TimeToLiveSpecification": {"Enabled": True,
                                                                     "AttributeName": "expireAt"}}
    result = subprocess.run(
        [aws, "dynamodb", "describe-time-to-live", "--table-name", "TtlCli",
         "--endpoint-url", server.endpoint, "--output", "json"],
        env=env, capture_output=True, text=True, timeout=60)
    assert json.loads(result.stdout) == {"TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED",
                                                                   "AttributeName": "expireAt"}}
