"""Global and local secondary indexes through boto3: the seed guides' index patterns,
maintenance on every write path, index reads, online creation with backfill, deletion."""
import random
import time
from decimal import Decimal

import pytest


def attr_defs(**types):
    return [{"AttributeName": name, "AttributeType": t} for name, t in types.items()]


def keys(hash_key, range_key=None):
    schema = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    if range_key:
        schema.append({"AttributeName": range_key, "KeyType": "RANGE"})
    return schema


def gsi(name, hash_key, range_key=None, projection="ALL", non_key=None):
    index = {"IndexName": name, "KeySchema": keys(hash_key, range_key),
             "Projection": {"ProjectionType": projection}}
    if non_key:
        index["Projection"]["NonKeyAttributes"] = non_key
    return index


@pytest.fixture
def shop(ddb):
    """The Elixir guide's Shop.Order schema: StatusIndex and TotalIndex (KEYS_ONLY)."""
    name = f"shop_{time.monotonic_ns()}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=keys("order_id"),
                     AttributeDefinitions=attr_defs(order_id="S", status="S", placed_at="S", total="N"),
                     GlobalSecondaryIndexes=[gsi("StatusIndex", "status", "placed_at"),
                                             gsi("TotalIndex", "status", "total", "KEYS_ONLY")])
    orders = [("o1", "paid", "2024-01-15T10:00:00Z", "99.5"), ("o2", "paid", "2024-01-16T10:00:00Z", "250"),
              ("o3", "paid", "2024-01-17T10:00:00Z", "1000"), ("o4", "pending", "2024-01-18T10:00:00Z", "120"),
              ("o5", "paid", "2024-01-19T10:00:00Z", "100")]
    for order_id, status, placed_at, total in orders:
        ddb.put_item(TableName=name, Item={"order_id": {"S": order_id}, "status": {"S": status},
                                           "placed_at": {"S": placed_at}, "total": {"N": total},
                                           "customer": {"S": "c1"}})
    return name


def test_numeric_gsi_sort_key_orders_numerically_and_projects_keys_only(ddb, shop):
    response = ddb.query(TableName=shop, IndexName="TotalIndex",
                         KeyConditionExpression="#s = :s AND #t > :t",
                         ExpressionAttributeNames={"#s": "status", "#t": "total"},
                         ExpressionAttributeValues={":s": {"S": "paid"}, ":t": {"N": "100"}})
    assert response["Items"] == [
        {"order_id": {"S": "o2"}, "status": {"S": "paid"}, "total": {"N": "250"}},
        {"order_id": {"S": "o3"}, "status": {"S": "paid"}, "total": {"N": "1000"}}]


def test_status_index_newest_first(ddb, shop):
    response = ddb.query(TableName=shop, IndexName="StatusIndex",
                         KeyConditionExpression="#s = :s AND placed_at >= :d",
                         ExpressionAttributeNames={"#s": "status"},
                         ExpressionAttributeValues={":s": {"S": "paid"}, ":d": {"S": "2024-01-16"}},
                         ScanIndexForward=False)
    assert [i["order_id"]["S"] for i in response["Items"]] == ["o5", "o3", "o2"]
    assert response["Items"][0]["customer"] == {"S": "c1"}  # ALL projection


def test_consistent_read_rejected_on_gsi(ddb, shop):
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.query(TableName=shop, IndexName="StatusIndex", ConsistentRead=True,
                  KeyConditionExpression="#s = :s", ExpressionAttributeNames={"#s": "status"},
                  ExpressionAttributeValues={":s": {"S": "paid"}})
    assert error.value.response["Error"]["Message"] == (
        "Consistent reads are not supported on global secondary indexes")


def test_select_all_attributes_rejected_on_keys_only_gsi(ddb, shop):
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.query(TableName=shop, IndexName="TotalIndex", Select="ALL_ATTRIBUTES",
                  KeyConditionExpression="#s = :s", ExpressionAttributeNames={"#s": "status"},
                  ExpressionAttributeValues={":s": {"S": "paid"}})
    assert error.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for "
        "global secondary index TotalIndex because its projection type is not ALL")


