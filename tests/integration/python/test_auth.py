"""--credentials: ddbd verifies AWS Signature Version 4 as DynamoDB does.

Real clients sign (boto3, botocore's signers, the AWS CLI); expected errors are DynamoDB's
(`com.amazon.coral.service#...`, HTTP 400). The JavaScript SDK v3 is in js/auth.test.mjs.
"""
import datetime
import hashlib
import http.client
import importlib
import json
import os
import shutil
import subprocess
import tempfile
import types
from urllib.parse import urlparse

import boto3
import botocore.auth
import botocore.config
import botocore.credentials
import pytest
from botocore import UNSIGNED
from botocore.awsrequest import AWSRequest
from botocore.exceptions import ClientError

from conftest import DdbdProcess

KEY = "AKIDAUTHTEST"
SECRET = "auth/secret+value"
SIGNATURE_MISMATCH = (
    "The request signature we calculated does not match the signature you provided. Check "
    "your AWS Secret Access Key and signing method. Consult the service documentation for "
    "details.")


@pytest.fixture(scope="module")
def credentials_file():
    directory = tempfile.mkdtemp(prefix="ddbd-auth-")
    path = os.path.join(directory, "credentials")
    with open(path, "w") as f:
        f.write(f"# keys ddbd accepts\n{KEY} {SECRET}\nAKIDOTHER other-secret\n")
    yield path
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def server(credentials_file):
    process = DdbdProcess("--in-memory", "--credentials", credentials_file).start()
    yield process
    process.cleanup()


def client(server, key=KEY, secret=SECRET, **config):
    return boto3.client(
        "dynamodb", endpoint_url=server.endpoint, region_name="us-east-1",
        aws_access_key_id=key, aws_secret_access_key=secret,
        config=botocore.config.Config(retries={"max_attempts": 1}, **config))


def error_of(call):
    with pytest.raises(ClientError) as raised:
        call()
    response = raised.value.response
    return (response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"],
            response["Error"]["Message"])


def send(server, request, path=None):
    """Sends a botocore AWSRequest (signed or not) as is; returns (status, parsed body)."""
    url = urlparse(request.url)
    target = path or (url.path + ("?" + url.query if url.query else ""))
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request(request.method, target, body=request.body, headers=dict(request.headers))
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, json.loads(data) if data else {}


def list_tables_request(server, body=b"{}"):
    return AWSRequest(method="POST", url=server.endpoint + "/", data=body, headers={
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810.ListTables",
    })


def sign(request, key=KEY, secret=SECRET):
    botocore.auth.SigV4Auth(botocore.credentials.Credentials(key, secret), "dynamodb",
                            "us-east-1").add_auth(request)
    return request


