"""TransactWriteItems and TransactGetItems through boto3 and raw HTTP: all-or-nothing writes,
DynamoDB's cancellation reasons and validation messages, index maintenance, capacity, and
consistency under concurrent transfers."""
import json
import threading

import pytest

from conftest import raw_call


def make_accounts(ddb, name, balances):
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"},
                                           {"AttributeName": "owner", "AttributeType": "S"}],
                     GlobalSecondaryIndexes=[{
                         "IndexName": "ByOwner", "Projection": {"ProjectionType": "ALL"},
                         "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}]}])
    for account, balance in balances.items():
        ddb.put_item(TableName=name, Item={"id": {"S": account}, "owner": {"S": "ann"},
                                           "bal": {"N": str(balance)}})


def transfer(table, source, target, amount):
    values = {":v": {"N": str(amount)}}
    return [
        {"Update": {"TableName": table, "Key": {"id": {"S": source}},
                    "UpdateExpression": "SET bal = bal - :v", "ConditionExpression": "bal >= :v",
                    "ExpressionAttributeValues": values}},
        {"Update": {"TableName": table, "Key": {"id": {"S": target}},
                    "UpdateExpression": "SET bal = bal + :v", "ExpressionAttributeValues": values}},
    ]


def balances(ddb, table):
    items = ddb.scan(TableName=table, ConsistentRead=True)["Items"]
    return {item["id"]["S"]: int(item["bal"]["N"]) for item in items if "N" in item.get("bal", {})}


def cancellation(call):
    with pytest.raises(Exception) as raised:
        call()
    response = raised.value.response
    assert response["Error"]["Code"] == "TransactionCanceledException"
    return response["Error"]["Message"], response["CancellationReasons"]


def test_a_transfer_applies_every_action(ddb):
    make_accounts(ddb, "TxTransfer", {"a": 100, "b": 0})
    answer = ddb.transact_write_items(
        TransactItems=transfer("TxTransfer", "a", "b", 30) + [
            {"Put": {"TableName": "TxTransfer", "Item": {"id": {"S": "log#1"}, "owner": {"S": "ann"}},
                     "ConditionExpression": "attribute_not_exists(id)"}}],
        ReturnConsumedCapacity="INDEXES")
    # Transactional writes cost two units per KB and item: three small items, each also
    # written to the ALL-projecting index.
    assert answer["ConsumedCapacity"] == [{
        "TableName": "TxTransfer", "CapacityUnits": 12.0, "WriteCapacityUnits": 12.0,
        "Table": {"CapacityUnits": 6.0, "WriteCapacityUnits": 6.0},
        "GlobalSecondaryIndexes": {"ByOwner": {"CapacityUnits": 6.0, "WriteCapacityUnits": 6.0}}}]
    assert balances(ddb, "TxTransfer") == {"a": 70, "b": 30}
    owned = ddb.query(TableName="TxTransfer", IndexName="ByOwner",
                      KeyConditionExpression="#o = :o", ExpressionAttributeNames={"#o": "owner"},
                      ExpressionAttributeValues={":o": {"S": "ann"}})["Items"]
    assert sorted(item["id"]["S"] for item in owned) == ["a", "b", "log#1"]


def test_a_failed_condition_cancels_everything(ddb):
    make_accounts(ddb, "TxCancel", {"a": 10, "b": 0, "c": 3})
    actions = transfer("TxCancel", "a", "b", 50)
    actions[0]["Update"]["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    actions.append({"Delete": {"TableName": "TxCancel", "Key": {"id": {"S": "c"}}}})
    actions.append({"ConditionCheck": {"TableName": "TxCancel", "Key": {"id": {"S": "nobody"}},
                                       "ConditionExpression": "attribute_exists(id)"}})
    message, reasons = cancellation(lambda: ddb.transact_write_items(TransactItems=actions))
    assert message == ("Transaction cancelled, please refer cancellation reasons for specific "
                       "reasons [ConditionalCheckFailed, None, None, ConditionalCheckFailed]")
    assert reasons == [
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
         "Item": {"id": {"S": "a"}, "owner": {"S": "ann"}, "bal": {"N": "10"}}},
        {"Code": "None"},
        {"Code": "None"},
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"},
    ]
    assert balances(ddb, "TxCancel") == {"a": 10, "b": 0, "c": 3}


def test_a_runtime_validation_error_cancels_with_its_message(ddb):
    make_accounts(ddb, "TxInvalid", {"a": 1})
    ddb.put_item(TableName="TxInvalid", Item={"id": {"S": "text"}, "bal": {"S": "many"}})
    actions = [
        {"Put": {"TableName": "TxInvalid", "Item": {"id": {"S": "new"}}}},
        {"Update": {"TableName": "TxInvalid", "Key": {"id": {"S": "text"}},
                    "UpdateExpression": "SET bal = bal + :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}}},
    ]
    message, reasons = cancellation(lambda: ddb.transact_write_items(TransactItems=actions))
    assert message.endswith("[None, ValidationError]")
    assert reasons == [{"Code": "None"},
                       {"Code": "ValidationError",
                        "Message": "An operand in the update expression has an incorrect data type"}]
    assert "new" not in balances(ddb, "TxInvalid") and ddb.get_item(
        TableName="TxInvalid", Key={"id": {"S": "new"}}).get("Item") is None


def test_condition_checks_alone_write_nothing(server, ddb):
    make_accounts(ddb, "TxChecks", {"a": 5})
    # A stream shows whether anything was written: a rewrite of the same item would not
    # change the balance, but any change of the item would be recorded.
    arn = ddb.update_table(TableName="TxChecks", StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["TableDescription"]["LatestStreamArn"]
    answer = ddb.transact_write_items(TransactItems=[
        {"ConditionCheck": {"TableName": "TxChecks", "Key": {"id": {"S": "a"}},
                            "ConditionExpression": "bal = :five",
                            "ExpressionAttributeValues": {":five": {"N": "5"}}}}])
    assert "ConsumedCapacity" not in answer
    assert balances(ddb, "TxChecks") == {"a": 5}
    streams = server.client(service="dynamodbstreams")
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    assert streams.get_records(ShardIterator=iterator)["Records"] == []
    # The same check fails when the condition does not hold, and still writes nothing.
    with pytest.raises(ddb.exceptions.TransactionCanceledException):
        ddb.transact_write_items(TransactItems=[
            {"ConditionCheck": {"TableName": "TxChecks", "Key": {"id": {"S": "a"}},
                                "ConditionExpression": "bal = :six",
                                "ExpressionAttributeValues": {":six": {"N": "6"}}}}])
    assert streams.get_records(ShardIterator=iterator)["Records"] == []


def test_transact_get_items(ddb):
    make_accounts(ddb, "TxGet", {"a": 1, "b": 2})
    answer = ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": "TxGet", "Key": {"id": {"S": "b"}}, "ProjectionExpression": "#b",
                 "ExpressionAttributeNames": {"#b": "bal"}}},
        {"Get": {"TableName": "TxGet", "Key": {"id": {"S": "missing"}}}},
        {"Get": {"TableName": "TxGet", "Key": {"id": {"S": "a"}}}},
    ], ReturnConsumedCapacity="TOTAL")
    assert answer["Responses"] == [{"Item": {"bal": {"N": "2"}}}, {},
                                   {"Item": {"id": {"S": "a"}, "owner": {"S": "ann"},
                                             "bal": {"N": "1"}}}]
    # Two units per transactional read of up to 4 KB, three reads.
    assert answer["ConsumedCapacity"] == [{"TableName": "TxGet", "CapacityUnits": 6.0,
                                           "ReadCapacityUnits": 6.0}]


def error_of(server, operation, body):
    status, _, data = raw_call(server.endpoint, operation, body)
    parsed = json.loads(data)
    return status, parsed["__type"].split("#")[1], parsed.get("message", parsed.get("Message"))


@pytest.mark.parametrize("operation, body, message", [
    ("TransactWriteItems", {},
     "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: "
     "Member must not be null"),
    ("TransactWriteItems", {"TransactItems": []},
     "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: "
     "Member must have length greater than or equal to 1"),
    ("TransactWriteItems",
     {"TransactItems": [{"ConditionCheck": {"TableName": "TxErrors", "Key": {"id": {"S": str(i)}},
                                            "ConditionExpression": "attribute_exists(id)"}}
                        for i in range(101)]},
     "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: "
     "Member must have length less than or equal to 100"),
    ("TransactWriteItems", {"TransactItems": [{}]},
     "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"),
    ("TransactWriteItems",
     {"TransactItems": [{"Put": {"TableName": "TxErrors", "Item": {"id": {"S": "a"}}},
                         "Delete": {"TableName": "TxErrors", "Key": {"id": {"S": "a"}}}}]},
     "TransactItems can only contain one of Check, Put, Update or Delete"),
    ("TransactWriteItems",
     {"TransactItems": [{"Put": {"TableName": "TxErrors", "Item": {"id": {"S": "a"}}}},
                        {"Delete": {"TableName": "TxErrors", "Key": {"id": {"S": "a"}}}}]},
     "Transaction request cannot include multiple operations on one item"),
    ("TransactWriteItems",
     {"TransactItems": [{"Put": {"TableName": "TxErrors", "Item": {"id": {"S": "a"}}}},
                        {"ConditionCheck": {"TableName": "TxErrors", "Key": {"id": {"S": "b"}}}}]},
     "1 validation error detected: Value null at "
     "'transactItems.2.member.conditionCheck.conditionExpression' failed to satisfy constraint: "
     "Member must not be null"),
    ("TransactWriteItems",
     {"TransactItems": [{"Put": {"TableName": "TxErrors", "Item": {"nokey": {"S": "a"}}}}]},
     "One or more parameter values were invalid: Missing the key id in the item"),
    ("TransactWriteItems",
     {"TransactItems": [{"Put": {"TableName": "TxErrors", "Item": {"id": {"S": "a"}}}}],
      "ClientRequestToken": "x" * 37},
     "1 validation error detected: Value '" + "x" * 37 + "' at 'clientRequestToken' failed to "
     "satisfy constraint: Member must have length less than or equal to 36"),
    ("TransactGetItems", {"TransactItems": [{}]},
     "1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy "
     "constraint: Member must not be null"),
    ("TransactGetItems",
     {"TransactItems": [{"Get": {"TableName": "TxErrors", "Key": {"id": {"S": "a"}}}},
                        {"Get": {"TableName": "TxErrors", "Key": {"id": {"S": "a"}}}}]},
     "Transaction request cannot include multiple operations on one item"),
])
def test_malformed_transactions_are_refused(server, ddb, operation, body, message):
    if "TxErrors" not in ddb.list_tables()["TableNames"]:
        make_accounts(ddb, "TxErrors", {})
    assert error_of(server, operation, body) == (400, "ValidationException", message)
    assert ddb.scan(TableName="TxErrors")["Items"] == []


def test_missing_tables(server):
    body = {"TransactItems": [{"Put": {"TableName": "TxNowhere", "Item": {"id": {"S": "a"}}}}]}
    assert error_of(server, "TransactWriteItems", body) == (
        400, "ResourceNotFoundException", "Requested resource not found")


def test_concurrent_transfers_keep_the_total_and_reads_see_whole_transactions(server, ddb):
    accounts = {f"acct{i}": 1000 for i in range(6)}
    make_accounts(ddb, "TxConcurrent", accounts)
    names = sorted(accounts)
    failures = []

    def mover(seed):
        client = server.client()
        for step in range(60):
            source = names[(seed + step) % len(names)]
            target = names[(seed + 2 * step + 1) % len(names)]
            if source == target:
                continue
            try:
                client.transact_write_items(TransactItems=transfer("TxConcurrent", source, target,
                                                                   (step % 7) + 1))
            except client.exceptions.TransactionCanceledException:
                pass  # an overdrawn source: nothing applied

    def auditor():
        client = server.client()
        for _ in range(60):
            answer = client.transact_get_items(TransactItems=[
                {"Get": {"TableName": "TxConcurrent", "Key": {"id": {"S": name}}}} for name in names])
            total = sum(int(response["Item"]["bal"]["N"]) for response in answer["Responses"])
            if total != 6000:
                failures.append(total)

    threads = [threading.Thread(target=mover, args=(seed,)) for seed in range(3)]
    threads.append(threading.Thread(target=auditor))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    final = balances(ddb, "TxConcurrent")
    assert sum(final.values()) == 6000
    assert final != accounts  # money did move


def test_a_client_request_token_makes_a_retry_change_nothing(ddb):
    make_accounts(ddb, "TxTokens", {"a": 100, "b": 0})
    once = transfer("TxTokens", "a", "b", 10)
    ddb.transact_write_items(TransactItems=once, ClientRequestToken="retry-1")
    ddb.transact_write_items(TransactItems=once, ClientRequestToken="retry-1")
    assert balances(ddb, "TxTokens") == {"a": 90, "b": 10}

    with pytest.raises(ddb.exceptions.IdempotentParameterMismatchException):
        ddb.transact_write_items(TransactItems=transfer("TxTokens", "a", "b", 20),
                                 ClientRequestToken="retry-1")
    assert balances(ddb, "TxTokens") == {"a": 90, "b": 10}

    # A cancelled request leaves its token free: the retry runs.
    too_much = transfer("TxTokens", "b", "a", 50)
    with pytest.raises(ddb.exceptions.TransactionCanceledException):
        ddb.transact_write_items(TransactItems=too_much, ClientRequestToken="retry-2")
    ddb.put_item(TableName="TxTokens", Item={"id": {"S": "b"}, "owner": {"S": "ann"},
                                             "bal": {"N": "60"}})
    ddb.transact_write_items(TransactItems=too_much, ClientRequestToken="retry-2")
    assert balances(ddb, "TxTokens") == {"a": 140, "b": 10}


# A key of the wrong type is the action's own failure: DynamoDB cancels the transaction with a
# ValidationError reason for the first such action and None for every other (captured from
# DynamoDB by paritysuite's tier3 transactWriteItems tests).
WRONG_KEY = "The provided key element does not match the schema"


def key_type_cases(table):
    wrong = {"id": {"N": "1"}}
    return [
        ({"Put": {"TableName": table, "Item": {"id": {"N": "1"}, "bal": {"N": "5"}}}},
         "One or more parameter values were invalid: Type mismatch for key id expected: S "
         "actual: N"),
        ({"Put": {"TableName": table, "Item": {"id": {"L": [{"S": "a"}]}}}},
         "One or more parameter values were invalid: Type mismatch for key id expected: S "
         "actual: L"),
        ({"Update": {"TableName": table, "Key": wrong, "UpdateExpression": "SET bal = :v",
                     "ExpressionAttributeValues": {":v": {"N": "7"}}}}, WRONG_KEY),
        ({"Delete": {"TableName": table, "Key": {"id": {"SS": ["a"]}}}}, WRONG_KEY),
        ({"ConditionCheck": {"TableName": table, "Key": wrong,
                             "ConditionExpression": "attribute_exists(id)"}}, WRONG_KEY),
    ]


@pytest.mark.parametrize("case", range(5), ids=["put-n", "put-l", "update", "delete", "check"])
def test_a_wrongly_typed_key_cancels_with_a_validation_error(ddb, case):
    table = "TxKeyTypes"
    if table not in ddb.list_tables()["TableNames"]:
        make_accounts(ddb, table, {"a": 1, "b": 2})
    action, reason = key_type_cases(table)[case]
    actions = [
        {"Put": {"TableName": table, "Item": {"id": {"S": "new"}, "bal": {"N": "9"}}}},
        action,
        {"Update": {"TableName": table, "Key": {"id": {"S": "a"}}, "UpdateExpression": "SET bal = :v",
                    "ExpressionAttributeValues": {":v": {"N": "100"}}}},
    ]
    message, reasons = cancellation(lambda: ddb.transact_write_items(TransactItems=actions))
    assert message == ("Transaction cancelled, please refer cancellation reasons for specific "
                       "reasons [None, ValidationError, None]")
    assert reasons == [{"Code": "None"}, {"Code": "ValidationError", "Message": reason},
                       {"Code": "None"}]
    assert balances(ddb, table) == {"a": 1, "b": 2}


def test_only_the_first_wrongly_typed_key_gets_the_validation_error(ddb):
    make_accounts(ddb, "TxKeyTypesTwice", {"a": 1})
    actions = [
        {"Delete": {"TableName": "TxKeyTypesTwice", "Key": {"id": {"S": "a"}}}},
        {"Delete": {"TableName": "TxKeyTypesTwice", "Key": {"id": {"B": "AQ=="}}}},
        {"Put": {"TableName": "TxKeyTypesTwice", "Item": {"id": {"N": "2"}}}},
    ]
    message, reasons = cancellation(lambda: ddb.transact_write_items(TransactItems=actions))
    assert message == ("Transaction cancelled, please refer cancellation reasons for specific "
                       "reasons [None, ValidationError, None]")
    assert reasons == [{"Code": "None"}, {"Code": "ValidationError", "Message": WRONG_KEY},
                       {"Code": "None"}]
    assert balances(ddb, "TxKeyTypesTwice") == {"a": 1}


def test_a_request_error_in_a_later_action_wins_over_a_wrongly_typed_key(server, ddb):
    # ddbd's choice (not recorded from DynamoDB): errors of the request itself, found while
    # reading every action, come before the cancellation a key type causes.
    make_accounts(ddb, "TxKeyTypesLater", {"a": 1})
    body = {"TransactItems": [
        {"Put": {"TableName": "TxKeyTypesLater", "Item": {"id": {"N": "1"}}}},
        {"Update": {"TableName": "TxKeyTypesLater", "Key": {"id": {"S": "a"}},
                    "UpdateExpression": "SET bal = :v SET x = :v",
                    "ExpressionAttributeValues": {":v": {"N": "7"}}}}]}
    assert error_of(server, "TransactWriteItems", body) == (
        400, "ValidationException",
        'Invalid UpdateExpression: The "SET" section can only be used once in an update '
        "expression;")
    assert balances(ddb, "TxKeyTypesLater") == {"a": 1}


@pytest.mark.parametrize("action", [
    {"Put": {"TableName": "TxEmptyKey", "Item": {"id": {"S": ""}}}},
    {"Update": {"TableName": "TxEmptyKey", "Key": {"id": {"S": ""}}, "UpdateExpression": "SET b = :v",
                "ExpressionAttributeValues": {":v": {"N": "1"}}}},
    {"Delete": {"TableName": "TxEmptyKey", "Key": {"id": {"S": ""}}}},
], ids=["put", "update", "delete"])
def test_an_empty_key_string_is_a_plain_validation_error(server, ddb, action):
    if "TxEmptyKey" not in ddb.list_tables()["TableNames"]:
        make_accounts(ddb, "TxEmptyKey", {"a": 1})
    body = {"TransactItems": [
        {"Put": {"TableName": "TxEmptyKey", "Item": {"id": {"S": "new"}}}}, action]}
    assert error_of(server, "TransactWriteItems", body) == (
        400, "ValidationException",
        "One or more parameter values are not valid. The AttributeValue for a key attribute "
        "cannot contain an empty string value. Key: id")
    assert balances(ddb, "TxEmptyKey") == {"a": 1}


def big_puts(table, count, item_bytes):
    # Each item: "id" (2 bytes) + a short id, "data" (4 bytes) + its string.
    return [{"Put": {"TableName": table, "Item": {
        "id": {"S": "%03d" % i}, "data": {"S": "x" * (item_bytes - 9)}}}} for i in range(count)]


def item_count(ddb, table):
    # Scans read at most 1 MB a page.
    return sum(page["Count"] for page in ddb.get_paginator("scan").paginate(
        TableName=table, Select="COUNT"))


def test_the_items_of_a_transaction_may_total_4_mb(server, ddb):
    make_accounts(ddb, "TxBig", {})
    # Ten items of 409,000 bytes: 4,090,000 bytes, under 4 MiB (4,194,304).
    status, _, _ = raw_call(server.endpoint, "TransactWriteItems",
                            {"TransactItems": big_puts("TxBig", 10, 409000)})
    assert status == 200
    assert item_count(ddb, "TxBig") == 10


def test_a_transaction_over_4_mb_is_refused(server, ddb):
    make_accounts(ddb, "TxTooBig", {})
    # Eleven items of 390,000 bytes: 4,290,000 bytes, over 4 MiB.
    body = {"TransactItems": big_puts("TxTooBig", 11, 390000)}
    # Unverified text: DynamoDB's wording for this limit was not found in any recording.
    assert error_of(server, "TransactWriteItems", body) == (
        400, "ValidationException", "Transaction request cannot be larger than 4 MB")
    assert item_count(ddb, "TxTooBig") == 0


def test_the_items_updates_write_count_towards_4_mb(server, ddb):
    make_accounts(ddb, "TxTooBigUpdates", {})
    body = {"TransactItems": [{"Update": {
        "TableName": "TxTooBigUpdates", "Key": {"id": {"S": "%03d" % i}},
        "UpdateExpression": "SET #d = :d", "ExpressionAttributeNames": {"#d": "data"},
        "ExpressionAttributeValues": {":d": {"S": "x" * 390000}}}} for i in range(11)]}
    assert error_of(server, "TransactWriteItems", body) == (
        400, "ValidationException", "Transaction request cannot be larger than 4 MB")
    assert item_count(ddb, "TxTooBigUpdates") == 0
