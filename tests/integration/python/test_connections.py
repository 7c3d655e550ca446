"""Connections are bounded in number and in time, and running out of file descriptors is
reported and recovered from: header, body and idle keep-alive timeouts; the connection limit
and its 503 refusal; the accept loop backing off instead of spinning; RocksDB I/O errors
shown by the health check and healed once descriptors are free again (docs/RELIABILITY.md)."""
import json
import os
import resource
import socket
import time
import urllib.request

import pytest

from conftest import DdbdProcess, raw_call

REQUEST = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
           b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n\r\n{}")
INTERNAL_ERROR = {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                  "message": "Internal server error"}


def read_reply(sock):
    """One HTTP reply from `sock`: (status, headers with lower-case names, body bytes)."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before a reply: %r" % received)
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body[:length]


def closed_within(sock, seconds):
    """True when the server closes `sock` (EOF or reset) within `seconds`."""
    sock.settimeout(seconds)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks


def health(port, path="/ddbd/health"):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def quick():
    """A server with short timeouts and a small connection limit."""
    process = DdbdProcess("--header-timeout-ms", "500", "--body-timeout-ms", "500",
                          "--idle-timeout-ms", "500", "--max-connections", "20").start()
    yield process
    process.cleanup()


def connect(server):
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def test_a_slowloris_header_is_cut_off(quick):
    with connect(quick) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\n")
        start = time.monotonic()
        try:
            while time.monotonic() - start < 3:
                sock.sendall(b"X")  # one byte of a header that never ends, every 50 ms
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert closed_within(sock, 1)
        assert time.monotonic() - start < 2.5


def test_a_connection_that_sends_nothing_is_closed(quick):
    with connect(quick) as sock:
        assert closed_within(sock, 2)


def test_an_idle_keep_alive_connection_is_closed(quick):
    with connect(quick) as sock:
        sock.sendall(REQUEST)
        assert read_reply(sock)[0] == 200
        time.sleep(0.2)
        sock.sendall(REQUEST)  # activity restarts the idle clock
        assert read_reply(sock)[0] == 200
        start = time.monotonic()
        assert closed_within(sock, 2)
        assert time.monotonic() - start >= 0.4


def test_a_body_shorter_than_its_content_length_is_cut_off(quick):
    with connect(quick) as sock:
        sock.sendall(REQUEST.replace(b"Content-Length: 2", b"Content-Length: 100"))
        assert closed_within(sock, 2)
    with connect(quick) as sock:  # a body trickled in too slowly, the same
        sock.sendall(REQUEST.replace(b"Content-Length: 2\r\n\r\n{}", b"Content-Length: 1000\r\n\r\n"))
        try:
            for _ in range(40):
                sock.sendall(b" ")
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert closed_within(sock, 1)


def test_connections_beyond_the_limit_get_a_503_and_are_closed(quick):
    idle = [connect(quick) for _ in range(20)]
    try:
        time.sleep(0.1)
        with connect(quick) as extra:
            extra.sendall(REQUEST)
            status, headers, body = read_reply(extra)
            assert status == 503
            assert headers["connection"] == "close"
            assert headers["content-type"] == "application/x-amz-json-1.0"
            error = json.loads(body)
            assert error["__type"] == "com.amazonaws.dynamodb.v20120810#ServiceUnavailable"
            assert "20 connections" in error["message"]
            assert closed_within(extra, 2)
    finally:
        for sock in idle:
            sock.close()
    time.sleep(0.2)
    assert raw_call(quick.endpoint, "ListTables", {})[0] == 200


def low_fd_limit(limit):
    def apply():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    return apply


def fds_table(process):
    """A client of `process`, and its table "fds" (hash key p)."""
    ddb = process.client()
    ddb.create_table(TableName="fds", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}])
    return ddb


def open_idle(port, count):
    sockets = []
    for _ in range(count):
        sockets.append(socket.create_connection(("127.0.0.1", port), timeout=5))
    return sockets


def test_idle_connections_cannot_take_the_descriptors_storage_needs():
    """With 256 file descriptors, 400 idle connections: the extra ones are refused, the accept
    loop does not spin, and writes keep working."""
    process = DdbdProcess(preexec_fn=low_fd_limit(256)).start()
    idle = []
    try:
        ddb = fds_table(process)
        idle = open_idle(process.port, 400)
        time.sleep(0.5)
        before = cpu_seconds(process.proc.pid)
        time.sleep(1)
        assert cpu_seconds(process.proc.pid) - before < 0.2  # it was 41% of a core
        time.sleep(0.5)  # the refused connections' brief lingering is over
        status, _, body = raw_call(process.endpoint, "ListTables", {})
        assert status == 503, body
        for sock in idle[:100]:
            sock.close()
        time.sleep(0.3)
        # Enough data to make RocksDB switch memtables and open new files.
        for i in range(100):
            ddb.put_item(TableName="fds", Item={"p": {"S": str(i)}, "v": {"S": "x" * 390_000}})
        pages = ddb.get_paginator("scan").paginate(TableName="fds", Select="COUNT")
        assert sum(page["Count"] for page in pages) == 100
        assert health(process.port)[0] == 200
    finally:
        for sock in idle:
            sock.close()
        process.cleanup()


@pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                    reason="under the sanitizer runtime the process dies once descriptors run "
                           "out (closed connection, no report): not yet explained")
def test_storage_io_errors_are_reported_and_recovered():
    """If descriptors run out anyway (here: a connection limit set above the fd limit), a
    write that fails answers InternalServerError, the health check says why it is unhealthy,
    and once descriptors are free again writes work without a restart."""
    process = DdbdProcess("--max-connections", "100000", preexec_fn=low_fd_limit(256)).start()
    idle = []
    try:
        ddb = fds_table(process)
        writer = connect(process)   # opened before the descriptors run out
        checker = connect(process)
        idle = open_idle(process.port, 400)
        time.sleep(0.5)
        before = cpu_seconds(process.proc.pid)
        time.sleep(1)
        assert cpu_seconds(process.proc.pid) - before < 0.2  # accept backs off on EMFILE

        failures = []
        for i in range(100):
            body = json.dumps({"TableName": "fds",
                               "Item": {"p": {"S": str(i)}, "v": {"S": "x" * 390_000}}}).encode()
            writer.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
                           b"X-Amz-Target: DynamoDB_20120810.PutItem\r\nAuthorization: AWS4-HMAC-SHA256 "
                           b"Credential=AKIDTEST/20260101/us-east-1/dynamodb/aws4_request\r\n"
                           b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            status, _, reply = read_reply(writer)
            if status != 200:
                assert status == 500
                assert json.loads(reply) == INTERNAL_ERROR
                failures.append(i)
        assert failures, "the descriptors never ran out"

        checker.sendall(b"GET /ddbd/health HTTP/1.1\r\nHost: x\r\n\r\n")
        status, _, reply = read_reply(checker)
        assert status == 503
        report = json.loads(reply)
        assert report["status"] == "unhealthy"
        assert "IO error" in report["reason"]

        for sock in idle:
            sock.close()
        idle = []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and health(process.port)[0] != 200:
            time.sleep(0.2)
        assert health(process.port) == (200, {"status": "healthy"}), "".join(process.log)
        ddb.put_item(TableName="fds", Item={"p": {"S": "after"}})
        assert ddb.get_item(TableName="fds", Key={"p": {"S": "after"}})["Item"] == {"p": {"S": "after"}}
        writer.close()
        checker.close()
    finally:
        for sock in idle:
            sock.close()
        process.cleanup()


def test_the_health_check_command_reports_storage_health(quick):
    import subprocess
    from conftest import BINARY
    result = subprocess.run([BINARY, "--health-check", "--address", "127.0.0.1", "--port",
                             str(quick.port)], capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
