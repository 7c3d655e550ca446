"""The README's "Testing with ddbd" section, run as written (only the endpoint differs): its
curl commands in order, its Python helpers and its TTL test."""
import os
import re
import subprocess

import pytest

from conftest import DdbdProcess

README = os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")


def section():
    text = open(README, encoding="utf-8").read()
    start = text.index("## Testing with ddbd")
    return text[start:text.index("\n## ", start + 1)]


def blocks(language):
    return re.findall(r"```" + language + r"\n(.*?)```", section(), re.S)


@pytest.fixture(scope="module")
def server():
    process = DdbdProcess("--in-memory").start()
    yield process
    process.cleanup()


def test_every_curl_command_answers_200(server):
    script = "\n".join(blocks("sh"))
    commands = [line for line in script.splitlines() if not line.startswith("ddbd ")]
    script = "set -e\n" + "\n".join(commands)
    script = script.replace("localhost:8000", f"127.0.0.1:{server.port}")
    script = script.replace("curl -s", "curl -sf -o /dev/null")  # -f: an HTTP error fails
    server.client(namespace="worker-1").create_table(
        TableName="Orders", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert script.count("curl ") >= 15
    assert server.control("GET", "/ddbd/clock")[1]["Mode"] == "frozen"


def test_the_python_helpers_and_the_ttl_test_work_as_written(server):
    helpers, *rest = blocks("python")
    namespace = {}
    exec(helpers.replace("http://localhost:8000", server.endpoint), namespace)
    ttl_test = next(block for block in rest if "def test_sessions_expire" in block)
    exec(ttl_test, namespace)
    ddb = namespace["client_for"]("readme")
    ddb.create_table(TableName="Sessions", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    ddb.update_time_to_live(TableName="Sessions", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expireAt"})
    namespace["test_sessions_expire"](ddb)
    assert namespace["control"]("GET", "/ddbd/namespaces/readme")["Tables"] == ["Sessions"]
    namespace["control"]("DELETE", "/ddbd/namespaces/readme")
    assert server.client(namespace="readme").list_tables()["TableNames"] == []


def run_example(server_args, test_name):
    """Starts a server with `server_args`, executes the README's helpers and its example that
    defines `test_name` against it, and runs that test with a client of the server (retries
    off, as the examples ask). Returns the client and the server, which the caller stops."""
    process = DdbdProcess("--in-memory", *server_args).start()
    try:
        helpers, *rest = blocks("python")
        namespace = {}
        exec(helpers.replace("http://localhost:8000", process.endpoint), namespace)
        exec(next(block for block in rest if f"def {test_name}(" in block), namespace)
        ddb = process.client()
        namespace[test_name](ddb)
        return ddb, process
    except BaseException:
        process.cleanup()
        raise


def test_the_capacity_example_works_as_written():
    ddb, process = run_example(["--enforce-capacity"], "test_orders_throttle_past_their_burst")
    try:
        assert ddb.scan(TableName="Orders", Select="COUNT")["Count"] == 301
    finally:
        process.cleanup()


def test_the_gsi_lag_example_works_as_written():
    _, process = run_example(["--gsi-lag-ms", "1000"],
                             "test_a_new_user_reaches_the_email_index_later")
    process.cleanup()
