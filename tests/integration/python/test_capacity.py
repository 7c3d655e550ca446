"""Capacity that really throttles (--enforce-capacity): provisioned tables and GSIs burst up to
300 seconds of their capacity and refill at their rate by the server's clock; on-demand tables
meet their OnDemandThroughput maximum; every partition-key value meets 3,000 RCU / 1,000 WCU
per second. Each throttled request gets DynamoDB's exception for its case, with its
ThrottlingReasons, and changes nothing.

The server's clock is frozen (--start-time) and moved with PUT /ddbd/clock, so every count
below is exact."""
import json

import boto3
import botocore.config
import botocore.exceptions
import pytest

from conftest import DdbdProcess, raw_call

TABLE_MESSAGE = ("The level of configured provisioned throughput for the table was exceeded. "
                 "Consider increasing your provisioning level with the UpdateTable API.")
GSI_WRITE_MESSAGE = (
    "The level of configured provisioned throughput for one or more global secondary indexes "
    "of the table was exceeded. Consider increasing your provisioning level for the "
    "under-provisioned global secondary indexes with the UpdateTable API.")
HOT_KEY_MESSAGE = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically "
    "scaling your table or index so please try again shortly. If exceptions persist, check if "
    "you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html")
ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/"


@pytest.fixture(scope="module")
def server():
    process = DdbdProcess("--in-memory", "--enforce-capacity",
                          "--start-time", "2030-01-01T00:00:00Z").start()
    yield process
    process.cleanup()


@pytest.fixture(scope="module")
def ddb(server):
    return server.client()


def advance(server, seconds):
    status, body = server.control("PUT", "/ddbd/clock", {"Advance": seconds})
    assert status == 200, body


def provisioned_table(ddb, name, rcu=1, wcu=1, gsi_wcu=None):
    kwargs = {}
    definitions = [{"AttributeName": "pk", "AttributeType": "S"},
                   {"AttributeName": "sk", "AttributeType": "S"}]
    if gsi_wcu is not None:
        definitions.append({"AttributeName": "g", "AttributeType": "S"})
        kwargs["GlobalSecondaryIndexes"] = [{
            "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": gsi_wcu}}]
    ddb.create_table(TableName=name, BillingMode="PROVISIONED",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=definitions,
                     ProvisionedThroughput={"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu},
                     **kwargs)


def on_demand_table(ddb, name):
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "S"}])


def put(pk, sk, **attributes):
    item = {"pk": {"S": pk}, "sk": {"S": sk}}
    item.update({name: {"S": value} for name, value in attributes.items()})
    return item


def fill(ddb, table, count, prefix="burst", **attributes):
    """Writes `count` small items (one write unit each) in batches of 25."""
    for start in range(0, count, 25):
        requests = [{"PutRequest": {"Item": put("p", f"{prefix}{i:04d}", **attributes)}}
                    for i in range(start, min(start + 25, count))]
        answer = ddb.batch_write_item(RequestItems={table: requests})
        assert answer["UnprocessedItems"] == {}


def writes_admitted(ddb, table, prefix, limit=1000):
    """How many one-unit PutItems the table takes before the first throttling."""
    for n in range(limit):
        try:
            ddb.put_item(TableName=table, Item=put("p", f"{prefix}{n:04d}"))
        except ddb.exceptions.ProvisionedThroughputExceededException:
            return n
    return limit


def raw_refusal(server, operation, body):
    """The JSON body of a refused request sent without an SDK (Debian's botocore does not
    model ThrottlingReasons yet, so it drops them)."""
    status, _, data = raw_call(server.endpoint, operation, body)
    assert status == 400, data
    return json.loads(data)


def throttled(call):
    with pytest.raises(botocore.exceptions.ClientError) as caught:
        call()
    return caught.value.response


