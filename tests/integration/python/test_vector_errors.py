"""Vector-index errors (spec/vector-search.md §14), each asserted by exception and exact text.

Raw HTTP: the botocore here predates vector search and would refuse the members client-side.
"""
import json

import pytest

TABLE = "VectorErrors"
INDEX = "Semantic"

SEMANTIC = {
    "IndexName": INDEX, "VectorAttribute": {"AttributeName": "embedding"}, "Dimensions": 3,
    "DistanceFunction": "COSINE",
    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["text"]},
    "SearchSchema": [{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
                     {"AttributeName": "lang", "SearchSchemaElementType": "INLINE_FILTER"}],
}
DEFS = [{"AttributeName": "id", "AttributeType": "S"},
        {"AttributeName": "tenant", "AttributeType": "S"},
        {"AttributeName": "lang", "AttributeType": "S"}]
KEYS = [{"AttributeName": "id", "KeyType": "HASH"}]


@pytest.fixture(scope="module", autouse=True)
def tables(raw):
    status, error, message, _ = raw("CreateTable", {
        "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": DEFS,
        "KeySchema": KEYS, "VectorIndexes": [SEMANTIC]})
    assert status == 200, message
    status, _, message, _ = raw("CreateTable", {
        "TableName": "VectorFull", "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": DEFS,
        "KeySchema": KEYS, "VectorIndexes": [named(f"Index{i}") for i in range(5)]})
    assert status == 200, message
    status, _, message, _ = raw("CreateTable", {
        "TableName": "VectorPlain", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [DEFS[0]], "KeySchema": KEYS})
    assert status == 200, message