def test_projecting_attributes_a_gsi_does_not_hold_is_refused(ddb, shop):
    # A GSI read cannot fetch from the table: asking for an attribute the index does not
    # project is a ValidationException (recorded against DynamoDB in localstack#478), on
    # Query and Scan alike, with ProjectionExpression or AttributesToGet; index and table
    # keys, and nested paths below them, are projected.
    def refused(operation, **request):
        with pytest.raises(ddb.exceptions.ClientError) as error:
            getattr(ddb, operation)(TableName=shop, IndexName="TotalIndex", **request)
        return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]
    query = {"KeyConditionExpression": "#s = :s", "ExpressionAttributeValues": {":s": {"S": "paid"}}}
    assert refused("query", ProjectionExpression="order_id, #s, customer",
                   ExpressionAttributeNames={"#s": "status"}, **query) == (
        "ValidationException",
        "One or more parameter values were invalid: Global secondary index TotalIndex does not project "
        "[customer]")
    assert refused("scan", ProjectionExpression="customer.#n, placed_at, #t",
                   ExpressionAttributeNames={"#n": "name", "#t": "total"}) == (
        "ValidationException",
        "One or more parameter values were invalid: Global secondary index TotalIndex does not project "
        "[customer, placed_at]")
    assert refused("scan", AttributesToGet=["order_id", "placed_at"]) == (
        "ValidationException",
        "One or more parameter values were invalid: Global secondary index TotalIndex does not project "
        "[placed_at]")
    items = ddb.query(TableName=shop, IndexName="TotalIndex", ProjectionExpression="order_id, #t",
                      ExpressionAttributeNames={"#s": "status", "#t": "total"}, **query)["Items"]
    assert sorted(i["order_id"]["S"] for i in items) == ["o1", "o2", "o3", "o5"]
    # An ALL-projected GSI projects everything.
    items = ddb.query(TableName=shop, IndexName="StatusIndex", ProjectionExpression="customer",
                      ExpressionAttributeNames={"#s": "status"}, **query)["Items"]
    assert items == [{"customer": {"S": "c1"}}] * 4


def test_index_entries_follow_updates_deletes_and_batches(ddb, shop):
    def paid_ids():
        response = ddb.query(TableName=shop, IndexName="StatusIndex", KeyConditionExpression="#s = :s",
                             ExpressionAttributeNames={"#s": "status"},
                             ExpressionAttributeValues={":s": {"S": "paid"}})
        return [i["order_id"]["S"] for i in response["Items"]]
    assert paid_ids() == ["o1", "o2", "o3", "o5"]
    ddb.update_item(TableName=shop, Key={"order_id": {"S": "o4"}}, UpdateExpression="SET #s = :s",
                    ExpressionAttributeNames={"#s": "status"}, ExpressionAttributeValues={":s": {"S": "paid"}})
    assert paid_ids() == ["o1", "o2", "o3", "o4", "o5"]
    ddb.update_item(TableName=shop, Key={"order_id": {"S": "o1"}}, UpdateExpression="REMOVE placed_at")
    assert paid_ids() == ["o2", "o3", "o4", "o5"]  # o1 left StatusIndex, stays in TotalIndex
    ddb.delete_item(TableName=shop, Key={"order_id": {"S": "o2"}})
    ddb.batch_write_item(RequestItems={shop: [
        {"DeleteRequest": {"Key": {"order_id": {"S": "o3"}}}},
        {"PutRequest": {"Item": {"order_id": {"S": "o9"}, "status": {"S": "paid"},
                                 "placed_at": {"S": "2024-02-01"}, "total": {"N": "5"}}}}]})
    assert paid_ids() == ["o4", "o5", "o9"]
    table = ddb.describe_table(TableName=shop)["Table"]
    counts = {i["IndexName"]: i["ItemCount"] for i in table["GlobalSecondaryIndexes"]}
    assert counts == {"StatusIndex": 3, "TotalIndex": 4}


def test_index_key_type_is_checked_on_write(ddb, shop):
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.put_item(TableName=shop, Item={"order_id": {"S": "x"}, "total": {"S": "lots"}})
    assert error.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: Type mismatch for Index Key total Expected: N "
        "Actual: S IndexName: TotalIndex")
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.put_item(TableName=shop, Item={"order_id": {"S": "x"}, "status": {"S": ""}})
    assert error.value.response["Error"]["Message"] == (
        "One or more parameter values are not valid. A value specified for a secondary index key is "
        "not supported. The AttributeValue for a key attribute cannot contain an empty string value. "
        "IndexName: StatusIndex, IndexKey: status")
    assert "Item" not in ddb.get_item(TableName=shop, Key={"order_id": {"S": "x"}})


