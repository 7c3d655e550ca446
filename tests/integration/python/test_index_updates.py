"""UpdateTable's GSI creation and deletion on tables that already have indexes: which
AttributeDefinitions a request may list, what deleting an index forgets, and which items a
backfill leaves out of the new index."""
import time

import pytest


def attr_defs(**types):
    return [{"AttributeName": name, "AttributeType": t} for name, t in types.items()]


def keys(*elements):
    return [{"AttributeName": name, "KeyType": kind} for name, kind in elements]


def gsi(name, *elements):
    return {"IndexName": name, "KeySchema": keys(*elements), "Projection": {"ProjectionType": "ALL"}}


def wait_active(ddb, table):
    deadline = time.monotonic() + 30
    while True:
        description = ddb.describe_table(TableName=table)["Table"]
        statuses = [i["IndexStatus"] for i in description.get("GlobalSecondaryIndexes", [])]
        if description["TableStatus"] == "ACTIVE" and all(s == "ACTIVE" for s in statuses):
            return description
        assert time.monotonic() < deadline, statuses
        time.sleep(0.02)


@pytest.fixture
def indexed(ddb):
    """A table with one GSI and one LSI, and an item that each new index will hold."""
    name = f"indexed_{time.monotonic_ns()}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=keys(("pk", "HASH"), ("sk", "RANGE")),
                     AttributeDefinitions=attr_defs(pk="S", sk="S", lsk="S", g1="S"),
                     GlobalSecondaryIndexes=[gsi("ByG1", ("g1", "HASH"))],
                     LocalSecondaryIndexes=[{"IndexName": "ByLsk",
                                             "KeySchema": keys(("pk", "HASH"), ("lsk", "RANGE")),
                                             "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": "s"}, "lsk": {"S": "l"},
                                       "g1": {"S": "one"}, "g2": {"S": "two"}, "g3": {"N": "3"}})
    yield name
    ddb.delete_table(TableName=name)


def defined(description):
    return {d["AttributeName"]: d["AttributeType"] for d in description["AttributeDefinitions"]}


def query_count(ddb, table, index, attribute, value):
    return ddb.query(TableName=table, IndexName=index, KeyConditionExpression="#k = :v",
                     ExpressionAttributeNames={"#k": attribute},
                     ExpressionAttributeValues={":v": value})["Count"]


def test_adds_second_and_third_gsi_listing_every_definition(ddb, indexed):
    """Terraform, CDK and dynamoose send every attribute the table and its indexes use."""
    ddb.update_table(TableName=indexed, AttributeDefinitions=attr_defs(pk="S", sk="S", lsk="S", g1="S", g2="S"),
                     GlobalSecondaryIndexUpdates=[{"Create": gsi("ByG2", ("g2", "HASH"))}])
    wait_active(ddb, indexed)
    ddb.update_table(TableName=indexed,
                     AttributeDefinitions=attr_defs(pk="S", sk="S", lsk="S", g1="S", g2="S", g3="N"),
                     GlobalSecondaryIndexUpdates=[{"Create": gsi("ByG3", ("g3", "HASH"), ("sk", "RANGE"))}])
    description = wait_active(ddb, indexed)
    assert sorted(i["IndexName"] for i in description["GlobalSecondaryIndexes"]) == ["ByG1", "ByG2", "ByG3"]
    assert defined(description) == {"pk": "S", "sk": "S", "lsk": "S", "g1": "S", "g2": "S", "g3": "N"}
    assert query_count(ddb, indexed, "ByG2", "g2", {"S": "two"}) == 1
    assert query_count(ddb, indexed, "ByG3", "g3", {"N": "3"}) == 1


