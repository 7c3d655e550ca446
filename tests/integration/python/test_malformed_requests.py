"""A corpus of malformed requests: every case gets DynamoDB's 4xx (or, where HTTP itself is
broken, a 400 and a closed connection; where DynamoDB itself answers 500, that), the server
stays up (a request after each case works), its memory stays within RSS_BOUND_MB, and the
table of known items is unchanged at the end.

Cases: every top-level member of every operation given every wrong JSON type (generated from
the SDK's service model), truncated JSON, 39-digit numbers and huge exponents, invalid UTF-8,
bodies of 16 MB and 16 MB + 1, lying Content-Length, chunked bodies, broken framing,
gzip bombs and unknown encodings, pipelined requests, slowloris and 2,000 idle connections.
Deep nesting is test_depth_limits.py's; random mutations of valid requests are
test_robustness.py's."""
import gzip
import json
import socket
import time
import zlib

import botocore.session
import pytest

from conftest import DdbdProcess, raw_call
from test_connections import closed_within, read_reply

RSS_BOUND_MB = 400  # docs/RELIABILITY.md: what a server under this corpus may hold
TABLE = "Corpus"
ITEMS = [{"PK": {"S": f"k{i}"}, "SK": {"N": str(i)}, "v": {"S": "x" * i}} for i in range(20)]
SIGNED = ("AWS4-HMAC-SHA256 Credential=AKIDTEST/20260101/us-east-1/dynamodb/aws4_request, "
          "SignedHeaders=host, Signature=0")
# The server's DynamoDB operations (server/dispatch.cc) and the model naming their members
# (UpdateKinesisStreamingDestination is newer than Debian's botocore model).
OPERATIONS = {
    "dynamodb": ["BatchExecuteStatement", "BatchGetItem", "BatchWriteItem", "CreateBackup",
                 "CreateTable", "DeleteBackup", "DeleteItem", "DeleteTable", "DescribeBackup",
                 "DescribeContinuousBackups", "DescribeContributorInsights", "DescribeEndpoints",
                 "DescribeKinesisStreamingDestination", "DescribeLimits", "DescribeTable",
                 "DescribeTimeToLive", "DisableKinesisStreamingDestination",
                 "EnableKinesisStreamingDestination", "ExecuteStatement",
                 "ExecuteTransaction", "GetItem", "ListBackups", "ListContributorInsights",
                 "ListTables", "ListTagsOfResource", "PutItem", "Query", "RestoreTableFromBackup",
                 "RestoreTableToPointInTime",
                 "Scan", "TagResource", "TransactGetItems", "TransactWriteItems", "UntagResource",
                 "UpdateContinuousBackups", "UpdateContributorInsights", "UpdateItem",
                 "UpdateTable", "UpdateTimeToLive", "CreateGlobalTable", "DescribeGlobalTable",
                 "DescribeGlobalTableSettings", "ListGlobalTables", "UpdateGlobalTable",
                 "UpdateGlobalTableSettings", "DescribeTableReplicaAutoScaling",
                 "UpdateTableReplicaAutoScaling"],
    "dynamodbstreams": ["DescribeStream", "GetRecords", "GetShardIterator", "ListStreams"],
}
PREFIX = {"dynamodb": "DynamoDB_20120810.", "dynamodbstreams": "DynamoDBStreams_20120810."}
SAMPLES = {"string": "x", "number": 7, "list": [1], "map": {"a": 1}, "bool": True}
# The JSON kinds that are right for a shape type; every other kind is wrong.
RIGHT = {"string": {"string"}, "blob": {"string"}, "timestamp": {"number", "string"},
         "integer": {"number"}, "long": {"number"}, "double": {"number"}, "float": {"number"},
         "boolean": {"bool", "string"}, "list": {"list"}, "map": {"map"}, "structure": {"map"}}


@pytest.fixture(scope="module")
def corpus_server():
    process = DdbdProcess("--header-timeout-ms", "1000", "--body-timeout-ms", "1000",
                          "--idle-timeout-ms", "1000").start()
    ddb = process.client()
    ddb.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                                {"AttributeName": "SK", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                           {"AttributeName": "SK", "AttributeType": "N"}])
    for item in ITEMS:
        ddb.put_item(TableName=TABLE, Item=item)
    yield process
    process.cleanup()


