"""Namespaces: one shared set of tables by default; --isolate access-key separates them."""
import pytest

from conftest import DdbdProcess

SCHEMA = dict(BillingMode="PAY_PER_REQUEST",
              KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
              AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])


def test_shared_by_default_whatever_the_credentials():
    server = DdbdProcess().start()
    try:
        alice = server.client(access_key="ALICE", region="us-east-1")
        bob = server.client(access_key="BOB", region="eu-west-1")
        alice.create_table(TableName="Shared", **SCHEMA)
        with pytest.raises(bob.exceptions.ResourceInUseException):
            bob.create_table(TableName="Shared", **SCHEMA)
        alice.put_item(TableName="Shared", Item={"id": {"S": "1"}, "by": {"S": "alice"}})
        assert bob.get_item(TableName="Shared", Key={"id": {"S": "1"}})["Item"]["by"] == {"S": "alice"}
    finally:
        server.cleanup()


def test_isolated_by_access_key():
    server = DdbdProcess("--isolate", "access-key").start()
    try:
        assert any("isolation: access-key" in line for line in server.log)
        alice = server.client(access_key="ALICE")
        bob = server.client(access_key="BOB")
        alice.create_table(TableName="Orders", **SCHEMA)
        bob.create_table(TableName="Orders", **SCHEMA)
        alice.put_item(TableName="Orders", Item={"id": {"S": "1"}, "by": {"S": "alice"}})
        bob.put_item(TableName="Orders", Item={"id": {"S": "1"}, "by": {"S": "bob"}})
        assert alice.get_item(TableName="Orders", Key={"id": {"S": "1"}})["Item"]["by"] == {"S": "alice"}
        assert bob.get_item(TableName="Orders", Key={"id": {"S": "1"}})["Item"]["by"] == {"S": "bob"}
        bob.delete_table(TableName="Orders")
        assert alice.list_tables()["TableNames"] == ["Orders"]
        assert bob.list_tables()["TableNames"] == []
        # The same key in another region is the same namespace with access-key isolation.
        alice_eu = server.client(access_key="ALICE", region="eu-west-1")
        assert alice_eu.list_tables()["TableNames"] == ["Orders"]
    finally:
        server.cleanup()


def test_isolated_by_region():
    server = DdbdProcess("--isolate", "region").start()
    try:
        us = server.client(access_key="K1", region="us-east-1")
        eu = server.client(access_key="K2", region="eu-west-1")
        us.create_table(TableName="Regional", **SCHEMA)
        assert eu.list_tables()["TableNames"] == []
        assert server.client(access_key="OTHER", region="us-east-1").list_tables()["TableNames"] == ["Regional"]
        arn = us.describe_table(TableName="Regional")["Table"]["TableArn"]
        assert arn == "arn:aws:dynamodb:us-east-1:000000000000:table/Regional"
    finally:
        server.cleanup()
