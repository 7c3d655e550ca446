"""ExportTableToPointInTime, DescribeExport and ListExports against the local S3 (a directory,
--s3-root): full exports at three points of a sequence of writes, updates, deletes and a Time
to Live expiry hold exactly the items of each point (every attribute type, 38-digit numbers,
binaries, sets, nested documents); an incremental export holds exactly the changes of its
period; the files are DynamoDB's layout (manifests, their MD5s, gzip data files, ETags); and
every error DynamoDB answers. The server's clock is frozen and moved, so each point is exact."""
import base64
import gzip
import hashlib
import http.client
import json
import os
import time
from datetime import datetime, timezone

import pytest
from botocore.exceptions import ClientError

from conftest import DdbdProcess, normalized, raw_call, until_finished

T0 = 1_800_000_000
BIG = "1234567890123456789012345678901234567.8"  # 38 digits
A1 = {"pk": {"S": "a1"}, "n": {"N": BIG}, "b": {"B": "AP8="}, "ss": {"SS": ["x", "y"]},
      "ns": {"NS": ["1", BIG]}, "bs": {"BS": ["AQ=="]},
      "doc": {"M": {"l": {"L": [{"S": "deep"}, {"NULL": True}, {"BOOL": False}]}}}}
A1_UPDATED = {k: v for k, v in A1.items() if k != "ss"} | {"v": {"N": "2"}}
A2 = {"pk": {"S": "a2"}, "s": {"S": "caf\u00e9 \"quoted\"\n"}}
A3 = {"pk": {"S": "a3"}, "v": {"N": "1"}}
A3_REPLACED = {"pk": {"S": "a3"}, "v": {"N": "3"}}
A4 = {"pk": {"S": "a4"}}


def at(seconds):
    return datetime.fromtimestamp(T0 + seconds, timezone.utc).isoformat().replace("+00:00", "Z")


def wire_item(item):
    """A DynamoDB JSON item with B/BS as bytes, for boto3."""
    def value(v):
        if "B" in v:
            return {"B": base64.b64decode(v["B"])}
        if "BS" in v:
            return {"BS": [base64.b64decode(b) for b in v["BS"]]}
        if "M" in v:
            return {"M": {k: value(x) for k, x in v["M"].items()}}
        if "L" in v:
            return {"L": [value(x) for x in v["L"]]}
        return v
    return {k: value(v) for k, v in item.items()}


