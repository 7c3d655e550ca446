"""HTTP details DynamoDB has beyond the JSON protocol: compressed replies (and the CRC over
them), concatenated gzip request members, the headers CORS replies expose, and the host the
health answer names."""
import gzip
import json
import zlib

import pytest

from conftest import raw_call

THRESHOLD = 4096  # DynamoDB compresses replies of at least 4 KB


@pytest.fixture(scope="module")
def big_table(ddb):
    ddb.create_table(TableName="HttpBig", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}])
    ddb.put_item(TableName="HttpBig", Item={"p": {"S": "k"}, "x": {"S": "x" * THRESHOLD}})
    return "HttpBig"


def get_big(server, accept_encoding):
    headers = {"Accept-Encoding": accept_encoding} if accept_encoding is not None else {}
    return raw_call(server.endpoint, "GetItem", {"TableName": "HttpBig", "Key": {"p": {"S": "k"}}},
                    headers=headers)


@pytest.mark.parametrize("accept, coding, decompress", [
    ("gzip", "gzip", gzip.decompress),
    ("deflate", "deflate", zlib.decompress),
    ("br, identity, deflate, gzip", "deflate", zlib.decompress),
    ("*, gzip;q=0.5", "deflate", zlib.decompress),
    ("*", "gzip", gzip.decompress),
])
def test_large_replies_are_compressed(server, big_table, accept, coding, decompress):
    status, headers, body = get_big(server, accept)
    assert status == 200
    assert headers["content-encoding"] == coding
    assert int(headers["content-length"]) == len(body)
    # The CRC covers the bytes sent, as DynamoDB's does.
    assert headers["x-amz-crc32"] == str(zlib.crc32(body))
    item = json.loads(decompress(body))["Item"]
    assert item["x"] == {"S": "x" * THRESHOLD}


@pytest.mark.parametrize("accept", [None, "identity", "gzip;q=0", "br", "*;q=0", "x-gzip"])
def test_replies_stay_plain_unless_gzip_or_deflate_is_accepted(server, big_table, accept):
    status, headers, body = get_big(server, accept)
    assert status == 200 and "content-encoding" not in headers
    assert headers["x-amz-crc32"] == str(zlib.crc32(body))
    assert json.loads(body)["Item"]["x"] == {"S": "x" * THRESHOLD}


def test_small_replies_are_not_compressed(server):
    status, headers, body = raw_call(server.endpoint, "ListTables", {},
                                     headers={"Accept-Encoding": "gzip"})
    assert status == 200 and "content-encoding" not in headers
    assert "TableNames" in json.loads(body)


def test_boto3_verifies_the_crc_of_a_compressed_reply(server, big_table, monkeypatch):
    """botocore checks x-amz-crc32 against the raw bytes it read, before any decompression
    (its DynamoDB retry rule), so the compressed reply must carry the CRC of what was sent."""
    import botocore.endpoint
    client = server.client()
    seen = {}

    def accept_gzip(request, **kwargs):
        request.headers["Accept-Encoding"] = "gzip"

    original = botocore.endpoint.convert_to_response_dict

    def decompressed(http_response, operation_model):
        response = original(http_response, operation_model)
        seen["encoding"] = response["headers"].get("content-encoding")
        if seen["encoding"] == "gzip":
            response["body"] = gzip.decompress(response["body"])
        return response

    monkeypatch.setattr(botocore.endpoint, "convert_to_response_dict", decompressed)
    client.meta.events.register("before-send.dynamodb.GetItem", accept_gzip)
    item = client.get_item(TableName=big_table, Key={"p": {"S": "k"}})["Item"]
    assert seen["encoding"] == "gzip"
    assert item["x"] == {"S": "x" * THRESHOLD}


def test_concatenated_gzip_members_are_one_body(server):
    payload = gzip.compress(b'{"Li') + gzip.compress(b'mit": 1}')
    status, _, body = raw_call(server.endpoint, "ListTables", payload,
                               headers={"Content-Encoding": "gzip"})
    assert status == 200
    assert "TableNames" in json.loads(body)


def test_cors_replies_expose_dynamodbs_headers(server):
    exposed = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date"
    status, headers, _ = raw_call(server.endpoint, "ListTables", {},
                                  headers={"Origin": "http://localhost:8001"})
    assert status == 200
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-expose-headers"] == exposed
    assert "access-control-max-age" not in headers
    status, headers, _ = raw_call(server.endpoint, None, "", method="OPTIONS", headers={
        "Origin": "http://localhost:8001", "Access-Control-Request-Method": "POST"})
    assert headers["access-control-expose-headers"] == exposed
    _, headers, _ = raw_call(server.endpoint, "ListTables", {})
    assert "access-control-expose-headers" not in headers


@pytest.mark.parametrize("host, named", [
    ("dynamodb.us-east-1.amazonaws.com", "dynamodb.us-east-1.amazonaws.com"),
    ("dynamodb.ap-south-2.amazonaws.com", "dynamodb.ap-south-2.amazonaws.com"),
    ("localhost:8000", "localhost"),
])
def test_health_check_names_the_host_called(server, host, named):
    status, headers, body = raw_call(server.endpoint, None, "", method="GET",
                                     headers={"Host": host})
    assert (status, body) == (200, f"healthy: {named} ".encode())
    assert headers["x-amz-crc32"] == str(zlib.crc32(body))
