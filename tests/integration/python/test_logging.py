"""The log: --log-requests writes one line per request carrying the request id the client
got, --log-level filters lines by level, --log-format writes text, logfmt or JSON lines, an
answer of status 500 is always logged with its cause, and shutdown is summarised."""
import json
import re
import socket
import subprocess
import threading
import time

import pytest

from conftest import BINARY, DdbdProcess, raw_call


class Drained:
    """Collects a server's stderr lines in the background once it has started."""

    def __init__(self, process):
        self.process, self.lines = process, list(process.log)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.process.proc.stderr:
            self.lines.append(line)

    def wait_for(self, pattern, timeout=5):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if re.search(pattern, line):
                    return line
            time.sleep(0.02)
        raise AssertionError(f"no log line matches {pattern!r}: {''.join(self.lines)}")


def finished_progress(log, task, total):
    """Waits for a long task's end in a JSON log at debug level and checks its lines: "<task>
    started" (info), "<task> progress" after each slice of 1,000 items (debug), "<task>
    finished" (info), with the items done so far. Returns the finished event."""
    log.wait_for(f'"msg":"{task} finished"')
    events = [json.loads(line) for line in log.lines]
    lines = [(e["level"], e["msg"], e["items_done"]) for e in events
             if e["msg"].startswith(task + " ")]
    assert lines == [("info", f"{task} started", 0)] + [
        ("debug", f"{task} progress", n) for n in range(1000, total + 1, 1000)] + [
        ("info", f"{task} finished", total)], lines
    finished = next(e for e in events if e["msg"] == f"{task} finished")
    assert finished["items_total"] == total and finished["seconds"] >= 0
    return finished


@pytest.fixture
def logged_server():
    process = DdbdProcess("--in-memory", "--log-requests").start()
    yield process, Drained(process)
    process.cleanup()


def test_each_request_is_logged_with_the_id_the_client_got(logged_server):
    process, log = logged_server
    status, headers, _ = raw_call(process.endpoint, "GetItem",
                                  {"TableName": "missing", "Key": {"k": {"S": "v"}}})
    assert status == 400
    request_id = headers["x-amzn-requestid"]
    line = log.wait_for(f"id={request_id}")
    assert re.fullmatch(
        rf"ddbd: request id={request_id} method=POST operation=GetItem table=missing status=400 "
        r"error=ResourceNotFoundException ms=\d+\.\d{3}\n", line), line

    status, headers, _ = raw_call(process.endpoint, "ListTables", {})
    assert status == 200
    line = log.wait_for(f"id={headers['x-amzn-requestid']}")
    assert " operation=ListTables status=200 ms=" in line and "error=" not in line


def test_log_level_error_keeps_only_errors():
    # The start-up line is information: at level error nothing is printed, so the server's
    # readiness is found by asking it.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([BINARY, "--in-memory", "--address", "127.0.0.1", "--port", str(port),
                             "--log-level", "error", "--log-requests"],
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                status, _, _ = raw_call(f"http://127.0.0.1:{port}", "ListTables", {})
                break
            except OSError:
                assert time.monotonic() < deadline, "ddbd did not answer"
                time.sleep(0.05)
        assert status == 200
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=10)
    assert stderr == ""


