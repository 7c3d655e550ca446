"""Namespaces: independent sets of tables named by the X-Ddbd-Namespace header, listed and
dropped through the control API (/ddbd/namespaces), across boto3 clients, raw HTTP, --isolate,
restarts and --no-control-api."""
import threading

import pytest

from conftest import DdbdProcess, control_call, raw_call, use_namespace


@pytest.fixture(scope="module")
def server():
    process = DdbdProcess().start()
    yield process
    process.cleanup()


def make_table(client, name, **kwargs):
    client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        **kwargs)


def namespaces(server):
    status, body = server.control("GET", "/ddbd/namespaces")
    assert status == 200
    return {n["Name"]: (n["TableCount"], n["ItemCount"]) for n in body["Namespaces"]}


def test_two_workers_create_the_same_table_name_in_parallel(server):
    errors = []

    # boto3 makes clients one at a time (its session is not thread-safe); they are used at once.
    clients = {name: server.client(namespace=name) for name in ("worker-a", "worker-b")}

    def worker(namespace, count):
        try:
            client = clients[namespace]
            make_table(client, "Orders")
            for i in range(count):
                client.put_item(TableName="Orders", Item={"pk": {"S": f"{namespace}-{i}"}})
        except Exception as error:  # reported below, with the worker's name
            errors.append((namespace, error))

    threads = [threading.Thread(target=worker, args=("worker-a", 7)),
               threading.Thread(target=worker, args=("worker-b", 3))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    a = server.client(namespace="worker-a")
    b = server.client(namespace="worker-b")
    assert a.scan(TableName="Orders")["Count"] == 7
    assert b.scan(TableName="Orders")["Count"] == 3
    assert {i["pk"]["S"] for i in b.scan(TableName="Orders")["Items"]} == {
        "worker-b-0", "worker-b-1", "worker-b-2"}
    assert a.list_tables()["TableNames"] == ["Orders"]
    # The default namespace has no such table.
    with pytest.raises(server.client().exceptions.ResourceNotFoundException):
        server.client().describe_table(TableName="Orders")
    listed = namespaces(server)
    assert listed["worker-a"] == (1, 7)
    assert listed["worker-b"] == (1, 3)
    server.control("DELETE", "/ddbd/namespaces/worker-a")
    server.control("DELETE", "/ddbd/namespaces/worker-b")


def test_no_header_and_the_header_default_are_the_same_namespace(server):
    plain = server.client()
    named = server.client(namespace="default")
    make_table(plain, "Shared")
    named.put_item(TableName="Shared", Item={"pk": {"S": "x"}})
    assert plain.get_item(TableName="Shared", Key={"pk": {"S": "x"}})["Item"] == {"pk": {"S": "x"}}
    assert namespaces(server)["default"] == (1, 1)
    plain.delete_table(TableName="Shared")


@pytest.mark.parametrize("name", ["", "a" * 65, "has space", "slash/y", "ünï", "star*"])
def test_an_invalid_namespace_name_is_a_validation_error(server, name):
    status, _, body = raw_call(server.endpoint, "ListTables", {},
                               headers={"X-Ddbd-Namespace": name.encode("utf-8")})
    if name == "":  # an empty header is no header: the default namespace
        assert status == 200
        return
    assert status == 400
    assert b"ValidationException" in body
    assert b"1 to 64 characters" in body


def test_the_longest_namespace_name_is_accepted(server):
    name = "A-z_0.9" * 9 + "x"  # 64 characters
    client = server.client(namespace=name)
    make_table(client, "Tab")
    assert name in namespaces(server)
    status, body = server.control("DELETE", f"/ddbd/namespaces/{name}")
    assert (status, body["TablesDeleted"]) == (200, 1)


def test_namespaces_are_listed_by_name_with_their_counts(server):
    for namespace, items in (("list-b", 2), ("list-a", 0)):
        client = server.client(namespace=namespace)
        make_table(client, "One")
        make_table(client, "Two")
        for i in range(items):
            client.put_item(TableName="Two", Item={"pk": {"S": str(i)}})
    status, body = server.control("GET", "/ddbd/namespaces")
    assert status == 200
    names = [n["Name"] for n in body["Namespaces"]]
    assert names == sorted(names)
    assert {"Name": "list-a", "TableCount": 2, "ItemCount": 0, "SnapshotCount": 0} \
        in body["Namespaces"]
    assert {"Name": "list-b", "TableCount": 2, "ItemCount": 2, "SnapshotCount": 0} \
        in body["Namespaces"]
    assert "default" in names  # always there, even without tables
    status, body = server.control("GET", "/ddbd/namespaces/list-b")
    assert status == 200
    assert body == {"Name": "list-b", "TableCount": 2, "ItemCount": 2, "SnapshotCount": 0,
                    "Tables": ["One", "Two"]}
    # A namespace never used is empty, not missing: namespaces are created on first use.
    assert server.control("GET", "/ddbd/namespaces/never-used") == (
        200, {"Name": "never-used", "TableCount": 0, "ItemCount": 0, "SnapshotCount": 0,
              "Tables": []})
    for namespace in ("list-a", "list-b"):
        server.control("DELETE", f"/ddbd/namespaces/{namespace}")


def test_deleting_a_namespace_drops_everything_in_it_and_nothing_else(server):
    doomed = server.client(namespace="doomed")
    kept = server.client(namespace="kept")
    make_table(doomed, "Items",
               StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    # This botocore predates deletion protection: set it over raw HTTP.
    status, _, _ = raw_call(server.endpoint, "UpdateTable",
                            {"TableName": "Items", "DeletionProtectionEnabled": True},
                            headers={"X-Ddbd-Namespace": "doomed"})
    assert status == 200
    doomed.update_table(TableName="Items", AttributeDefinitions=[
        {"AttributeName": "g", "AttributeType": "S"}], GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}}])
    make_table(doomed, "Other")
    make_table(kept, "Items")
    for i in range(50):
        doomed.put_item(TableName="Items", Item={"pk": {"S": str(i)}, "g": {"S": "x"}})
        kept.put_item(TableName="Items", Item={"pk": {"S": str(i)}})
    doomed.create_backup(TableName="Items", BackupName="before")

    status, body = server.control("DELETE", "/ddbd/namespaces/doomed")
    assert status == 200
    assert body == {"Name": "doomed", "TablesDeleted": 2, "BackupsDeleted": 1}
    assert doomed.list_tables()["TableNames"] == []
    assert doomed.list_backups()["BackupSummaries"] == []
    assert server.client(service="dynamodbstreams", namespace="doomed").list_streams()[
        "Streams"] == []
    assert kept.scan(TableName="Items")["Count"] == 50
    # The names are free again, and a new table starts empty, its index too.
    doomed.create_table(TableName="Items", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "g", "AttributeType": "S"}],
                        GlobalSecondaryIndexes=[{"IndexName": "ByG", "KeySchema": [
                            {"AttributeName": "g", "KeyType": "HASH"}],
                            "Projection": {"ProjectionType": "ALL"}}])
    assert doomed.scan(TableName="Items")["Count"] == 0
    assert doomed.query(TableName="Items", IndexName="ByG", KeyConditionExpression="g = :g",
                        ExpressionAttributeValues={":g": {"S": "x"}})["Count"] == 0
    assert server.control("DELETE", "/ddbd/namespaces/doomed")[1]["TablesDeleted"] == 1
    # Deleting an empty namespace is not an error: test teardown can always call it.
    assert server.control("DELETE", "/ddbd/namespaces/doomed") == (
        200, {"Name": "doomed", "TablesDeleted": 0, "BackupsDeleted": 0})
    server.control("DELETE", "/ddbd/namespaces/kept")


