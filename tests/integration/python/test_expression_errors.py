"""DynamoDB's expression validation errors, each asserted by type and exact message, over raw
HTTP so that SDK-side validation cannot interfere."""
import pytest

T = "ExprErrors"
NUM = "ExprErrorsNum"


@pytest.fixture(scope="module", autouse=True)
def tables(ddb):
    ddb.create_table(TableName=T, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                                {"AttributeName": "SK", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                           {"AttributeName": "SK", "AttributeType": "S"}])
    ddb.create_table(TableName=NUM, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"},
                                {"AttributeName": "n", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"},
                                           {"AttributeName": "n", "AttributeType": "N"}])
    ddb.put_item(TableName=T, Item={"PK": {"S": "a"}, "SK": {"S": "b"}, "s": {"S": "text"},
                                    "n": {"N": "1"}, "big": {"S": "x" * 300000}})


KEY = {"PK": {"S": "a"}, "SK": {"S": "b"}}
V = {":v": {"S": "x"}}


def cond(expression, names=None, values=None):
    body = {"TableName": T, "Item": {**KEY, "x": {"S": "y"}}, "ConditionExpression": expression}
    if names is not None:
        body["ExpressionAttributeNames"] = names
    if values is not None:
        body["ExpressionAttributeValues"] = values
    return ("PutItem", body)


def update(expression, names=None, values=None, key=KEY, **extra):
    body = {"TableName": T, "Key": key, "UpdateExpression": expression, **extra}
    if names is not None:
        body["ExpressionAttributeNames"] = names
    if values is not None:
        body["ExpressionAttributeValues"] = values
    return ("UpdateItem", body)


def query(expression, values=None, names=None, table=T, **extra):
    body = {"TableName": table, "KeyConditionExpression": expression, **extra}
    if values is not None:
        body["ExpressionAttributeValues"] = values
    if names is not None:
        body["ExpressionAttributeNames"] = names
    return ("Query", body)


def scan(**extra):
    return ("Scan", {"TableName": T, **extra})


CE = "Invalid ConditionExpression: "
UE = "Invalid UpdateExpression: "
KE = "Invalid KeyConditionExpression: "
many_in = "a IN (" + ", ".join(f":v{i}" for i in range(101)) + ")"
many_in_values = {f":v{i}": {"S": str(i)} for i in range(101)}
many_ops = " AND ".join(["a = :v"] * 151)

