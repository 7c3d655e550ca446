"""Fixtures that start the real ddbd binary on a loopback port with a fresh data directory.

DDBD_BINARY names the binary (CTest sets it). Each test module gets its own server; tests that
need special options or restarts use `DdbdProcess` directly.
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import boto3
import botocore.config
import pytest

BINARY = os.environ.get("DDBD_BINARY", "ddbd")


class DdbdProcess:
    """One ddbd server process. Stopped by its process id, never by name."""

    def __init__(self, *extra_args, data_dir=None, preexec_fn=None):
        self.owns_dir = data_dir is None
        self.preexec_fn = preexec_fn  # runs in the child before exec, e.g. to set rlimits
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="ddbd-it-")
        self.extra_args = list(extra_args)
        self.proc = None
        self.port = None
        self.log = []

    def start(self, port=0):
        args = [BINARY, "--address", "127.0.0.1", "--port", str(port), "--threads", "2"]
        if "--in-memory" not in self.extra_args:
            args += ["--db-path", os.path.join(self.data_dir, "db")]
        self.proc = subprocess.Popen(args + self.extra_args, stderr=subprocess.PIPE, text=True,
                                     preexec_fn=self.preexec_fn)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.append(line)
            match = re.search(r"listening on [0-9.]+:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                return self
        raise RuntimeError("ddbd did not start: " + "".join(self.log))

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def client(self, access_key="AKIDTEST", region="us-east-1", service="dynamodb",
               namespace=None):
        """A boto3 client; with `namespace`, every request names it (X-Ddbd-Namespace)."""
        client = boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name=region,
            aws_access_key_id=access_key,
            aws_secret_access_key="secret",
            config=botocore.config.Config(retries={"max_attempts": 1}),
        )
        if namespace is not None:
            use_namespace(client, namespace)
        return client

    def control(self, method, path, body=None):
        """A control API request: (status, parsed JSON body)."""
        return control_call(self.endpoint, method, path, body)

    def resource(self, access_key="AKIDTEST", region="us-east-1"):
        return boto3.resource(
            "dynamodb",
            endpoint_url=self.endpoint,
            region_name=region,
            aws_access_key_id=access_key,
            aws_secret_access_key="secret",
        )

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc and self.proc.stderr:
            self.proc.stderr.close()
        return self.proc.returncode if self.proc else None

    def cleanup(self):
        self.stop()
        if self.owns_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def server():
    process = DdbdProcess().start()
    yield process
    process.cleanup()


@pytest.fixture(scope="module")
def ddb(server):
    return server.client()


@pytest.fixture
def table_factory(ddb):
    """Creates tables with unique names; deletes them after the test."""
    created = []

    def make(name=None, hash_key=("PK", "S"), range_key=("SK", "S"), **kwargs):
        name = name or f"t{len(created)}_{time.monotonic_ns()}"
        key_schema = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
        definitions = [{"AttributeName": hash_key[0], "AttributeType": hash_key[1]}]
        if range_key:
            key_schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
            definitions.append({"AttributeName": range_key[0], "AttributeType": range_key[1]})
        kwargs.setdefault("BillingMode", "PAY_PER_REQUEST")
        ddb.create_table(TableName=name, KeySchema=key_schema, AttributeDefinitions=definitions,
                         **kwargs)
        created.append(name)
        return name

    yield make
    for name in created:
        try:
            ddb.delete_table(TableName=name)
        except ddb.exceptions.ResourceNotFoundException:
            pass


def use_namespace(client, namespace):
    """Makes every request of a boto3 client (or resource's client) name `namespace`."""
    def add_header(request, **_):
        request.headers["X-Ddbd-Namespace"] = namespace
    client.meta.events.register("before-sign.*.*", add_header)


def control_call(endpoint, method, path, body=None):
    """One request to ddbd's control API: (status, parsed JSON body or None)."""
    import http.client
    import json as _json
    from urllib.parse import urlparse

    url = urlparse(endpoint)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    payload = None if body is None else (body if isinstance(body, (bytes, str))
                                         else _json.dumps(body))
    connection.request(method, path, body=payload,
                       headers={"Content-Type": "application/json"} if payload else {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, (_json.loads(data) if data else None)


def raw_call(endpoint, operation, body, content_type="application/x-amz-json-1.0",
             target_prefix="DynamoDB_20120810.", method="POST", headers=None):
    """Sends one request over plain HTTP, as a client without an SDK would.

    Returns (status, headers dict with lower-case names, body bytes)."""
    import http.client
    import json as _json
    from urllib.parse import urlparse

    url = urlparse(endpoint)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    payload = body if isinstance(body, (bytes, str)) else _json.dumps(body)
    all_headers = {
        "Content-Type": content_type,
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDTEST/20260101/us-east-1/dynamodb/"
                         "aws4_request, SignedHeaders=host, Signature=0",
    }
    if operation is not None:
        all_headers["X-Amz-Target"] = target_prefix + operation
    all_headers.update(headers or {})
    connection.request(method, "/", body=payload, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    result = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    connection.close()
    return result


@pytest.fixture(scope="module")
def raw(server):
    """raw(operation, body) → (status, error name or None, message or None, parsed body)."""
    import json as _json

    def call(operation, body):
        status, _, data = raw_call(server.endpoint, operation, body)
        parsed = _json.loads(data) if data else {}
        error_type = parsed.get("__type")
        name = error_type.split("#", 1)[1] if error_type else None
        message = parsed.get("message", parsed.get("Message"))
        return status, name, message, parsed

    return call


def normalized(value):
    """A DynamoDB JSON value with its sets' members in one order (DynamoDB promises none)."""
    if isinstance(value, dict):
        return {k: sorted(v) if k in ("SS", "NS", "BS") else normalized(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def until_finished(describe, status_field, what, timeout=30):
    """Calls describe() until its `status_field` is no longer IN_PROGRESS; returns that answer."""
    deadline = time.monotonic() + timeout
    while True:
        answer = describe()
        if answer[status_field] != "IN_PROGRESS":
            return answer
        assert time.monotonic() < deadline, f"{what} did not finish"
        time.sleep(0.05)