def test_a_1_wcu_table_bursts_300_writes_then_refills_by_the_clock(server, ddb):
    provisioned_table(ddb, "OneWcu")
    fill(ddb, "OneWcu", 300)  # five minutes of unused capacity
    answer = throttled(lambda: ddb.put_item(TableName="OneWcu", Item=put("p", "over")))
    assert answer["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert answer["Error"]["Message"] == TABLE_MESSAGE
    body = raw_refusal(server, "PutItem", {"TableName": "OneWcu", "Item": put("p", "over")})
    assert body["__type"] == ("com.amazonaws.dynamodb.v20120810#"
                              "ProvisionedThroughputExceededException")
    assert body["ThrottlingReasons"] == [
        {"reason": "TableWriteProvisionedThroughputExceeded", "resource": ARN + "OneWcu"}]
    # The throttled write changed nothing.
    assert "Item" not in ddb.get_item(TableName="OneWcu", Key=put("p", "over"))
    assert writes_admitted(ddb, "OneWcu", "still") == 0
    advance(server, 0.5)
    assert writes_admitted(ddb, "OneWcu", "half") == 0  # half a unit is not a write
    advance(server, 0.5)
    assert writes_admitted(ddb, "OneWcu", "one") == 1
    advance(server, 10)
    assert writes_admitted(ddb, "OneWcu", "ten") == 10
    # An hour idle refills the burst, never more than 300 seconds of it.
    advance(server, 3600)
    assert writes_admitted(ddb, "OneWcu", "hour") == 300
    assert ddb.scan(TableName="OneWcu", Select="COUNT")["Count"] == 300 + 1 + 10 + 300


def test_a_raised_throughput_refills_at_the_new_rate(server, ddb):
    provisioned_table(ddb, "Raised")
    fill(ddb, "Raised", 300)
    assert writes_admitted(ddb, "Raised", "before") == 0
    ddb.update_table(TableName="Raised",
                     ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 50})
    advance(server, 1)
    assert writes_admitted(ddb, "Raised", "after") == 50


