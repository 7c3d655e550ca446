"""Contributor Insights through boto3, as recorded against DynamoDB: statuses, modes, rule
names, no-ops on a settled state, the list (DISABLED left out, the table before its GSIs,
pages), refusals — and the setting kept across a restart of an on-disk server."""
import json
import re
import signal
import time
import urllib.request

import botocore.exceptions
import pytest

from conftest import DdbdProcess, raw_call

RULE = r"DynamoDBContributorInsights-{kind}-{resource}-(\d{{13}})"


def make_tables(client):
    client.create_table(
        TableName="Music", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "artist", "KeyType": "HASH"},
                   {"AttributeName": "song", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("artist", "song", "album", "year")],
        GlobalSecondaryIndexes=[{"IndexName": "ByAlbum", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "album", "KeyType": "HASH"}]}],
        LocalSecondaryIndexes=[{"IndexName": "ByYear", "Projection": {"ProjectionType": "ALL"},
                                "KeySchema": [{"AttributeName": "artist", "KeyType": "HASH"},
                                              {"AttributeName": "year", "KeyType": "RANGE"}]}])
    client.create_table(TableName="Plain", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])


@pytest.fixture
def server(tmp_path):
    process = DdbdProcess().start()
    yield process
    process.cleanup()


def without_metadata(response):
    return {k: v for k, v in response.items() if k != "ResponseMetadata"}


def call(server, operation, **body):
    """The operation over plain JSON: the SDK this suite has predates ContributorInsightsMode
    (its model neither sends nor parses the member)."""
    status, _, answer = raw_call(server.endpoint, operation, body)
    assert status == 200, answer
    return json.loads(answer)


def test_enable_describe_change_mode_disable_and_list(server):
    client = server.client()
    make_tables(client)
    # Never configured: DISABLED, no time, no mode, no rules.
    assert without_metadata(client.describe_contributor_insights(TableName="Music")) == {
        "TableName": "Music", "ContributorInsightsStatus": "DISABLED"}
    assert client.list_contributor_insights()["ContributorInsightsSummaries"] == []

    enabled = call(server, "UpdateContributorInsights", TableName="Music",
                   ContributorInsightsAction="ENABLE")
    assert enabled == {
        "TableName": "Music", "ContributorInsightsStatus": "ENABLED",
        "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"}
    described = call(server, "DescribeContributorInsights", TableName="Music")
    assert described["ContributorInsightsStatus"] == "ENABLED"
    assert described["ContributorInsightsMode"] == "ACCESSED_AND_THROTTLED_KEYS"
    rules = described["ContributorInsightsRuleList"]
    stamps = {re.fullmatch(RULE.format(kind=kind, resource="Music"), rule).group(1)
              for kind, rule in zip(("PKC", "SKC", "PKT", "SKT"), rules)}
    assert len(rules) == 4 and len(stamps) == 1  # one creation time for the four rules
    assert described["LastUpdateDateTime"] > 1.7e9  # epoch seconds
    # The SDK reads the same answer (without the newer mode member).
    assert client.describe_contributor_insights(TableName="Music")[
        "ContributorInsightsRuleList"] == rules

    # A mode change keeps the rules' time; ENABLE without a mode goes back to the default.
    narrowed = call(server, "UpdateContributorInsights", TableName="Music",
                    ContributorInsightsAction="ENABLE", ContributorInsightsMode="THROTTLED_KEYS")
    assert narrowed["ContributorInsightsMode"] == "THROTTLED_KEYS"
    stamp = stamps.pop()
    assert client.describe_contributor_insights(TableName="Music")[
        "ContributorInsightsRuleList"] == [f"DynamoDBContributorInsights-PKT-Music-{stamp}",
                                           f"DynamoDBContributorInsights-SKT-Music-{stamp}"]
    client.update_contributor_insights(TableName="Music", ContributorInsightsAction="ENABLE")
    assert call(server, "DescribeContributorInsights", TableName="Music")[
        "ContributorInsightsMode"] == "ACCESSED_AND_THROTTLED_KEYS"

    # A GSI has its own setting and rules; a hash-only GSI has two.
    client.update_contributor_insights(TableName="Music", IndexName="ByAlbum",
                                       ContributorInsightsAction="ENABLE")
    index = client.describe_contributor_insights(TableName="Music", IndexName="ByAlbum")
    assert index["IndexName"] == "ByAlbum"
    assert [re.fullmatch(RULE.format(kind=k, resource="Music-ByAlbum"), r) is not None
            for k, r in zip(("PKC", "PKT"), index["ContributorInsightsRuleList"])] == [True, True]
    call(server, "UpdateContributorInsights", TableName="Plain",
         ContributorInsightsAction="ENABLE", ContributorInsightsMode="THROTTLED_KEYS")

    listed = call(server, "ListContributorInsights")["ContributorInsightsSummaries"]
    assert listed == [
        {"TableName": "Music", "ContributorInsightsStatus": "ENABLED",
         "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"},
        {"TableName": "Music", "IndexName": "ByAlbum", "ContributorInsightsStatus": "ENABLED",
         "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"},
        {"TableName": "Plain", "ContributorInsightsStatus": "ENABLED",
         "ContributorInsightsMode": "THROTTLED_KEYS"}]
    first = call(server, "ListContributorInsights", MaxResults=2)
    assert first["ContributorInsightsSummaries"] == listed[:2]
    rest = call(server, "ListContributorInsights", MaxResults=2, NextToken=first["NextToken"])
    assert rest["ContributorInsightsSummaries"] == listed[2:] and "NextToken" not in rest
    assert call(server, "ListContributorInsights", TableName="Plain")[
        "ContributorInsightsSummaries"] == listed[2:]
    assert [s["TableName"] for s in client.list_contributor_insights()[
        "ContributorInsightsSummaries"]] == ["Music", "Music", "Plain"]

    # ENABLE of an enabled entry with its mode, and DISABLE of a disabled one, are no-ops.
    again = call(server, "UpdateContributorInsights", TableName="Plain",
                 ContributorInsightsAction="ENABLE", ContributorInsightsMode="THROTTLED_KEYS")
    assert again["ContributorInsightsStatus"] == "ENABLED"
    disabled = call(server, "UpdateContributorInsights", TableName="Plain",
                    ContributorInsightsAction="DISABLE",
                    ContributorInsightsMode="ACCESSED_AND_THROTTLED_KEYS")
    assert (disabled["ContributorInsightsStatus"], disabled["ContributorInsightsMode"]) == (
        "DISABLED", "THROTTLED_KEYS")  # DISABLE echoes the current mode, not the one sent
    after = client.describe_contributor_insights(TableName="Plain")
    assert "ContributorInsightsRuleList" not in after
    assert after["ContributorInsightsStatus"] == "DISABLED"
    assert [s["TableName"] for s in client.list_contributor_insights()[
        "ContributorInsightsSummaries"]] == ["Music", "Music"]

    # The access-pattern report says where the rules are on; its hot keys are what they chart.
    with urllib.request.urlopen(server.endpoint + "/ddbd/report", timeout=30) as answer:
        tables = {t["TableName"]: t for s in json.loads(answer.read())["Namespaces"]
                  for t in s["Tables"]}
    assert tables["Music"]["Table"]["ContributorInsights"] is True
    assert {i["IndexName"]: i["ContributorInsights"] for i in tables["Music"]["Indexes"]} == {
        "ByAlbum": True, "ByYear": False}
    assert tables["Plain"]["Table"]["ContributorInsights"] is False
    with urllib.request.urlopen(server.endpoint + "/ddbd/report?format=text", timeout=30) as answer:
        text = answer.read().decode()
    assert "\nTable Music (PAY_PER_REQUEST, 0 items, 0 B)\n  Contributor Insights: enabled\n" in text
    assert "\n  GSI ByAlbum (ALL, Contributor Insights enabled)\n" in text
    assert "\n  LSI ByYear (ALL)\n" in text