def test_unknown_log_level_is_refused():
    result = subprocess.run([BINARY, "--log-level", "verbose"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "invalid value for --log-level: 'verbose' (expected error, warning, info or debug)" in (
        result.stderr)


TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


def stopped_log(*args, requests=()):
    """Starts a server with `args`, makes `requests` (operation, body) and stops it: its log."""
    process = DdbdProcess("--in-memory", *args).start()
    ids = []
    try:
        log = Drained(process)
        for operation, body in requests:
            _, headers, _ = raw_call(process.endpoint, operation, body)
            ids.append(headers["x-amzn-requestid"])
        process.stop()
        log.thread.join(timeout=10)
        return log.lines, ids
    finally:
        process.cleanup()


def test_json_lines_carry_time_level_message_and_typed_fields():
    lines, ids = stopped_log("--log-format", "json", "--log-requests", requests=[
        ("GetItem", {"TableName": "missing", "Key": {"k": {"S": "v"}}}),
        ("ListTables", {})])
    events = [json.loads(line) for line in lines]  # every line is one JSON object
    for event in events:
        assert re.fullmatch(TIMESTAMP, event["time"]), event
        assert event["level"] in ("info", "warning", "error", "debug")
    assert events[0]["msg"].startswith("listening on 127.0.0.1:")
    requests = [e for e in events if e["msg"] == "request"]
    assert [{k: v for k, v in e.items() if k not in ("time", "ms")} for e in requests] == [
        {"level": "info", "msg": "request", "id": ids[0], "method": "POST",
         "operation": "GetItem", "table": "missing", "status": 400,
         "error": "ResourceNotFoundException"},
        {"level": "info", "msg": "request", "id": ids[1], "method": "POST",
         "operation": "ListTables", "status": 200}]
    assert all(isinstance(e["ms"], float) and e["ms"] >= 0 for e in requests)
    stopped = events[-1]
    assert (stopped["msg"], stopped["requests"]) == ("stopped", 2)
    assert isinstance(stopped["uptime_s"], float)


def test_request_lines_carry_the_capacity_consumed():
    table = {"TableName": "tab", "BillingMode": "PAY_PER_REQUEST",
             "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
             "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}]}
    item = {"k": {"S": "v"}, "payload": {"S": "x" * 1500}}  # 1,511 bytes: 2 write units
    lines, ids = stopped_log("--log-format", "json", "--log-requests", requests=[
        ("CreateTable", table),
        ("PutItem", {"TableName": "tab", "Item": item}),
        ("GetItem", {"TableName": "tab", "Key": {"k": {"S": "v"}}}),  # eventually consistent
        ("TransactGetItems", {"TransactItems": [{"Get": {"TableName": "tab",
                                                          "Key": {"k": {"S": "v"}}}}]})])
    events = {e.get("id"): e for e in map(json.loads, lines)}
    assert "read_units" not in events[ids[0]] and "write_units" not in events[ids[0]]
    assert events[ids[1]]["write_units"] == 2.0 and "read_units" not in events[ids[1]]
    assert events[ids[2]]["read_units"] == 0.5 and "write_units" not in events[ids[2]]
    assert events[ids[3]]["read_units"] == 2.0


def test_logfmt_lines():
    lines, ids = stopped_log("--log-format", "logfmt", "--log-requests", requests=[
        ("DescribeTable", {"TableName": "gone"})])
    assert re.fullmatch(rf'time={TIMESTAMP} level=info msg="listening on 127\.0\.0\.1:\d+; .*"\n',
                        lines[0]), lines[0]
    request = next(line for line in lines if " msg=request " in line)
    assert re.fullmatch(
        rf"time={TIMESTAMP} level=info msg=request id={ids[0]} method=POST "
        r"operation=DescribeTable table=gone status=400 error=ResourceNotFoundException "
        r"ms=\d+\.\d{3}\n", request), request
    assert re.fullmatch(rf"time={TIMESTAMP} level=info msg=stopped uptime_s=\d+\.\d requests=1\n",
                        lines[-1]), lines[-1]


def test_an_internal_error_is_logged_with_its_cause_without_the_request_log():
    process = DdbdProcess("--in-memory").start()
    try:
        log = Drained(process)
        status, _ = process.control("PUT", "/ddbd/faults", {"Rules": [
            {"Operation": "GetItem", "Count": 1, "Error": {"Type": "InternalServerError"}}]})
        assert status == 200
        status, headers, body = raw_call(process.endpoint, "GetItem",
                                         {"TableName": "t", "Key": {"k": {"S": "v"}}})
        assert status == 500
        message = json.loads(body)["message"]
        line = log.wait_for("request failed")
        assert line == (f"ddbd: error: request failed id={headers['x-amzn-requestid']} "
                        f"method=POST operation=GetItem table=t status=500 "
                        f"error=InternalServerError cause={json.dumps(message)} "
                        f"ms={line.rsplit('ms=', 1)[1]}")
        # Other answers stay out of the log without --log-requests.
        raw_call(process.endpoint, "ListTables", {})
        time.sleep(0.2)
        assert not any("ListTables" in line for line in log.lines)
    finally:
        process.cleanup()


def test_unknown_log_format_is_refused():
    done = subprocess.run([BINARY, "--log-format", "xml"], capture_output=True, text=True,
                          timeout=10)
    assert done.returncode == 2
    assert "invalid value for --log-format: 'xml' (text, logfmt or json)" in done.stderr
