"""Exports and imports on an S3-compatible server (--s3-endpoint): s3rver, from npm (installed
with the JavaScript test clients). s3rver does not check signatures; the SigV4 signing of S3
requests is checked against AWS's published example in tests/server/sigv4_test.cc. The export's
objects are read back with boto3's S3 client; an import reads objects put there with it; a
missing bucket fails the export with S3NoSuchBucket, as in DynamoDB."""
import base64
import gzip
import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

import boto3
import pytest

from conftest import DdbdProcess, until_finished

S3RVER = os.path.join(os.path.dirname(__file__), "..", "js", "node_modules", "s3rver", "bin",
                      "s3rver.js")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3rver():
    if not shutil.which("node") or not os.path.exists(S3RVER):
        pytest.skip("s3rver (npm) is not installed: run npm ci in tests/integration/js")
    directory = tempfile.mkdtemp(prefix="s3rver-")
    port = free_port()
    process = subprocess.Popen(
        ["node", S3RVER, "-d", directory, "-a", "127.0.0.1", "-p", str(port), "--silent",
         "--configure-bucket", "exports", "--configure-bucket", "source"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "s3rver did not start"
            time.sleep(0.1)
    yield endpoint
    process.terminate()
    process.wait(timeout=10)
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def s3(s3rver):
    return boto3.client("s3", endpoint_url=s3rver, region_name="us-east-1",
                        aws_access_key_id="S3RVER", aws_secret_access_key="S3RVER")


def start_ddbd(endpoint, secret="S3RVER"):
    """ddbd on the endpoint, signing with S3RVER and `secret` (from the environment)."""
    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    os.environ.update(AWS_ACCESS_KEY_ID="S3RVER", AWS_SECRET_ACCESS_KEY=secret)
    try:
        return DdbdProcess("--in-memory", "--s3-endpoint", endpoint).start()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="module")
def server(s3rver):
    process = start_ddbd(s3rver)
    yield process
    process.cleanup()


def wait(describe, field):
    return until_finished(describe, field, field)


def test_export_writes_to_the_endpoint_and_import_reads_from_it(server, s3):
    ddb = server.client()
    ddb.create_table(TableName="Orders", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    ddb.update_continuous_backups(TableName="Orders", PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    for i in range(5):
        ddb.put_item(TableName="Orders", Item={"pk": {"S": f"o{i}"}, "note": {"S": "x y&z"}})
    arn = ddb.describe_table(TableName="Orders")["Table"]["TableArn"]
    answer = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="exports", S3Prefix="p q")
    export = wait(lambda: ddb.describe_export(ExportArn=answer["ExportDescription"]["ExportArn"])[
        "ExportDescription"], "ExportStatus")
    assert export["ExportStatus"] == "COMPLETED", export
    summary = json.loads(s3.get_object(Bucket="exports", Key=export["ExportManifest"])["Body"]
                         .read())
    assert summary["itemCount"] == 5
    files = s3.get_object(Bucket="exports", Key=summary["manifestFilesS3Key"])["Body"].read()
    entry = json.loads(files.decode().splitlines()[0])
    data = s3.get_object(Bucket="exports", Key=entry["dataFileS3Key"])
    body = data["Body"].read()
    assert data["ETag"].strip('"') == hashlib.md5(body).hexdigest()  # stored as sent
    assert entry["md5Checksum"] == base64.b64encode(hashlib.md5(body).digest()).decode()
    lines = gzip.decompress(body).decode().splitlines()
    assert sorted(json.loads(l)["Item"]["pk"]["S"] for l in lines) == [f"o{i}" for i in range(5)]
    listed = s3.list_objects_v2(Bucket="exports", Prefix="p q/AWSDynamoDB/")["KeyCount"]
    assert listed == 6  # _started, two manifests, their .md5s, one data file

    s3.put_object(Bucket="source", Key="in/items.json",
                  Body="".join(json.dumps({"Item": {"pk": {"S": f"i{i}"}}}) + "\n"
                               for i in range(1200)).encode())
    imported = ddb.import_table(
        S3BucketSource={"S3Bucket": "source", "S3KeyPrefix": "in/"}, InputFormat="DYNAMODB_JSON",
        TableCreationParameters={
            "TableName": "Imported", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
    description = wait(lambda: ddb.describe_import(
        ImportArn=imported["ImportTableDescription"]["ImportArn"])["ImportTableDescription"],
        "ImportStatus")
    assert description["ImportStatus"] == "COMPLETED" and description["ImportedItemCount"] == 1200
    assert ddb.describe_table(TableName="Imported")["Table"]["ItemCount"] == 1200


def export_failure(server, table, bucket):
    ddb = server.client()
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    ddb.update_continuous_backups(TableName=table, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    answer = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket)
    export = wait(lambda: ddb.describe_export(ExportArn=answer["ExportDescription"]["ExportArn"])[
        "ExportDescription"], "ExportStatus")
    assert export["ExportStatus"] == "FAILED"
    return export["FailureCode"], export["FailureMessage"]


def test_export_to_a_missing_bucket_fails_with_s3_no_such_bucket(server):
    code, message = export_failure(server, "Lonely", "nobucket")
    assert code == "S3NoSuchBucket" and "Error Code: NoSuchBucket" in message