def rss_mb(process):
    with open(f"/proc/{process.proc.pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def still_serving(process):
    assert process.proc.poll() is None, "ddbd exited"
    status, _, body = raw_call(process.endpoint, "ListTables", {})
    assert status == 200, body
    assert rss_mb(process) < RSS_BOUND_MB


def error_of(body):
    parsed = json.loads(body) if body.startswith(b"{") else {}
    return parsed.get("__type", "#").split("#", 1)[1] or None


def call(process, operation, payload, service="dynamodb", headers=None):
    return raw_call(process.endpoint, operation, payload, target_prefix=PREFIX[service],
                    headers=headers)


def wrong_type_cases():
    session = botocore.session.get_session()
    for service, operations in OPERATIONS.items():
        model = session.get_service_model(service)
        for operation in operations:
            shape = model.operation_model(operation).input_shape
            members = shape.members if shape is not None else {}
            for member, member_shape in members.items():
                for kind, sample in SAMPLES.items():
                    if kind not in RIGHT[member_shape.type_name]:
                        yield service, operation, member, member_shape.type_name, kind, sample


def test_every_member_of_every_operation_with_every_wrong_type(corpus_server):
    cases = list(wrong_type_cases())
    assert len(cases) > 500
    failures = []
    for service, operation, member, type_name, kind, sample in cases:
        body = {"TableName": TABLE, member: sample} if member != "TableName" else {member: sample}
        status, _, data = call(corpus_server, operation, json.dumps(body), service)
        name = error_of(data) if data else None
        # A scalar where a structure, list or map belongs (or the reverse) can only be a
        # deserialisation error; a number for a string, or a string for a number, also is
        # in DynamoDB, which is strict about JSON types.
        if status != 400 or name not in ("SerializationException", "ValidationException"):
            failures.append((operation, member, type_name, kind, status, data[:200]))
    assert not failures, "\n".join(map(str, failures))
    still_serving(corpus_server)


def test_null_members_are_absent_members(corpus_server):
    for service, operations in OPERATIONS.items():
        model = botocore.session.get_session().get_service_model(service)
        for operation in operations:
            shape = model.operation_model(operation).input_shape
            body = {member: None for member in (shape.members if shape else {})}
            status, _, data = call(corpus_server, operation, json.dumps(body), service)
            assert status in (200, 400), (operation, status, data[:200])
    still_serving(corpus_server)


def test_truncated_json_is_a_serialization_exception(corpus_server):
    body = json.dumps({"TableName": TABLE, "Item": {"PK": {"S": "new"}, "SK": {"N": "1"},
                                                    "m": {"M": {"l": {"L": [{"N": "1"}]}}}}})
    for cut in range(1, len(body) - 1, 3):
        status, _, data = call(corpus_server, "PutItem", body[:cut])
        assert (status, error_of(data)) == (400, "SerializationException"), (cut, data)
    still_serving(corpus_server)


@pytest.mark.parametrize("number", ["1" * 39, "0." + "1" * 39, "1E+126", "1E-131", "1e1000000",
                                    "9" * 100000, "1E+99999999999999999999"])
def test_out_of_range_numbers_are_validation_errors(corpus_server, number):
    body = {"TableName": TABLE, "Item": {"PK": {"S": "n"}, "SK": {"N": number}}}
    status, _, data = call(corpus_server, "PutItem", json.dumps(body))
    assert (status, error_of(data)) == (400, "ValidationException"), data[:200]
    if not number.startswith("0."):
        # As a JSON number where DynamoDB wants an integer: not a number it can read.
        status, _, data = call(corpus_server, "ListTables", '{"Limit": %s}' % number)
        assert status == 400 and error_of(data) in ("SerializationException", "ValidationException")
    still_serving(corpus_server)


@pytest.mark.parametrize("where", ["value", "attribute name", "table name", "member name"])
def test_invalid_utf8_is_a_serialization_exception(corpus_server, where):
    bodies = {
        "value": b'{"TableName":"Corpus","Item":{"PK":{"S":"\xff\xfe"},"SK":{"N":"1"}}}',
        "attribute name": b'{"TableName":"Corpus","Item":{"PK":{"S":"a"},"SK":{"N":"1"},"\xc3":{"S":"x"}}}',
        "table name": b'{"TableName":"Corp\xed\xa0\x80us","Key":{"PK":{"S":"a"},"SK":{"N":"1"}}}',
        "member name": b'{"TableName":"Corpus","\x80":1,"Key":{"PK":{"S":"a"},"SK":{"N":"1"}}}',
    }
    status, _, data = call(corpus_server, "PutItem" if where in ("value", "attribute name")
                           else "GetItem", bodies[where])
    assert (status, error_of(data)) == (400, "SerializationException"), data[:200]
    still_serving(corpus_server)


def test_bodies_of_16_mb_are_read_and_one_byte_more_is_413(corpus_server):
    limit = 16 * 1024 * 1024
    head = b'{"Limit": 1'
    status, _, data = call(corpus_server, "ListTables", head + b" " * (limit - len(head) - 1) + b"}")
    assert status == 200, data[:200]
    status, _, data = call(corpus_server, "ListTables", head + b" " * (limit - len(head)) + b"}")
    assert status == 413
    still_serving(corpus_server)


def request_head(length=None, extra=b""):
    head = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nAuthorization: " + SIGNED.encode() +
            b"\r\n" + extra)
    if length is not None:
        head += b"Content-Length: " + str(length).encode() + b"\r\n"
    return head + b"\r\n"


