"""The access-pattern report (GET /ddbd/report, ?format=text, --report-on-exit) after a known
workload: exact counts and units by DynamoDB's metering, the hot partition key found, and each
finding raised by the workload that should raise it — and none for a table used well."""
import json
import signal
import urllib.error
import urllib.request

import pytest

from conftest import DdbdProcess, raw_call

SIZE = 34  # "pk"+"tenant#N" 10, "sk"+"NN" 4, "status"+"open" 10, "customer"+"cN" 10


def report(server, query=""):
    with urllib.request.urlopen(server.endpoint + "/ddbd/report" + query, timeout=30) as answer:
        assert answer.status == 200
        body = answer.read().decode()
        return (body, answer.headers["Content-Type"])


def run_workload(client):
    client.create_table(
        TableName="Orders", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("pk", "sk", "status", "customer")],
        GlobalSecondaryIndexes=[
            {"IndexName": "ByStatus", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}]},
            {"IndexName": "ByCustomer", "Projection": {"ProjectionType": "KEYS_ONLY"},
             "KeySchema": [{"AttributeName": "customer", "KeyType": "HASH"}]}])
    for i in range(40):  # 36 writes to tenant#1: a hot partition
        tenant = "tenant#1" if i % 10 else f"tenant#{i // 10 + 2}"
        client.put_item(TableName="Orders", Item={
            "pk": {"S": tenant}, "sk": {"S": f"{i:02d}"}, "status": {"S": "open"},
            "customer": {"S": f"c{i % 10}"}})
    for _ in range(12):  # a Scan on a frequent path, with a filter that keeps 1 item of 40
        client.scan(TableName="Orders", FilterExpression="sk = :s",
                    ExpressionAttributeValues={":s": {"S": "03"}})
    for _ in range(5):  # an index projecting ALL, read for two attributes
        client.query(TableName="Orders", IndexName="ByStatus",
                     KeyConditionExpression="#s = :open", ProjectionExpression="pk, sk",
                     ExpressionAttributeNames={"#s": "status"},
                     ExpressionAttributeValues={":open": {"S": "open"}})
    # ByCustomer is written 40 times and never read.

    client.create_table(TableName="Blobs", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    client.put_item(TableName="Blobs", Item={"pk": {"S": "big"},
                                             "data": {"B": b"x" * (310 * 1024)}})

    # Used as DynamoDB likes: spread keys, reads by key. No finding.
    client.create_table(TableName="Tidy", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    for i in range(30):
        client.put_item(TableName="Tidy", Item={"pk": {"S": f"k{i}"}})
    for i in range(30):
        client.get_item(TableName="Tidy", Key={"pk": {"S": f"k{i}"}})

    # Two clients add to one balance by read-modify-write with blind puts: the second put
    # replaces the first one's change (a lost update).
    for name in ("Accounts", "Ledger"):
        client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        client.put_item(TableName=name, Item={"pk": {"S": "ann"}, "balance": {"N": "100"},
                                              "version": {"N": "1"}})
    key = {"pk": {"S": "ann"}}
    seen_by_a = client.get_item(TableName="Accounts", Key=key)["Item"]
    seen_by_b = client.get_item(TableName="Accounts", Key=key)["Item"]
    for seen, amount in ((seen_by_a, 10), (seen_by_b, 20)):
        client.put_item(TableName="Accounts", Item={
            **seen, "balance": {"N": str(int(seen["balance"]["N"]) + amount)}})
    # The same, done right: each put checks the version it read, so the second one fails and
    # nothing is lost; and an atomic ADD needs no read at all.
    seen_by_a = client.get_item(TableName="Ledger", Key=key)["Item"]
    seen_by_b = client.get_item(TableName="Ledger", Key=key)["Item"]
    for seen, amount in ((seen_by_a, 10), (seen_by_b, 20)):
        try:
            client.put_item(
                TableName="Ledger",
                Item={**seen, "balance": {"N": str(int(seen["balance"]["N"]) + amount)},
                      "version": {"N": str(int(seen["version"]["N"]) + 1)}},
                ConditionExpression="version = :read",
                ExpressionAttributeValues={":read": seen["version"]})
        except client.exceptions.ConditionalCheckFailedException:
            pass
    client.get_item(TableName="Ledger", Key=key)
    client.update_item(TableName="Ledger", Key=key, UpdateExpression="ADD balance :n",
                       ExpressionAttributeValues={":n": {"N": "5"}})


@pytest.fixture(scope="module")
def worked():
    server = DdbdProcess("--in-memory").start()
    run_workload(server.client(namespace="shop"))
    yield server
    server.cleanup()


def namespace_report(server, name="shop"):
    body, content_type = report(server)
    assert content_type == "application/json"
    spaces = {space["Name"]: space for space in json.loads(body)["Namespaces"]}
    return spaces[name]


def test_figures_of_each_table_and_index(worked):
    space = namespace_report(worked)
    tables = {table["TableName"]: table for table in space["Tables"]}
    assert sorted(tables) == ["Accounts", "Blobs", "Ledger", "Orders", "Tidy"]
    orders = tables["Orders"]
    assert (orders["ItemCount"], orders["TableSizeBytes"]) == (40, 40 * SIZE)
    assert orders["Operations"] == {"PutItem": 40, "Scan": 12, "Query": 5}
    table = orders["Table"]
    assert {k: table[k] for k in ("Gets", "Queries", "Scans", "FilteredScans", "ItemsRead",
                                  "ItemsReturned", "FilteredItemsRead", "FilteredItemsReturned",
                                  "Writes", "Throttled", "ReadUnits", "WriteUnits")} == {
        "Gets": 0, "Queries": 0, "Scans": 12, "FilteredScans": 12, "ItemsRead": 480,
        "ItemsReturned": 12, "FilteredItemsRead": 480, "FilteredItemsReturned": 12,
        "Writes": 40, "Throttled": 0,
        "ReadUnits": 12 * 0.5,  # each Scan page: 1,360 bytes, eventually consistent
        "WriteUnits": 40.0}
    assert table["HotPartitionsByWrites"][0] == {"Key": "tenant#1", "Units": 36, "Share": 0.9}
    assert [k["Key"] for k in table["HotPartitionsByWrites"][1:]] == [
        "tenant#2", "tenant#3", "tenant#4", "tenant#5"]
    assert table["HotPartitionsByReads"] == []  # Scans read no one partition
    assert table["ItemSizes"][0] == {"UpToBytes": 1024, "Items": 40}
    assert table["LargestItemBytes"] == SIZE

    indexes = {index["IndexName"]: index for index in orders["Indexes"]}
    by_status = indexes["ByStatus"]
    assert (by_status["Kind"], by_status["Projection"], by_status["Queries"],
            by_status["ItemsRead"], by_status["ItemsReturned"], by_status["ReadUnits"],
            by_status["Writes"], by_status["WriteUnits"]) == (
        "GSI", "ALL", 5, 200, 200, 2.5, 40, 40.0)
    assert by_status["HotPartitionsByReads"] == [{"Key": "open", "Units": 2.5, "Share": 1}]
    by_customer = indexes["ByCustomer"]
    assert (by_customer["Projection"], by_customer["Queries"], by_customer["Writes"],
            by_customer["WriteUnits"]) == ("KEYS_ONLY", 0, 40, 40.0)

    tidy = tables["Tidy"]
    assert tidy["Operations"] == {"PutItem": 30, "GetItem": 30}
    assert (tidy["Table"]["Gets"], tidy["Table"]["ReadUnits"], tidy["Table"]["WriteUnits"]) == (
        30, 15.0, 30.0)
    hot_reads = tidy["Table"]["HotPartitionsByReads"]
    assert len(hot_reads) == 5 and all(k["Units"] == 0.5 for k in hot_reads)
    assert tidy["Table"]["HotItemsByReads"] == []  # no sort key: its items are its partitions
    # 40 items written once each: every kept one certainly once (a lower bound of 1).
    assert [k["Units"] for k in table["HotItemsByWrites"]] == [1, 1, 1, 1, 1]

    assert (table["ReadModifyWrites"], table["LostUpdates"]) == (0, 0)
    accounts = tables["Accounts"]["Table"]
    assert (accounts["ReadModifyWrites"], accounts["LostUpdates"]) == (2, 1)
    ledger = tables["Ledger"]["Table"]
    assert (ledger["Writes"], ledger["ReadModifyWrites"], ledger["LostUpdates"]) == (4, 0, 0)

    cost = orders["EstimatedMonthlyCost"]
    assert cost["Currency"] == "USD"
    assert cost["OnDemand"] > 0 and cost["Provisioned"] > 0
    assert cost["Storage"] == pytest.approx(40 * SIZE / 2**30 * 0.25)


def test_each_finding_is_raised_by_its_pattern_and_none_by_a_tidy_table(worked):
    findings = namespace_report(worked)["Findings"]
    assert sorted((f["Code"], f["TableName"], f.get("IndexName", "")) for f in findings) == [
        ("hot-partition", "Orders", ""),
        ("large-items", "Blobs", ""),
        ("over-projected-index", "Orders", "ByStatus"),
        ("racing-writes", "Accounts", ""),
        ("scan-on-frequent-path", "Orders", ""),
        ("unused-index", "Orders", "ByCustomer"),
        ("wasteful-filter", "Orders", ""),
    ]
    messages = {f["Code"]: f["Message"] for f in findings}
    assert messages["hot-partition"].startswith(
        'Partition key value "tenant#1" took 90% of the write units of table Orders (36 of 40)')
    assert messages["wasteful-filter"].startswith(
        "Filters discarded 98% of the 480 items that filtered Queries and Scans of table Orders "
        "read (they returned 12)")
    assert messages["scan-on-frequent-path"].startswith(
        "Scan ran 12 times on table Orders (100% of its reads)")
    assert messages["large-items"].startswith("Items of up to 310 KB were written to table Blobs")
    assert messages["racing-writes"].startswith(
        "1 unconditional write to table Accounts replaced an item that another write had changed "
        'after it was read (last: "ann"), so that change was lost; 2 writes in all overwrote an '
        "item just read with no condition.")
    assert messages["over-projected-index"].startswith(
        "GSI ByStatus of table Orders projects ALL attributes, but none of its 5 reads asked "
        "for more than 2")


def test_text_form_and_prices_from_the_query(worked):
    text, content_type = report(worked, "?format=text")
    assert content_type == "text/plain; charset=utf-8"
    assert text.startswith("ddbd access-pattern report\n")
    assert "\n== Namespace shop\n" in text
    assert "\nTable Orders (PAY_PER_REQUEST, 40 items, 1.3 KB)\n" in text
    assert "\n  requests: PutItem 40, Query 5, Scan 12\n" in text
    assert ('\n  hot partition keys by writes: "tenant#1" 90% (36 of 40 units), "tenant#2" 2% '
            '(1 of 40 units)') in text
    assert "\n  GSI ByCustomer (KEYS_ONLY)\n" in text
    assert "\nTable Accounts (PAY_PER_REQUEST, 1 item, 23 B)\n" in text
    assert "\n  unconditional writes of an item just read: 2 (1 lost an update)\n" in text
    assert text.count("\n  [") == 7  # the findings
    assert "[unused-index] GSI ByCustomer of table Orders was updated 40 times" in text

    cheap = json.loads(report(worked, "?on_demand_write_per_million=0&on_demand_read_per_million=0"
                                      "&storage_per_gb_month=0")[0])
    assert cheap["Prices"]["on_demand_write_per_million"] == 0
    orders = next(t for s in cheap["Namespaces"] for t in s["Tables"] if t["TableName"] == "Orders")
    assert orders["EstimatedMonthlyCost"]["OnDemand"] == 0
    assert orders["EstimatedMonthlyCost"]["Storage"] == 0
    for query, message in (("?format=xml", "format must be json or text"),
                           ("?price=1", "Unknown report parameter: price"),
                           ("?storage_per_gb_month=-1",
                            "storage_per_gb_month must be a price of 0 or more (US dollars)")):
        with pytest.raises(urllib.error.HTTPError) as refused:
            report(worked, query)
        assert refused.value.code == 400
        assert json.loads(refused.value.read())["message"] == message


def test_a_dropped_table_leaves_the_report(worked):
    client = worked.client(namespace="scratch")
    client.create_table(TableName="Gone", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    client.put_item(TableName="Gone", Item={"pk": {"S": "a"}})
    assert [t["TableName"] for t in namespace_report(worked, "scratch")["Tables"]] == ["Gone"]
    client.delete_table(TableName="Gone")
    body, _ = report(worked)
    assert "scratch" not in [space["Name"] for space in json.loads(body)["Namespaces"]]


def test_report_on_exit_writes_the_text_report(tmp_path):
    target = tmp_path / "report.txt"
    server = DdbdProcess("--in-memory", "--report-on-exit", str(target)).start()
    try:
        client = server.client()
        client.create_table(TableName="Exit", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        client.put_item(TableName="Exit", Item={"pk": {"S": "a"}})
        served, _ = report(server, "?format=text")
        server.stop(signal.SIGTERM)
        assert target.read_text() == served
        assert "\nTable Exit (PAY_PER_REQUEST, 1 item, 3 B)\n  requests: PutItem 1\n" in served
    finally:
        server.cleanup()


def test_throttled_requests_are_counted_under_enforce_capacity():
    server = DdbdProcess("--in-memory", "--enforce-capacity").start()
    try:
        client = server.client()
        client.create_table(TableName="Tight", BillingMode="PROVISIONED",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                            ProvisionedThroughput={"ReadCapacityUnits": 1,
                                                   "WriteCapacityUnits": 1})
        assert server.control("PUT", "/ddbd/clock", {"Run": False})[0] == 200  # no refill
        for i in range(300):  # the burst: 300 seconds of one write unit
            client.put_item(TableName="Tight", Item={"pk": {"S": str(i)}})
        for _ in range(2):  # one request each (no SDK retries)
            status, _, body = raw_call(server.endpoint, "PutItem",
                                       {"TableName": "Tight", "Item": {"pk": {"S": "more"}}})
            assert (status, json.loads(body)["__type"].split("#")[1]) == (
                400, "ProvisionedThroughputExceededException")
        for _ in range(300):  # the read burst, then a throttled GetItem of another key
            client.get_item(TableName="Tight", Key={"pk": {"S": "7"}}, ConsistentRead=True)
        status, _, body = raw_call(server.endpoint, "GetItem",
                                   {"TableName": "Tight", "Key": {"pk": {"S": "9"}},
                                    "ConsistentRead": True})
        assert (status, json.loads(body)["__type"].split("#")[1]) == (
            400, "ProvisionedThroughputExceededException")
        tight = next(t for s in json.loads(report(server)[0])["Namespaces"]
                     for t in s["Tables"] if t["TableName"] == "Tight")
        assert tight["Operations"] == {"PutItem": 302, "GetItem": 301}
        assert (tight["Table"]["Writes"], tight["Table"]["WriteUnits"],
                tight["Table"]["Throttled"]) == (300, 300.0, 3)
        # The keys Contributor Insights' throttled-keys rule (PKT) would chart.
        assert tight["Table"]["HotPartitionsByThrottles"] == [
            {"Key": "more", "Units": 2, "Share": 2 / 3}, {"Key": "9", "Units": 1, "Share": 1 / 3}]
        text, _ = report(server, "?format=text")
        assert "; 3 requests throttled\n" in text
        assert ('\n  hot partition keys by throttles: "more" 67% (2 of 3 throttled requests), '
                '"9" 33% (1 of 3 throttled requests)\n') in text
    finally:
        server.cleanup()
