"""The AWS CLI commands of the seed guide, run unchanged but for --endpoint-url."""
import json
import os
import shutil
import subprocess

import pytest

AWS = shutil.which("aws")


@pytest.fixture(scope="module")
def aws(server):
    if AWS is None:
        pytest.fail("the AWS CLI is not installed (the test command installs Debian's awscli)")
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDCLI", AWS_SECRET_ACCESS_KEY="secret",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="", AWS_CONFIG_FILE="/dev/null")

    def run(*args, check=True):
        result = subprocess.run([AWS, "dynamodb", *args, "--endpoint-url", server.endpoint,
                                 "--output", "json"], env=env, capture_output=True, text=True,
                                timeout=60)
        if check and result.returncode != 0:
            raise AssertionError(result.stderr)
        return result

    return run


def test_seed_cli_commands(aws):
    created = json.loads(aws(
        "create-table", "--table-name", "MyTable",
        "--attribute-definitions", "AttributeName=PK,AttributeType=S", "AttributeName=SK,AttributeType=S",
        "--key-schema", "AttributeName=PK,KeyType=HASH", "AttributeName=SK,KeyType=RANGE",
        "--billing-mode", "PAY_PER_REQUEST").stdout)
    assert created["TableDescription"]["TableName"] == "MyTable"

    described = json.loads(aws("describe-table", "--table-name", "MyTable").stdout)
    assert described["Table"]["TableStatus"] == "ACTIVE"
    assert described["Table"]["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"

    aws("put-item", "--table-name", "MyTable",
        "--item", '{"PK":{"S":"USER#123"},"SK":{"S":"PROFILE"}}')
    got = json.loads(aws("get-item", "--table-name", "MyTable",
                         "--key", '{"PK":{"S":"USER#123"},"SK":{"S":"PROFILE"}}').stdout)
    assert got["Item"] == {"PK": {"S": "USER#123"}, "SK": {"S": "PROFILE"}}

    listed = json.loads(aws("list-tables").stdout)
    assert "MyTable" in listed["TableNames"]

    aws("wait", "table-exists", "--table-name", "MyTable")
    deleted = json.loads(aws("delete-table", "--table-name", "MyTable").stdout)
    assert deleted["TableDescription"]["TableStatus"] == "DELETING"
    failed = aws("describe-table", "--table-name", "MyTable", check=False)
    assert failed.returncode != 0
    assert "ResourceNotFoundException" in failed.stderr


def test_seed_cli_expression_commands(aws):
    aws("create-table", "--table-name", "CliExpr",
        "--attribute-definitions", "AttributeName=PK,AttributeType=S", "AttributeName=SK,AttributeType=S",
        "--key-schema", "AttributeName=PK,KeyType=HASH", "AttributeName=SK,KeyType=RANGE",
        "--billing-mode", "PAY_PER_REQUEST")
    aws("put-item", "--table-name", "CliExpr",
        "--item", '{"PK":{"S":"USER#123"},"SK":{"S":"PROFILE"}}',
        "--condition-expression", "attribute_not_exists(PK)")
    again = aws("put-item", "--table-name", "CliExpr",
                "--item", '{"PK":{"S":"USER#123"},"SK":{"S":"PROFILE"}}',
                "--condition-expression", "attribute_not_exists(PK)", check=False)
    assert again.returncode != 0 and "ConditionalCheckFailedException" in again.stderr
    for order in ("ORDER#1", "ORDER#2"):
        aws("put-item", "--table-name", "CliExpr",
            "--item", json.dumps({"PK": {"S": "USER#123"}, "SK": {"S": order}, "status": {"S": "ACTIVE"}}))

    queried = json.loads(aws(
        "query", "--table-name", "CliExpr",
        "--key-condition-expression", "PK = :pk AND begins_with(SK, :prefix)",
        "--expression-attribute-values", '{":pk":{"S":"USER#123"},":prefix":{"S":"ORDER#"}}').stdout)
    assert [i["SK"]["S"] for i in queried["Items"]] == ["ORDER#1", "ORDER#2"]

    scanned = json.loads(aws(
        "scan", "--table-name", "CliExpr", "--filter-expression", "#s = :status",
        "--expression-attribute-names", '{"#s":"status"}',
        "--expression-attribute-values", '{":status":{"S":"ACTIVE"}}').stdout)
    assert scanned["Count"] == 2

    aws("update-item", "--table-name", "CliExpr",
        "--key", '{"PK":{"S":"USER#123"},"SK":{"S":"PROFILE"}}',
        "--update-expression", "SET view_count = :zero",
        "--expression-attribute-values", '{":zero":{"N":"0"}}')
    aws("update-item", "--table-name", "CliExpr",
        "--key", '{"PK":{"S":"USER#123"},"SK":{"S":"PROFILE"}}',
        "--update-expression", "SET view_count = view_count + :inc",
        "--expression-attribute-values", '{":inc":{"N":"1"}}')
    got = json.loads(aws("get-item", "--table-name", "CliExpr",
                         "--key", '{"PK":{"S":"USER#123"},"SK":{"S":"PROFILE"}}').stdout)
    assert got["Item"]["view_count"] == {"N": "1"}


def test_cli_adds_gsis_to_a_table_with_a_gsi_and_an_lsi(aws):
    """update-table --attribute-definitions lists only the new index's keys, as the AWS CLI's
    documentation shows; a second and a third GSI join the table's GSI and LSI."""
    aws("create-table", "--table-name", "CliIndexes", "--billing-mode", "PAY_PER_REQUEST",
        "--attribute-definitions", "AttributeName=pk,AttributeType=S", "AttributeName=sk,AttributeType=S",
        "AttributeName=lsk,AttributeType=S", "AttributeName=g1,AttributeType=S",
        "--key-schema", "AttributeName=pk,KeyType=HASH", "AttributeName=sk,KeyType=RANGE",
        "--global-secondary-indexes",
        '[{"IndexName":"ByG1","KeySchema":[{"AttributeName":"g1","KeyType":"HASH"}],'
        '"Projection":{"ProjectionType":"ALL"}}]',
        "--local-secondary-indexes",
        '[{"IndexName":"ByLsk","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},'
        '{"AttributeName":"lsk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]')
    for name, attribute, kind in (("ByG2", "g2", "S"), ("ByG3", "g3", "N")):
        aws("update-table", "--table-name", "CliIndexes",
            "--attribute-definitions", f"AttributeName={attribute},AttributeType={kind}",
            "--global-secondary-index-updates",
            json.dumps([{"Create": {"IndexName": name, "KeySchema": [{"AttributeName": attribute, "KeyType": "HASH"}],
                                    "Projection": {"ProjectionType": "ALL"}}}]))
        aws("wait", "table-exists", "--table-name", "CliIndexes")
        deadline = 0
        while True:
            table = json.loads(aws("describe-table", "--table-name", "CliIndexes").stdout)["Table"]
            if all(i["IndexStatus"] == "ACTIVE" for i in table["GlobalSecondaryIndexes"]):
                break
            deadline += 1
            assert deadline < 200
    assert sorted(i["IndexName"] for i in table["GlobalSecondaryIndexes"]) == ["ByG1", "ByG2", "ByG3"]
    assert {d["AttributeName"]: d["AttributeType"] for d in table["AttributeDefinitions"]} == {
        "pk": "S", "sk": "S", "lsk": "S", "g1": "S", "g2": "S", "g3": "N"}
    aws("delete-table", "--table-name", "CliIndexes")