def test_the_sdk_retries_a_throttled_write_and_reports_its_attempts(server):
    client = boto3.client("dynamodb", endpoint_url=server.endpoint, region_name="us-east-1",
                          aws_access_key_id="AKIDTEST", aws_secret_access_key="secret",
                          config=botocore.config.Config(
                              retries={"total_max_attempts": 3, "mode": "standard"}))
    provisioned_table(client, "Retried")
    fill(client, "Retried", 300)
    answer = throttled(lambda: client.put_item(TableName="Retried", Item=put("p", "x")))
    assert answer["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert answer["ResponseMetadata"]["RetryAttempts"] == 2
    assert answer["ResponseMetadata"]["MaxAttemptsReached"] is True


def test_an_exhausted_gsi_throttles_the_writes_that_would_update_it(server, ddb):
    provisioned_table(ddb, "SlowIndex", wcu=100, gsi_wcu=1)
    fill(ddb, "SlowIndex", 300, g="x")  # each write updates the GSI: its burst is spent
    answer = throttled(lambda: ddb.put_item(TableName="SlowIndex", Item=put("p", "y", g="x")))
    assert answer["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert answer["Error"]["Message"] == GSI_WRITE_MESSAGE
    body = raw_refusal(server, "PutItem", {"TableName": "SlowIndex", "Item": put("p", "y", g="x")})
    assert body["ThrottlingReasons"] == [
        {"reason": "IndexWriteProvisionedThroughputExceeded",
         "resource": ARN + "SlowIndex/index/byG"}]
    assert "Item" not in ddb.get_item(TableName="SlowIndex", Key=put("p", "y"))
    # A write that does not touch the index is not held back by it.
    ddb.put_item(TableName="SlowIndex", Item=put("p", "no-index-key"))
    advance(server, 1)
    ddb.put_item(TableName="SlowIndex", Item=put("p", "y", g="x"))
    assert ddb.query(TableName="SlowIndex", IndexName="byG",
                     KeyConditionExpression="g = :g",
                     ExpressionAttributeValues={":g": {"S": "x"}}, Select="COUNT")["Count"] == 301


def test_batch_write_returns_what_capacity_refused_as_unprocessed_items(server, ddb):
    provisioned_table(ddb, "Partial")
    fill(ddb, "Partial", 295)
    items = [put("p", f"batch{i}") for i in range(10)]
    answer = ddb.batch_write_item(
        RequestItems={"Partial": [{"PutRequest": {"Item": item}} for item in items]},
        ReturnConsumedCapacity="TOTAL")
    assert answer["UnprocessedItems"] == {
        "Partial": [{"PutRequest": {"Item": item}} for item in items[5:]]}
    assert answer["ConsumedCapacity"] == [
        {"TableName": "Partial", "CapacityUnits": 5.0, "WriteCapacityUnits": 5.0}]
    # The loop users write: retry what came back, after a back-off (here: the clock).
    pending = answer["UnprocessedItems"]
    rounds = 0
    while pending:
        advance(server, 2)
        pending = ddb.batch_write_item(RequestItems=pending)["UnprocessedItems"]
        rounds += 1
    assert rounds == 3  # 2 + 2 + 1 writes
    keys = [{"pk": item["pk"], "sk": item["sk"]} for item in items]
    got = ddb.batch_get_item(RequestItems={"Partial": {"Keys": keys}})["Responses"]["Partial"]
    assert len(got) == 10
    # A batch refused throughout is the throttling exception itself.
    assert writes_admitted(ddb, "Partial", "drain") == 1  # 6 units refilled, 5 written
    answer = throttled(lambda: ddb.batch_write_item(
        RequestItems={"Partial": [{"PutRequest": {"Item": put("p", "none")}}]}))
    assert answer["Error"]["Code"] == "ProvisionedThroughputExceededException"


def test_reads_run_into_debt_and_batch_get_leaves_refused_keys_unprocessed(server, ddb):
    provisioned_table(ddb, "Reads", rcu=1, wcu=1000)
    big = "x" * (390 * 1024)  # 98 read units read consistently, 390 write units written
    for i in range(4):  # one partition each: 1,000 write units per second is a partition's limit
        ddb.put_item(TableName="Reads", Item=put(f"big{i}", "s", blob=big))
    for i in range(3):  # 300 - 3 × 98 = 6 units left
        ddb.get_item(TableName="Reads", Key=put(f"big{i}", "s"), ConsistentRead=True)
    keys = [put("big0", "s"), put("big3", "s")]
    answer = ddb.batch_get_item(
        RequestItems={"Reads": {"Keys": keys, "ConsistentRead": True,
                                "ProjectionExpression": "pk"}})
    # The first key is admitted (capacity remains) and leaves the table 92 units in debt.
    assert answer["Responses"]["Reads"] == [{"pk": {"S": "big0"}}]
    assert answer["UnprocessedKeys"]["Reads"]["Keys"] == [keys[1]]
    assert answer["UnprocessedKeys"]["Reads"]["ConsistentRead"] is True
    answer = throttled(lambda: ddb.get_item(TableName="Reads", Key=keys[1]))
    assert answer["Error"]["Code"] == "ProvisionedThroughputExceededException"
    body = raw_refusal(server, "GetItem", {"TableName": "Reads", "Key": keys[1]})
    assert body["ThrottlingReasons"][0]["reason"] == "TableReadProvisionedThroughputExceeded"
    answer = throttled(lambda: ddb.batch_get_item(RequestItems={"Reads": {"Keys": keys}}))
    assert answer["Error"]["Code"] == "ProvisionedThroughputExceededException"
    answer = throttled(lambda: ddb.transact_get_items(
        TransactItems=[{"Get": {"TableName": "Reads", "Key": key}} for key in keys]))
    assert answer["Error"]["Code"] == "TransactionCanceledException"
    assert answer["CancellationReasons"] == [
        {"Code": "ProvisionedThroughputExceeded", "Message": TABLE_MESSAGE}] * 2
    advance(server, 92)  # the debt is paid back: nothing is left yet
    throttled(lambda: ddb.scan(TableName="Reads", Select="COUNT"))
    advance(server, 1)
    got = ddb.get_item(TableName="Reads", Key=keys[1], ProjectionExpression="pk")
    assert got["Item"] == {"pk": {"S": "big3"}}


def test_a_throttled_transaction_is_cancelled_and_writes_nothing(server, ddb):
    provisioned_table(ddb, "Transacted", wcu=2)
    fill(ddb, "Transacted", 597)  # 600 units of burst, 3 left; a transaction costs 2 per item
    answer = throttled(lambda: ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": "Transacted", "Item": put("t", "a")}},
        {"Put": {"TableName": "Transacted", "Item": put("t", "b")}}]))
    assert answer["Error"]["Code"] == "TransactionCanceledException"
    assert answer["CancellationReasons"] == [
        {"Code": "None"},
        {"Code": "ProvisionedThroughputExceeded", "Message": TABLE_MESSAGE}]
    assert ddb.query(TableName="Transacted", KeyConditionExpression="pk = :t",
                     ExpressionAttributeValues={":t": {"S": "t"}})["Count"] == 0
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": "Transacted", "Item": put("t", "a")}}])