def skew_clock(monkeypatch, when):
    """Makes botocore sign at `when` (an aware UTC datetime): its own signer and, when awscrt
    is installed, the CRT one botocore prefers, in old and new botocore alike."""
    class Skewed(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return when.replace(tzinfo=None)

        @classmethod
        def now(cls, tz=None):
            return when if tz else when.replace(tzinfo=None)

    clock = types.SimpleNamespace(datetime=Skewed, timezone=datetime.timezone,
                                  timedelta=datetime.timedelta)
    modules = [botocore.auth]
    try:
        modules.append(importlib.import_module("botocore.crt.auth"))
    except ImportError:
        pass
    for module in modules:
        if hasattr(module, "get_current_datetime"):
            monkeypatch.setattr(module, "get_current_datetime", lambda: when)
        if hasattr(module, "datetime"):
            monkeypatch.setattr(module, "datetime", clock)


def test_right_secret_is_served(server):
    ddb = client(server)
    ddb.create_table(TableName="Signed", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    ddb.put_item(TableName="Signed", Item={"id": {"S": "1"}, "text": {"S": "a  b\tc"}})
    assert ddb.get_item(TableName="Signed", Key={"id": {"S": "1"}})["Item"]["text"] == {
        "S": "a  b\tc"}
    assert "Signed" in client(server, "AKIDOTHER", "other-secret").list_tables()["TableNames"]


def test_wrong_secret_is_an_invalid_signature(server):
    assert error_of(lambda: client(server, secret="wrong").list_tables()) == (
        400, "InvalidSignatureException", SIGNATURE_MISMATCH)


def test_unknown_access_key_is_an_unrecognized_client(server):
    assert error_of(lambda: client(server, key="AKIDNOBODY").list_tables()) == (
        400, "UnrecognizedClientException",
        "The security token included in the request is invalid.")


def test_unsigned_request_is_missing_its_token(server):
    unsigned = client(server, signature_version=UNSIGNED)
    assert error_of(unsigned.list_tables) == (
        400, "MissingAuthenticationTokenException", "Request is missing Authentication Token")


def test_error_body_has_dynamodbs_namespace(server):
    status, body = send(server, sign(list_tables_request(server), secret="wrong"))
    assert status == 400
    assert body == {"__type": "com.amazon.coral.service#InvalidSignatureException",
                    "message": SIGNATURE_MISMATCH}


def test_signature_is_checked_before_the_body_is_parsed(server):
    status, body = send(server, list_tables_request(server, b"not json"))
    assert (status, body["__type"]) == (
        400, "com.amazon.coral.service#MissingAuthenticationTokenException")
    status, body = send(server, sign(list_tables_request(server, b"not json")))
    assert (status, body) == (400, {"__type": "com.amazon.coral.service#SerializationException"})


def test_tampered_body_or_replayed_path_fails(server):
    request = sign(list_tables_request(server))
    request.data = b'{"Limit": 1}'
    status, body = send(server, request)
    assert (status, body["message"]) == (400, SIGNATURE_MISMATCH)
    status, body = send(server, sign(list_tables_request(server)), path="/other")
    assert (status, body["__type"]) == (400, "com.amazon.coral.service#InvalidSignatureException")
    assert send(server, sign(list_tables_request(server)))[0] == 200


@pytest.mark.parametrize("skew_minutes, message", [
    (-20, "Signature expired: {date} is now earlier than"),
    (20, "Signature not yet current: {date} is still later than"),
])
def test_clock_skew_over_fifteen_minutes_fails(server, monkeypatch, skew_minutes, message):
    skewed = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(
        minutes=skew_minutes)
    skew_clock(monkeypatch, skewed)
    status, code, text = error_of(lambda: client(server).list_tables())
    assert (status, code) == (400, "InvalidSignatureException")
    assert text.startswith(message.format(date=skewed.strftime("%Y%m%dT%H%M%SZ")))
    assert text.endswith(" 15 min.)")


def test_incomplete_authorization_header(server):
    request = list_tables_request(server)
    request.headers["Authorization"] = "AWS4-HMAC-SHA256 SignedHeaders=host, Signature=abc"
    status, body = send(server, request)
    assert (status, body["__type"]) == (
        400, "com.amazon.coral.service#IncompleteSignatureException")
    assert body["message"] == (
        "Authorization header requires 'Credential' parameter. Authorization header requires "
        "existence of either a 'X-Amz-Date' or a 'Date' header. "
        "Authorization=AWS4-HMAC-SHA256 SignedHeaders=host, Signature=abc")


def presigned_list_tables(server, expires=300, secret=SECRET):
    """A presigned ListTables: the signature in the query string. botocore's presigner moves
    a body into the query, so the body is kept out of it and its hash signed as a header."""
    body = b"{}"
    request = AWSRequest(method="POST", url=server.endpoint + "/", data=b"", headers={
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810.ListTables",
        "X-Amz-Content-SHA256": hashlib.sha256(body).hexdigest(),
    })
    botocore.auth.SigV4QueryAuth(botocore.credentials.Credentials(KEY, secret), "dynamodb",
                                 "us-east-1", expires=expires).add_auth(request)
    assert "Authorization" not in request.headers
    assert "X-Amz-Signature=" in request.url
    request.data = body
    return request


def test_presigned_query_is_verified(server):
    status, body = send(server, presigned_list_tables(server))
    assert status == 200 and "TableNames" in body
    status, body = send(server, presigned_list_tables(server, secret="wrong"))
    assert (status, body["message"]) == (400, SIGNATURE_MISMATCH)


def test_presigned_query_expires(server, monkeypatch):
    past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=120)
    skew_clock(monkeypatch, past)
    status, body = send(server, presigned_list_tables(server, expires=60))
    assert (status, body["__type"]) == (400, "com.amazon.coral.service#InvalidSignatureException")
    assert body["message"].startswith("Signature expired: " + past.strftime("%Y%m%dT%H%M%SZ"))
    assert send(server, presigned_list_tables(server, expires=600))[0] == 200


def test_health_check_stays_unauthenticated(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/")
    response = connection.getresponse()
    assert (response.status, response.read()) == (200, b"healthy: 127.0.0.1 ")
    connection.close()


def test_health_check_client_accepts_a_server_requiring_signatures(server):
    result = subprocess.run([os.environ.get("DDBD_BINARY", "ddbd"), "--health-check",
                             "--address", "127.0.0.1", "--port", str(server.port)],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr


def test_aws_cli_signs_with_the_right_credentials(server, tmp_path):
    aws = shutil.which("aws")
    if aws is None:
        pytest.fail("the AWS CLI is not installed (the test command installs Debian's awscli)")

    def run(secret):
        env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=secret,
                   AWS_DEFAULT_REGION="eu-west-1", AWS_PAGER="", AWS_CONFIG_FILE="/dev/null",
                   AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"))
        return subprocess.run([aws, "dynamodb", "list-tables", "--endpoint-url", server.endpoint,
                               "--output", "json"], env=env, capture_output=True, text=True,
                              timeout=60)

    listed = run(SECRET)
    assert listed.returncode == 0, listed.stderr
    assert "Signed" in json.loads(listed.stdout)["TableNames"]
    failed = run("wrong")
    assert failed.returncode != 0
    assert "InvalidSignatureException" in failed.stderr


def test_shared_credentials_file_is_accepted(tmp_path):
    path = tmp_path / "credentials"
    path.write_text("[default]\naws_access_key_id = AKIDINI\naws_secret_access_key = ini-secret\n"
                    "region = us-west-2\n")
    process = DdbdProcess("--in-memory", "--credentials", str(path)).start()
    try:
        assert any("1 access key from" in line for line in process.log)
        assert "TableNames" in client(process, "AKIDINI", "ini-secret").list_tables()
        assert error_of(lambda: client(process, "AKIDINI", "x").list_tables())[1] == (
            "InvalidSignatureException")
    finally:
        process.cleanup()


def test_malformed_credentials_file_stops_start_up(tmp_path):
    path = tmp_path / "credentials"
    path.write_text("AKIDONLY\n")
    result = subprocess.run([os.environ.get("DDBD_BINARY", "ddbd"), "--in-memory",
                             "--credentials", str(path)], capture_output=True, text=True,
                            timeout=10)
    assert result.returncode == 2
    assert f"{path}: credentials file, line 1: expected" in result.stderr


def test_without_credentials_any_signature_is_accepted():
    process = DdbdProcess("--in-memory").start()
    try:
        assert "TableNames" in client(process, "ANYKEY", "any-secret").list_tables()
    finally:
        process.cleanup()
