"""Fault injection (/ddbd/faults): DynamoDB's failure answers on demand — errors the SDKs
retry, partial batches, transactions cancelled by conflicts, delays — on a reproducible
schedule, and a faulted request changes nothing it does not report as done."""
import time

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from conftest import DdbdProcess, raw_call


@pytest.fixture(scope="module")
def server():
    process = DdbdProcess("--in-memory").start()
    yield process
    process.cleanup()


@pytest.fixture(autouse=True)
def no_rules_left(server):
    yield
    server.control("DELETE", "/ddbd/faults")


def retrying_client(server, attempts):
    return boto3.client(
        "dynamodb", endpoint_url=server.endpoint, region_name="us-east-1",
        aws_access_key_id="AKIDTEST", aws_secret_access_key="secret",
        config=botocore.config.Config(retries={"mode": "standard", "total_max_attempts": attempts}))


def set_rules(server, *rules):
    status, body = server.control("PUT", "/ddbd/faults", {"Rules": list(rules)})
    assert status == 200, body
    return body


def rules(server):
    return server.control("GET", "/ddbd/faults")[1]["Rules"]


@pytest.fixture(scope="module")
def table(server):
    server.client().create_table(
        TableName="Faulted", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    return "Faulted"


def test_boto3_retries_injected_throttling_and_reports_its_retries(server, table):
    set_rules(server, {"Operation": "PutItem", "Table": table, "Count": 2,
                       "Error": {"Type": "ProvisionedThroughputExceededException"}})
    answer = retrying_client(server, 4).put_item(TableName=table, Item={"pk": {"S": "r1"}})
    assert answer["ResponseMetadata"]["RetryAttempts"] == 2
    [rule] = rules(server)
    assert (rule["Matched"], rule["Fired"]) == (3, 2)
    assert "Item" in server.client().get_item(TableName=table, Key={"pk": {"S": "r1"}})


def test_when_retries_run_out_the_sdk_raises_dynamodbs_error_and_nothing_was_written(server,
                                                                                    table):
    set_rules(server, {"Operation": "PutItem", "Error": {"Type": "ThrottlingException"}})
    with pytest.raises(ClientError) as raised:
        retrying_client(server, 3).put_item(TableName=table, Item={"pk": {"S": "never"}})
    error = raised.value.response
    assert error["Error"]["Code"] == "ThrottlingException"
    assert error["Error"]["Message"] == "Rate of requests exceeds the allowed throughput."
    assert error["ResponseMetadata"]["RetryAttempts"] == 2
    assert rules(server)[0]["Fired"] == 3
    server.control("DELETE", "/ddbd/faults")
    assert "Item" not in server.client().get_item(TableName=table, Key={"pk": {"S": "never"}})


@pytest.mark.parametrize("error_type,status,namespace", [
    ("ProvisionedThroughputExceededException", 400, "com.amazonaws.dynamodb.v20120810"),
    ("RequestLimitExceeded", 400, "com.amazonaws.dynamodb.v20120810"),
    ("InternalServerError", 500, "com.amazonaws.dynamodb.v20120810"),
    ("ServiceUnavailable", 503, "com.amazonaws.dynamodb.v20120810"),
    ("TransactionConflictException", 400, "com.amazonaws.dynamodb.v20120810"),
    ("ItemCollectionSizeLimitExceededException", 400, "com.amazonaws.dynamodb.v20120810"),
    ("ConditionalCheckFailedException", 400, "com.amazonaws.dynamodb.v20120810"),
    ("ValidationException", 400, "com.amazon.coral.validate"),
])
def test_every_error_type_has_its_status_and_body(server, table, error_type, status, namespace):
    set_rules(server, {"Operation": "GetItem", "Count": 1,
                       "Error": {"Type": error_type, "Message": "custom words"}})
    got, headers, body = raw_call(server.endpoint, "GetItem",
                                  {"TableName": table, "Key": {"pk": {"S": "x"}}})
    assert got == status
    assert f'"__type":"{namespace}#{error_type}"'.encode() in body
    assert b"custom words" in body


def test_sdk_retries_server_errors_too(server, table):
    set_rules(server, {"Operation": "GetItem", "Count": 1, "Error": {"Type": "InternalServerError"}})
    answer = retrying_client(server, 3).get_item(TableName=table, Key={"pk": {"S": "x"}})
    assert answer["ResponseMetadata"]["RetryAttempts"] == 1


def test_a_partial_batch_write_applies_exactly_what_it_does_not_return(server, table):
    ddb = server.client()
    set_rules(server, {"Operation": "BatchWriteItem", "Count": 1, "Seed": 3,
                       "Unprocessed": {"Fraction": 0.4}})
    items = [{"PutRequest": {"Item": {"pk": {"S": f"b{i}"}, "n": {"N": str(i)}}}}
             for i in range(10)]
    answer = ddb.batch_write_item(RequestItems={table: items})
    unprocessed = answer["UnprocessedItems"][table]
    assert len(unprocessed) == 4
    left = {r["PutRequest"]["Item"]["pk"]["S"] for r in unprocessed}
    for i in range(10):
        stored = "Item" in ddb.get_item(TableName=table, Key={"pk": {"S": f"b{i}"}})
        assert stored == (f"b{i}" not in left), i
    # The loop users write around BatchWriteItem finishes the job.
    pending = answer["UnprocessedItems"]
    while pending:
        pending = ddb.batch_write_item(RequestItems=pending)["UnprocessedItems"]
    assert ddb.scan(TableName=table, FilterExpression="begins_with(pk, :b)",
                    ExpressionAttributeValues={":b": {"S": "b"}})["Count"] == 10
    # The same seed chooses the same requests again.
    set_rules(server, {"Operation": "BatchWriteItem", "Count": 1, "Seed": 3,
                       "Unprocessed": {"Fraction": 0.4}})
    again = ddb.batch_write_item(RequestItems={table: items})["UnprocessedItems"][table]
    assert {r["PutRequest"]["Item"]["pk"]["S"] for r in again} == left


def test_a_partial_batch_get_returns_unprocessed_keys_with_their_options(server, table):
    ddb = server.client()
    for i in range(5):
        ddb.put_item(TableName=table, Item={"pk": {"S": f"g{i}"}, "a": {"S": "x"}, "b": {"S": "y"}})
    set_rules(server, {"Operation": "BatchGetItem", "Count": 1, "Unprocessed": {"Count": 2}})
    answer = ddb.batch_get_item(RequestItems={table: {
        "Keys": [{"pk": {"S": f"g{i}"}} for i in range(5)], "ProjectionExpression": "pk, a",
        "ConsistentRead": True}})
    unprocessed = answer["UnprocessedKeys"][table]
    assert len(unprocessed["Keys"]) == 2
    assert unprocessed["ProjectionExpression"] == "pk, a"
    assert unprocessed["ConsistentRead"] is True
    returned = {item["pk"]["S"] for item in answer["Responses"][table]}
    assert len(returned) == 3
    assert returned | {k["pk"]["S"] for k in unprocessed["Keys"]} == {f"g{i}" for i in range(5)}
    assert all(set(item) == {"pk", "a"} for item in answer["Responses"][table])


def test_unprocessed_by_partition_key(server, table):
    set_rules(server, {"Operation": "BatchWriteItem", "PartitionKey": "hot",
                       "Unprocessed": {}})
    answer = server.client().batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {"pk": {"S": "cold"}}}},
        {"PutRequest": {"Item": {"pk": {"S": "hot"}}}}]})
    assert answer["UnprocessedItems"] == {table: [{"PutRequest": {"Item": {"pk": {"S": "hot"}}}}]}


