"""The HTTP protocol as DynamoDB speaks it (spec/limits.md §1), over raw sockets."""
import json
import socket
import zlib

from conftest import raw_call


def test_unknown_operation(server):
    status, headers, body = raw_call(server.endpoint, "NoSuchOperation", {})
    assert status == 400
    assert json.loads(body) == {"__type": "com.amazon.coral.service#UnknownOperationException"}
    assert headers["x-amz-crc32"] == str(zlib.crc32(body))


def test_missing_target(server):
    status, _, body = raw_call(server.endpoint, None, {})
    assert status == 400
    assert json.loads(body) == {"__type": "com.amazon.coral.service#UnknownOperationException"}


def test_malformed_json(server):
    status, _, body = raw_call(server.endpoint, "ListTables", "{not json")
    assert status == 400
    assert json.loads(body) == {"__type": "com.amazon.coral.service#SerializationException"}


def test_wrong_member_type(server):
    status, _, body = raw_call(server.endpoint, "DescribeTable", {"TableName": 5})
    assert status == 400
    assert json.loads(body) == {"__type": "com.amazon.coral.service#SerializationException",
                                "Message": "NUMBER_VALUE cannot be converted to String"}


def test_wrong_content_type_and_method(server):
    status, _, body = raw_call(server.endpoint, "ListTables", "{}", content_type="text/plain")
    assert (status, body) == (404, b"<UnknownOperationException/>\n")
    status, _, body = raw_call(server.endpoint, "ListTables", "", method="DELETE")
    assert (status, body) == (404, b"<UnknownOperationException/>\n")


def test_health_check(server):
    status, _, body = raw_call(server.endpoint, None, "", method="GET",
                               headers={"Host": "dynamodb.us-east-1.amazonaws.com"})
    assert (status, body) == (200, b"healthy: dynamodb.us-east-1.amazonaws.com ")


def test_success_headers(server):
    status, headers, body = raw_call(server.endpoint, "ListTables", {})
    assert status == 200
    assert headers["content-type"] == "application/x-amz-json-1.0"
    assert len(headers["x-amzn-requestid"]) == 52
    assert headers["x-amz-crc32"] == str(zlib.crc32(body))
    assert int(headers["content-length"]) == len(body)
    status, headers, _ = raw_call(server.endpoint, "ListTables", {}, content_type="application/json")
    assert headers["content-type"] == "application/json"


def test_error_namespaces(server):
    _, _, body = raw_call(server.endpoint, "DescribeTable", {"TableName": "nope"})
    assert json.loads(body)["__type"] == "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
    _, _, body = raw_call(server.endpoint, "DescribeTable", {"TableName": "x"})
    assert json.loads(body)["__type"] == "com.amazon.coral.validate#ValidationException"


def test_body_over_16_mb_is_rejected(server):
    status, _, _ = raw_call(server.endpoint, "ListTables", b" " * (16 * 1024 * 1024 + 10))
    assert status == 413


def test_gzip_request_body(server):
    compressor = zlib.compressobj(wbits=31)
    payload = compressor.compress(b'{"Limit": 1}') + compressor.flush()
    status, _, body = raw_call(server.endpoint, "ListTables", payload,
                               headers={"Content-Encoding": "gzip"})
    assert status == 200
    assert "TableNames" in json.loads(body)


def test_keep_alive_serves_many_requests_on_one_connection(server):
    request = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
               b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n\r\n{}")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        for _ in range(3):
            sock.sendall(request)
            received = b""
            while b"\r\n\r\n" not in received:
                received += sock.recv(4096)
            head, _, rest = received.partition(b"\r\n\r\n")
            length = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0].split(b":")[1])
            while len(rest) < length:
                rest += sock.recv(4096)
            assert head.startswith(b"HTTP/1.1 200")
            assert json.loads(rest[:length]) == {"TableNames": []}


def test_cors_preflight(server):
    status, headers, body = raw_call(server.endpoint, None, "", method="OPTIONS", headers={
        "Origin": "http://localhost:8001", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-amz-target"})
    assert status == 200 and body == b""
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-methods"] == "POST"
    assert headers["access-control-allow-headers"] == "content-type,x-amz-target"


def test_expect_100_continue_gets_the_interim_reply(server):
    body = b'{"Limit": 1}'
    head = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nExpect: 100-continue\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(head)
        interim = sock.recv(4096)
        assert interim.startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        reply = b""
        while b"TableNames" not in reply:
            reply += sock.recv(4096)
        assert reply.startswith(b"HTTP/1.1 200")