@pytest.fixture(scope="module")
def history():
    """Points: P1 = T0+1000 (a1, a2, a3), P2 = T0+2050 (a1 updated, a3, a4), now = T0+4000
    (a1 updated, a3 replaced, a4)."""
    server = DdbdProcess()
    server.extra_args += ["--s3-root", os.path.join(server.data_dir, "s3")]
    server.start()
    ddb = server.client()
    clock = lambda seconds: server.control("PUT", "/ddbd/clock", {"Now": at(seconds)})
    clock(0)
    ddb.create_table(TableName="Ledger", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    ddb.update_time_to_live(TableName="Ledger", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    ddb.update_continuous_backups(
        TableName="Ledger", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    put = lambda item: ddb.put_item(TableName="Ledger", Item=wire_item(item))
    clock(60)
    for item in (A1, A2, A3):
        put(item)
    clock(1100)
    ddb.update_item(TableName="Ledger", Key={"pk": {"S": "a1"}},
                    UpdateExpression="SET v = :v REMOVE ss",
                    ExpressionAttributeValues={":v": {"N": "2"}})
    ddb.delete_item(TableName="Ledger", Key={"pk": {"S": "a2"}})
    put(A4)
    put({"pk": {"S": "a5"}, "expires": {"N": str(T0 + 1500)}})
    clock(2000)
    assert server.control("POST", "/ddbd/ttl/sweep")[0] == 200  # a5 expires
    clock(2100)
    put(A3_REPLACED)
    clock(4000)
    yield server, ddb
    server.cleanup()


def s3_path(server, bucket, key=""):
    return os.path.join(server.data_dir, "s3", bucket, key)


def read_object(server, bucket, key):
    with open(s3_path(server, bucket, key), "rb") as f:
        return f.read()


def finished(ddb, arn):
    return until_finished(lambda: ddb.describe_export(ExportArn=arn)["ExportDescription"],
                          "ExportStatus", "the export")


def table_arn_of(ddb, table):
    return ddb.describe_table(TableName=table)["Table"]["TableArn"]


def table_arn(ddb):
    return table_arn_of(ddb, "Ledger")




def data_lines(server, bucket, summary):
    """Every line of the export's data files, checked against manifest-files.json."""
    files_key = summary["manifestFilesS3Key"]
    manifest = read_object(server, bucket, files_key)
    md5 = read_object(server, bucket, files_key[:-4] + "md5").decode()
    assert md5 == base64.b64encode(hashlib.md5(manifest).digest()).decode()
    lines = []
    for entry in map(json.loads, manifest.decode().splitlines()):
        assert list(entry) == ["itemCount", "md5Checksum", "etag", "dataFileS3Key"]
        data = read_object(server, bucket, entry["dataFileS3Key"])
        assert entry["md5Checksum"] == base64.b64encode(hashlib.md5(data).digest()).decode()
        assert entry["etag"] == hashlib.md5(hashlib.md5(data).digest()).hexdigest() + "-1"
        assert data[:10] == bytes.fromhex("1f8b08000000000000ff")  # gzip, time 0, OS unknown
        text = gzip.decompress(data).decode()
        file_lines = text.splitlines()
        assert entry["itemCount"] == len(file_lines)
        lines += file_lines
    return lines


class RawError(Exception):
    def __init__(self, code, message):
        super().__init__(code, message)
        self.code, self.message = code, message


def call(server, operation, body):
    """A request with members this botocore does not know (ExportType, incremental exports)."""
    status, _, data = raw_call(server.endpoint, operation, body)
    parsed = json.loads(data)
    if status != 200:
        raise RawError(parsed["__type"].split("#")[1], parsed.get("message"))
    return parsed


def export(ddb, **request):
    answer = ddb.export_table_to_point_in_time(TableArn=table_arn(ddb), S3Bucket="exports",
                                               **request)["ExportDescription"]
    assert answer["ExportStatus"] == "IN_PROGRESS"
    return finished(ddb, answer["ExportArn"])


def incremental(server, ddb, prefix, start, end, **spec):
    answer = call(server, "ExportTableToPointInTime", {
        "TableArn": table_arn(ddb), "S3Bucket": "exports", "S3Prefix": prefix,
        "ExportType": "INCREMENTAL_EXPORT",
        "IncrementalExportSpecification": {"ExportFromTime": T0 + start,
                                           "ExportToTime": T0 + end, **spec}})
    assert answer["ExportDescription"]["ExportStatus"] == "IN_PROGRESS"
    finished(ddb, answer["ExportDescription"]["ExportArn"])
    return call(server, "DescribeExport",
                {"ExportArn": answer["ExportDescription"]["ExportArn"]})["ExportDescription"]


def summary_of(server, description, bucket="exports"):
    key = description["ExportManifest"]
    summary_bytes = read_object(server, bucket, key)
    assert read_object(server, bucket, key[:-4] + "md5").decode() == \
        base64.b64encode(hashlib.md5(summary_bytes).digest()).decode()
    return json.loads(summary_bytes)


@pytest.mark.parametrize("seconds, expected", [
    (1000, [A1, A2, A3]),
    (2050, [A1_UPDATED, A3, A4]),
    (None, [A1_UPDATED, A3_REPLACED, A4]),
])
def test_full_export_holds_the_items_of_its_point(history, seconds, expected):
    server, ddb = history
    request = {"S3Prefix": f"full/{seconds}"}
    if seconds is not None:
        request["ExportTime"] = datetime.fromtimestamp(T0 + seconds, timezone.utc)
    description = export(ddb, **request)
    assert description["ExportStatus"] == "COMPLETED"
    assert description["ItemCount"] == len(expected)
    assert description["ExportFormat"] == "DYNAMODB_JSON"
    assert description["S3SseAlgorithm"] == "AES256"
    assert "ExportType" not in description  # echoed only when the request sent it
    export_id = description["ExportArn"].rsplit("/", 1)[1]
    assert description["ExportManifest"] == \
        f"full/{seconds}/AWSDynamoDB/{export_id}/manifest-summary.json"
    assert int(export_id[:14]) == int(description["StartTime"].timestamp() * 1000)
    summary = summary_of(server, description)
    assert list(summary) == [
        "version", "exportArn", "startTime", "endTime", "tableArn", "tableId", "exportTime",
        "s3Bucket", "s3Prefix", "s3SseAlgorithm", "s3SseKmsKeyId", "manifestFilesS3Key",
        "billedSizeBytes", "itemCount", "outputFormat"]
    assert summary["version"] == "2020-06-30"
    assert summary["exportArn"] == description["ExportArn"]
    assert summary["exportTime"] == (at(seconds if seconds is not None else 4000)
                                     .replace("Z", ".000Z"))
    assert summary["s3Prefix"] == f"full/{seconds}" and summary["s3SseKmsKeyId"] is None
    assert summary["itemCount"] == len(expected)
    assert os.path.exists(s3_path(server, "exports", f"full/{seconds}/AWSDynamoDB/{export_id}/_started"))
    lines = [json.loads(line) for line in data_lines(server, "exports", summary)]
    assert sorted((normalized(line["Item"]) for line in lines), key=lambda i: i["pk"]["S"]) == \
        [normalized(item) for item in expected]


def test_incremental_export_holds_the_changes_of_its_period(history):
    server, ddb = history
    description = incremental(server, ddb, "incremental", 1000, 3000)
    assert description["ExportStatus"] == "COMPLETED"
    assert description["ExportType"] == "INCREMENTAL_EXPORT"
    assert "ExportTime" not in description
    spec = description["IncrementalExportSpecification"]
    assert spec["ExportViewType"] == "NEW_AND_OLD_IMAGES"
    assert spec["ExportToTime"] == T0 + 3000
    summary = summary_of(server, description)
    assert summary["version"] == "2023-08-01"
    assert summary["exportFromTime"] == at(1000).replace("Z", ".000Z")
    assert summary["exportToTime"] == at(3000).replace("Z", ".000Z")
    assert list(summary)[-3:] == ["outputFormat", "outputView", "exportType"]
    assert summary["outputView"] == "NEW_AND_OLD_IMAGES"
    lines = [json.loads(line) for line in data_lines(server, "exports", summary)]
    for line in lines:
        assert list(line)[:2] == ["Metadata", "Keys"]
    assert all(l["Metadata"]["WriteTimestampMicros"]["N"].isdigit() for l in lines)
    changes = {l["Keys"]["pk"]["S"]: l for l in lines}
    # a5, put and expired within the period, is not there; a3's replacement after the period
    # is not either (NewImage is its state at the period's end).
    assert sorted(changes) == ["a1", "a2", "a3", "a4"]
    assert normalized(changes["a1"]["OldImage"]) == normalized(A1)
    assert normalized(changes["a1"]["NewImage"]) == normalized(A1_UPDATED)
    assert changes["a2"]["OldImage"] == A2 and "NewImage" not in changes["a2"]
    assert changes["a3"]["OldImage"] == A3 and changes["a3"]["NewImage"] == A3_REPLACED
    assert "OldImage" not in changes["a4"] and changes["a4"]["NewImage"] == A4
    assert changes["a1"]["Metadata"]["WriteTimestampMicros"]["N"] == str((T0 + 1100) * 10**6)
    assert changes["a3"]["Metadata"]["WriteTimestampMicros"]["N"] == str((T0 + 2100) * 10**6)
    files = json.loads(read_object(server, "exports", summary["manifestFilesS3Key"])
                       .decode().splitlines()[0])
    assert files["dataFileS3Key"].startswith("incremental/AWSDynamoDB/data/")


def test_incremental_new_image_view_leaves_old_images_out(history):
    server, ddb = history
    description = incremental(server, ddb, "new-image", 1000, 2000, ExportViewType="NEW_IMAGE")
    lines = [json.loads(l) for l in data_lines(server, "exports", summary_of(server, description))]
    changes = {l["Keys"]["pk"]["S"]: l for l in lines}
    assert sorted(changes) == ["a1", "a2", "a4", "a5"]
    assert changes["a2"] == {"Metadata": {"WriteTimestampMicros": {"N": str((T0 + 1100) * 10**6)}},
                             "Keys": {"pk": {"S": "a2"}}}
    assert all("OldImage" not in l for l in lines)


def test_ion_export_writes_dynamodb_ion_text(history):
    server, ddb = history
    description = export(ddb, S3Prefix="ion", ExportFormat="ION",
                         ExportTime=datetime.fromtimestamp(T0 + 1000, timezone.utc))
    summary = summary_of(server, description)
    assert summary["outputFormat"] == "ION"
    files = read_object(server, "exports", summary["manifestFilesS3Key"]).decode()
    assert ".ion.gz" in files
    lines = sorted(data_lines(server, "exports", summary))
    assert lines[1] == '$ion_1_0 {Item:{pk:"a2",s:"caf\u00e9 \\"quoted\\"\\n"}}'
    assert lines[2] == '$ion_1_0 {Item:{pk:"a3",v:1.}}'
    assert lines[0] == ('$ion_1_0 {Item:{b:{{AP8=}},bs:$dynamodb_BS::[{{AQ==}}],'
                        'doc:{l:["deep",null,false]},n:' + BIG + ',ns:$dynamodb_NS::[1.,' + BIG
                        + '],pk:"a1",ss:$dynamodb_SS::["x","y"]}}')


def test_client_token_repeats_the_export_or_conflicts(history):
    server, ddb = history
    first = ddb.export_table_to_point_in_time(TableArn=table_arn(ddb), S3Bucket="exports",
                                              S3Prefix="token", ClientToken="t-1")
    again = ddb.export_table_to_point_in_time(TableArn=table_arn(ddb), S3Bucket="exports",
                                              S3Prefix="token", ClientToken="t-1")
    assert again["ExportDescription"]["ExportArn"] == first["ExportDescription"]["ExportArn"]
    with pytest.raises(ClientError) as error:
        ddb.export_table_to_point_in_time(TableArn=table_arn(ddb), S3Bucket="exports",
                                          S3Prefix="other", ClientToken="t-1")
    assert error.value.response["Error"]["Code"] == "ExportConflictException"
    assert error.value.response["Error"]["Message"] == \
        "Export conflict: Duplicate request detected with conflicting parameters"
    finished(ddb, first["ExportDescription"]["ExportArn"])


def test_list_exports_pages_newest_first(history):
    server, ddb = history
    all_arns = []
    request = {"TableArn": table_arn(ddb), "MaxResults": 2}
    while True:
        page = call(server, "ListExports", request)  # ExportType: newer than this botocore
        assert len(page["ExportSummaries"]) <= 2
        for summary in page["ExportSummaries"]:
            assert summary["ExportStatus"] in ("COMPLETED", "IN_PROGRESS")
            assert summary["ExportType"] in ("FULL_EXPORT", "INCREMENTAL_EXPORT")
        all_arns += [s["ExportArn"] for s in page["ExportSummaries"]]
        if "NextToken" not in page:
            break
        request["NextToken"] = page["NextToken"]
    ids = [arn.rsplit("/", 1)[1] for arn in all_arns]
    assert len(ids) >= 7 and ids == sorted(ids, reverse=True)
    everything = ddb.list_exports()["ExportSummaries"]
    assert [s["ExportArn"] for s in everything] == all_arns[:10]


def error_of(call, **request):
    with pytest.raises(ClientError) as error:
        call(**request)
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]


def test_errors_are_dynamodb_s(history):
    server, ddb = history
    arn = table_arn(ddb)
    ddb.create_table(TableName="NoPitr", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    no_pitr = ddb.describe_table(TableName="NoPitr")["Table"]["TableArn"]
    export_call = ddb.export_table_to_point_in_time
    assert error_of(export_call, TableArn=no_pitr, S3Bucket="bk") == (
        "PointInTimeRecoveryUnavailableException",
        "Point in time recovery is not enabled for table 'NoPitr'")
    assert error_of(export_call, TableArn="Ledger", S3Bucket="bk") == (
        "ValidationException",
        "One or more parameter values were invalid: tableArn is not a valid ARN")
    assert error_of(export_call, TableArn=arn + "x", S3Bucket="bk") == (
        "TableNotFoundException", f"Table not found: {arn}x")
    assert error_of(export_call, TableArn=arn, S3Bucket="bk",
                    ExportTime=datetime.fromtimestamp(T0 + 5000, timezone.utc)) == (
        "InvalidExportTimeException", "Export Time is invalid")
    assert error_of(export_call, TableArn=arn, S3Bucket="bk",
                    ExportTime=datetime.fromtimestamp(T0 + 3999, timezone.utc)) == (
        "InvalidExportTimeException",
        "Point in Time Recovery is not available for specified export time")
    def raw_error(**body):
        with pytest.raises(RawError) as error:
            call(server, "ExportTableToPointInTime", {"TableArn": arn, "S3Bucket": "bk", **body})
        return error.value.code, error.value.message

    spec = lambda f, t: {"ExportFromTime": T0 + f, "ExportToTime": T0 + t}
    assert raw_error(ExportType="INCREMENTAL_EXPORT",
                     IncrementalExportSpecification=spec(1000, 1500)) == (
        "InvalidExportTimeException",
        "Difference between export period from time and export period to time is less than 15 "
        "minutes")
    assert raw_error(ExportType="INCREMENTAL_EXPORT",
                     IncrementalExportSpecification=spec(3000, 5000)) == (
        "InvalidExportTimeException",
        f"Incremental export period to time cannot be greater than the current time : "
        f"{at(4000)}")
    assert raw_error(ExportType="INCREMENTAL_EXPORT",
                     IncrementalExportSpecification=spec(-100, 1000)) == (
        "InvalidExportTimeException",
        f"Incremental export period from time cannot be less than the table creation time : "
        f"{at(0)}")
    assert raw_error(IncrementalExportSpecification=spec(1000, 3000)) == (
        "ValidationException",
        "Invalid Request: Export Type expected to be Incremental Export when incremental export "
        "specification is provided")
    assert raw_error(ExportType="INCREMENTAL_EXPORT") == (
        "ValidationException",
        "Invalid Request: Incremental Export Specification expected when export type is set as "
        "Incremental Export")
    assert raw_error(ExportType="INCREMENTAL_EXPORT", IncrementalExportSpecification={}) == (
        "ValidationException",
        "Invalid Request: ExportFromTime must be provided in IncrementalExportSpecification")
    assert error_of(export_call, TableArn=arn, S3Bucket="bk", S3SseKmsKeyId="key") == (
        "ValidationException",
        "Invalid Request: KMS Key Id is not supported for this encryption type")
    assert error_of(ddb.describe_export, ExportArn=arn + "/export/01800000000000-0badf00d") == (
        "ExportNotFoundException",
        f"Export not found: Export not found: {arn}/export/01800000000000-0badf00d")
    assert error_of(ddb.describe_export, ExportArn=arn + "/backup/01800000000000-0badf00d") == (
        "ValidationException", "Invalid Export ARN")
    assert error_of(ddb.list_exports, NextToken="nope") == (
        "ValidationException", "Invalid Request: Provided nextToken is invalid: nope")


def test_export_survives_a_restart_and_outlives_its_table(history):
    server, ddb = history
    arn = export(ddb, S3Prefix="kept")["ExportArn"]
    ddb.delete_table(TableName="NoPitr")
    server.stop()
    server.start()
    ddb = server.client()
    assert ddb.describe_export(ExportArn=arn)["ExportDescription"]["ExportStatus"] == "COMPLETED"


def bulk_call(server, operation, body):
    """A bulk operation request (the installed botocore predates them), its answer parsed."""
    status, _, data = raw_call(server.endpoint, operation, body)
    return status, json.loads(data)


def test_ended_exports_imports_and_bulk_operations_are_forgotten_after_90_days():
    server = DdbdProcess("--in-memory").start()
    try:
        ddb = server.client()
        server.control("PUT", "/ddbd/clock", {"Now": at(0)})
        ddb.create_table(TableName="Kept", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        ddb.update_continuous_backups(TableName="Kept", PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        arn = finished(ddb, ddb.export_table_to_point_in_time(
            TableArn=table_arn_of(ddb, "Kept"), S3Bucket="exports")["ExportDescription"][
            "ExportArn"])["ExportArn"]
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("PUT", "/ddbd/s3/source/in/empty.json", body=b"")
        assert connection.getresponse().status == 200
        connection.close()
        imported = ddb.import_table(
            S3BucketSource={"S3Bucket": "source", "S3KeyPrefix": "in/"},
            InputFormat="DYNAMODB_JSON", TableCreationParameters={
                "TableName": "Imported", "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
        import_arn = imported["ImportTableDescription"]["ImportArn"]
        assert until_finished(lambda: ddb.describe_import(ImportArn=import_arn)[
            "ImportTableDescription"], "ImportStatus", "the import")["ImportStatus"] == "COMPLETED"
        status, started = bulk_call(server, "StartBulkPutItems", {
            "TableName": "Kept", "OutputS3Configuration": {"OutputType": ["ERROR"]},
            "InputS3Configuration": {"S3Bucket": "source", "S3KeyPrefix": "in/",
                                     "InputFormat": "DYNAMODB_JSON"}})
        assert status == 200
        bulk_arn = started["BulkOperationDescription"]["BulkOperationArn"]
        assert until_finished(
            lambda: bulk_call(server, "DescribeBulkOperation", {"BulkOperationArn": bulk_arn})[1][
                "BulkOperationDescription"], "BulkOperationStatus", "the bulk operation")[
            "BulkOperationStatus"] == "COMPLETED"
        server.control("PUT", "/ddbd/clock", {"Advance": 89 * 86400})
        time.sleep(1.5)  # a retention pass or more
        assert ddb.describe_export(ExportArn=arn)["ExportDescription"]["ExportStatus"] == \
            "COMPLETED"
        assert len(ddb.list_imports()["ImportSummaryList"]) == 1
        assert len(bulk_call(server, "ListBulkOperations", {})[1][
            "BulkOperationsSummaryList"]) == 1
        server.control("PUT", "/ddbd/clock", {"Advance": 2 * 86400})
        deadline = time.monotonic() + 10
        while ddb.list_exports()["ExportSummaries"] or ddb.list_imports()["ImportSummaryList"] or \
                bulk_call(server, "ListBulkOperations", {})[1]["BulkOperationsSummaryList"]:
            assert time.monotonic() < deadline, "the export, import or bulk operation stayed"
            time.sleep(0.1)
        with pytest.raises(ClientError) as error:
            ddb.describe_export(ExportArn=arn)
        assert error.value.response["Error"]["Code"] == "ExportNotFoundException"
        with pytest.raises(ClientError) as error:
            ddb.describe_import(ImportArn=import_arn)
        assert error.value.response["Error"]["Code"] == "ImportNotFoundException"
        status, answer = bulk_call(server, "DescribeBulkOperation", {"BulkOperationArn": bulk_arn})
        assert (status, answer["__type"].split("#")[1]) == (400, "ResourceNotFoundException")
    finally:
        server.cleanup()
