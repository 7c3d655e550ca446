"""--tls-cert/--tls-key: ddbd serves HTTPS, for clients that insist on https endpoints.

A self-signed certificate for 127.0.0.1 is made with `openssl req` at test time; boto3 trusts
it through `verify=`, the AWS CLI through --ca-bundle (or skips checking with --no-verify-ssl).
"""
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import time

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from conftest import DdbdProcess

BINARY = os.environ.get("DDBD_BINARY", "ddbd")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    credentials = directory / "credentials"
    credentials.write_text("AKIDTLS tls-secret\n")
    return {"cert": str(cert), "key": str(key), "credentials": str(credentials)}


@pytest.fixture(scope="module")
def server(certificate):
    process = DdbdProcess("--in-memory", "--tls-cert", certificate["cert"],
                          "--tls-key", certificate["key"],
                          "--credentials", certificate["credentials"]).start()
    yield process
    process.cleanup()


def https_endpoint(server):
    return f"https://127.0.0.1:{server.port}"


def client(server, certificate, secret="tls-secret"):
    return boto3.client(
        "dynamodb", endpoint_url=https_endpoint(server), region_name="us-east-1",
        aws_access_key_id="AKIDTLS", aws_secret_access_key=secret, verify=certificate["cert"],
        config=botocore.config.Config(retries={"max_attempts": 1}))


def test_start_up_line_says_https(server):
    assert any("listening on 127.0.0.1:%d (https)" % server.port in line for line in server.log)


def test_boto3_over_https_with_the_certificate_trusted(server, certificate):
    ddb = client(server, certificate)
    ddb.create_table(TableName="OverTls", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    big = "x" * 100_000  # larger than one TLS record, and compressed on the way back
    ddb.put_item(TableName="OverTls", Item={"id": {"S": "1"}, "big": {"S": big}})
    item = ddb.get_item(TableName="OverTls", Key={"id": {"S": "1"}})["Item"]
    assert item["big"]["S"] == big
    assert "OverTls" in ddb.list_tables()["TableNames"]


def test_signatures_are_verified_over_https_too(server, certificate):
    with pytest.raises(ClientError) as raised:
        client(server, certificate, secret="wrong").list_tables()
    assert raised.value.response["Error"]["Code"] == "InvalidSignatureException"


def test_keep_alive_serves_many_requests_on_one_tls_connection(server, certificate):
    context = ssl.create_default_context(cafile=certificate["cert"])
    connection = http.client.HTTPSConnection("127.0.0.1", server.port, context=context,
                                             timeout=10)
    for _ in range(5):
        connection.request("GET", "/")
        response = connection.getresponse()
        assert (response.status, response.read()) == (200, b"healthy: 127.0.0.1 ")
    connection.close()


def test_plain_http_to_the_tls_port_gets_no_answer(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    with pytest.raises((http.client.HTTPException, ConnectionError, OSError)):
        connection.request("GET", "/")
        connection.getresponse()
    connection.close()
    # The server is still serving.
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    secure = http.client.HTTPSConnection("127.0.0.1", server.port, context=context, timeout=10)
    secure.request("GET", "/")
    assert secure.getresponse().status == 200
    secure.close()


def test_aws_cli_over_https(server, certificate, tmp_path):
    aws = shutil.which("aws")
    if aws is None:
        pytest.fail("the AWS CLI is not installed (the test command installs Debian's awscli)")
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDTLS", AWS_SECRET_ACCESS_KEY="tls-secret",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="", AWS_CONFIG_FILE="/dev/null",
               AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"), AWS_MAX_ATTEMPTS="1",
               AWS_RETRY_MODE="standard")
    for trust in (["--ca-bundle", certificate["cert"]], ["--no-verify-ssl"]):
        result = subprocess.run([aws, "dynamodb", "list-tables", "--endpoint-url",
                                 https_endpoint(server), "--output", "json", *trust],
                                env=env, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert "OverTls" in json.loads(result.stdout)["TableNames"]
    untrusted = subprocess.run([aws, "dynamodb", "list-tables", "--endpoint-url",
                                https_endpoint(server)], env=env, capture_output=True,
                               text=True, timeout=60)
    assert untrusted.returncode != 0
    assert "SSL" in untrusted.stderr or "certificate" in untrusted.stderr


@pytest.fixture(scope="module")
def quick_tls(certificate):
    """HTTPS with short timeouts and a small connection limit (the plain-HTTP versions of
    these checks are in test_connections.py)."""
    process = DdbdProcess("--in-memory", "--tls-cert", certificate["cert"],
                          "--tls-key", certificate["key"], "--header-timeout-ms", "500",
                          "--idle-timeout-ms", "500", "--max-connections", "3").start()
    yield process
    process.cleanup()


def closed_within(sock, seconds):
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
        return True
    except (ConnectionResetError, ssl.SSLError):
        return True
    except socket.timeout:
        return False


def tls_connect(server, certificate):
    context = ssl.create_default_context(cafile=certificate["cert"])
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    return context.wrap_socket(raw, server_hostname="127.0.0.1")


def test_a_connection_that_never_handshakes_is_closed(quick_tls):
    with socket.create_connection(("127.0.0.1", quick_tls.port), timeout=5) as sock:
        assert closed_within(sock, 2)


def test_an_idle_tls_connection_is_closed(quick_tls, certificate):
    with tls_connect(quick_tls, certificate) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        start = time.monotonic()
        sock.settimeout(2)
        assert sock.recv(4096) == b""
        assert time.monotonic() - start >= 0.4


def test_tls_connections_beyond_the_limit_get_a_503(quick_tls, certificate):
    idle = [tls_connect(quick_tls, certificate) for _ in range(3)]
    try:
        time.sleep(0.1)
        with tls_connect(quick_tls, certificate) as extra:
            extra.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert extra.recv(4096).startswith(b"HTTP/1.1 503")
    finally:
        for sock in idle:
            sock.close()


def test_certificate_and_key_go_together(certificate):
    result = subprocess.run([BINARY, "--in-memory", "--tls-cert", certificate["cert"]],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 2
    assert "--tls-cert and --tls-key go together" in result.stderr


def test_unreadable_certificate_stops_start_up(certificate, tmp_path):
    broken = tmp_path / "broken.pem"
    broken.write_text("not a certificate\n")
    result = subprocess.run([BINARY, "--in-memory", "--port", "0", "--tls-cert", str(broken),
                             "--tls-key", certificate["key"]],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 1
    assert "cannot load TLS certificate" in result.stderr
