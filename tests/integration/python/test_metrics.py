"""GET /metrics after a known workload, read with the Prometheus project's own text-format
parser (Debian's python3-prometheus-client): exact request counts by operation and outcome,
latency histograms, table figures that match DescribeTable's, storage and process gauges."""
import time
import urllib.request

import botocore.exceptions
import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import DdbdProcess, raw_call


@pytest.fixture
def fresh():
    process = DdbdProcess().start()
    yield process
    process.cleanup()


def scrape(server):
    with urllib.request.urlopen(server.endpoint + "/metrics", timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
        text = response.read().decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


def samples(family, name=None):
    """{frozenset(labels): value} of the family's samples called `name` (default: its own)."""
    return {frozenset(s.labels.items()): s.value for s in family.samples
            if s.name == (name or family.name)}


def make_table(client, name):
    client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])


def test_requests_latencies_tables_storage_and_process(fresh):
    client = fresh.client()
    make_table(client, "Metrics")
    for key in ("a", "b", "c"):
        client.put_item(TableName="Metrics", Item={"pk": {"S": key}, "payload": {"S": "x" * 100}})
    with pytest.raises(botocore.exceptions.ClientError) as failed:
        client.put_item(TableName="Metrics", Item={"pk": {"S": "a"}},
                        ConditionExpression="attribute_not_exists(pk)")
    assert failed.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    for key in ("a", "zz"):
        client.get_item(TableName="Metrics", Key={"pk": {"S": key}})
    with pytest.raises(botocore.exceptions.ClientError):
        client.get_item(TableName="Nope", Key={"pk": {"S": "a"}})
    other = fresh.client(namespace="team-a")
    make_table(other, "Metrics")
    other.put_item(TableName="Metrics", Item={"pk": {"S": "only"}})
    described = client.describe_table(TableName="Metrics")["Table"]

    families = scrape(fresh)
    requests = families["ddbd_requests"]  # the parser drops a counter's _total
    assert requests.type == "counter"
    counts = {(dict(labels)["operation"], dict(labels)["outcome"]): value
              for labels, value in samples(requests, "ddbd_requests_total").items()}
    assert counts == {
        ("CreateTable", "ok"): 2, ("DescribeTable", "ok"): 1,
        ("GetItem", "ok"): 2, ("GetItem", "ResourceNotFoundException"): 1,
        ("PutItem", "ok"): 4, ("PutItem", "ConditionalCheckFailedException"): 1,
    }

    latency = families["ddbd_request_duration_seconds"]
    assert latency.type == "histogram"
    puts = {float(dict(labels)["le"]): value for labels, value in
            samples(latency, "ddbd_request_duration_seconds_bucket").items()
            if dict(labels)["operation"] == "PutItem"}
    bounds = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
              1, 2.5, float("inf")]
    assert sorted(puts) == bounds
    cumulative = [puts[le] for le in bounds]
    assert cumulative == sorted(cumulative) and cumulative[-1] == 5
    put_labels = frozenset({("operation", "PutItem")})
    assert samples(latency, "ddbd_request_duration_seconds_count")[put_labels] == 5
    assert 0 < samples(latency, "ddbd_request_duration_seconds_sum")[put_labels] < 5

    items = samples(families["ddbd_table_items"])
    sizes = samples(families["ddbd_table_size_bytes"])
    default = frozenset({("namespace", "default"), ("table", "Metrics")})
    team = frozenset({("namespace", "team-a"), ("table", "Metrics")})
    assert items == {default: 3, team: 1}
    assert described["ItemCount"] == 3
    assert sizes[default] == described["TableSizeBytes"]
    assert sizes[team] == len("pk") + len("only")

    assert families["ddbd_open_connections"].samples[0].value >= 1
    for name in ("memtable_bytes", "block_cache_bytes", "pending_compaction_bytes",
                 "running_compactions", "table_file_bytes", "wal_bytes"):
        family = families["ddbd_storage_" + name]
        assert family.type == "gauge" and family.samples[0].value >= 0, name
    assert families["ddbd_storage_memtable_bytes"].samples[0].value > 0
    assert families["ddbd_storage_wal_bytes"].samples[0].value > 4 * 100  # the puts are logged
    assert families["ddbd_process_resident_memory_bytes"].samples[0].value > 1 << 20

    # A scrape is not an API request: the counts stay as they were.
    assert samples(scrape(fresh)["ddbd_requests"], "ddbd_requests_total") == samples(
        requests, "ddbd_requests_total")


