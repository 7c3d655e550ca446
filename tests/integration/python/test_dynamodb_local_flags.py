"""DynamoDB Local's command-line flags, each used the way DynamoDB Local users pass them."""
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import boto3
import botocore.config
import botocore.exceptions
import pytest

from conftest import BINARY, raw_call


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Started:
    """ddbd started with exactly `args` (plus a loopback address), in its own directory."""

    def __init__(self, *args, cwd=None):
        self.port = free_port()
        self.owns_cwd = cwd is None
        self.cwd = cwd or tempfile.mkdtemp(prefix="ddbd-flags-")
        command = [BINARY, *args, "-port", str(self.port), "--address", "127.0.0.1"]
        self.proc = subprocess.Popen(command, cwd=self.cwd, stderr=subprocess.PIPE, text=True)
        self.log = ""
        deadline = time.monotonic() + 10
        while "listening on" not in self.log and time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log += line
        assert f"listening on 127.0.0.1:{self.port}" in self.log, self.log

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def client(self, access_key="AKIDFLAGS", region="us-east-1"):
        return boto3.client("dynamodb", endpoint_url=self.endpoint, region_name=region,
                            aws_access_key_id=access_key, aws_secret_access_key="x",
                            config=botocore.config.Config(retries={"max_attempts": 1}))

    def stop(self):
        """Stops the server and removes the directory it was started in, if it made it."""
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stderr.close()
        if self.owns_cwd:
            shutil.rmtree(self.cwd, ignore_errors=True)


def make_table(client, name="Flags"):
    client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])


def test_shared_db_in_memory_on_another_port():
    """`ddbd -sharedDb -inMemory -port N`: one set of tables for every credential, nothing on
    disk, served on port N."""
    server = Started("-sharedDb", "-inMemory")
    try:
        make_table(server.client("AKIDONE", "us-east-1"))
        server.client("AKIDONE", "us-east-1").put_item(TableName="Flags",
                                                      Item={"pk": {"S": "a"}, "n": {"N": "1"}})
        other = server.client("AKIDTWO", "eu-west-1")  # other credentials, same tables
        assert other.get_item(TableName="Flags", Key={"pk": {"S": "a"}})["Item"]["n"] == {"N": "1"}
        assert os.listdir(server.cwd) == []  # -inMemory wrote nothing
    finally:
        server.stop()


def test_db_path_keeps_data_across_restarts_and_optimize_before_startup():
    data = tempfile.mkdtemp(prefix="ddbd-flags-data-")
    server = Started("-sharedDb", "-dbPath", data)
    try:
        make_table(server.client())
        server.client().put_item(TableName="Flags", Item={"pk": {"S": "kept"}})
    finally:
        server.stop()
    assert os.listdir(data)  # the database lives in -dbPath
    server = Started("-sharedDb", "-dbPath", data, "-optimizeDbBeforeStartup")
    try:
        item = server.client().get_item(TableName="Flags", Key={"pk": {"S": "kept"}})
        assert item["Item"] == {"pk": {"S": "kept"}}
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


def test_jar_prefix_and_telemetry_flag_are_accepted():
    """The command line of a DynamoDB Local compose file works unchanged."""
    server = Started("-jar", "DynamoDBLocal.jar", "-sharedDb", "-disableTelemetry", "-inMemory")
    try:
        assert "ignoring '-jar DynamoDBLocal.jar'" in server.log
        assert server.client().list_tables()["TableNames"] == []
    finally:
        server.stop()


def test_help_prints_the_usage():
    done = subprocess.run([BINARY, "-help"], capture_output=True, text=True, timeout=10)
    assert done.returncode == 0
    for flag in ("-port", "-dbPath", "-inMemory", "-sharedDb", "-cors", "-delayTransientStatuses",
                 "-optimizeDbBeforeStartup", "-disableTelemetry"):
        assert flag in done.stdout


