"""TagResource, UntagResource, ListTagsOfResource and CreateTable's Tags: DynamoDB's rules for
tag keys and values (lengths in characters, allowed characters, the reserved aws: prefix,
duplicates, 50 tags per table) and for the ResourceArn, each refusal asserted by status,
exception and exact message, and shown to change nothing.

Requests go over raw HTTP so that the SDK's own checks cannot mask the server's answer.
Texts come from live DynamoDB answers recorded by third parties (see /tmp/research notes:
an "ack" catalogue of live probes); where a text is extrapolated, the test says so."""
import pytest

TABLE = "TagsTable"
ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/" + TABLE


@pytest.fixture(scope="module", autouse=True)
def table(ddb):
    ddb.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     Tags=[{"Key": "keep", "Value": "me"}])


@pytest.fixture(autouse=True)
def reset_tags(raw):
    """Every test starts from the single tag keep=me."""
    _, _, _, body = raw("ListTagsOfResource", {"ResourceArn": ARN})
    extra = [t["Key"] for t in body["Tags"] if t["Key"] != "keep"]
    if extra:
        assert raw("UntagResource", {"ResourceArn": ARN, "TagKeys": extra})[0] == 200
    assert raw("TagResource", {"ResourceArn": ARN, "Tags": [{"Key": "keep", "Value": "me"}]})[0] == 200


def tags_of(raw, arn=ARN):
    status, _, _, body = raw("ListTagsOfResource", {"ResourceArn": arn})
    assert status == 200
    return sorted((t["Key"], t["Value"]) for t in body["Tags"])


def tag(raw, *pairs):
    return raw("TagResource", {"ResourceArn": ARN,
                               "Tags": [{"Key": k, "Value": v} for k, v in pairs]})


def refused(answer, message):
    status, name, actual, _ = answer
    assert (status, name, actual) == (400, "ValidationException", message)


def test_lengths_count_characters_not_bytes(raw):
    # 128 two-byte characters (256 bytes) make a valid key, 256 of them a valid value.
    key, value = "é" * 128, "ü" * 256
    assert tag(raw, (key, value), ("empty", ""))[0] == 200
    assert tags_of(raw) == sorted([("keep", "me"), (key, value), ("empty", "")])


def test_a_key_over_128_characters_is_refused(raw):
    key = "k" * 129
    refused(tag(raw, (key, "v")), "The Tag Key provided is invalid, Key: " + key)
    refused(tag(raw, ("é" * 129, "v")), "The Tag Key provided is invalid, Key: " + "é" * 129)
    assert tags_of(raw) == [("keep", "me")]


def test_a_value_over_256_characters_is_refused(raw):
    value = "ü" * 257
    refused(tag(raw, ("k", value)), "The Tag Value provided is invalid, Value: " + value)
    assert tags_of(raw) == [("keep", "me")]


def test_an_empty_key_is_refused(raw):
    # Extrapolated: DynamoDB checks key lengths itself (a 129-character key gets this text,
    # not a constraint error), so an empty key is assumed to get the same text.
    refused(tag(raw, ("", "v")), "The Tag Key provided is invalid, Key: ")
    assert tags_of(raw) == [("keep", "me")]


def test_a_missing_value_is_refused_with_null(raw):
    refused(raw("TagResource", {"ResourceArn": ARN, "Tags": [{"Key": "k"}]}),
            "The Tag Value provided is invalid, Value: null")
    assert tags_of(raw) == [("keep", "me")]


def test_allowed_characters(raw):
    # Letters and digits of any script, spaces, and _ . : / = + - @
    pairs = [("a b_.:/=+-@09", "x y_.:/=+-@09"), ("ключ", "значение"), ("キー", "値")]
    assert tag(raw, *pairs)[0] == 200
    assert tags_of(raw) == sorted([("keep", "me")] + pairs)


@pytest.mark.parametrize("key", ["a#b", "a*", "x!", "tab\there", "q?", "semi;colon", "€uro",
                                 "smile\U0001F600"])
def test_other_characters_in_a_key_are_refused(raw, key):
    refused(tag(raw, (key, "v")), "The Tag Key provided is invalid, Key: " + key)
    assert tags_of(raw) == [("keep", "me")]


@pytest.mark.parametrize("value", ["a#b", "100%", "x,y"])
def test_other_characters_in_a_value_are_refused(raw, value):
    refused(tag(raw, ("k", value)), "The Tag Value provided is invalid, Value: " + value)
    assert tags_of(raw) == [("keep", "me")]


def test_the_aws_prefix_is_reserved(raw):
    refused(tag(raw, ("ok", "v"), ("aws:foo", "v")),
            "Tag Key cannot be prefixed with aws:, Key: aws:foo")
    assert tags_of(raw) == [("keep", "me")]


def test_duplicate_keys_in_one_request_are_refused(raw):
    refused(tag(raw, ("env", "a"), ("team", "b"), ("env", "c")),
            "Duplicate Tag Keys provided as input: Duplicate Tag Key found env")
    assert tags_of(raw) == [("keep", "me")]