def create(**changes):
    """A CreateTable body with one vector index, `changes` applied to the index."""
    index = {**SEMANTIC, **changes}
    index = {k: v for k, v in index.items() if v is not None}
    return {"TableName": "VectorNew", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": DEFS, "KeySchema": KEYS, "VectorIndexes": [index]}


def create_many(indexes, **table):
    return {"TableName": "VectorNew", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": DEFS, "KeySchema": KEYS, "VectorIndexes": indexes, **table}


def named(name, **changes):
    return {**SEMANTIC, "IndexName": name, **changes}


def put(embedding, **attributes):
    item = {"id": {"S": "x"}, "tenant": {"S": "acme"}, "embedding": embedding, **attributes}
    return {"TableName": TABLE, "Item": item}


def vec(*values):
    return {"L": [{"N": str(v)} for v in values]}


def search(**changes):
    body = {"TableName": TABLE, "IndexName": INDEX,
            "SearchVector": [{"N": "1"}, {"N": "0"}, {"N": "0"}], "TopK": 3,
            "SearchConditionExpression": "tenant = :t",
            "ExpressionAttributeValues": {":t": {"S": "acme"}}}
    body.update(changes)
    return {k: v for k, v in body.items() if v is not None}


def update(*vector_updates, **extra):
    return {"TableName": TABLE, "VectorIndexUpdates": list(vector_updates), **extra}


INVALID = "One or more parameter values were invalid: "
NOT_VALID = "One or more parameter values are not valid. One or more parameter values were invalid . "

CASES = [
    # CreateTable
    ("provisioned-table", "CreateTable",
     {**create(), "BillingMode": "PROVISIONED",
      "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}},
     "ValidationException", INVALID + "Vector indexes are only supported for PAY_PER_REQUEST tables"),
    ("empty-list", "CreateTable", create_many([]), "ValidationException",
     INVALID + "List of VectorIndexes is empty"),
    ("dimensions-zero", "CreateTable", create(Dimensions=0), "ValidationException",
     "1 validation error detected: Value '0' at 'vectorIndexes.1.member.dimensions' failed to "
     "satisfy constraint: Member must have value greater than or equal to 1"),
    ("dimensions-fraction", "CreateTable", create(Dimensions=-2.7), "ValidationException",
     "1 validation error detected: Value '-2' at 'vectorIndexes.1.member.dimensions' failed to "
     "satisfy constraint: Member must have value greater than or equal to 1"),
    ("dimensions-missing", "CreateTable", create(Dimensions=None), "ValidationException",
     "1 validation error detected: Value null at 'vectorIndexes.1.member.dimensions' failed to "
     "satisfy constraint: Member must not be null"),
    ("distance-unknown", "CreateTable", create(DistanceFunction="MANHATTAN"), "ValidationException",
     "1 validation error detected: Value 'MANHATTAN' at 'vectorIndexes.1.member.distanceFunction' "
     "failed to satisfy constraint: Member must satisfy enum value set: [COSINE, DOT_PRODUCT, "
     "EUCLIDEAN]"),
    ("schema-type-unknown", "CreateTable",
     create(SearchSchema=[{"AttributeName": "tenant", "SearchSchemaElementType": "RANGE"}]),
     "ValidationException",
     "1 validation error detected: Value 'RANGE' at "
     "'vectorIndexes.1.member.searchSchema.1.member.searchSchemaElementType' failed to satisfy "
     "constraint: Member must satisfy enum value set: [HASH, INLINE_FILTER]"),
    ("vector-attribute-missing", "CreateTable", create(VectorAttribute=None), "ValidationException",
     "1 validation error detected: Value null at 'vectorIndexes.1.member.vectorAttribute' failed "
     "to satisfy constraint: Member must not be null"),
    ("vector-attribute-empty", "CreateTable", create(VectorAttribute={"AttributeName": ""}),
     "ValidationException",
     "1 validation error detected: Value '' at 'vectorIndexes.1.member.vectorAttribute."
     "attributeName' failed to satisfy constraint: Member must have length greater than or equal "
     "to 1"),
    ("index-name-short", "CreateTable", create(IndexName="ab"), "ValidationException",
     "1 validation error detected: Value 'ab' at 'vectorIndexes.1.member.indexName' failed to "
     "satisfy constraint: Member must have length greater than or equal to 3"),
    ("dimensions-too-many", "CreateTable", create(Dimensions=4097), "ValidationException",
     INVALID + "Number of dimensions must be between 1 and 4096 inclusive."),
    ("projection-keys-only-with-attributes", "CreateTable",
     create(Projection={"ProjectionType": "KEYS_ONLY", "NonKeyAttributes": ["text"]}),
     "ValidationException",
     INVALID + "ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified"),
    ("schema-undefined", "CreateTable",
     create(SearchSchema=[{"AttributeName": "region", "SearchSchemaElementType": "HASH"}]),
     "ValidationException",
     INVALID + "One element in SearchSchema is not defined in attribute definitions"),
    ("two-hash", "CreateTable",
     create(SearchSchema=[{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
                          {"AttributeName": "lang", "SearchSchemaElementType": "HASH"}]),
     "ValidationException",
     INVALID + "Value '2' at 'SearchSchema' failed to satisfy constraint: Member must have HASH "
     "count less than or equal to 1"),
    ("schema-duplicate", "CreateTable",
     create(SearchSchema=[{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
                          {"AttributeName": "tenant", "SearchSchemaElementType": "INLINE_FILTER"}]),
     "ValidationException", INVALID + "SearchSchema contains a duplicate AttributeName"),
    ("duplicate-name", "CreateTable", create_many([named("Same"), named("Same")]),
     "ValidationException", INVALID + "Duplicate index name: Same"),
    ("six-indexes", "CreateTable", create_many([named(f"Index{i}") for i in range(6)]),
     "ValidationException", INVALID + "VectorIndex count exceeds the per-table limit of 5"),
    ("dimension-conflict", "CreateTable",
     create_many([named("First"), named("Second", Dimensions=4)]), "ValidationException",
     INVALID + "Conflicting attribute definition for 'embedding'. All VectorIndexes on the same "
     "vector attribute must use the same dimensions."),
    ("vector-attribute-declared", "CreateTable",
     create(VectorAttribute={"AttributeName": "tenant"}), "ValidationException",
     INVALID + "Conflicting attribute definition for 'tenant'. An attribute cannot be defined in "
     "AttributeDefinitions when used as a VectorAttribute."),
    ("name-of-a-gsi", "CreateTable",
     {**create(IndexName="Shared"), "GlobalSecondaryIndexes": [{
         "IndexName": "Shared", "KeySchema": [{"AttributeName": "tenant", "KeyType": "HASH"}],
         "Projection": {"ProjectionType": "ALL"}}]},
     "ValidationException", INVALID + "Duplicate index name: Shared"),
    # UpdateTable
    ("update-two-actions", "UpdateTable",
     update({"Create": named("Other")}, {"Delete": {"IndexName": INDEX}},
            AttributeDefinitions=DEFS),
     "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be created or "
     "deleted simultaneously per table"),
    ("update-create-and-delete", "UpdateTable",
     update({"Create": named("Other"), "Delete": {"IndexName": INDEX}}, AttributeDefinitions=DEFS),
     "ValidationException",
     INVALID + "Only one vector index action is allowed per VectorIndexUpdate object"),
    ("update-existing-name", "UpdateTable", update({"Create": named(INDEX)}, AttributeDefinitions=DEFS),
     "ValidationException", "Attempting to create an index which already exists"),
    ("update-delete-unknown", "UpdateTable", update({"Delete": {"IndexName": "Nowhere"}}),
     "ResourceNotFoundException", "Requested resource not found: Index Nowhere for table " + TABLE),
    ("update-schema-not-in-request", "UpdateTable", update({"Create": named("Other")}),
     "ValidationException",
     INVALID + "One element in SearchSchema is not defined in attribute definitions"),
    ("update-to-provisioned", "UpdateTable",
     {"TableName": TABLE, "BillingMode": "PROVISIONED",
      "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}},
     "ValidationException",
     INVALID + "Tables with vector indexes must be in PAY_PER_REQUEST mode"),
    ("update-vector-attribute-is-key", "UpdateTable",
     {"TableName": "VectorPlain", "VectorIndexUpdates": [{"Create": {
         **named("OnKey"), "VectorAttribute": {"AttributeName": "id"}, "SearchSchema": None}}]},
     "ValidationException",
     INVALID + "Attributes cannot be redefined. Please check that your attribute has the same type "
     "as previously defined. Existing schema: Schema:[SchemaElement: key{id:S:HASH}] New schema: "
     "VectorIndexSchema:[VectorAttribute: key{id:L:3}]"),
    ("update-dimensions-missing", "UpdateTable",
     update({"Create": named("Other", Dimensions=None)}, AttributeDefinitions=DEFS),
     "ValidationException",
     "1 validation error detected: Value null at 'vectorIndexUpdates.1.member.create.dimensions' "
     "failed to satisfy constraint: Member must not be null"),
    ("update-sixth-index", "UpdateTable",
     {"TableName": "VectorFull", "AttributeDefinitions": DEFS,
      "VectorIndexUpdates": [{"Create": named("Sixth")}]},
     "LimitExceededException",
     "Subscriber limit exceeded: Number of vector secondary indexes exceeds per-table limit of 5"),
    ("update-dimension-conflict", "UpdateTable",
     update({"Create": named("Other", Dimensions=4)}, AttributeDefinitions=DEFS),
     "ValidationException",
     INVALID + "Conflicting attribute definition for 'embedding'. All VectorIndexes on the same "
     "vector attribute must use the same dimensions."),
    ("update-vector-attribute-declared", "UpdateTable",
     update({"Create": named("Other")},
            AttributeDefinitions=DEFS + [{"AttributeName": "embedding", "AttributeType": "S"}]),
     "ValidationException",
     INVALID + "Conflicting attribute definition for 'embedding'. An attribute cannot be defined "
     "in AttributeDefinitions when used as a VectorAttribute."),
    ("gsi-on-vector-attribute", "UpdateTable",
     {"TableName": TABLE,
      "AttributeDefinitions": [{"AttributeName": "embedding", "AttributeType": "S"}],
      "GlobalSecondaryIndexUpdates": [{"Create": {
          "IndexName": "ByEmbedding", "Projection": {"ProjectionType": "ALL"},
          "KeySchema": [{"AttributeName": "embedding", "KeyType": "HASH"}]}}]},
     "ValidationException",
     INVALID + "Attributes cannot be redefined. Please check that your attribute has the same type "
     "as previously defined. Existing schema: VectorIndexSchema:[VectorAttribute: "
     "key{embedding:L:3}] New schema: Schema:[SchemaElement: key{embedding:S:HASH}]"),
    ("gsi-named-like-vector-index", "UpdateTable",
     {"TableName": TABLE, "AttributeDefinitions": [DEFS[1]],
      "GlobalSecondaryIndexUpdates": [{"Create": {
          "IndexName": INDEX, "Projection": {"ProjectionType": "ALL"},
          "KeySchema": [{"AttributeName": "tenant", "KeyType": "HASH"}]}}]},
     "ValidationException", "Attempting to create an index which already exists"),
    # Writes
    ("write-not-a-list", "PutItem", put({"S": "abc"}), "ValidationException",
     NOT_VALID + "Invalid type for parameter embedding, Expected: L, Actual: S. IndexName: " + INDEX),
    ("write-wrong-length", "PutItem", put(vec(1, 2)), "ValidationException",
     NOT_VALID + "Invalid size for parameter embedding, Expected: 3, Actual: 2. IndexName: " + INDEX),
    ("write-element-not-number", "PutItem",
     put({"L": [{"N": "1"}, {"S": "two"}, {"N": "3"}]}), "ValidationException",
     "One or more parameter values were invalid. Invalid type for parameter embedding[1], "
     "Expected: 32-bit floating point number, Actual: S. IndexName: " + INDEX),
    ("write-element-out-of-range", "PutItem", put(vec(1, "3.5E38", 0)), "ValidationException",
     NOT_VALID + "Invalid value for parameter embedding[1], Value: 3.5E+38 is outside valid range "
     "[-3.4028235E38, 3.4028235E38]. IndexName: " + INDEX),
    ("write-negative-out-of-range", "PutItem", put(vec("-1.3E40", 0, 0)), "ValidationException",
     NOT_VALID + "Invalid value for parameter embedding[0], Value: -1.3E+40 is outside valid range "
     "[-3.4028235E38, 3.4028235E38]. IndexName: " + INDEX),
    ("write-schema-type", "PutItem", put(vec(1, 0, 0), lang={"N": "7"}), "ValidationException",
     "One or more parameter values were invalid. Attribute 'lang' type mismatch. Expected: S, "
     "Actual: N. IndexName: " + INDEX),
    ("write-empty-hash", "PutItem", put(vec(1, 0, 0), tenant={"S": ""}), "ValidationException",
     "One or more parameter values are not valid. A value specified for a secondary index key is "
     "not supported. The AttributeValue for a key attribute cannot contain an empty string value. "
     "IndexName: " + INDEX + ", IndexKey: tenant"),
    ("update-empty-hash", "UpdateItem",
     {"TableName": TABLE, "Key": {"id": {"S": "u"}}, "UpdateExpression": "SET tenant = :e",
      "ExpressionAttributeValues": {":e": {"S": ""}}}, "ValidationException",
     "One or more parameter values are not valid. The update expression attempted to update a "
     "secondary index key to a value that is not supported. The AttributeValue for a key "
     "attribute cannot contain an empty string value."),
    # SearchVectors
    ("search-topk-over", "SearchVectors", search(TopK=101), "ValidationException",
     "Provided TopK value '101' is out of valid range. The value must be between 1 and 100 inclusive"),
    ("search-topk-zero", "SearchVectors", search(TopK=0), "ValidationException",
     "1 validation error detected: Value at 'TopK' failed to satisfy constraint: Member must have "
     "value greater than or equal to 1"),
    ("search-index-short", "SearchVectors", search(IndexName="ab"), "ValidationException",
     "1 validation error detected: Value at 'IndexName' failed to satisfy constraint: Member must "
     "have length greater than or equal to 3"),
    ("search-vector-empty", "SearchVectors", search(SearchVector=[]), "ValidationException",
     "1 validation error detected: Value at 'SearchVector' failed to satisfy constraint: Member "
     "must have length greater than or equal to 1"),
    ("search-no-table", "SearchVectors", search(TableName="NoSuchTable"),
     "ResourceNotFoundException", "Requested resource not found"),
    ("search-topk-before-table", "SearchVectors", search(TableName="NoSuchTable", TopK=500),
     "ValidationException",
     "Provided TopK value '500' is out of valid range. The value must be between 1 and 100 inclusive"),
    ("search-no-index", "SearchVectors", search(IndexName="Missing"), "ValidationException",
     "The table does not have the specified index: Missing"),
    ("search-vector-not-numbers", "SearchVectors",
     search(SearchVector=[{"N": "1"}, {"S": "x"}, {"N": "0"}]), "ValidationException",
     "Search vector contains invalid values. All values in the search vector must be a 32-bit "
     "floating-point number attribute"),
    ("search-vector-wrapped", "SearchVectors", search(SearchVector=[vec(1, 0, 0)]),
     "ValidationException",
     "Search vector contains invalid values. All values in the search vector must be a 32-bit "
     "floating-point number attribute"),
    ("search-dimension-mismatch", "SearchVectors", search(SearchVector=[{"N": "1"}, {"N": "0"}]),
     "ValidationException", "Input search vector dimension 2 does not match vector index dimension 3"),
    ("search-outside-schema", "SearchVectors",
     search(SearchConditionExpression="tenant = :t AND snippet = :x",
            ExpressionAttributeValues={":t": {"S": "acme"}, ":x": {"S": "hi"}}),
     "ValidationException",
     "SearchConditionExpression must not contain any attributes that is not in SearchSchema. "
     "Invalid attribute: snippet"),
    ("search-nested", "SearchVectors",
     search(SearchConditionExpression="tenant = :t AND lang.code = :x",
            ExpressionAttributeValues={":t": {"S": "acme"}, ":x": {"S": "en"}}),
     "ValidationException",
     "Invalid SearchConditionExpression: SearchConditionExpression cannot have conditions on "
     "nested attributes"),
    ("search-attribute-twice", "SearchVectors",
     search(SearchConditionExpression="tenant = :t AND tenant = :t"), "ValidationException",
     "Invalid SearchConditionExpression: SearchConditionExpression must only contain one "
     "condition per attribute"),
    ("search-hash-missing", "SearchVectors",
     search(SearchConditionExpression=None, ExpressionAttributeValues=None), "ValidationException",
     "SearchConditionExpression must be provided when SearchSchema has a HASH key"),
    ("search-hash-missing-in-expression", "SearchVectors",
     search(SearchConditionExpression="lang = :l", ExpressionAttributeValues={":l": {"S": "en"}}),
     "ValidationException",
     "SearchConditionExpression must be provided when SearchSchema has a HASH key"),
    ("search-operand-type", "SearchVectors",
     search(ExpressionAttributeValues={":t": {"N": "5"}}), "ValidationException",
     "Type of 'tenant' attribute in SearchConditionExpression (N) does not match type in search "
     "schema (S)"),
    ("search-empty-hash", "SearchVectors", search(ExpressionAttributeValues={":t": {"S": ""}}),
     "ValidationException",
     "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
     "contain an empty string value. Key: tenant"),
    ("search-comparator", "SearchVectors", search(SearchConditionExpression="tenant > :t"),
     "ValidationException",
     "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression"),
    ("search-between", "SearchVectors",
     search(SearchConditionExpression="tenant BETWEEN :t AND :u",
            ExpressionAttributeValues={":t": {"S": "a"}, ":u": {"S": "b"}}),
     "ValidationException",
     "Invalid SearchConditionExpression: Invalid operator used in SearchConditionExpression"),
    ("search-function", "SearchVectors",
     search(SearchConditionExpression="tenant = :t AND size(lang) = :n",
            ExpressionAttributeValues={":t": {"S": "acme"}, ":n": {"N": "2"}}),
     "ValidationException",
     "Invalid SearchConditionExpression: Invalid operator used in SearchConditionExpression"),
    ("search-or", "SearchVectors",
     search(SearchConditionExpression="tenant = :t OR lang = :l",
            ExpressionAttributeValues={":t": {"S": "acme"}, ":l": {"S": "en"}}),
     "ValidationException",
     "Invalid SearchConditionExpression: Invalid operator used in SearchConditionExpression"),
    ("search-reserved-word", "SearchVectors",
     search(SearchConditionExpression="tenant = :t AND name = :n",
            ExpressionAttributeValues={":t": {"S": "acme"}, ":n": {"S": "x"}}),
     "ValidationException",
     "Invalid SearchConditionExpression: Attribute name is a reserved keyword; reserved keyword: name"),
    ("search-values-without-expression", "SearchVectors",
     search(SearchConditionExpression=None), "ValidationException",
     "ExpressionAttributeValues can only be specified when using expressions: "
     "SearchConditionExpression is null"),
    # Query and Scan
    ("query-vector-index", "Query",
     {"TableName": TABLE, "IndexName": INDEX, "KeyConditionExpression": "tenant = :t",
      "ExpressionAttributeValues": {":t": {"S": "acme"}}},
     "ValidationException", "Query operation not supported on this index type."),
    ("scan-vector-index", "Scan", {"TableName": TABLE, "IndexName": INDEX}, "ValidationException",
     "Scan operation not supported on this index type"),
    ("scan-vector-index-consistent", "Scan",
     {"TableName": TABLE, "IndexName": INDEX, "ConsistentRead": True}, "ValidationException",
     "Consistent reads are not supported on global secondary indexes"),
]


@pytest.mark.parametrize("operation,body,exception,message",
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_error(raw, operation, body, exception, message):
    status, name, text, _ = raw(operation, body)
    assert (status, name, text) == (400, exception, message)


def test_catalogue_is_large_enough():
    assert len({case[0] for case in CASES}) == len(CASES) >= 30


def test_rejected_write_changes_nothing(raw):
    status, _, _, _ = raw("PutItem", put(vec(1, 2)))
    assert status == 400
    _, _, _, body = raw("GetItem", {"TableName": TABLE, "Key": {"id": {"S": "x"}}})
    assert body == {}
    _, _, _, body = raw("DescribeTable", {"TableName": TABLE})
    assert body["Table"]["VectorIndexes"][0]["ItemCount"] == 0


def test_batch_with_one_bad_vector_writes_nothing(raw):
    good = {"PutRequest": {"Item": {"id": {"S": "good"}, "tenant": {"S": "acme"},
                                    "embedding": vec(1, 0, 0)}}}
    bad = {"PutRequest": {"Item": {"id": {"S": "bad"}, "tenant": {"S": "acme"},
                                   "embedding": vec(1, 0)}}}
    status, name, text, _ = raw("BatchWriteItem", {"RequestItems": {TABLE: [good, bad]}})
    assert (status, name) == (400, "ValidationException")
    assert text.endswith("Invalid size for parameter embedding, Expected: 3, Actual: 2. "
                         "IndexName: " + INDEX)
    _, _, _, body = raw("GetItem", {"TableName": TABLE, "Key": {"id": {"S": "good"}}})
    assert body == {}


def test_unknown_update_shape_is_refused(raw):
    status, name, text, _ = raw("UpdateTable", update({}))
    assert (status, name, text) == (
        400, "ValidationException",
        INVALID + "One of VectorIndexUpdate.Create, VectorIndexUpdate.Delete must not be null")


def test_backfill_skips_invalid_items_that_later_puts_refuse(raw):
    """Items written before the index existed with invalid vectors stay unindexed."""
    import time
    name = "VectorBackfill"
    status, _, text, _ = raw("CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [DEFS[0]],
        "KeySchema": KEYS})
    assert status == 200, text
    items = {
        "good": vec(1, 0, 0),
        "short": vec(1, 0),
        "text": {"L": [{"N": "1"}, {"S": "x"}, {"N": "0"}]},
        "huge": vec(1, "1E+39", 0),
        "scalar": {"N": "5"},
    }
    for key, embedding in items.items():
        status, _, text, _ = raw("PutItem", {"TableName": name,
                                             "Item": {"id": {"S": key}, "embedding": embedding}})
        assert status == 200, text
    status, _, text, body = raw("UpdateTable", {"TableName": name, "VectorIndexUpdates": [
        {"Create": {**named("Late"), "SearchSchema": None}}]})
    assert status == 200, text
    index = body["TableDescription"]["VectorIndexes"][0]
    assert (index["IndexStatus"], index["Backfilling"]) == ("CREATING", True)
    for _ in range(500):
        _, _, _, body = raw("DescribeTable", {"TableName": name})
        index = body["Table"]["VectorIndexes"][0]
        if index["IndexStatus"] == "ACTIVE":
            break
        time.sleep(0.01)
    assert index["IndexStatus"] == "ACTIVE" and "Backfilling" not in index
    assert index["ItemCount"] == 1
    _, _, _, body = raw("SearchVectors", {"TableName": name, "IndexName": "Late", "TopK": 10,
                                          "SearchVector": [{"N": "1"}, {"N": "0"}, {"N": "0"}]})
    assert [r["Item"]["id"]["S"] for r in body["SearchResults"]] == ["good"]
    status, name_, text, _ = raw("PutItem", {"TableName": name,
                                             "Item": {"id": {"S": "short"}, "embedding": items["short"]}})
    assert (status, name_, text) == (400, "ValidationException", NOT_VALID + (
        "Invalid size for parameter embedding, Expected: 3, Actual: 2. IndexName: Late"))
    # UpdateItem checks only the vector attributes it changes: the invalid vector an item
    # kept from before the index does not stop an update of another attribute.
    status, _, text, _ = raw("UpdateItem", {
        "TableName": name, "Key": {"id": {"S": "short"}}, "UpdateExpression": "SET note = :n",
        "ExpressionAttributeValues": {":n": {"S": "x"}}})
    assert status == 200, text
    _, _, _, body = raw("GetItem", {"TableName": name, "Key": {"id": {"S": "huge"}}})
    assert body["Item"]["embedding"]["L"][1] == {"N": "1" + "0" * 39}


def test_the_phases_of_an_index_being_created():
    """With the phase flags, a new index is first allocating, then backfilling, then ACTIVE,
    answering DynamoDB's errors in each phase."""
    import time
    from conftest import DdbdProcess, raw_call

    server = DdbdProcess("--in-memory", "--vector-index-allocation-ms", "400",
                         "--vector-index-build-ms", "900").start()
    try:
        def call(operation, body):
            status, _, data = raw_call(server.endpoint, operation, body)
            parsed = json.loads(data) if data else {}
            error = parsed.get("__type", "#").split("#", 1)[1] or None
            return status, error, parsed.get("message"), parsed

        name = "VectorPhases"
        call("CreateTable", {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                             "AttributeDefinitions": [DEFS[0]], "KeySchema": KEYS})
        call("PutItem", {"TableName": name, "Item": {"id": {"S": "a"}, "embedding": vec(1, 0, 0)}})
        search_body = {"TableName": name, "IndexName": "Phased", "TopK": 1,
                       "SearchVector": [{"N": "1"}, {"N": "0"}, {"N": "0"}]}
        started = time.monotonic()
        status, _, text, body = call("UpdateTable", {"TableName": name, "VectorIndexUpdates": [
            {"Create": {**named("Phased"), "SearchSchema": None}}]})
        assert status == 200, text
        index = body["TableDescription"]["VectorIndexes"][0]
        assert (index["IndexStatus"], index["Backfilling"]) == ("CREATING", False)
        # Allocation: not searchable, not deletable, and no second index meanwhile.
        assert call("SearchVectors", search_body)[:3] == (
            400, "ValidationException", "The table does not have the specified index: Phased")
        assert call("UpdateTable", {"TableName": name, "VectorIndexUpdates": [
            {"Delete": {"IndexName": "Phased"}}]})[:3] == (
            400, "ResourceInUseException",
            "Attempt to change a resource which is still in use: Index creation is in resource "
            "allocation phase. Retry deletion during backfilling phase or when the index is "
            "active. Table: " + name + " Index: Phased")
        assert call("UpdateTable", {"TableName": name, "VectorIndexUpdates": [
            {"Create": {**named("Another"), "SearchSchema": None}}]})[:3] == (
            400, "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be "
            "created or deleted simultaneously per table")
        time.sleep(max(0.0, started + 0.6 - time.monotonic()))
        _, _, _, body = call("DescribeTable", {"TableName": name})
        index = body["Table"]["VectorIndexes"][0]
        assert (index["IndexStatus"], index["Backfilling"]) == ("CREATING", True)
        assert call("SearchVectors", search_body)[:3] == (
            400, "ValidationException", "Cannot search backfilling vector index: Phased")
        time.sleep(max(0.0, started + 1.3 - time.monotonic()))
        _, _, _, body = call("DescribeTable", {"TableName": name})
        index = body["Table"]["VectorIndexes"][0]
        assert index["IndexStatus"] == "ACTIVE" and "Backfilling" not in index
        status, _, _, body = call("SearchVectors", search_body)
        assert (status, [r["Item"]["id"]["S"] for r in body["SearchResults"]]) == (200, ["a"])
    finally:
        server.cleanup()
