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