def test_deleting_the_default_namespace_leaves_named_ones(server):
    make_table(server.client(), "InDefault")
    make_table(server.client(namespace="named"), "InNamed")
    status, body = server.control("DELETE", "/ddbd/namespaces/default")
    assert (status, body["Name"], body["TablesDeleted"]) == (200, "default", 1)
    assert server.client().list_tables()["TableNames"] == []
    assert server.client(namespace="named").list_tables()["TableNames"] == ["InNamed"]
    server.control("DELETE", "/ddbd/namespaces/named")


def test_control_api_errors(server):
    status, body = server.control("DELETE", "/ddbd/namespaces/bad%20name")
    assert status == 400
    assert body["__type"] == "com.amazon.coral.validate#ValidationException"
    assert "1 to 64 characters" in body["message"]
    status, body = server.control("GET", "/ddbd/no-such-thing")
    assert status == 404
    assert body["__type"] == "ddbd#NotFoundException"
    assert "/ddbd/no-such-thing" in body["message"]
    status, body = server.control("POST", "/ddbd/namespaces")
    assert status == 405
    assert body["__type"] == "ddbd#MethodNotAllowedException"
    assert body["message"] == "POST is not allowed on /ddbd/namespaces"
    status, body = server.control("PUT", "/ddbd/clock", "{not json")
    assert status == 400
    assert body["message"] == "The request body must be a JSON object"
    # A query string and a trailing slash do not change the path.
    assert server.control("GET", "/ddbd/namespaces/?x=1")[0] == 200