def test_gsi_overloading_and_sparse_index(ddb, table_factory):
    name = f"app_{time.monotonic_ns()}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=keys("PK", "SK"),
                     AttributeDefinitions=attr_defs(PK="S", SK="S", GSI1PK="S", GSI1SK="S", flagged="S"),
                     GlobalSecondaryIndexes=[gsi("GSI1", "GSI1PK", "GSI1SK"),
                                             gsi("Flagged", "flagged", None, "KEYS_ONLY")])
    items = [
        {"PK": "USER#1", "SK": "PROFILE", "GSI1PK": "ORG#acme", "GSI1SK": "USER#alice"},
        {"PK": "ORDER#9", "SK": "META", "GSI1PK": "ORG#acme", "GSI1SK": "ORDER#2024-01-01", "flagged": "yes"},
        {"PK": "INVOICE#3", "SK": "META", "GSI1PK": "ORG#acme", "GSI1SK": "INVOICE#003"},
        {"PK": "USER#2", "SK": "PROFILE", "GSI1PK": "ORG#other", "GSI1SK": "USER#bob"},
        {"PK": "USER#3", "SK": "PROFILE"},
    ]
    for item in items:
        ddb.put_item(TableName=name, Item={k: {"S": v} for k, v in item.items()})
    response = ddb.query(TableName=name, IndexName="GSI1", KeyConditionExpression="GSI1PK = :org",
                         ExpressionAttributeValues={":org": {"S": "ORG#acme"}})
    assert [i["GSI1SK"]["S"] for i in response["Items"]] == ["INVOICE#003", "ORDER#2024-01-01", "USER#alice"]
    users = ddb.query(TableName=name, IndexName="GSI1",
                      KeyConditionExpression="GSI1PK = :org AND begins_with(GSI1SK, :u)",
                      ExpressionAttributeValues={":org": {"S": "ORG#acme"}, ":u": {"S": "USER#"}})
    assert [i["PK"]["S"] for i in users["Items"]] == ["USER#1"]
    sparse = ddb.scan(TableName=name, IndexName="Flagged")
    assert sparse["Items"] == [{"PK": {"S": "ORDER#9"}, "SK": {"S": "META"}, "flagged": {"S": "yes"}}]
    ddb.delete_table(TableName=name)


def test_lsi_consistent_reads_and_fetching_non_projected_attributes(ddb):
    name = f"lsi_{time.monotonic_ns()}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=keys("PK", "SK"),
                     AttributeDefinitions=attr_defs(PK="S", SK="S", created="N"),
                     LocalSecondaryIndexes=[gsi("ByCreated", "PK", "created", "INCLUDE", ["title"])])
    for i, created in enumerate([30, 10, 20]):
        ddb.put_item(TableName=name, Item={"PK": {"S": "doc"}, "SK": {"S": f"s{i}"},
                                           "created": {"N": str(created)}, "title": {"S": f"t{i}"},
                                           "body": {"S": f"b{i}"}})
    response = ddb.query(TableName=name, IndexName="ByCreated", KeyConditionExpression="PK = :p",
                         ExpressionAttributeValues={":p": {"S": "doc"}}, ConsistentRead=True)
    assert [i["created"]["N"] for i in response["Items"]] == ["10", "20", "30"]
    assert "body" not in response["Items"][0] and response["Items"][0]["title"] == {"S": "t1"}
    fetched = ddb.query(TableName=name, IndexName="ByCreated", KeyConditionExpression="PK = :p",
                        ExpressionAttributeValues={":p": {"S": "doc"}}, ProjectionExpression="body, created")
    assert fetched["Items"] == [{"body": {"S": "b1"}, "created": {"N": "10"}},
                                {"body": {"S": "b2"}, "created": {"N": "20"}},
                                {"body": {"S": "b0"}, "created": {"N": "30"}}]
    page = ddb.query(TableName=name, IndexName="ByCreated", KeyConditionExpression="PK = :p",
                     ExpressionAttributeValues={":p": {"S": "doc"}}, Limit=1)
    assert page["LastEvaluatedKey"] == {"PK": {"S": "doc"}, "SK": {"S": "s1"}, "created": {"N": "10"}}
    rest = ddb.query(TableName=name, IndexName="ByCreated", KeyConditionExpression="PK = :p",
                     ExpressionAttributeValues={":p": {"S": "doc"}}, ExclusiveStartKey=page["LastEvaluatedKey"])
    assert [i["created"]["N"] for i in rest["Items"]] == ["20", "30"]
    lsis = ddb.describe_table(TableName=name)["Table"]["LocalSecondaryIndexes"]
    assert lsis[0]["IndexName"] == "ByCreated" and lsis[0]["ItemCount"] == 3
    assert lsis[0]["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]}
    ddb.delete_table(TableName=name)


def test_create_gsi_on_populated_table_while_writing(ddb):
    name = f"backfill_{time.monotonic_ns()}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=keys("pk"),
                     AttributeDefinitions=attr_defs(pk="S"))
    for start in range(0, 10000, 25):
        ddb.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "grp": {"S": f"g{i % 10}"}, "n": {"N": str(i)}}}}
            for i in range(start, start + 25)]})
    response = ddb.update_table(TableName=name, AttributeDefinitions=attr_defs(grp="S", n="N"),
                                GlobalSecondaryIndexUpdates=[{"Create": gsi("ByGroup", "grp", "n")}])
    created = response["TableDescription"]["GlobalSecondaryIndexes"][0]
    assert created["IndexStatus"] == "CREATING" and created["Backfilling"] is True
    # Writes go on while the index fills.
    for i in range(10000, 10050):
        ddb.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "grp": {"S": "g3"}, "n": {"N": str(i)}})
    ddb.delete_item(TableName=name, Key={"pk": {"S": "k3"}})
    ddb.update_item(TableName=name, Key={"pk": {"S": "k13"}}, UpdateExpression="SET grp = :g",
                    ExpressionAttributeValues={":g": {"S": "g4"}})
    deadline = time.monotonic() + 60
    while True:
        index = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
        if index["IndexStatus"] == "ACTIVE":
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert "Backfilling" not in index
    assert index["ItemCount"] == 10049
    ids = []
    for page in ddb.get_paginator("query").paginate(
            TableName=name, IndexName="ByGroup", KeyConditionExpression="grp = :g",
            ExpressionAttributeValues={":g": {"S": "g3"}}):
        ids += [int(i["n"]["N"]) for i in page["Items"]]
    expected = sorted([i for i in range(10000) if i % 10 == 3 and i not in (3, 13)] + list(range(10000, 10050)))
    assert ids == expected