def test_a_transaction_cancelled_by_a_conflict_on_chosen_items(server, table):
    ddb = server.client()
    set_rules(server, {"Operation": "TransactWriteItems", "Count": 1,
                       "TransactionConflict": {"Items": [1]}})
    with pytest.raises(ddb.exceptions.TransactionCanceledException) as raised:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": table, "Item": {"pk": {"S": "t1"}}}},
            {"Put": {"TableName": table, "Item": {"pk": {"S": "t2"}}}}])
    reasons = raised.value.response["CancellationReasons"]
    assert [r["Code"] for r in reasons] == ["None", "TransactionConflict"]
    assert reasons[1]["Message"] == "Transaction is ongoing for the item"
    assert raised.value.response["Error"]["Message"] == (
        "Transaction cancelled, please refer cancellation reasons for specific reasons "
        "[None, TransactionConflict]")
    for key in ("t1", "t2"):
        assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": key}})


def test_a_conflict_on_a_single_item_write_is_transaction_conflict_exception(server, table):
    set_rules(server, {"Operation": "UpdateItem", "PartitionKey": "locked",
                       "TransactionConflict": {}})
    ddb = server.client()
    ddb.update_item(TableName=table, Key={"pk": {"S": "free"}}, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"N": "1"}})
    with pytest.raises(ddb.exceptions.TransactionConflictException):
        ddb.update_item(TableName=table, Key={"pk": {"S": "locked"}},
                        UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"N": "1"}})