def test_adds_gsi_listing_only_its_own_keys(ddb, indexed):
    """The AWS CLI's usual form: only the new index's key attributes."""
    ddb.update_table(TableName=indexed, AttributeDefinitions=attr_defs(g2="S"),
                     GlobalSecondaryIndexUpdates=[{"Create": gsi("ByG2", ("g2", "HASH"))}])
    wait_active(ddb, indexed)
    ddb.update_table(TableName=indexed, AttributeDefinitions=attr_defs(g3="N", sk="S"),
                     GlobalSecondaryIndexUpdates=[{"Create": gsi("ByG3", ("g3", "HASH"), ("sk", "RANGE"))}])
    description = wait_active(ddb, indexed)
    assert defined(description) == {"pk": "S", "sk": "S", "lsk": "S", "g1": "S", "g2": "S", "g3": "N"}


def test_definitions_no_key_uses_are_ignored(ddb, indexed):
    """Unlike CreateTable, UpdateTable ignores definitions of attributes no key uses."""
    response = ddb.update_table(TableName=indexed, AttributeDefinitions=attr_defs(g2="S", other="S"),
                                GlobalSecondaryIndexUpdates=[{"Create": gsi("ByG2", ("g2", "HASH"))}])
    assert defined(response["TableDescription"]) == {"pk": "S", "sk": "S", "lsk": "S", "g1": "S", "g2": "S"}


def test_index_creation_refusals(ddb, indexed):
    def refused(**request):
        with pytest.raises(ddb.exceptions.ClientError) as error:
            ddb.update_table(TableName=indexed, **request)
        return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]

    assert refused(GlobalSecondaryIndexUpdates=[{"Create": gsi("ByG2", ("g2", "HASH"))}]) == (
        "ValidationException",
        "One or more parameter values were invalid: AttributeDefinitions is not specified for index: ByG2")
    # A key the table already knows must still be defined by the request.
    assert refused(AttributeDefinitions=attr_defs(g2="S"),
                   GlobalSecondaryIndexUpdates=[{"Create": gsi("ByG2", ("g2", "HASH"), ("sk", "RANGE"))}]) == (
        "ValidationException",
        "One or more parameter values were invalid: Some index key attributes are not defined in "
        "AttributeDefinitions. Keys: [g2, sk], AttributeDefinitions: [g2]")
    assert refused(AttributeDefinitions=attr_defs(g1="N"),
                   GlobalSecondaryIndexUpdates=[{"Create": gsi("ByG2", ("g1", "HASH"))}]) == (
        "ValidationException",
        "One or more parameter values were invalid: Attributes cannot be redefined. Please check that "
        "your attribute has the same type as previously defined. Existing schema: "
        "Schema:[SchemaElement: key{g1:S:HASH}] New schema: Schema:[SchemaElement: key{g1:N:HASH}]")


def test_deleting_a_gsi_forgets_its_definitions_and_another_can_be_added(ddb, indexed):
    response = ddb.update_table(TableName=indexed, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "ByG1"}}])
    assert defined(response["TableDescription"]) == {"pk": "S", "sk": "S", "lsk": "S"}
    description = wait_active(ddb, indexed)
    assert defined(description) == {"pk": "S", "sk": "S", "lsk": "S"}
    assert "GlobalSecondaryIndexes" not in description
    # g1 is free again, even with another type.
    ddb.update_table(TableName=indexed, AttributeDefinitions=attr_defs(g1="N"),
                     GlobalSecondaryIndexUpdates=[{"Create": gsi("ByG1n", ("g1", "HASH"))}])
    description = wait_active(ddb, indexed)
    assert defined(description) == {"pk": "S", "sk": "S", "lsk": "S", "g1": "N"}
    ddb.put_item(TableName=indexed, Item={"pk": {"S": "q"}, "sk": {"S": "s"}, "g1": {"N": "7"}})
    assert query_count(ddb, indexed, "ByG1n", "g1", {"N": "7"}) == 1
    # The item whose g1 is a string stays out of the numeric index.
    assert ddb.describe_table(TableName=indexed)["Table"]["GlobalSecondaryIndexes"][0]["ItemCount"] == 1