def test_on_demand_maximum_throughput_throttles_with_a_throttling_exception(server, ddb):
    # Debian's botocore predates OnDemandThroughput: the table is created without an SDK.
    status, _, data = raw_call(server.endpoint, "CreateTable", {
        "TableName": "Capped", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                      {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "S"}],
        "OnDemandThroughput": {"MaxReadRequestUnits": 2, "MaxWriteRequestUnits": 5}})
    assert status == 200, data
    ddb.put_item(TableName="Capped", Item=put("p", "a"))
    for _ in range(2):
        ddb.get_item(TableName="Capped", Key=put("p", "a"), ConsistentRead=True)
    answer = throttled(lambda: ddb.get_item(TableName="Capped", Key=put("p", "a")))
    assert answer["Error"]["Code"] == "ThrottlingException"
    assert answer["Error"]["Message"] == (
        "Throughput exceeds the maximum OnDemandThroughput configured on table or index")
    body = raw_refusal(server, "GetItem", {"TableName": "Capped", "Key": put("p", "a")})
    assert body["__type"] == "com.amazonaws.dynamodb.v20120810#ThrottlingException"
    assert body["ThrottlingReasons"] == [
        {"reason": "TableReadMaxOnDemandThroughputExceeded", "resource": ARN + "Capped"}]
    advance(server, 1)
    ddb.get_item(TableName="Capped", Key=put("p", "a"))


def test_a_hot_partition_key_meets_the_1000_wcu_partition_limit(server, ddb):
    on_demand_table(ddb, "Hot")
    blob = "x" * (99 * 1024)  # 100 write units each
    for i in range(10):
        ddb.put_item(TableName="Hot", Item=put("hot", f"i{i}", blob=blob))
    answer = throttled(lambda: ddb.put_item(TableName="Hot", Item=put("hot", "i10", blob=blob)))
    assert answer["Error"]["Code"] == "ThrottlingException"
    assert answer["Error"]["Message"] == HOT_KEY_MESSAGE
    body = raw_refusal(server, "PutItem",
                       {"TableName": "Hot", "Item": put("hot", "i10", blob=blob)})
    assert body["ThrottlingReasons"] == [
        {"reason": "TableWriteKeyRangeThroughputExceeded", "resource": ARN + "Hot"}]
    # Other partition-key values have their own limit; the hot one recovers in a second.
    ddb.put_item(TableName="Hot", Item=put("cool", "i0", blob=blob))
    advance(server, 1)
    ddb.put_item(TableName="Hot", Item=put("hot", "i10", blob=blob))


def test_partiql_statements_are_throttled_like_the_operations(server, ddb):
    provisioned_table(ddb, "Statements")
    fill(ddb, "Statements", 300)
    answer = throttled(lambda: ddb.execute_statement(
        Statement="INSERT INTO Statements VALUE {'pk': 'p', 'sk': 'q'}"))
    assert answer["Error"]["Code"] == "ProvisionedThroughputExceededException"
    answer = ddb.batch_execute_statement(Statements=[
        {"Statement": "INSERT INTO Statements VALUE {'pk': 'p', 'sk': 'r'}"}])
    assert answer["Responses"][0]["Error"]["Code"] == "ProvisionedThroughputExceeded"
    assert answer["Responses"][0]["Error"]["Message"] == TABLE_MESSAGE


def test_without_enforce_capacity_nothing_throttles():
    process = DdbdProcess("--in-memory").start()
    try:
        ddb = process.client()
        provisioned_table(ddb, "Unlimited")
        fill(ddb, "Unlimited", 400)
        assert ddb.scan(TableName="Unlimited", Select="COUNT")["Count"] == 400
    finally:
        process.cleanup()