def test_at_most_50_tags_per_table(raw):
    # 49 more make 50, the limit; replacing a value keeps the count.
    assert tag(raw, *[("t%02d" % i, "v") for i in range(49)])[0] == 200
    assert tag(raw, ("keep", "changed"))[0] == 200
    assert len(tags_of(raw)) == 50
    refused(tag(raw, ("one-more", "v")),
            "Number of Tags exceed the current limit for the provided ResourceArn")
    tags = tags_of(raw)
    assert len(tags) == 50 and ("one-more", "v") not in tags and ("keep", "changed") in tags


def test_51_tags_in_one_request_are_refused(raw):
    refused(tag(raw, *[("t%02d" % i, "v") for i in range(51)]),
            "Number of Tags exceed the current limit for the provided ResourceArn")
    assert tags_of(raw) == [("keep", "me")]


@pytest.mark.parametrize("tags, message", [
    ([{"Key": "a#", "Value": "v"}], "The Tag Key provided is invalid, Key: a#"),
    ([{"Key": "k", "Value": "v" * 257}], "The Tag Value provided is invalid, Value: " + "v" * 257),
    ([{"Key": "aws:x", "Value": "v"}], "Tag Key cannot be prefixed with aws:, Key: aws:x"),
    ([{"Key": "d", "Value": "1"}, {"Key": "d", "Value": "2"}],
     "Duplicate Tag Keys provided as input: Duplicate Tag Key found d"),
    ([{"Key": "t%02d" % i, "Value": "v"} for i in range(51)],
     "Number of Tags exceed the current limit for the provided ResourceArn"),
])
def test_create_table_checks_its_tags(raw, tags, message):
    refused(raw("CreateTable", {
        "TableName": "TagsRefused", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "Tags": tags}), message)
    assert "TagsRefused" not in raw("ListTables", {})[3]["TableNames"]


def test_create_table_reports_constraint_errors_before_tag_errors(raw):
    status, name, message, _ = raw("CreateTable", {
        "TableName": "a", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "Tags": [{"Key": "a#", "Value": "v"}]})
    assert (status, name) == (400, "ValidationException")
    assert message == ("1 validation error detected: Value 'a' at 'tableName' failed to satisfy "
                       "constraint: Member must have length greater than or equal to 3")


def test_create_table_accepts_50_tags_of_full_length(raw, ddb):
    tags = [{"Key": "%03d" % i + "é" * 125, "Value": "ü" * 256} for i in range(50)]
    status, _, _, body = raw("CreateTable", {
        "TableName": "TagsFull", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "Tags": tags})
    assert status == 200
    arn = body["TableDescription"]["TableArn"]
    assert tags_of(raw, arn) == sorted((t["Key"], t["Value"]) for t in tags)
    ddb.delete_table(TableName="TagsFull")


def test_untag_checks_its_keys(raw):
    # Extrapolated from TagResource: the same key rules for the keys to remove.
    for key, message in [("aws:keep", "Tag Key cannot be prefixed with aws:, Key: aws:keep"),
                         ("a#", "The Tag Key provided is invalid, Key: a#"),
                         ("k" * 129, "The Tag Key provided is invalid, Key: " + "k" * 129)]:
        refused(raw("UntagResource", {"ResourceArn": ARN, "TagKeys": ["keep", key]}), message)
    assert tags_of(raw) == [("keep", "me")]


@pytest.mark.parametrize("operation, extra", [
    ("TagResource", {"Tags": [{"Key": "k", "Value": "v"}]}),
    ("UntagResource", {"TagKeys": ["keep"]}),
    ("ListTagsOfResource", {}),
])
@pytest.mark.parametrize("arn", ["not-an-arn", "ARN:aws:dynamodb:us-east-1:000000000000:table/"
                                 + TABLE, TABLE])
def test_an_arn_must_start_with_arn(raw, operation, extra, arn):
    refused(raw(operation, {"ResourceArn": arn, **extra}),
            "One or more parameter values were invalid: ARNs must start with 'arn:': " + arn)
    assert tags_of(raw) == [("keep", "me")]


def test_other_malformed_arns_keep_their_texts(raw):
    arn = "arn:aws:dynamodb:us-east-1:000000000000:nottable/" + TABLE
    refused(raw("ListTagsOfResource", {"ResourceArn": arn}),
            "Invalid TableArn: Invalid ResourceArn provided as input " + arn)
    missing = "arn:aws:dynamodb:us-east-1:000000000000:table/NoSuchTable"
    status, name, message, _ = raw("TagResource", {"ResourceArn": missing,
                                                   "Tags": [{"Key": "k", "Value": "v"}]})
    # "ResourcArn" (sic), as DynamoDB spells it in dynalite's recorded tests.
    assert (status, name, message) == (
        400, "ResourceNotFoundException",
        "Requested resource not found: ResourcArn: " + missing + " not found")