def test_rules_match_by_namespace(server):
    for namespace in ("ns-a", "ns-b"):
        client = server.client(namespace=namespace)
        client.create_table(TableName="Tab", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    set_rules(server, {"Operation": "*", "Namespace": "ns-a",
                       "Error": {"Type": "ThrottlingException"}})
    with pytest.raises(ClientError):
        server.client(namespace="ns-a").get_item(TableName="Tab", Key={"pk": {"S": "a"}})
    server.client(namespace="ns-b").get_item(TableName="Tab", Key={"pk": {"S": "a"}})


def test_a_delay_holds_the_answer_not_the_server(server, table):
    set_rules(server, {"Operation": "GetItem", "Table": table, "DelayMs": 400})
    started = time.monotonic()
    server.client().get_item(TableName=table, Key={"pk": {"S": "x"}})
    assert time.monotonic() - started >= 0.4
    started = time.monotonic()
    server.client().list_tables()
    assert time.monotonic() - started < 0.4


def test_probability_with_a_seed_is_reproducible(server, table):
    def pattern():
        set_rules(server, {"Operation": "GetItem", "Probability": 0.5, "Seed": 11,
                           "Error": {"Type": "ThrottlingException"}})
        result = ""
        for _ in range(40):
            status, _, _ = raw_call(server.endpoint, "GetItem",
                                    {"TableName": table, "Key": {"pk": {"S": "x"}}})
            result += "x" if status == 400 else "."
        return result

    first = pattern()
    assert first == pattern()
    assert 8 <= first.count("x") <= 32


def test_rules_are_listed_and_cleared(server):
    listed = set_rules(server, {"Operation": "Query", "Index": "ByOwner", "After": 1, "Every": 2,
                                "Count": 5, "Error": {"Type": "ThrottlingException"}})
    assert listed == {"Rules": [{
        "Operation": "Query", "Index": "ByOwner", "Count": 5, "After": 1, "Every": 2,
        "Probability": 1.0, "Seed": 0, "Error": {"Type": "ThrottlingException"},
        "Matched": 0, "Fired": 0}]}
    assert server.control("DELETE", "/ddbd/faults") == (200, {"Rules": []})


@pytest.mark.parametrize("rule,message", [
    ({"Operation": "Fly", "Error": {"Type": "ThrottlingException"}}, "unknown Operation 'Fly'"),
    ({"Operation": "PutItem"}, "exactly one of Error, Unprocessed"),
    ({"Operation": "PutItem", "DelayMs": 5, "Error": {"Type": "ThrottlingException"}},
     "exactly one of"),
    ({"Operation": "PutItem", "Unprocessed": {"Count": 1}}, "Unprocessed applies to Operation"),
    ({"Operation": "PutItem", "Error": {"Type": "NoSuchException"}}, "Error.Type 'NoSuchException'"),
    ({"Operation": "PutItem", "Probability": 0, "DelayMs": 1}, "Probability must be"),
    ({"Operation": "PutItem", "Every": 0, "DelayMs": 1}, "Every must be an integer >= 1"),
    ({"Operation": "PutItem", "DelayMs": 600001}, "DelayMs must be"),
    ({"Operation": "PutItem", "DelayMs": 1, "Colour": "red"}, "unknown member Colour"),
])
def test_invalid_rules_are_refused_and_keep_the_old_ones(server, rule, message):
    set_rules(server, {"Operation": "GetItem", "DelayMs": 1})
    status, body = server.control("PUT", "/ddbd/faults", {"Rules": [rule]})
    assert status == 400
    assert body["__type"] == "com.amazon.coral.validate#ValidationException"
    assert body["message"].startswith("Rules[0]: ")
    assert message in body["message"]
    assert len(rules(server)) == 1