def test_a_boto3_resource_works_in_a_namespace(server):
    resource = server.resource()
    use_namespace(resource.meta.client, "orm")
    table = resource.create_table(
        TableName="People", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    table.put_item(Item={"id": "1", "name": "Ada"})
    assert table.get_item(Key={"id": "1"})["Item"] == {"id": "1", "name": "Ada"}
    assert server.client().list_tables()["TableNames"] == []
    server.control("DELETE", "/ddbd/namespaces/orm")


def test_the_header_overrides_isolation_by_access_key():
    process = DdbdProcess("--isolate", "access-key").start()
    try:
        alice = process.client(access_key="ALICE")
        make_table(alice, "Mine")
        assert process.client(access_key="BOB").list_tables()["TableNames"] == []
        shared_by_alice = process.client(access_key="ALICE", namespace="shared")
        shared_by_bob = process.client(access_key="BOB", namespace="shared")
        make_table(shared_by_alice, "Common")
        assert shared_by_bob.list_tables()["TableNames"] == ["Common"]
        listed = namespaces(process)
        # Isolation scopes are listed under their own names: access key, '/', region part.
        assert listed["ALICE/"] == (1, 0)
        assert listed["shared"] == (1, 0)
        status, body = process.control("DELETE", "/ddbd/namespaces/shared")
        assert (status, body["TablesDeleted"]) == (200, 1)
    finally:
        process.cleanup()


def test_namespaces_survive_a_restart():
    process = DdbdProcess().start()
    try:
        client = process.client(namespace="durable")
        make_table(client, "Kept")
        client.put_item(TableName="Kept", Item={"pk": {"S": "a"}})
        process.stop()
        process.start()
        client = process.client(namespace="durable")
        assert client.get_item(TableName="Kept", Key={"pk": {"S": "a"}})["Item"] == {
            "pk": {"S": "a"}}
        assert namespaces(process)["durable"] == (1, 1)
        assert process.client().list_tables()["TableNames"] == []
    finally:
        process.cleanup()


def test_without_the_control_api_every_control_path_is_404_but_namespaces_still_work():
    process = DdbdProcess("--no-control-api", "--in-memory").start()
    try:
        for method, path in (("GET", "/ddbd/namespaces"), ("GET", "/ddbd/clock"),
                             ("POST", "/ddbd/ttl/sweep"), ("GET", "/ddbd"),
                             ("DELETE", "/ddbd/namespaces/x")):
            status, body = process.control(method, path)
            assert status == 404, path
            assert body == {"__type": "ddbd#NotFoundException",
                            "message": "The control API is off (--no-control-api)"}
        # The health check is not part of the control API: container health checks use it.
        assert process.control("GET", "/ddbd/health") == (200, {"status": "healthy"})
        make_table(process.client(namespace="still"), "Tab")
        assert process.client().list_tables()["TableNames"] == []
    finally:
        process.cleanup()


def test_replies_that_quote_a_path_or_name_are_valid_utf8(server):
    """Found by fuzz.http_exchange: a 404 quoting a path with bytes that are not UTF-8 was
    not valid JSON. Ill-formed bytes are quoted as U+FFFD."""
    import json
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        connection.sendall(b"GET /ddbd/na\xfe\xfemespaces HTTP/1.1\r\nHost: x\r\n"
                           b"Connection: close\r\n\r\n")
        reply = b""
        while chunk := connection.recv(65536):
            reply += chunk
    head, body = reply.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 404")
    assert json.loads(body.decode("utf-8"))["message"].startswith(
        "No control API path /ddbd/na\ufffd\ufffdmespaces")

    status, _, body = raw_call(server.endpoint, "ListTables", {},
                               headers={"X-Ddbd-Namespace": b"bad\xfe\xffname"})
    assert status == 400
    assert json.loads(body.decode("utf-8"))["message"].startswith(
        "Invalid namespace name 'bad\ufffd\ufffdname'")
