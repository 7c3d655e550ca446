"""The log: --log-requests writes one line per request carrying the request id the client
got, and --log-level filters lines by level."""
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
        rf"ddbd: request id={request_id} method=POST operation=GetItem status=400 "
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