def test_stream_records_ttl_deletions_and_vector_searches(fresh):
    client = fresh.client()
    client.create_table(TableName="Streamed", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        StreamSpecification={"StreamEnabled": True,
                                             "StreamViewType": "NEW_AND_OLD_IMAGES"})
    for key in ("a", "b"):
        client.put_item(TableName="Streamed", Item={"pk": {"S": key}})
    client.delete_item(TableName="Streamed", Key={"pk": {"S": "a"}})

    make_table(client, "Expiring")
    client.update_time_to_live(TableName="Expiring", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expireAt"})
    client.put_item(TableName="Expiring", Item={"pk": {"S": "old"},
                                                "expireAt": {"N": str(int(time.time()) - 100)}})
    client.put_item(TableName="Expiring", Item={"pk": {"S": "new"},
                                                "expireAt": {"N": "99999999999"}})
    status, _ = fresh.control("POST", "/ddbd/ttl/sweep")  # (or the periodic pass before it)
    assert status == 200
    assert "Item" not in client.get_item(TableName="Expiring", Key={"pk": {"S": "old"}})

    index = {"IndexName": "Semantic", "VectorAttribute": {"AttributeName": "embedding"},
             "Dimensions": 2, "DistanceFunction": "COSINE",
             "Projection": {"ProjectionType": "KEYS_ONLY"}}
    status, _, body = raw_call(fresh.endpoint, "CreateTable", {
        "TableName": "Vectors", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "VectorIndexes": [index]})
    assert status == 200, body
    for _ in range(2):
        status, _, body = raw_call(fresh.endpoint, "SearchVectors", {
            "TableName": "Vectors", "IndexName": "Semantic", "TopK": 1,
            "SearchVector": [{"N": "1"}, {"N": "0"}]})
        assert status == 200, body

    families = scrape(fresh)
    assert families["ddbd_stream_records"].samples[0].value == 3
    assert families["ddbd_ttl_deletions"].samples[0].value == 1
    assert families["ddbd_vector_searches"].samples[0].value == 2


def consumed(families, family_name):
    """{(table, index or None): value} of a consumption family, default namespace only."""
    values = {}
    for labels, value in samples(families[family_name], family_name + "_total").items():
        labels = dict(labels)
        if labels["namespace"] == "default":
            values[(labels["table"], labels.get("index"))] = value
    return values


def test_consumed_units_items_and_bytes_per_table_and_index(fresh):
    """Each figure derived from DynamoDB's metering rules: a write costs a unit per started KB
    of the larger of the old and new images (a failed condition, of the item that is there),
    twice in a transaction; a read half a unit per started 4 KB eventually consistent, one
    strongly, twice in a transaction; a GSI pays for its own entries. The figures must also
    equal the sum of what the responses' ConsumedCapacity reported."""
    client = fresh.client()
    client.create_table(
        TableName="Metered", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("pk", "sk", "color")],
        GlobalSecondaryIndexes=[{"IndexName": "ByColor",
                                 "KeySchema": [{"AttributeName": "color", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    make_table(client, "Untouched")
    reported = {"read": {}, "write": {}}

    def report(kind, response):
        entries = response.get("ConsumedCapacity", [])
        for entry in entries if isinstance(entries, list) else [entries]:
            table = reported[kind]
            key = (entry["TableName"], None)
            table[key] = table.get(key, 0) + entry.get("Table", {}).get("CapacityUnits", 0)
            for index, figure in entry.get("GlobalSecondaryIndexes", {}).items():
                key = (entry["TableName"], index)
                table[key] = table.get(key, 0) + figure["CapacityUnits"]

    big = {"pk": {"S": "a"}, "sk": {"S": "1"}, "color": {"S": "red"},
           "payload": {"S": "x" * 1500}}  # 3 + 3 + 8 + 1507 = 1,521 bytes
    small = {"pk": {"S": "a"}, "sk": {"S": "2"}, "payload": {"S": "y" * 100}}  # 113 bytes
    indexes = {"ReturnConsumedCapacity": "INDEXES"}
    report("write", client.put_item(TableName="Metered", Item=big, **indexes))      # 2 + GSI 2
    report("write", client.put_item(TableName="Metered", Item=small, **indexes))    # 1
    key_a1 = {"pk": {"S": "a"}, "sk": {"S": "1"}}
    report("read", client.get_item(TableName="Metered", Key=key_a1, **indexes))     # 0.5
    report("read", client.get_item(TableName="Metered", Key=key_a1, ConsistentRead=True,
                                   **indexes))                                      # 1
    report("read", client.get_item(TableName="Metered", Key={"pk": {"S": "none"},
                                                              "sk": {"S": "1"}},
                                   **indexes))                                      # 0.5
    report("read", client.query(TableName="Metered", KeyConditionExpression="pk = :a",
                                ExpressionAttributeValues={":a": {"S": "a"}},
                                ConsistentRead=True, **indexes))  # 1,634 bytes: 1
    report("read", client.query(TableName="Metered", IndexName="ByColor",
                                KeyConditionExpression="color = :red",
                                ExpressionAttributeValues={":red": {"S": "red"}},
                                **indexes))                                         # GSI 0.5
    report("write", client.delete_item(TableName="Metered", Key={"pk": {"S": "a"},
                                                                  "sk": {"S": "2"}},
                                       **indexes))                                  # 1
    with pytest.raises(botocore.exceptions.ClientError) as failed:  # the 1,521 bytes there: 2
        client.put_item(TableName="Metered", Item=key_a1,
                        ConditionExpression="attribute_not_exists(pk)")
    assert failed.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    report("write", client.transact_write_items(TransactItems=[
        {"Put": {"TableName": "Metered", "Item": {"pk": {"S": "b"}, "sk": {"S": "1"}}}},  # 2
        {"ConditionCheck": {"TableName": "Metered", "Key": key_a1,
                            "ConditionExpression": "attribute_exists(pk)"}}],          # 4
        **indexes))
    report("write", client.batch_write_item(RequestItems={"Metered": [
        {"PutRequest": {"Item": {"pk": {"S": "c"}, "sk": {"S": str(n)}}}} for n in (1, 2)]},
        **indexes))                                                                 # 1 + 1
    report("read", client.transact_get_items(TransactItems=[
        {"Get": {"TableName": "Metered", "Key": key_a1}}], **indexes))              # 2
    report("read", client.batch_get_item(RequestItems={"Metered": {"Keys": [
        key_a1, {"pk": {"S": "zz"}, "sk": {"S": "1"}}]}}, **indexes))               # 0.5 + 0.5

    families = scrape(fresh)
    read_units = consumed(families, "ddbd_consumed_read_units")
    write_units = consumed(families, "ddbd_consumed_write_units")
    assert families["ddbd_consumed_read_units"].type == "counter"
    assert read_units == {("Metered", None): 6.0, ("Metered", "ByColor"): 0.5,
                          ("Untouched", None): 0.0}
    assert write_units == {("Metered", None): 14.0, ("Metered", "ByColor"): 2.0,
                           ("Untouched", None): 0.0}
    # The responses agree, the failed conditional write aside (its answer is an error).
    assert reported["read"] == {("Metered", None): 6.0, ("Metered", "ByColor"): 0.5}
    assert reported["write"] == {("Metered", None): 12.0, ("Metered", "ByColor"): 2.0}

    assert consumed(families, "ddbd_read_items") == {
        ("Metered", None): 6, ("Metered", "ByColor"): 1, ("Untouched", None): 0}
    assert consumed(families, "ddbd_read_bytes") == {
        ("Metered", None): 2 * 1521 + 1634 + 1521 + 1521, ("Metered", "ByColor"): 1521,
        ("Untouched", None): 0}
    # Puts, the delete and the batch's puts; the condition check and the failed put write
    # nothing. The GSI gets the big item's entry.
    assert consumed(families, "ddbd_written_items") == {
        ("Metered", None): 6, ("Metered", "ByColor"): 1, ("Untouched", None): 0}
    assert consumed(families, "ddbd_written_bytes") == {
        ("Metered", None): 1521 + 113 + 0 + 6 + 6 + 6, ("Metered", "ByColor"): 0,
        ("Untouched", None): 0}

    # A dropped table's series go with it.
    client.delete_table(TableName="Metered")
    assert set(consumed(scrape(fresh), "ddbd_consumed_read_units")) == {("Untouched", None)}


def test_an_index_backfill_reports_its_progress_in_metrics_and_log():
    from test_background_recovery import by_group_index, index_statuses, load, wait_for
    from test_logging import Drained, finished_progress
    process = DdbdProcess("--log-level", "debug", "--log-format", "json").start()
    try:
        log = Drained(process)
        client = process.client()
        client.create_table(TableName="Filling", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        load(client, "Filling", 20000)
        client.update_table(
            TableName="Filling",
            AttributeDefinitions=[{"AttributeName": "group", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": by_group_index()}])
        labels = frozenset({("namespace", "default"), ("table", "Filling"),
                            ("index", "ByGroup")})
        seen = []  # (done, total) while the backfill runs
        while index_statuses(client, "Filling") != {"ByGroup": "ACTIVE"}:
            families = scrape(process)
            done = samples(families["ddbd_index_backfill_items_done"]).get(labels)
            if done is not None:
                seen.append((done, samples(families["ddbd_index_backfill_items_total"])[labels]))
        assert seen, "no scrape saw the backfill under way"
        assert all(total == 20000 and 0 <= done <= 20000 for done, total in seen), seen
        assert [done for done, _ in seen] == sorted(done for done, _ in seen)
        # Once ACTIVE, it is no longer under way.
        assert samples(scrape(process)["ddbd_index_backfill_items_done"]) == {}

        finished = finished_progress(log, "backfill", 20000)
        assert (finished["table"], finished["index"]) == ("Filling", "ByGroup")
        assert "namespace" not in finished
    finally:
        process.cleanup()