def test_delete_gsi(ddb, shop):
    response = ddb.update_table(TableName=shop, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "TotalIndex"}}])
    statuses = {i["IndexName"]: i["IndexStatus"] for i in response["TableDescription"]["GlobalSecondaryIndexes"]}
    assert statuses == {"StatusIndex": "ACTIVE", "TotalIndex": "DELETING"}
    names = [i["IndexName"] for i in ddb.describe_table(TableName=shop)["Table"]["GlobalSecondaryIndexes"]]
    assert names == ["StatusIndex"]
    with pytest.raises(ddb.exceptions.ClientError) as error:
        ddb.query(TableName=shop, IndexName="TotalIndex", KeyConditionExpression="#s = :s",
                  ExpressionAttributeNames={"#s": "status"}, ExpressionAttributeValues={":s": {"S": "paid"}})
    assert error.value.response["Error"]["Message"] == "The table does not have the specified index: TotalIndex"


def test_one_online_index_operation_at_a_time(ddb, shop):
    with pytest.raises(ddb.exceptions.LimitExceededException) as error:
        ddb.update_table(TableName=shop, AttributeDefinitions=attr_defs(customer="S"),
                         GlobalSecondaryIndexUpdates=[{"Create": gsi("ByCustomer", "customer")},
                                                      {"Delete": {"IndexName": "TotalIndex"}}])
    assert error.value.response["Error"]["Message"] == (
        "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")


def test_randomized_model(ddb):
    """Random writes on a table with two GSIs and an LSI; after each step every index equals
    the one recomputed from the table's contents."""
    name = f"model_{time.monotonic_ns()}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=keys("pk", "sk"),
                     AttributeDefinitions=attr_defs(pk="S", sk="S", a="S", b="N", c="S"),
                     GlobalSecondaryIndexes=[gsi("IdxA", "a", "b"), gsi("IdxC", "c", None, "KEYS_ONLY")],
                     LocalSecondaryIndexes=[gsi("LocA", "pk", "a", "INCLUDE", ["b"])])
    rng = random.Random(7)

    def random_item():
        item = {"pk": {"S": f"p{rng.randrange(3)}"}, "sk": {"S": f"s{rng.randrange(6)}"}}
        if rng.random() < 0.7:
            item["a"] = {"S": rng.choice(["x", "y", "z"])}
        if rng.random() < 0.7:
            item["b"] = {"N": str(rng.randrange(5))}
        if rng.random() < 0.5:
            item["c"] = {"S": rng.choice(["u", "v"])}
        return item

    def index_contents(index):
        items = []
        for page in ddb.get_paginator("scan").paginate(TableName=name, IndexName=index):
            items += page["Items"]
        return sorted(items, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))

    def expected(index):
        rows = ddb.scan(TableName=name, ConsistentRead=True)["Items"]
        key_attrs = {"IdxA": ["a", "b"], "IdxC": ["c"], "LocA": ["a"]}[index]
        projected = {"IdxA": None, "IdxC": ["pk", "sk", "c"], "LocA": ["pk", "sk", "a", "b"]}[index]
        result = [r if projected is None else {k: v for k, v in r.items() if k in projected}
                  for r in rows if all(k in r for k in key_attrs)]
        return sorted(result, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))

    for step in range(60):
        op = rng.random()
        item = random_item()
        if op < 0.5:
            ddb.put_item(TableName=name, Item=item)
        elif op < 0.7:
            ddb.delete_item(TableName=name, Key={"pk": item["pk"], "sk": item["sk"]})
        elif op < 0.9:
            action = rng.choice(["SET a = :v", "REMOVE a", "SET b = :n", "REMOVE c", "SET c = :c"])
            values = {":v": {"S": "y"}} if ":v" in action else {":n": {"N": "3"}} if ":n" in action else \
                {":c": {"S": "v"}} if ":c" in action else None
            kwargs = {"ExpressionAttributeValues": values} if values else {}
            ddb.update_item(TableName=name, Key={"pk": item["pk"], "sk": item["sk"]},
                            UpdateExpression=action, **kwargs)
        else:
            ddb.batch_write_item(RequestItems={name: [{"PutRequest": {"Item": random_item() | {"sk": {"S": f"b{k}"}}}}
                                                      for k in range(3)]})
        for index in ("IdxA", "IdxC", "LocA"):
            assert index_contents(index) == expected(index), (step, index)
    ddb.delete_table(TableName=name)