def test_refusals(server):
    client = server.client()
    make_tables(client)

    def error(call, **kwargs):
        with pytest.raises(botocore.exceptions.ClientError) as refused:
            call(**kwargs)
        return refused.value.response["Error"]["Code"], refused.value.response["Error"]["Message"]

    assert error(client.describe_contributor_insights, TableName="Nowhere") == (
        "ResourceNotFoundException", "Requested resource not found: Table: Nowhere not found")
    for index in ("ByYear", "Missing"):  # an LSI has no setting of its own
        assert error(client.update_contributor_insights, TableName="Music", IndexName=index,
                     ContributorInsightsAction="ENABLE") == (
            "ResourceNotFoundException",
            f"Requested resource not found: Index: {index} not found for table: Music")
    assert error(client.list_contributor_insights, TableName="Nowhere")[0] == (
        "ResourceNotFoundException")
    code, message = error(client.update_contributor_insights, TableName="Music",
                          ContributorInsightsAction="ON")
    assert (code, message) == (
        "ValidationException",
        "1 validation error detected: Value 'ON' at 'contributorInsightsAction' failed to "
        "satisfy constraint: Member must satisfy enum value set: [ENABLE, DISABLE]")
    code, message = error(client.list_contributor_insights, MaxResults=101)
    assert code == "ValidationException"
    assert "Member must have value less than or equal to 100" in message


def test_the_setting_survives_a_restart(server):
    client = server.client()
    make_tables(client)
    call(server, "UpdateContributorInsights", TableName="Music", IndexName="ByAlbum",
         ContributorInsightsAction="ENABLE", ContributorInsightsMode="THROTTLED_KEYS")
    before = call(server, "DescribeContributorInsights", TableName="Music", IndexName="ByAlbum")
    server.stop(signal.SIGKILL)
    restarted = DdbdProcess(data_dir=server.data_dir).start()
    try:
        after = call(restarted, "DescribeContributorInsights", TableName="Music",
                     IndexName="ByAlbum")
        assert after == before and after["ContributorInsightsMode"] == "THROTTLED_KEYS"
    finally:
        restarted.stop()


def test_transient_statuses_show_enabling_and_disabling():
    server = DdbdProcess("--in-memory", "--transient-status-ms", "300").start()
    try:
        client = server.client()
        client.create_table(TableName="Slow", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
        client.get_waiter("table_exists").wait(TableName="Slow",
                                               WaiterConfig={"Delay": 0.1, "MaxAttempts": 50})
        status = lambda: client.describe_contributor_insights(TableName="Slow")[
            "ContributorInsightsStatus"]
        assert client.update_contributor_insights(
            TableName="Slow", ContributorInsightsAction="ENABLE")[
            "ContributorInsightsStatus"] == "ENABLING"
        assert status() == "ENABLING"
        assert [s["ContributorInsightsStatus"] for s in client.list_contributor_insights()[
            "ContributorInsightsSummaries"]] == ["ENABLING"]
        time.sleep(0.4)
        assert status() == "ENABLED"
        assert client.update_contributor_insights(
            TableName="Slow", ContributorInsightsAction="DISABLE")[
            "ContributorInsightsStatus"] == "DISABLING"
        # DISABLING is still listed; DISABLED is not.
        assert [s["ContributorInsightsStatus"] for s in client.list_contributor_insights()[
            "ContributorInsightsSummaries"]] == ["DISABLING"]
        time.sleep(0.4)
        assert status() == "DISABLED"
        assert client.list_contributor_insights()["ContributorInsightsSummaries"] == []
    finally:
        server.cleanup()