def preflight(endpoint, origin):
    return raw_call(endpoint, None, b"", method="OPTIONS", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-amz-target,x-amz-date,authorization"})


def test_cors_allow_list():
    """-cors with a list: listed origins get their own origin back (preflight and requests);
    others get no CORS headers, so browsers refuse them."""
    server = Started("-inMemory", "-cors", "http://app.example:3000, https://admin.example")
    try:
        status, headers, _ = preflight(server.endpoint, "https://admin.example")
        assert status == 200
        assert headers["access-control-allow-origin"] == "https://admin.example"
        assert headers["access-control-allow-methods"] == "POST"
        assert headers["access-control-allow-headers"] == (
            "content-type,x-amz-target,x-amz-date,authorization")
        assert headers["vary"] == "Origin"
        status, headers, body = raw_call(server.endpoint, "ListTables", {},
                                         headers={"Origin": "http://app.example:3000"})
        assert (status, headers["access-control-allow-origin"]) == (200, "http://app.example:3000")
        assert body == b'{"TableNames":[]}'
        status, headers, _ = preflight(server.endpoint, "https://evil.example")
        assert status == 200 and "access-control-allow-origin" not in headers
        status, headers, _ = raw_call(server.endpoint, "ListTables", {},
                                      headers={"Origin": "https://evil.example"})
        assert status == 200 and "access-control-allow-origin" not in headers
    finally:
        server.stop()


def test_cors_star_allows_every_origin():
    server = Started("-inMemory", "-cors", "*")
    try:
        _, headers, _ = preflight(server.endpoint, "https://anywhere.example")
        assert headers["access-control-allow-origin"] == "*"
    finally:
        server.stop()


def test_delay_transient_statuses_exercises_waiters():
    server = Started("-inMemory", "-delayTransientStatuses")
    client = server.client()
    try:
        created = client.create_table(
            TableName="Slow", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        assert created["TableDescription"]["TableStatus"] == "CREATING"
        assert client.describe_table(TableName="Slow")["Table"]["TableStatus"] == "CREATING"
        with pytest.raises(client.exceptions.ResourceNotFoundException):
            client.put_item(TableName="Slow", Item={"pk": {"S": "early"}})
        with pytest.raises(client.exceptions.ResourceInUseException) as refused:
            client.delete_table(TableName="Slow")
        assert refused.value.response["Error"]["Message"] == (
            "Attempt to change a resource which is still in use: Table is being created: Slow")
        started = time.monotonic()
        client.get_waiter("table_exists").wait(TableName="Slow",
                                               WaiterConfig={"Delay": 0.1, "MaxAttempts": 100})
        assert time.monotonic() - started > 0.2
        client.put_item(TableName="Slow", Item={"pk": {"S": "a"}})

        updated = client.update_table(TableName="Slow", TableClass="STANDARD")
        assert updated["TableDescription"]["TableStatus"] == "UPDATING"
        assert client.get_item(TableName="Slow", Key={"pk": {"S": "a"}})["Item"]  # usable
        with pytest.raises(client.exceptions.ResourceInUseException):
            client.update_table(TableName="Slow", TableClass="STANDARD")
        client.get_waiter("table_exists").wait(TableName="Slow",
                                               WaiterConfig={"Delay": 0.1, "MaxAttempts": 100})
        for _ in range(100):
            if client.describe_table(TableName="Slow")["Table"]["TableStatus"] == "ACTIVE":
                break
            time.sleep(0.05)
        assert client.describe_table(TableName="Slow")["Table"]["TableStatus"] == "ACTIVE"

        deleted = client.delete_table(TableName="Slow")
        assert deleted["TableDescription"]["TableStatus"] == "DELETING"
        assert client.describe_table(TableName="Slow")["Table"]["TableStatus"] == "DELETING"
        with pytest.raises(client.exceptions.ResourceNotFoundException):
            client.get_item(TableName="Slow", Key={"pk": {"S": "a"}})
        client.get_waiter("table_not_exists").wait(TableName="Slow",
                                                   WaiterConfig={"Delay": 0.1, "MaxAttempts": 100})
        assert client.list_tables()["TableNames"] == []
    finally:
        server.stop()


def test_delay_transient_statuses_for_a_global_secondary_index():
    server = Started("-inMemory", "--transient-status-ms", "300")
    client = server.client()
    try:
        client.create_table(
            TableName="Indexed", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        client.get_waiter("table_exists").wait(TableName="Indexed",
                                               WaiterConfig={"Delay": 0.1, "MaxAttempts": 100})
        client.put_item(TableName="Indexed", Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        client.update_table(
            TableName="Indexed", AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}}])
        index = client.describe_table(TableName="Indexed")["Table"]["GlobalSecondaryIndexes"][0]
        assert index["IndexStatus"] == "CREATING"
        for _ in range(100):
            table = client.describe_table(TableName="Indexed")["Table"]
            if table["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE":
                break
            time.sleep(0.05)
        assert table["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE"
        for _ in range(100):  # the table leaves UPDATING too
            if client.describe_table(TableName="Indexed")["Table"]["TableStatus"] == "ACTIVE":
                break
            time.sleep(0.05)
        client.update_table(TableName="Indexed",
                            GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "ByG"}}])
        index = client.describe_table(TableName="Indexed")["Table"]["GlobalSecondaryIndexes"][0]
        assert index["IndexStatus"] == "DELETING"
        with pytest.raises(client.exceptions.ClientError) as gone:
            client.query(TableName="Indexed", IndexName="ByG", KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": {"S": "x"}})
        assert gone.value.response["Error"]["Message"] == (
            "The table does not have the specified index: ByG")
        for _ in range(100):
            if "GlobalSecondaryIndexes" not in client.describe_table(TableName="Indexed")["Table"]:
                break
            time.sleep(0.05)
        assert "GlobalSecondaryIndexes" not in client.describe_table(TableName="Indexed")["Table"]
        assert client.get_item(TableName="Indexed", Key={"pk": {"S": "a"}})["Item"]["g"] == {"S": "x"}
    finally:
        server.stop()


def test_without_the_flag_changes_are_immediate():
    server = Started("-inMemory")
    client = server.client()
    try:
        created = client.create_table(
            TableName="Fast", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        assert created["TableDescription"]["TableStatus"] == "ACTIVE"
        client.put_item(TableName="Fast", Item={"pk": {"S": "a"}})
        assert client.delete_table(TableName="Fast")["TableDescription"]["TableStatus"] == "DELETING"
        assert client.list_tables()["TableNames"] == []
    finally:
        server.stop()


def test_delayed_create_of_a_table_with_a_vector_index():
    """Created with its table, a vector index is CREATING without a Backfilling member."""
    import json
    server = Started("-inMemory", "--transient-status-ms", "200")
    try:
        def call(operation, body):
            status, _, data = raw_call(server.endpoint, operation, body)
            return status, json.loads(data)

        status, body = call("CreateTable", {
            "TableName": "Vectors", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "VectorIndexes": [{"IndexName": "Embeddings", "VectorAttribute": {"AttributeName": "v"},
                               "Dimensions": 2, "DistanceFunction": "COSINE",
                               "Projection": {"ProjectionType": "KEYS_ONLY"}}]})
        assert status == 200
        index = body["TableDescription"]["VectorIndexes"][0]
        assert (body["TableDescription"]["TableStatus"], index["IndexStatus"]) == ("CREATING", "CREATING")
        assert "Backfilling" not in index
        for _ in range(100):
            _, body = call("DescribeTable", {"TableName": "Vectors"})
            if body["Table"]["TableStatus"] == "ACTIVE":
                break
            time.sleep(0.02)
        assert body["Table"]["VectorIndexes"][0]["IndexStatus"] == "ACTIVE"
        assert "Backfilling" not in body["Table"]["VectorIndexes"][0]
    finally:
        server.stop()


def thread_count(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith("Threads:")).split()[1])


def test_background_threads_stay_bounded_under_delayed_statuses():
    """500 CreateTable and 500 DeleteTable under -delayTransientStatuses: each delayed status
    change is a task on the bounded background executor, not a thread of its own."""
    server = Started("-inMemory", "-delayTransientStatuses", "--background-threads", "2")
    try:
        client = server.client()
        client.list_tables()  # every I/O thread has started
        before = thread_count(server.proc.pid)
        names = [f"churn{i:03d}" for i in range(500)]
        for name in names:
            make_table(client, name)
        peak = thread_count(server.proc.pid)
        deadline = time.monotonic() + 60
        while any(client.describe_table(TableName=n)["Table"]["TableStatus"] != "ACTIVE"
                  for n in names[-5:]):
            assert time.monotonic() < deadline, "tables stayed CREATING"
            time.sleep(0.2)
        for name in names:
            while True:
                try:
                    client.delete_table(TableName=name)
                    break
                except client.exceptions.ResourceInUseException:  # still CREATING
                    time.sleep(0.05)
        peak = max(peak, thread_count(server.proc.pid))
        while client.list_tables()["TableNames"]:
            assert time.monotonic() < deadline, "tables stayed DELETING"
            time.sleep(0.2)
        after = thread_count(server.proc.pid)
        # The executor's two threads at most, started on demand; nothing per table.
        assert peak <= before + 2, (before, peak)
        assert after <= before + 2, (before, after)
    finally:
        server.stop()


# A table declared as suites written against DynamoDB Local declare some (ElectroDB's LSI
# fixture has this shape): every key's attribute defined, and one more attribute no key uses.
LOCAL_STYLE_TABLE = {
    "TableName": "LocalStyle",
    "BillingMode": "PAY_PER_REQUEST",
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                  {"AttributeName": "sk", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": name, "AttributeType": "S"}
                             for name in ("pk", "sk", "gsi1pk", "lsi1sk", "lsi9sk")],
    "GlobalSecondaryIndexes": [{
        "IndexName": "gsi1", "Projection": {"ProjectionType": "ALL"},
        "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"},
                      {"AttributeName": "lsi1sk", "KeyType": "RANGE"}]}],
    "LocalSecondaryIndexes": [{
        "IndexName": "lsi1", "Projection": {"ProjectionType": "ALL"},
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                      {"AttributeName": "lsi1sk", "KeyType": "RANGE"}]}],
}
FLAVOURS = ["pear", "apple", "Zebra", "éclair", "banana"]