CASES = [
    ("cond-empty", cond(""), CE + "The expression can not be empty;"),
    ("cond-eof", cond("foo"), CE + 'Syntax error; token: "<EOF>", near: "foo"'),
    ("cond-token", cond("a == :v", values=V), CE + 'Syntax error; token: "=", near: "== :v"'),
    ("cond-bad-char", cond("a = :v !", values=V), CE + 'Syntax error; token: "!", near: ":v !"'),
    ("cond-parens", cond("((a = :v))", values=V), CE + "The expression has redundant parentheses;"),
    ("cond-function", cond("foo(a)"), CE + "Invalid function name; function: foo"),
    ("cond-misused-size", cond("size(a)"),
     CE + "The function is not allowed to be used this way in an expression; function: size"),
    ("cond-misused-bool", cond("begins_with(a, :v) = :v", values=V),
     CE + "The function is not allowed to be used this way in an expression; function: begins_with"),
    ("cond-reserved", cond("status = :v", values=V),
     CE + "Attribute name is a reserved keyword; reserved keyword: status"),
    ("cond-operands", cond("attribute_exists(a, b)"),
     CE + "Incorrect number of operands for operator or function; operator or function: "
          "attribute_exists, number of operands: 2"),
    ("cond-path-required", cond("attribute_not_exists(:v)", values=V),
     CE + "Operator or function requires a document path; operator or function: attribute_not_exists"),
    ("cond-undefined-name", cond("#x = :v", values=V),
     CE + "An expression attribute name used in the document path is not defined; attribute name: #x"),
    ("cond-undefined-value", cond("a = :nope"),
     CE + "An expression attribute value used in expression is not defined; attribute value: :nope"),
    ("cond-begins-with-type", cond("begins_with(a, :n)", values={":n": {"N": "1"}}),
     CE + "Incorrect operand type for operator or function; operator or function: begins_with, "
          "operand type: N"),
    ("cond-attribute-type-type", cond("attribute_type(a, :n)", values={":n": {"N": "1"}}),
     CE + "Incorrect operand type for operator or function; operator or function: attribute_type, "
          "operand type: N"),
    ("cond-attribute-type-name", cond("attribute_type(a, :t)", values={":t": {"S": "STRING"}}),
     CE + "Invalid attribute type name found; type: STRING, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"),
    ("cond-between-order", cond("a BETWEEN :hi AND :lo", values={":hi": {"N": "5"}, ":lo": {"N": "1"}}),
     CE + "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
          "lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}"),
    ("cond-between-types", cond("a BETWEEN :lo AND :hi", values={":lo": {"N": "1"}, ":hi": {"S": "z"}}),
     CE + "The BETWEEN operator requires same data type for lower and upper bounds; lower bound "
          "operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:z}"),
    ("cond-size-constant", cond("size(:n) > a", values={":n": {"N": "1"}}),
     CE + "Incorrect operand type for operator or function; operator or function: size, operand type: N"),
    ("cond-in-operands", cond(many_in, values=many_in_values),
     CE + "The IN operator is provided with too many operands; number of operands: 101"),
    ("cond-operators", cond(many_ops, values=V),
     CE + "The expression contains too many operators; operator count: 301"),
    ("cond-too-long", cond("a = :v" + " " * 4091, values=V),
     CE + "Expression size has exceeded the maximum allowed size; expression size: 4097"),
    ("names-empty", cond("a = :v", names={}, values=V), "ExpressionAttributeNames must not be empty"),
    ("values-empty", cond("attribute_exists(a)", values={}), "ExpressionAttributeValues must not be empty"),
    ("names-key", cond("a = :v", names={"n": "x"}, values=V),
     'ExpressionAttributeNames contains invalid key: Syntax error; key: "n"'),
    ("values-key", cond("a = :v", values={"v": {"S": "x"}}),
     'ExpressionAttributeValues contains invalid key: Syntax error; key: "v"'),
    ("values-invalid", cond("a = :v", values={":v": {"SS": []}}),
     "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: "
     "An string set  may not be empty for key :v"),
    ("names-unused", cond("a = :v", names={"#a": "a", "#b": "b"}, values=V),
     "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}"),
    ("values-unused", cond("a = :v", values={":v": {"S": "x"}, ":w": {"S": "y"}}),
     "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"),
    ("names-without-expression", ("GetItem", {"TableName": T, "Key": KEY, "ExpressionAttributeNames": {"#a": "a"}}),
     "ExpressionAttributeNames can only be specified when using expressions"),
    ("values-without-expression", ("UpdateItem", {"TableName": T, "Key": KEY, "ExpressionAttributeValues": V}),
     "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and "
     "ConditionExpression are null"),
    ("update-empty", update(""), UE + "The expression can not be empty;"),
    ("update-twice", update("SET a = :v SET b = :v", values=V),
     UE + 'The "SET" section can only be used once in an update expression;'),
    ("update-syntax", update("SET a = :v,", values=V), UE + 'Syntax error; token: "<EOF>", near: ","'),
    ("update-no-clause", update("a = :v", values=V), UE + 'Syntax error; token: "a", near: "a ="'),
    ("update-function", update("SET a = size(b)"),
     UE + "The function is not allowed in an update expression; function: size"),
    ("update-if-not-exists-path", update("SET a = if_not_exists(:v, :v)", values=V),
     UE + "Operator or function requires a document path; operator or function: if_not_exists"),
    ("update-overlap", update("SET a.b = :v, a = :v", values=V),
     UE + "Two document paths overlap with each other; must remove or rewrite one of these paths; "
          "path one: [a, b], path two: [a]"),
    # The same path twice overlaps (AWS: "a, a" in a projection); paths that agree up to a map
    # key in one and a list index in the other conflict.
    ("update-same-path", update("SET a = :v REMOVE a", values=V),
     UE + "Two document paths overlap with each other; must remove or rewrite one of these paths; "
          "path one: [a], path two: [a]"),
    ("update-conflict", update("SET l.b = :v, l[1] = :v", values=V),
     UE + "Two document paths conflict with each other; must remove or rewrite one of these paths; "
          "path one: [l, b], path two: [l, [1]]"),
    ("projection-conflict", ("GetItem", {"TableName": T, "Key": KEY, "ProjectionExpression": "l.b, l[1]"}),
     "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or "
     "rewrite one of these paths; path one: [l, b], path two: [l, [1]]"),
    ("projection-index-range", ("GetItem", {"TableName": T, "Key": KEY, "ProjectionExpression": "l[2147483648]"}),
     "Invalid ProjectionExpression: List index is not within the allowable range; index: [2147483648]"),
    ("projection-nesting", ("GetItem", {"TableName": T, "Key": KEY, "ProjectionExpression": ".".join(["a"] * 33)}),
     "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33"),
    ("projection-same-path", ("GetItem", {"TableName": T, "Key": KEY, "ProjectionExpression": "a, a"}),
     "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
     "rewrite one of these paths; path one: [a], path two: [a]"),
    # Constants are type-checked before any item is read.
    ("cond-lt-list", cond("a < :l", values={":l": {"L": [{"N": "1"}]}}),
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
     "function: <, operand type: L"),
    ("cond-ge-map-left", cond(":m >= a", values={":m": {"M": {}}}),
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
     "function: >=, operand type: M"),
    ("cond-le-set", cond("a <= :s", values={":s": {"SS": ["x"]}}),
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
     "function: <=, operand type: SS"),
    ("cond-gt-bool", cond("a > :b", values={":b": {"BOOL": True}}),
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
     "function: >, operand type: BOOL"),
    ("cond-between-list", cond("a BETWEEN :l AND :l", values={":l": {"L": []}}),
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
     "function: BETWEEN, operand type: L"),
    ("cond-size-of-size", cond("size(size(a)) = :v", values=V),
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
     "function: size, operand type: N"),
    ("cond-begins-with-size", cond("begins_with(size(a), :v)", values=V),
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
     "function: begins_with, operand type: N"),
    ("cond-attribute-type-path", cond("attribute_type(a, b)"),
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
     "function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}"),
    ("cond-contains-same", cond("contains(a, a)"),
     "Invalid ConditionExpression: The first operand must be distinct from the remaining operands "
     "for this operator or function; operator: contains, first operand: [a]"),
    ("cond-equal-same", cond("#a.b = a.b", names={"#a": "a"}),
     "Invalid ConditionExpression: The first operand must be distinct from the remaining operands "
     "for this operator or function; operator: =, first operand: [a, b]"),
    ("filter-lt-list-no-match", scan(FilterExpression="nothing < :l", ExpressionAttributeValues={":l": {"L": []}}),
     "Invalid FilterExpression: Incorrect operand type for operator or function; operator or "
     "function: <, operand type: L"),
    ("update-plus-string", update("SET n = n + :v", values=V),
     UE + "Incorrect operand type for operator or function; operator or function: +, operand type: S"),
    ("update-minus-list", update("SET n = :l - n", values={":l": {"L": []}}),
     UE + "Incorrect operand type for operator or function; operator or function: -, operand type: L"),
    ("update-list-append-string", update("SET l = list_append(l, :v)", values=V),
     UE + "Incorrect operand type for operator or function; operator or function: list_append, "
          "operand type: S"),
    ("update-add-missing-item", update("ADD s :v", values=V, key={"PK": {"S": "none"}, "SK": {"S": "none"}}),
     UE + "Incorrect operand type for operator or function; operator: ADD, operand type: STRING, "
          "typeSet: ALLOWED_FOR_ADD_OPERAND"),
    ("update-reserved", update("SET name = :v", values=V),
     UE + "Attribute name is a reserved keyword; reserved keyword: name"),
    ("update-key", update("SET PK = :v", values=V),
     "One or more parameter values were invalid: Cannot update attribute PK. This attribute is part "
     "of the key"),
    ("update-nested-key", update("SET SK.x = :v", values=V),
     "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: SK"),
    ("update-operand-type", update("SET s = s + :one", values={":one": {"N": "1"}}),
     "An operand in the update expression has an incorrect data type"),
    ("update-missing-operand", update("SET x = absent + :one", values={":one": {"N": "1"}}),
     "The provided expression refers to an attribute that does not exist in the item"),
    ("update-invalid-path", update("SET nope.deeper = :v", values=V),
     "The document path provided in the update expression is invalid for update"),
    ("update-add-string", update("ADD s :v", values=V),
     UE + "Incorrect operand type for operator or function; operator: ADD, operand type: STRING, "
          "typeSet: ALLOWED_FOR_ADD_OPERAND"),
    ("update-delete-number", update("DELETE n :one", values={":one": {"N": "1"}}),
     UE + "Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, "
          "typeSet: ALLOWED_FOR_DELETE_OPERAND"),
    ("update-add-mismatch", update("ADD n :s", values={":s": {"SS": ["x"]}}),
     "An operand in the update expression has an incorrect data type"),
    ("update-too-big", update("SET more = :big", values={":big": {"S": "y" * 200000}}),
     "Item size to update has exceeded the maximum allowed size"),
    ("projection-overlap", ("GetItem", {"TableName": T, "Key": KEY, "ProjectionExpression": "a, a.b"}),
     "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
     "rewrite one of these paths; path one: [a], path two: [a, b]"),
    ("projection-reserved", ("GetItem", {"TableName": T, "Key": KEY, "ProjectionExpression": "data"}),
     "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: data"),
    ("projection-syntax", ("GetItem", {"TableName": T, "Key": KEY, "ProjectionExpression": "a b"}),
     'Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"'),
    ("query-no-condition", ("Query", {"TableName": T}),
     "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."),
    ("query-seed-syntax", query("PK = :pk AND SK begins_with(:p)", {":pk": {"S": "a"}, ":p": {"S": "b"}}),
     KE + 'Syntax error; token: "begins_with", near: "SK begins_with("'),
    ("query-missed-pk", query("SK = :v", V), "Query condition missed key schema element: PK"),
    ("query-or", query("PK = :v OR SK = :v", V),
     KE + "Invalid operator used in KeyConditionExpression: OR"),
    ("query-ne", query("PK = :v AND SK <> :v", V),
     KE + "Invalid operator used in KeyConditionExpression: <>"),
    ("query-in", query("PK IN (:v)", V), KE + "Invalid operator used in KeyConditionExpression: IN"),
    ("query-nested", query("PK = :v AND SK.x = :v", V),
     KE + "KeyConditionExpressions cannot have conditions on nested attributes"),
    ("query-one-per-key", query("PK = :v AND PK = :v", V),
     KE + "KeyConditionExpressions must only contain one condition per key"),
    ("query-type", query("PK = :n", {":n": {"N": "1"}}),
     "One or more parameter values were invalid: Condition parameter type does not match schema type"),
    ("query-pk-range", query("PK > :v", V), "Query key condition not supported"),
    ("query-non-key", query("PK = :v AND color = :v", V), "Query condition missed key schema element: SK"),
    ("query-begins-with-number", query("id = :v AND begins_with(n, :n)", {":v": {"S": "x"}, ":n": {"N": "1"}}, table=NUM),
     KE + "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"),
    ("query-filter-key", query("PK = :v", {":v": {"S": "x"}, ":w": {"S": "y"}}, FilterExpression="SK = :w"),
     "Filter Expression can only contain non-primary key attributes: Primary key attribute: SK"),
    ("query-limit", query("PK = :v", V, Limit=0),
     "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must "
     "have value greater than or equal to 1"),
    ("query-select", query("PK = :v", V, Select="SOME"),
     "1 validation error detected: Value 'SOME' at 'select' failed to satisfy constraint: Member must "
     "satisfy enum value set: [ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, SPECIFIC_ATTRIBUTES, COUNT]"),
    ("query-index", query("PK = :v", V, IndexName="GSI_1"), "The table does not have the specified index: GSI_1"),
    ("query-start-key", query("PK = :v", V, ExclusiveStartKey={"PK": {"S": "x"}}),
     "The provided starting key is invalid"),
    ("scan-segment-alone", scan(Segment=1),
     "The TotalSegments parameter is required but was not present in the request when Segment "
     "parameter is present"),
    ("scan-total-alone", scan(TotalSegments=2),
     "The Segment parameter is required but was not present in the request when parameter "
     "TotalSegments is present"),
    ("scan-segment-range", scan(Segment=2, TotalSegments=2),
     "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 2 "
     "is not less than TotalSegments: 2"),
    ("scan-total-max", scan(Segment=0, TotalSegments=1000001),
     "1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy constraint: "
     "Member must have value less than or equal to 1000000"),
    ("scan-filter-undefined", scan(FilterExpression="a = :x"),
     "Invalid FilterExpression: An expression attribute value used in expression is not defined; "
     "attribute value: :x"),
]


@pytest.mark.parametrize("request_,message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_expression_error(raw, request_, message):
    operation, body = request_
    status, name, actual, _ = raw(operation, body)
    assert (status, name) == (400, "ValidationException")
    assert actual == message


def test_catalogue_size():
    assert len({c[2] for c in CASES}) >= 60


def test_rejected_writes_change_nothing(ddb, raw):
    before = ddb.get_item(TableName=T, Key=KEY)["Item"]
    for _, request_, _ in CASES:
        if request_[0] in ("PutItem", "UpdateItem"):
            raw(*request_)
    assert ddb.get_item(TableName=T, Key=KEY)["Item"] == before
