"""Query and Scan through boto3: key conditions, order, paging, filters, projections."""
import pytest


@pytest.fixture
def orders(ddb, table_factory):
    table = table_factory()
    items = [{"PK": {"S": "USER#1001"}, "SK": {"S": "METADATA"}, "name": {"S": "Jane Doe"}}]
    for day in ("2025-03-01", "2025-03-15", "2025-04-02", "2025-04-20", "2025-05-05"):
        items.append({"PK": {"S": "USER#1001"}, "SK": {"S": f"ORDER#{day}#9981"},
                      "status": {"S": "SHIPPED" if day < "2025-04-10" else "PENDING"},
                      "total": {"N": "149.99"}, "tags": {"SS": ["gift", day[:7]]},
                      "items": {"L": [{"M": {"sku": {"S": "A1"}}}]}})
    items.append({"PK": {"S": "USER#2002"}, "SK": {"S": "ORDER#2025-03-02#1"}})
    for item in items:
        ddb.put_item(TableName=table, Item=item)
    return table


def sks(response):
    return [item["SK"]["S"] for item in response["Items"]]


def test_begins_with_composite_sort_key(ddb, orders):
    response = ddb.query(TableName=orders, KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
                         ExpressionAttributeValues={":pk": {"S": "USER#1001"}, ":p": {"S": "ORDER#"}})
    assert sks(response) == ["ORDER#2025-03-01#9981", "ORDER#2025-03-15#9981", "ORDER#2025-04-02#9981",
                             "ORDER#2025-04-20#9981", "ORDER#2025-05-05#9981"]
    assert response["Count"] == 5 and response["ScannedCount"] == 5
    assert "LastEvaluatedKey" not in response


def test_between_with_tilde_upper_bound_newest_first(ddb, orders):
    response = ddb.query(TableName=orders, KeyConditionExpression="PK = :pk AND SK BETWEEN :a AND :b",
                         ExpressionAttributeValues={":pk": {"S": "USER#1001"},
                                                    ":a": {"S": "ORDER#2025-03"}, ":b": {"S": "ORDER#2025-04~"}},
                         ScanIndexForward=False)
    assert sks(response) == ["ORDER#2025-04-20#9981", "ORDER#2025-04-02#9981",
                             "ORDER#2025-03-15#9981", "ORDER#2025-03-01#9981"]


def test_comparisons_on_sort_key(ddb, orders):
    values = {":pk": {"S": "USER#1001"}, ":s": {"S": "ORDER#2025-04-02#9981"}}
    # METADATA sorts before every ORDER# key.
    for op, expected in (("<", 3), ("<=", 4), (">", 2), (">=", 3), ("=", 1)):
        response = ddb.query(TableName=orders, KeyConditionExpression=f"PK = :pk AND SK {op} :s",
                             ExpressionAttributeValues=values)
        assert response["Count"] == expected, op


def test_numeric_sort_keys_order_numerically(ddb, table_factory):
    table = table_factory(hash_key=("pk", "S"), range_key=("n", "N"))
    for n in ("10", "9", "-1", "100", "2.5", "1e2"):
        ddb.put_item(TableName=table, Item={"pk": {"S": "p"}, "n": {"N": n}})
    response = ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": {"S": "p"}})
    assert [i["n"]["N"] for i in response["Items"]] == ["-1", "2.5", "9", "10", "100"]
    response = ddb.query(TableName=table, KeyConditionExpression="pk = :p AND n > :x",
                         ExpressionAttributeValues={":p": {"S": "p"}, ":x": {"N": "9"}})
    assert [i["n"]["N"] for i in response["Items"]] == ["10", "100"]


def test_hierarchical_keys(ddb, table_factory):
    table = table_factory()
    for sk in ("USA#CA#LA", "USA#CA#SF", "USA#NY#NYC", "FR#IDF#PARIS"):
        ddb.put_item(TableName=table, Item={"PK": {"S": "STORES"}, "SK": {"S": sk}})
    response = ddb.query(TableName=table, KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
                         ExpressionAttributeValues={":pk": {"S": "STORES"}, ":p": {"S": "USA#CA#"}})
    assert sks(response) == ["USA#CA#LA", "USA#CA#SF"]


def test_limit_filter_and_paging(ddb, orders):
    pages, keys, start = [], [], None
    while True:
        kwargs = {"ExclusiveStartKey": start} if start else {}
        response = ddb.query(TableName=orders, KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
                             FilterExpression="#s = :shipped", ExpressionAttributeNames={"#s": "status"},
                             ExpressionAttributeValues={":pk": {"S": "USER#1001"}, ":p": {"S": "ORDER#"},
                                                        ":shipped": {"S": "SHIPPED"}},
                             Limit=2, **kwargs)
        pages.append((response["Count"], response["ScannedCount"]))
        keys += sks(response)
        start = response.get("LastEvaluatedKey")
        if not start:
            break
    # Limit counts evaluated items; the filter then drops PENDING ones.
    assert pages == [(2, 2), (1, 2), (0, 1)]
    assert keys == ["ORDER#2025-03-01#9981", "ORDER#2025-03-15#9981", "ORDER#2025-04-02#9981"]