def missing_table_messages(client):
    """The ResourceNotFoundException message of each kind of operation on a missing table."""
    key = {"pk": {"S": "p"}}
    calls = {
        "GetItem": lambda: client.get_item(TableName="Nowhere", Key=key),
        "Scan": lambda: client.scan(TableName="Nowhere"),
        "BatchGetItem": lambda: client.batch_get_item(RequestItems={"Nowhere": {"Keys": [key]}}),
        "TransactGetItems": lambda: client.transact_get_items(
            TransactItems=[{"Get": {"TableName": "Nowhere", "Key": key}}]),
        "DescribeTable": lambda: client.describe_table(TableName="Nowhere"),
        "DeleteTable": lambda: client.delete_table(TableName="Nowhere"),
    }
    messages = {}
    for operation, call in calls.items():
        with pytest.raises(botocore.exceptions.ClientError) as missing:
            call()
        assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException", operation
        messages[operation] = missing.value.response["Error"]["Message"]
    return messages


def root_answer(server):
    """GET / as a readiness check sends it: no signature, no body."""
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/")
    response = connection.getresponse()
    result = response.status, response.getheader("Content-Type"), response.read()
    connection.close()
    return result


def test_dynamodb_local_command_line_turns_its_profile_on():
    """Started as DynamoDB Local is, ddbd answers as DynamoDB Local does where tools and test
    suites depend on it: the readiness answer, lenient table definitions, sorted string sets."""
    server = Started("-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory")
    try:
        assert "DynamoDB Local compatibility profile on" in server.log
        status, content_type, body = root_answer(server)
        assert (status, content_type) == (400, "application/x-amz-json-1.0")
        assert json.loads(body) == {
            "__type": "com.amazonaws.dynamodb.v20120810#MissingAuthenticationToken",
            "message": "Request must contain either a valid (registered) AWS access key ID or "
                       "X.509 certificate."}

        client = server.client()
        client.create_table(**LOCAL_STYLE_TABLE)
        table = client.describe_table(TableName="LocalStyle")["Table"]
        assert [d["AttributeName"] for d in table["AttributeDefinitions"]] == [
            "pk", "sk", "gsi1pk", "lsi1sk"]

        client.put_item(TableName="LocalStyle", Item={
            "pk": {"S": "p"}, "sk": {"S": "s"}, "gsi1pk": {"S": "g"}, "lsi1sk": {"S": "l"},
            "flavours": {"SS": FLAVOURS}, "sizes": {"NS": ["10", "9", "100"]},
            "nested": {"M": {"flavours": {"SS": ["b", "a"]}}}})
        in_byte_order = ["Zebra", "apple", "banana", "pear", "éclair"]
        key = {"pk": {"S": "p"}, "sk": {"S": "s"}}
        item = client.get_item(TableName="LocalStyle", Key=key)["Item"]
        assert item["flavours"]["SS"] == in_byte_order
        assert item["nested"]["M"]["flavours"]["SS"] == ["a", "b"]
        assert item["sizes"]["NS"] == ["10", "9", "100"]  # only string sets are sorted
        updated = client.update_item(
            TableName="LocalStyle", Key=key, UpdateExpression="ADD flavours :more",
            ExpressionAttributeValues={":more": {"SS": ["cherry", "Apple"]}},
            ReturnValues="ALL_NEW")["Attributes"]
        assert updated["flavours"]["SS"] == ["Apple", "Zebra", "apple", "banana", "cherry",
                                             "pear", "éclair"]
        for page in (client.scan(TableName="LocalStyle"),
                     client.query(TableName="LocalStyle", IndexName="gsi1",
                                  KeyConditionExpression="gsi1pk = :g",
                                  ExpressionAttributeValues={":g": {"S": "g"}})):
            assert page["Items"][0]["flavours"]["SS"] == updated["flavours"]["SS"]

        # One text for a missing table, whatever the operation (suites pin it).
        assert set(missing_table_messages(client).values()) == {
            "Cannot do operations on a non-existent table"}
    finally:
        server.stop()