def test_index_declaration_errors(raw):
    base = {"TableName": "IdxErrors", "BillingMode": "PAY_PER_REQUEST", "KeySchema": keys("pk", "sk"),
            "AttributeDefinitions": attr_defs(pk="S", sk="S", g="S")}
    cases = [
        ({"GlobalSecondaryIndexes": []},
         "One or more parameter values were invalid: List of GlobalSecondaryIndexes is empty"),
        ({"GlobalSecondaryIndexes": [gsi("Gsi1", "undefined")]},
         "One or more parameter values were invalid: Some index key attributes are not defined in "
         "AttributeDefinitions. Keys: [undefined], AttributeDefinitions: [pk, sk, g]"),
        ({"GlobalSecondaryIndexes": [gsi("Gsi1", "g"), gsi("Gsi1", "g")]},
         "One or more parameter values were invalid: Duplicate index name: Gsi1"),
        ({"GlobalSecondaryIndexes": [gsi("Gsi1", "g", None, "KEYS_ONLY", ["x"])]},
         "One or more parameter values were invalid: ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified"),
        ({"GlobalSecondaryIndexes": [{**gsi("Gsi1", "g"), "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}]},
         "One or more parameter values were invalid: ProvisionedThroughput should not be specified for "
         "index: Gsi1 when BillingMode is PAY_PER_REQUEST"),
        ({"LocalSecondaryIndexes": [gsi("Lsi1", "g", "sk")]},
         "One or more parameter values were invalid: Index KeySchema does not have the same leading hash "
         "key as table KeySchema for index: Lsi1. index hash key: g, table hash key: pk"),
        ({"LocalSecondaryIndexes": [gsi("Lsi1", "pk")]},
         "One or more parameter values were invalid: Index KeySchema does not have a range key for index: Lsi1"),
        ({"GlobalSecondaryIndexes": [gsi(f"Gsi{i}", "g") for i in range(21)]},
         "One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20"),
        ({"LocalSecondaryIndexes": [gsi(f"Lsi{i}", "pk", "g") for i in range(6)]},
         "One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of 5"),
        ({"GlobalSecondaryIndexes": [gsi("Gsi1", "pk")]},
         "One or more parameter values were invalid: Some AttributeDefinitions are not used. "
         "AttributeDefinitions: [pk, sk, g], keys used: [pk, sk]"),
    ]
    for extra, message in cases:
        status, name, actual, _ = raw("CreateTable", {**base, **extra})
        assert (status, name, actual) == (400, "ValidationException", message), extra
    no_range = {**base, "KeySchema": keys("pk"), "AttributeDefinitions": attr_defs(pk="S", g="S"),
                "LocalSecondaryIndexes": [gsi("Lsi1", "pk", "g")]}
    status, name, actual, _ = raw("CreateTable", no_range)
    assert actual == ("One or more parameter values were invalid: Table KeySchema does not have a "
                      "range key, which is required when specifying a LocalSecondaryIndex")


def test_item_collection_metrics_and_limit():
    from conftest import DdbdProcess
    server = DdbdProcess("--item-collection-limit-bytes", "2000").start()
    try:
        ddb = server.client()
        ddb.create_table(TableName="Collections", BillingMode="PAY_PER_REQUEST", KeySchema=keys("pk", "sk"),
                         AttributeDefinitions=attr_defs(pk="S", sk="S", lsk="S"),
                         LocalSecondaryIndexes=[gsi("ByLsk", "pk", "lsk", "KEYS_ONLY")])
        put = ddb.put_item(TableName="Collections", ReturnItemCollectionMetrics="SIZE",
                           Item={"pk": {"S": "p"}, "sk": {"S": "1"}, "lsk": {"S": "a"}, "d": {"S": "x" * 500}})
        assert put["ItemCollectionMetrics"] == {"ItemCollectionKey": {"pk": {"S": "p"}},
                                                "SizeEstimateRangeGB": [0.0, 1.0]}
        # Item (~513 bytes) plus its LSI entry (~7 bytes) each time: the fourth passes 2,000.
        for sk in ("2", "3"):
            ddb.put_item(TableName="Collections",
                         Item={"pk": {"S": "p"}, "sk": {"S": sk}, "lsk": {"S": "a"}, "d": {"S": "x" * 500}})
        with pytest.raises(ddb.exceptions.ItemCollectionSizeLimitExceededException) as error:
            ddb.put_item(TableName="Collections",
                         Item={"pk": {"S": "p"}, "sk": {"S": "4"}, "lsk": {"S": "a"}, "d": {"S": "x" * 500}})
        assert error.value.response["Error"]["Message"] == (
            "Item collection size limit exceeded. Reduce the size of the item collection, or remove the LSI.")
        # Other partitions, and shrinking writes, are not affected.
        ddb.put_item(TableName="Collections", Item={"pk": {"S": "q"}, "sk": {"S": "1"}, "d": {"S": "x" * 500}})
        deleted = ddb.delete_item(TableName="Collections", Key={"pk": {"S": "p"}, "sk": {"S": "1"}},
                                  ReturnItemCollectionMetrics="SIZE")
        assert deleted["ItemCollectionMetrics"]["ItemCollectionKey"] == {"pk": {"S": "p"}}
        ddb.put_item(TableName="Collections",
                     Item={"pk": {"S": "p"}, "sk": {"S": "4"}, "lsk": {"S": "a"}, "d": {"S": "x" * 500}})
        batch = ddb.batch_write_item(ReturnItemCollectionMetrics="SIZE", RequestItems={"Collections": [
            {"PutRequest": {"Item": {"pk": {"S": "r"}, "sk": {"S": "1"}}}}]})
        assert batch["ItemCollectionMetrics"]["Collections"][0]["ItemCollectionKey"] == {"pk": {"S": "r"}}
    finally:
        server.cleanup()


def test_parallel_scan_of_an_index_and_drop_with_table(ddb, shop):
    seen = []
    for segment in range(3):
        response = ddb.scan(TableName=shop, IndexName="StatusIndex", Segment=segment, TotalSegments=3)
        seen += [i["order_id"]["S"] for i in response["Items"]]
    assert sorted(seen) == ["o1", "o2", "o3", "o4", "o5"]
    ddb.delete_table(TableName=shop)
    ddb.create_table(TableName=shop, BillingMode="PAY_PER_REQUEST", KeySchema=keys("order_id"),
                     AttributeDefinitions=attr_defs(order_id="S", status="S", placed_at="S"),
                     GlobalSecondaryIndexes=[gsi("StatusIndex", "status", "placed_at")])
    assert ddb.scan(TableName=shop, IndexName="StatusIndex")["Items"] == []


def test_projected_attribute_budget(raw):
    names = [f"attr{i}" for i in range(20)]
    indexes = [gsi(f"Budget{i}", "g", None, "INCLUDE", names) for i in range(6)]
    status, name, message, _ = raw("CreateTable", {
        "TableName": "Budget", "BillingMode": "PAY_PER_REQUEST", "KeySchema": keys("pk"),
        "AttributeDefinitions": attr_defs(pk="S", g="S"), "GlobalSecondaryIndexes": indexes})
    assert (status, name, message) == (
        400, "ValidationException",
        "One or more parameter values were invalid: Number of projected attributes in all indexes "
        "exceeds limit of 100")


def test_multi_attribute_gsi_keys(raw, ddb):
    """A GSI keyed on tournament+region (partition) and round+bracket (sort), as DynamoDB's
    multi-attribute keys allow (over raw HTTP: Debian's botocore predates them)."""
    status, _, message, body = raw("CreateTable", {
        "TableName": "Matches", "BillingMode": "PAY_PER_REQUEST", "KeySchema": keys("matchId"),
        "AttributeDefinitions": attr_defs(matchId="S", tournamentId="S", region="S", round="N", bracket="S"),
        "GlobalSecondaryIndexes": [{"IndexName": "ByTournamentRegion", "Projection": {"ProjectionType": "ALL"},
                                    "KeySchema": [{"AttributeName": "tournamentId", "KeyType": "HASH"},
                                                  {"AttributeName": "region", "KeyType": "HASH"},
                                                  {"AttributeName": "round", "KeyType": "RANGE"},
                                                  {"AttributeName": "bracket", "KeyType": "RANGE"}]}]})
    assert status == 200, message
    assert body["TableDescription"]["GlobalSecondaryIndexes"][0]["KeySchema"] == [
        {"AttributeName": "tournamentId", "KeyType": "HASH"}, {"AttributeName": "region", "KeyType": "HASH"},
        {"AttributeName": "round", "KeyType": "RANGE"}, {"AttributeName": "bracket", "KeyType": "RANGE"}]
    matches = [("m1", "WINTER", "NA", 1, "UPPER"), ("m2", "WINTER", "NA", 1, "LOWER"),
               ("m3", "WINTER", "NA", 2, "UPPER"), ("m4", "WINTER", "EU", 1, "UPPER"),
               ("m5", "SUMMER", "NA", 1, "UPPER"), ("m6", "WINTER", "NA", 10, "FINAL")]
    for match_id, tournament, region, round_, bracket in matches:
        ddb.put_item(TableName="Matches", Item={"matchId": {"S": match_id}, "tournamentId": {"S": tournament},
                                                "region": {"S": region}, "round": {"N": str(round_)},
                                                "bracket": {"S": bracket}})
    ddb.put_item(TableName="Matches", Item={"matchId": {"S": "m7"}, "tournamentId": {"S": "WINTER"},
                                            "region": {"S": "NA"}})  # no sort attributes: not indexed

    def query(expression, values, **extra):
        names = {k: v for k, v in {"#r": "round", "#g": "region"}.items() if k in expression}
        status, name, message, body = raw("Query", {
            "TableName": "Matches", "IndexName": "ByTournamentRegion", "KeyConditionExpression": expression,
            "ExpressionAttributeNames": names, "ExpressionAttributeValues": values, **extra})
        if status != 200:
            return message
        return [i["matchId"]["S"] for i in body["Items"]]

    v = {":t": {"S": "WINTER"}, ":g": {"S": "NA"}}
    assert query("tournamentId = :t AND #g = :g AND #r >= :x", {**v, ":x": {"N": "0"}}) == ["m2", "m1", "m3", "m6"]
    assert query("tournamentId = :t AND #g = :g", v) == ["m2", "m1", "m3", "m6"]
    assert query("tournamentId = :t AND #g = :g AND #r = :one AND begins_with(bracket, :u)",
                 {**v, ":one": {"N": "1"}, ":u": {"S": "UP"}}) == ["m1"]
    assert query("tournamentId = :t AND #g = :g AND #r BETWEEN :a AND :b",
                 {**v, ":a": {"N": "2"}, ":b": {"N": "10"}}, ScanIndexForward=False) == ["m6", "m3"]
    assert query("tournamentId = :t AND #g = :g AND #r = :one", {**v, ":one": {"N": "1"}}, Limit=1) == ["m2"]
    assert query("tournamentId = :t AND #r = :one", {":t": {"S": "WINTER"}, ":one": {"N": "1"}}) == (
        "Query condition missed key schema element: region")
    assert query("tournamentId = :t AND #g = :g AND bracket = :u", {**v, ":u": {"S": "UPPER"}}) == (
        "RANGE key attributes round must have equality conditions specified in the query because a "
        "condition is present on key attribute bracket")
    assert query("tournamentId = :t AND #g = :g AND #r > :one AND bracket = :u",
                 {**v, ":one": {"N": "1"}, ":u": {"S": "UPPER"}}) == (
        "RANGE key attributes round must have equality conditions specified in the query because a "
        "condition is present on key attribute bracket")
    assert query("tournamentId = :t AND #g > :g", v) == "Query key condition not supported"
    # Paging resumes inside the composite order.
    status, _, _, first = raw("Query", {"TableName": "Matches", "IndexName": "ByTournamentRegion",
                                        "KeyConditionExpression": "tournamentId = :t AND #g = :g",
                                        "ExpressionAttributeNames": {"#g": "region"},
                                        "ExpressionAttributeValues": v, "Limit": 2})
    assert first["LastEvaluatedKey"] == {"matchId": {"S": "m1"}, "tournamentId": {"S": "WINTER"},
                                         "region": {"S": "NA"}, "round": {"N": "1"}, "bracket": {"S": "UPPER"}}
    status, _, _, rest = raw("Query", {"TableName": "Matches", "IndexName": "ByTournamentRegion",
                                       "KeyConditionExpression": "tournamentId = :t AND #g = :g",
                                       "ExpressionAttributeNames": {"#g": "region"},
                                       "ExpressionAttributeValues": v,
                                       "ExclusiveStartKey": first["LastEvaluatedKey"]})
    assert [i["matchId"]["S"] for i in rest["Items"]] == ["m3", "m6"]
    ddb.update_item(TableName="Matches", Key={"matchId": {"S": "m3"}}, UpdateExpression="SET #g = :eu",
                    ExpressionAttributeNames={"#g": "region"}, ExpressionAttributeValues={":eu": {"S": "EU"}})
    assert query("tournamentId = :t AND #g = :g", {":t": {"S": "WINTER"}, ":g": {"S": "EU"}}) == ["m4", "m3"]

    five = [{"AttributeName": f"h{i}", "KeyType": "HASH"} for i in range(5)]
    status, name, message, _ = raw("CreateTable", {
        "TableName": "TooMany", "BillingMode": "PAY_PER_REQUEST", "KeySchema": keys("pk"),
        "AttributeDefinitions": attr_defs(pk="S", **{f"h{i}": "S" for i in range(5)}),
        "GlobalSecondaryIndexes": [{"IndexName": "Five", "KeySchema": five,
                                    "Projection": {"ProjectionType": "ALL"}}]})
    assert (status, name) == (400, "ValidationException")
    lsi = raw("CreateTable", {
        "TableName": "LsiMulti", "BillingMode": "PAY_PER_REQUEST", "KeySchema": keys("pk", "sk"),
        "AttributeDefinitions": attr_defs(pk="S", sk="S", a="S", b="S"),
        "LocalSecondaryIndexes": [{"IndexName": "Multi", "Projection": {"ProjectionType": "ALL"},
                                   "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                 {"AttributeName": "a", "KeyType": "RANGE"},
                                                 {"AttributeName": "b", "KeyType": "RANGE"}]}]})
    assert lsi[:3] == (400, "ValidationException",
                       "1 validation error detected: Value '[...]' at 'localSecondaryIndexes.1.member.keySchema' "
                       "failed to satisfy constraint: Member must have length less than or equal to 2")


def test_consumed_capacity_counts_index_writes_and_reads(ddb):
    """DynamoDB's index write rules: an entry put or removed costs its size in 1 KB units, a
    changed index key costs a delete and a put, a changed projection one write, an index the
    write leaves alone nothing; index reads consume the index's capacity, not the table's."""
    name = "CapacityIndexes"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=keys("PK", "SK"),
        AttributeDefinitions=attr_defs(PK="S", SK="S", g="S", l="S"),
        GlobalSecondaryIndexes=[gsi("ByG", "g", projection="KEYS_ONLY")],
        LocalSecondaryIndexes=[{"IndexName": "ByL", "KeySchema": keys("PK", "l"),
                                "Projection": {"ProjectionType": "ALL"}}])
    key = {"PK": {"S": "a"}, "SK": {"S": "1"}}

    def capacity(response):
        consumed = response["ConsumedCapacity"]
        return (consumed["CapacityUnits"], consumed["Table"]["CapacityUnits"],
                {n: c["CapacityUnits"] for n, c in consumed.get("GlobalSecondaryIndexes", {}).items()},
                {n: c["CapacityUnits"] for n, c in consumed.get("LocalSecondaryIndexes", {}).items()})

    def update(expression, values=None):
        extra = {"ExpressionAttributeValues": values} if values else {}
        return ddb.update_item(TableName=name, Key=key, UpdateExpression=expression,
                               ReturnConsumedCapacity="INDEXES", **extra)

    put = ddb.put_item(TableName=name, Item={**key, "g": {"S": "x"}, "l": {"S": "y"},
                                             "data": {"S": "small"}},
                       ReturnConsumedCapacity="INDEXES")
    assert capacity(put) == (3.0, 1.0, {"ByG": 1.0}, {"ByL": 1.0})
    # `data` is not in the KEYS_ONLY GSI, but the ALL-projected LSI holds it.
    assert capacity(update("SET data_v2 = :d", {":d": {"S": "new"}})) == (2.0, 1.0, {},
                                                                          {"ByL": 1.0})
    # A new GSI key: the old entry is deleted and a new one put.
    assert capacity(update("SET g = :g", {":g": {"S": "z"}})) == (4.0, 1.0, {"ByG": 2.0},
                                                                   {"ByL": 1.0})
    assert capacity(update("REMOVE g")) == (3.0, 1.0, {"ByG": 1.0}, {"ByL": 1.0})
    # A large item: an ALL-projected entry costs as many units as the item.
    big = ddb.put_item(TableName=name, Item={**key, "l": {"S": "y"}, "blob": {"S": "b" * 2500}},
                       ReturnConsumedCapacity="INDEXES")
    assert capacity(big) == (6.0, 3.0, {}, {"ByL": 3.0})
    total = ddb.delete_item(TableName=name, Key=key, ReturnConsumedCapacity="TOTAL")
    assert total["ConsumedCapacity"] == {"TableName": name, "CapacityUnits": 6.0,
                                         "WriteCapacityUnits": 6.0}
    ddb.put_item(TableName=name, Item={**key, "g": {"S": "x"}})
    query = ddb.query(TableName=name, IndexName="ByG", KeyConditionExpression="g = :g",
                      ExpressionAttributeValues={":g": {"S": "x"}}, ReturnConsumedCapacity="INDEXES")
    assert capacity(query) == (0.5, 0.0, {"ByG": 0.5}, {})
    table_query = ddb.query(TableName=name, KeyConditionExpression="PK = :p",
                            ExpressionAttributeValues={":p": {"S": "a"}},
                            ReturnConsumedCapacity="INDEXES")
    assert capacity(table_query) == (0.5, 0.5, {}, {})