def exchange(process, data, timeout=5):
    """Sends raw bytes; returns (status or None when closed without a reply, closed after)."""
    with socket.create_connection(("127.0.0.1", process.port), timeout=timeout) as sock:
        sock.sendall(data)
        try:
            status, headers, _ = read_reply(sock)
        except (ConnectionError, socket.timeout):
            return None, True
        if headers.get("connection") == "close":
            return status, closed_within(sock, 3)
        return status, False


@pytest.mark.parametrize("name, data", [
    ("garbage request line", b"HELLO\r\n\r\n"),
    ("bad method characters", b"P@ST / HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("bad version", b"POST / HTTP/9\r\nHost: x\r\n\r\n"),
    ("header without a colon", b"POST / HTTP/1.1\r\nHost x\r\n\r\n"),
    ("space before the colon", b"POST / HTTP/1.1\r\nHost : x\r\nContent-Length: 0\r\n\r\n"),
    ("non-numeric Content-Length", request_head(extra=b"Content-Length: two\r\n")),
    ("negative Content-Length", request_head(extra=b"Content-Length: -2\r\n")),
    ("two different Content-Lengths", request_head(extra=b"Content-Length: 2\r\nContent-Length: 3\r\n") + b"{}"),
    ("Content-Length and Transfer-Encoding",
     request_head(extra=b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n") + b"2\r\n{}\r\n0\r\n\r\n"),
    ("bad chunk size", request_head(extra=b"Transfer-Encoding: chunked\r\n") + b"zz\r\n{}\r\n0\r\n\r\n"),
    ("chunk longer than announced", request_head(extra=b"Transfer-Encoding: chunked\r\n") + b"1\r\n{}\r\n0\r\n\r\n"),
    ("unknown transfer coding", request_head(extra=b"Transfer-Encoding: gzip, chunked, bogus\r\n") + b"0\r\n\r\n"),
    ("header line over 16 KB", b"POST / HTTP/1.1\r\nX-Big: " + b"a" * 17000 + b"\r\n\r\n"),
    ("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
])
def test_broken_framing_is_a_400_and_a_close(corpus_server, name, data):
    status, closed = exchange(corpus_server, data)
    assert (status, closed) == (400, True), name
    still_serving(corpus_server)


def test_chunked_bodies_are_read(corpus_server):
    body = b'{"Limit": 1}'
    chunked = b"".join(b"%x\r\n%s\r\n" % (1, body[i:i + 1]) for i in range(len(body))) + b"0\r\n\r\n"
    status, closed = exchange(corpus_server, request_head(extra=b"Transfer-Encoding: chunked\r\n") + chunked)
    assert (status, closed) == (200, False)


def test_lying_content_lengths(corpus_server):
    # Longer than the body: cut off when the body timeout (1 s here) runs out, without a reply.
    start = time.monotonic()
    assert exchange(corpus_server, request_head(100) + b"{}") == (None, True)
    assert time.monotonic() - start < 4
    # Shorter: the rest of the body is read as the next request, which is not HTTP.
    with socket.create_connection(("127.0.0.1", corpus_server.port), timeout=5) as sock:
        sock.sendall(request_head(2) + b'{} "Limit": 1}\r\n\r\n')
        assert read_replies(sock, 2) == [(200, None), (400, b"close")]
    still_serving(corpus_server)


def read_replies(sock, count):
    """`count` replies read in order from one connection: [(status, Connection header)]."""
    replies, read = sock.makefile("rb"), []
    for _ in range(count):
        status_line, length, connection = replies.readline(), 0, None
        while (line := replies.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
            elif name.lower() == b"connection":
                connection = value.strip()
        replies.read(length)
        read.append((int(status_line.split()[1]), connection))
    return read


def test_pipelined_requests_are_answered_in_order(corpus_server):
    one = request_head(2) + b"{}"
    bad = request_head(1) + b"{"
    with socket.create_connection(("127.0.0.1", corpus_server.port), timeout=5) as sock:
        sock.sendall(one + bad + one)
        statuses = [status for status, _ in read_replies(sock, 3)]
    assert statuses == [200, 400, 200]  # the middle one's body is "{": SerializationException


@pytest.mark.parametrize("name, payload, encoding", [
    # DynamoDB answers a body it cannot decode with InternalServerError (500), not a 4xx
    # (ScyllaDB's Alternator tests, run against DynamoDB; spec/limits.md §1.4).
    ("not gzip at all", b'{"Limit": 1}', "gzip"),
    ("truncated gzip", gzip.compress(b'{"Limit": 1}')[:-1], "gzip"),
    ("truncated deflate", zlib.compress(b'{"Limit": 1}')[:-3], "deflate"),
    ("unknown encoding", b'{"Limit": 1}', "br"),
    ("garbage encoding", b'{"Limit": 1}', "garbage"),
    ("gzip bomb: 1 GB of zeros", None, "gzip"),
    ("deflate bomb: 1 GB of spaces", None, "deflate"),
])
def test_undecodable_bodies(corpus_server, name, payload, encoding):
    if payload is None:
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31 if encoding == "gzip" else 15)
        block = (b"\0" if encoding == "gzip" else b" ") * (1 << 20)
        payload = b"".join(compressor.compress(block) for _ in range(1024)) + compressor.flush()
        assert len(payload) < 2 * (1 << 20)
    status, _, data = call(corpus_server, "PutItem", payload, headers={"Content-Encoding": encoding})
    assert (status, error_of(data)) == (500, "InternalServerError"), (name, data[:200])
    still_serving(corpus_server)


def test_slowloris_and_two_thousand_idle_connections(corpus_server):
    slow = socket.create_connection(("127.0.0.1", corpus_server.port), timeout=5)
    slow.sendall(b"POST / HTTP/1.1\r\nHost: x\r\n")
    idle = [socket.create_connection(("127.0.0.1", corpus_server.port), timeout=5)
            for _ in range(2000)]
    try:
        time.sleep(0.2)
        still_serving(corpus_server)  # answers while 2,000 connections wait (under the limit)
        start = time.monotonic()
        for sock in [slow] + idle:  # all closed once the 1 s header timeout has passed
            assert closed_within(sock, max(0.1, 5 - (time.monotonic() - start)))
    finally:
        for sock in [slow] + idle:
            sock.close()
    still_serving(corpus_server)


def test_zz_known_items_are_unchanged(corpus_server):
    ddb = corpus_server.client()
    items = ddb.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    key = lambda item: int(item["SK"]["N"])
    assert sorted(items, key=key) == ITEMS
    assert [t for t in ddb.list_tables()["TableNames"]] == [TABLE]
    still_serving(corpus_server)


def test_every_botocore_operation_reaches_a_handler(corpus_server):
    model = botocore.session.get_session().get_service_model("dynamodb")
    assert len(model.operation_names) >= 50
    unknown = set()
    for operation in model.operation_names:
        _, _, data = call(corpus_server, operation, "{}")
        if error_of(data) == "UnknownOperationException":
            unknown.add(operation)
    assert unknown == set()
    still_serving(corpus_server)