def test_last_evaluated_key_even_when_nothing_follows(ddb, orders):
    response = ddb.query(TableName=orders, KeyConditionExpression="PK = :pk",
                         ExpressionAttributeValues={":pk": {"S": "USER#2002"}}, Limit=1)
    assert response["LastEvaluatedKey"] == {"PK": {"S": "USER#2002"}, "SK": {"S": "ORDER#2025-03-02#1"}}


def test_select_count_and_projection(ddb, orders):
    response = ddb.query(TableName=orders, KeyConditionExpression="PK = :pk",
                         ExpressionAttributeValues={":pk": {"S": "USER#1001"}}, Select="COUNT")
    assert response["Count"] == 6 and "Items" not in response
    response = ddb.query(TableName=orders, KeyConditionExpression="PK = :pk AND SK = :sk",
                         ExpressionAttributeValues={":pk": {"S": "USER#1001"},
                                                    ":sk": {"S": "ORDER#2025-03-01#9981"}},
                         ProjectionExpression="#t, #i[0].sku",
                         ExpressionAttributeNames={"#t": "total", "#i": "items"})
    assert response["Items"] == [{"total": {"N": "149.99"}, "items": {"L": [{"M": {"sku": {"S": "A1"}}}]}}]


def test_filters_in_not_nested_contains(ddb, orders):
    def scan(expression, values, names=None):
        kwargs = {"ExpressionAttributeNames": names} if names else {}
        response = ddb.scan(TableName=orders, FilterExpression=expression,
                            ExpressionAttributeValues=values, **kwargs)
        return sorted(i["SK"]["S"] for i in response["Items"])
    assert scan("#s IN (:a, :b)", {":a": {"S": "PENDING"}, ":b": {"S": "LOST"}}, {"#s": "status"}) == [
        "ORDER#2025-04-20#9981", "ORDER#2025-05-05#9981"]
    assert scan("NOT #s = :a AND attribute_exists(#s)", {":a": {"S": "PENDING"}}, {"#s": "status"}) == [
        "ORDER#2025-03-01#9981", "ORDER#2025-03-15#9981", "ORDER#2025-04-02#9981"]
    assert scan("contains(tags, :m)", {":m": {"S": "2025-04"}}) == [
        "ORDER#2025-04-02#9981", "ORDER#2025-04-20#9981"]
    assert scan("#i[0].sku = :s", {":s": {"S": "A1"}}, {"#i": "items"}) == [
        "ORDER#2025-03-01#9981", "ORDER#2025-03-15#9981", "ORDER#2025-04-02#9981",
        "ORDER#2025-04-20#9981", "ORDER#2025-05-05#9981"]
    assert scan("contains(#n, :j)", {":j": {"S": "Jane"}}, {"#n": "name"}) == ["METADATA"]


def test_scan_pages_over_more_than_one_megabyte(ddb, table_factory):
    table = table_factory()
    payload = "x" * 100_000
    requests = [{"PutRequest": {"Item": {"PK": {"S": f"p{i}"}, "SK": {"S": "s"}, "d": {"S": payload}}}}
                for i in range(25)]
    ddb.batch_write_item(RequestItems={table: requests})
    seen, pages, start = [], 0, None
    while True:
        kwargs = {"ExclusiveStartKey": start} if start else {}
        response = ddb.scan(TableName=table, **kwargs)
        pages += 1
        seen += [i["PK"]["S"] for i in response["Items"]]
        start = response.get("LastEvaluatedKey")
        if not start:
            break
    # 25 items of ~100 KB: pages stop after the item that crosses 1 MB (11 items).
    assert pages == 3
    assert sorted(seen) == sorted(f"p{i}" for i in range(25))
    assert len(seen) == 25


def test_parallel_scan_covers_every_item_once(ddb, table_factory):
    table = table_factory()
    for start in range(0, 200, 25):
        ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": {"PK": {"S": f"k{i}"}, "SK": {"S": "s"}}}} for i in range(start, start + 25)]})
    seen = []
    for segment in range(4):
        response = ddb.scan(TableName=table, Segment=segment, TotalSegments=4)
        assert 0 < response["Count"] < 200
        seen += [i["PK"]["S"] for i in response["Items"]]
    assert sorted(seen) == sorted(f"k{i}" for i in range(200))


def test_scan_order_is_stable_across_calls(ddb, orders):
    first = [i["SK"]["S"] for i in ddb.scan(TableName=orders)["Items"]]
    second = [i["SK"]["S"] for i in ddb.scan(TableName=orders)["Items"]]
    assert first == second and len(first) == 7


def test_query_paginator_with_resource(server, orders):
    from boto3.dynamodb.conditions import Key
    table = server.resource().Table(orders)
    response = table.query(KeyConditionExpression=Key("PK").eq("USER#1001") & Key("SK").begins_with("ORDER#2025-04"))
    assert [i["SK"] for i in response["Items"]] == ["ORDER#2025-04-02#9981", "ORDER#2025-04-20#9981"]
    paginator = server.client().get_paginator("query")
    total = sum(page["Count"] for page in paginator.paginate(
        TableName=orders, KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": "USER#1001"}}, PaginationConfig={"PageSize": 2}))
    assert total == 6


def test_consumed_capacity_of_query(ddb, orders):
    response = ddb.query(TableName=orders, KeyConditionExpression="PK = :pk",
                         ExpressionAttributeValues={":pk": {"S": "USER#1001"}},
                         ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
    assert response["ConsumedCapacity"]["CapacityUnits"] == 1.0