def test_backfill_leaves_out_items_whose_key_dynamodb_would_refuse(ddb):
    """Items written before the index existed whose new key is an empty string, of the wrong
    type or over the key-size limits (2,048 bytes partition, 1,024 sort) are not indexed."""
    name = f"backfill_skip_{time.monotonic_ns()}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=keys(("pk", "HASH")),
                     AttributeDefinitions=attr_defs(pk="S"))
    items = {
        "ok": {"gp": {"S": "g"}, "gs": {"S": "s"}},
        "empty_partition": {"gp": {"S": ""}, "gs": {"S": "s"}},
        "empty_sort": {"gp": {"S": "g"}, "gs": {"S": ""}},
        "wrong_type": {"gp": {"N": "1"}, "gs": {"S": "s"}},
        "long_partition": {"gp": {"S": "x" * 2049}, "gs": {"S": "s"}},
        "longest_partition": {"gp": {"S": "y" * 2048}, "gs": {"S": "s"}},
        "long_sort": {"gp": {"S": "g"}, "gs": {"S": "z" * 1025}},
        "longest_sort": {"gp": {"S": "g"}, "gs": {"S": "w" * 1024}},
    }
    for pk, attributes in items.items():
        ddb.put_item(TableName=name, Item={"pk": {"S": pk}, **attributes})
    ddb.update_table(TableName=name, AttributeDefinitions=attr_defs(gp="S", gs="S"),
                     GlobalSecondaryIndexUpdates=[{"Create": gsi("ByGpGs", ("gp", "HASH"), ("gs", "RANGE"))}])
    description = wait_active(ddb, name)
    assert description["GlobalSecondaryIndexes"][0]["ItemCount"] == 3
    found = []
    for page in ddb.get_paginator("scan").paginate(TableName=name, IndexName="ByGpGs"):
        found += [i["pk"]["S"] for i in page["Items"]]
    assert sorted(found) == ["longest_partition", "longest_sort", "ok"]
    ddb.delete_table(TableName=name)


