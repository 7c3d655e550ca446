"""Bad input never crashes, hangs or gets a 500: valid requests of every operation, randomly
mutated (members dropped, values replaced by every JSON type), must be answered with 200 or
a 4xx DynamoDB error, and the server must keep serving."""
import copy
import json
import random

from conftest import raw_call

TABLE = "Robust"
KEY = {"PK": {"S": "a"}, "SK": {"N": "1"}}

TEMPLATES = {
    "CreateTable": {"TableName": "Robust2", "BillingMode": "PAY_PER_REQUEST",
                    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
                    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
                    "GlobalSecondaryIndexes": [{"IndexName": "Gsi", "Projection": {"ProjectionType": "ALL"},
                                                "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}]},
    "DescribeTable": {"TableName": TABLE},
    "UpdateTable": {"TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
                    "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "Nope"}}]},
    "ListTables": {"Limit": 5, "ExclusiveStartTableName": "abc"},
    "PutItem": {"TableName": TABLE, "Item": {**KEY, "m": {"M": {"l": {"L": [{"NS": ["1", "2"]}]}}}},
                "ConditionExpression": "attribute_not_exists(#p) OR size(m.l) > :n",
                "ExpressionAttributeNames": {"#p": "PK"}, "ExpressionAttributeValues": {":n": {"N": "0"}},
                "ReturnValues": "ALL_OLD"},
    "GetItem": {"TableName": TABLE, "Key": KEY, "ProjectionExpression": "m.l[0], PK"},
    "UpdateItem": {"TableName": TABLE, "Key": KEY,
                   "UpdateExpression": "SET c = if_not_exists(c, :z) + :one, l = list_append(:l, :l) REMOVE x ADD s :s",
                   "ExpressionAttributeValues": {":z": {"N": "0"}, ":one": {"N": "1"}, ":l": {"L": []},
                                                 ":s": {"SS": ["a"]}},
                   "ReturnValues": "UPDATED_NEW"},
    "DeleteItem": {"TableName": TABLE, "Key": KEY, "Expected": {"c": {"ComparisonOperator": "GT",
                                                                       "AttributeValueList": [{"N": "0"}]}}},
    "Query": {"TableName": TABLE, "KeyConditionExpression": "PK = :p AND SK BETWEEN :a AND :b",
              "FilterExpression": "c IN (:a, :b)", "ExpressionAttributeValues": {
                  ":p": {"S": "a"}, ":a": {"N": "0"}, ":b": {"N": "9"}}, "Limit": 2,
              "ScanIndexForward": False, "ExclusiveStartKey": KEY},
    "Scan": {"TableName": TABLE, "Segment": 0, "TotalSegments": 2, "Select": "COUNT",
             "ScanFilter": {"c": {"ComparisonOperator": "NOT_NULL"}}},
    "BatchGetItem": {"RequestItems": {TABLE: {"Keys": [KEY], "AttributesToGet": ["PK"]}}},
    "BatchWriteItem": {"RequestItems": {TABLE: [{"PutRequest": {"Item": KEY}},
                                                {"DeleteRequest": {"Key": {"PK": {"S": "b"}, "SK": {"N": "2"}}}}]}},
    "TagResource": {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/" + TABLE,
                    "Tags": [{"Key": "k", "Value": "v"}]},
    "ListTagsOfResource": {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/" + TABLE},
}

ODD_VALUES = [None, True, False, 0, -1, 1.5, 2 ** 63, "", "x", "S", "1e400", "#", ":", "(", [], [None],
              [[[]]], {}, {"S": 1}, {"N": "nan"}, {"B": "!!"}, {"SS": []}, {"M": {"": {"NULL": False}}},
              {"L": [{}]}, "\u0000\ud7ff", "a" * 5000]


def mutate(value, rng, depth=0):
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        choice = rng.random()
        if choice < 0.25:
            del value[key]
        elif choice < 0.6 or depth > 4:
            value[key] = copy.deepcopy(rng.choice(ODD_VALUES))
        else:
            value[key] = mutate(value[key], rng, depth + 1)
        return value
    if isinstance(value, list) and value and rng.random() < 0.7:
        index = rng.randrange(len(value))
        value[index] = mutate(value[index], rng, depth + 1) if rng.random() < 0.5 else \
            copy.deepcopy(rng.choice(ODD_VALUES))
        return value
    return copy.deepcopy(rng.choice(ODD_VALUES))


def test_mutated_requests_get_dynamodb_errors(server, ddb):
    ddb.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                                {"AttributeName": "SK", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                           {"AttributeName": "SK", "AttributeType": "N"}])
    rng = random.Random(20261129)
    statuses = {}
    for round_ in range(1500):
        operation = rng.choice(sorted(TEMPLATES))
        body = mutate(copy.deepcopy(TEMPLATES[operation]), rng)
        if rng.random() < 0.3:
            body = mutate(body, rng)
        status, _, data = raw_call(server.endpoint, operation, json.dumps(body))
        statuses[status] = statuses.get(status, 0) + 1
        assert status in (200, 400), (operation, body, status, data[:300])
        if status == 400:
            parsed = json.loads(data.decode("utf-8"))
            assert parsed["__type"].split("#")[1].endswith(("Exception", "Error")) or \
                parsed["__type"].endswith("Exception"), parsed
    assert statuses.get(200, 0) > 0 and statuses.get(400, 0) > 0
    assert ddb.describe_table(TableName=TABLE)["Table"]["TableStatus"] == "ACTIVE"