def test_compat_none_keeps_dynamodbs_behaviour_on_dynamodb_locals_command_line():
    server = Started("-jar", "DynamoDBLocal.jar", "-inMemory", "--compat", "none")
    try:
        assert "compatibility profile" not in server.log
        status, content_type, body = root_answer(server)
        assert (status, content_type) == (200, "text/plain")
        assert body.startswith(b"healthy: ")
        client = server.client()
        with pytest.raises(botocore.exceptions.ClientError) as refused:
            client.create_table(**LOCAL_STYLE_TABLE)
        assert refused.value.response["Error"]["Code"] == "ValidationException"
        assert refused.value.response["Error"]["Message"] == (
            "One or more parameter values were invalid: Some AttributeDefinitions are not used. "
            "AttributeDefinitions: [pk, sk, gsi1pk, lsi1sk, lsi9sk], keys used: [gsi1pk, lsi1sk, "
            "pk, sk]")
        make_table(client)
        client.put_item(TableName="Flags", Item={"pk": {"S": "p"}, "flavours": {"SS": FLAVOURS}})
        item = client.get_item(TableName="Flags", Key={"pk": {"S": "p"}})["Item"]
        assert item["flavours"]["SS"] == FLAVOURS  # as written
        assert missing_table_messages(client) == {
            "GetItem": "Requested resource not found", "Scan": "Requested resource not found",
            "BatchGetItem": "Requested resource not found",
            "TransactGetItems": "Requested resource not found",
            "DescribeTable": "Requested resource not found: Table: Nowhere not found",
            "DeleteTable": "Requested resource not found: Table: Nowhere not found"}
    finally:
        server.stop()