def test_gsi_keyed_on_several_hash_attributes_without_a_range(raw, ddb):
    """Multi-attribute keys: two to four HASH attributes and no RANGE (raw HTTP: Debian's
    botocore predates them)."""
    name = f"multi_hash_{time.monotonic_ns()}"
    status, _, message, body = raw("CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST", "KeySchema": keys(("pk", "HASH")),
        "AttributeDefinitions": attr_defs(pk="S", a="S", b="N", c="S"),
        "GlobalSecondaryIndexes": [gsi("ByAB", ("a", "HASH"), ("b", "HASH")),
                                   gsi("ByABC", ("a", "HASH"), ("b", "HASH"), ("c", "HASH"))]})
    assert status == 200, message
    assert body["TableDescription"]["GlobalSecondaryIndexes"][0]["KeySchema"] == keys(("a", "HASH"), ("b", "HASH"))
    ddb.put_item(TableName=name, Item={"pk": {"S": "1"}, "a": {"S": "x"}, "b": {"N": "2"}, "c": {"S": "z"}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "2"}, "a": {"S": "x"}, "b": {"N": "3"}, "c": {"S": "z"}})
    status, _, message, body = raw("Query", {
        "TableName": name, "IndexName": "ByAB", "KeyConditionExpression": "a = :a AND b = :b",
        "ExpressionAttributeValues": {":a": {"S": "x"}, ":b": {"N": "2"}}})
    assert status == 200, message
    assert [i["pk"]["S"] for i in body["Items"]] == ["1"]
    status, _, message, _ = raw("Query", {
        "TableName": name, "IndexName": "ByABC", "KeyConditionExpression": "a = :a AND b = :b",
        "ExpressionAttributeValues": {":a": {"S": "x"}, ":b": {"N": "2"}}})
    assert (status, message) == (400, "Query condition missed key schema element: c")
    # Tables and LSIs still take one HASH attribute.
    status, name_, message, _ = raw("CreateTable", {
        "TableName": name + "_t", "BillingMode": "PAY_PER_REQUEST", "KeySchema": keys(("pk", "HASH"), ("a", "HASH")),
        "AttributeDefinitions": attr_defs(pk="S", a="S")})
    assert (status, name_, message) == (400, "ValidationException",
                                        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
    ddb.delete_table(TableName=name)


def test_index_update_entry_refusals(raw, ddb, indexed):
    create = gsi("ByG2", ("g2", "HASH"))

    def refused(updates, definitions=None):
        body = {"TableName": indexed, "GlobalSecondaryIndexUpdates": updates}
        if definitions:
            body["AttributeDefinitions"] = definitions
        status, name, message, _ = raw("UpdateTable", body)
        assert (status, name) == (400, "ValidationException"), message
        return message

    assert refused([{"Create": create, "Delete": {"IndexName": "ByG1"}}], attr_defs(g2="S")) == (
        "One or more parameter values were invalid: Only one global secondary index action is "
        "allowed per GlobalSecondaryIndexUpdate object")
    assert refused([{}]) == (
        "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, "
        "GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")
    assert refused([{"Delete": {"IndexName": "ByG1"}}, {"Delete": {"IndexName": "ByG1"}}]) == (
        "One or more parameter values were invalid: Only one global secondary index update per "
        "index is allowed simultaneously. Index: ByG1")
    description = ddb.describe_table(TableName=indexed)["Table"]
    assert [i["IndexName"] for i in description["GlobalSecondaryIndexes"]] == ["ByG1"]


def test_multi_attribute_key_schema_refusals(raw):
    def create(schema):
        status, name, message, _ = raw("CreateTable", {
            "TableName": f"multi_refused_{time.monotonic_ns()}", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": keys(("pk", "HASH")),
            "AttributeDefinitions": attr_defs(pk="S", a="S", b="S", c="S", d="S", e="S"),
            "GlobalSecondaryIndexes": [{"IndexName": "Multi", "KeySchema": keys(*schema),
                                        "Projection": {"ProjectionType": "ALL"}}]})
        assert (status, name) == (400, "ValidationException"), message
        return message

    assert create([("a", "HASH"), ("b", "RANGE"), ("c", "HASH")]) == (
        "One or more parameter values were invalid: All HASH key attributes must precede RANGE key "
        "attributes in the KeySchema")
    assert create([(x, "HASH") for x in "abcde"]) == (
        "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number "
        "of HASH key attributes")
    assert create([("pk", "HASH")] + [(x, "RANGE") for x in "abcde"]) == (
        "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number "
        "of RANGE key attributes")


def test_duplicate_non_key_attributes(raw):
    status, name, message, _ = raw("CreateTable", {
        "TableName": f"dup_nka_{time.monotonic_ns()}", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": keys(("pk", "HASH")), "AttributeDefinitions": attr_defs(pk="S", g="S"),
        "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": keys(("g", "HASH")),
                                    "Projection": {"ProjectionType": "INCLUDE",
                                                   "NonKeyAttributes": ["x", "y", "x"]}}]})
    assert (status, name, message) == (
        400, "ValidationException",
        "One or more parameter values were invalid: Duplicate element in NonKeyAttributes: x")


@pytest.mark.parametrize("name", ["", "x" * 256])
def test_non_key_attribute_names_are_1_to_255_characters(raw, name):
    # The API model's NonKeyAttributeName: 1..255 characters, a constraint on each member.
    status, error, message, _ = raw("CreateTable", {
        "TableName": f"nka_len_{time.monotonic_ns()}", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": keys(("pk", "HASH")), "AttributeDefinitions": attr_defs(pk="S", g="S"),
        "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": keys(("g", "HASH")),
                                    "Projection": {"ProjectionType": "INCLUDE",
                                                   "NonKeyAttributes": ["x", name]}}]})
    assert (status, error, message) == (
        400, "ValidationException",
        f"1 validation error detected: Value '[x, {name}]' at "
        "'globalSecondaryIndexes.1.member.projection.nonKeyAttributes' failed to satisfy constraint: "
        "Member must satisfy constraint: [Member must have length less than or equal to 255, "
        "Member must have length greater than or equal to 1]")
