"""ImportTable, DescribeImport and ListImports from the local S3 (a directory, --s3-root):
export → import round trips give back the same items (every attribute type, 38-digit numbers,
binaries, sets, nested documents) in DYNAMODB_JSON and ION; CSV, GZIP and ZSTD objects; the
table created with its GSI; DynamoDB's counts and FAILED/ItemValidationError for bad records;
and every error DynamoDB answers."""
import gzip
import json
import os
import subprocess
import time

import pytest
from botocore.exceptions import ClientError

from conftest import DdbdProcess, normalized, until_finished

BIG = "1234567890123456789012345678901234567.8"
ITEMS = [
    {"pk": {"S": "a1"}, "sk": {"N": "1"}, "n": {"N": BIG}, "b": {"B": b"\x00\xff"},
     "ss": {"SS": ["x", "y"]}, "ns": {"NS": ["1", BIG, "-0.5"]}, "bs": {"BS": [b"\x01", b""]},
     "doc": {"M": {"l": {"L": [{"S": "deep"}, {"NULL": True}, {"BOOL": False},
                               {"M": {"e": {"S": ""}}}]}}},
     "owner": {"S": "ann"}},
    {"pk": {"S": "a1"}, "sk": {"N": "-2.5"}, "s": {"S": "caf\u00e9 \"quoted\"\n\t\u2603"},
     "owner": {"S": "bob"}},
    {"pk": {"S": "b\u00e9"}, "sk": {"N": "100000000000000000000000000000000000000"},
     "t": {"BOOL": True}, "z": {"NULL": True}},
]
KEYS = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
DEFINITIONS = [{"AttributeName": "pk", "AttributeType": "S"},
               {"AttributeName": "sk", "AttributeType": "N"}]


@pytest.fixture(scope="module")
def server():
    process = DdbdProcess()
    process.extra_args += ["--s3-root", os.path.join(process.data_dir, "s3")]
    process.start()
    yield process
    process.cleanup()


@pytest.fixture(scope="module")
def ddb(server):
    return server.client()


def put_object(server, bucket, key, data):
    path = os.path.join(server.data_dir, "s3", bucket, key)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def creation(name, **extra):
    return {"TableName": name, "KeySchema": KEYS, "AttributeDefinitions": DEFINITIONS,
            "BillingMode": "PAY_PER_REQUEST", **extra}


def finished(ddb, arn):
    return until_finished(lambda: ddb.describe_import(ImportArn=arn)["ImportTableDescription"],
                          "ImportStatus", "the import")


def import_table(ddb, prefix, fmt="DYNAMODB_JSON", compression="NONE", bucket="source",
                 table=None, **extra):
    answer = ddb.import_table(
        S3BucketSource={"S3Bucket": bucket, "S3KeyPrefix": prefix}, InputFormat=fmt,
        InputCompressionType=compression,
        TableCreationParameters=table or creation(prefix.strip("/").replace("/", "-")),
        **extra)["ImportTableDescription"]
    assert answer["ImportStatus"] == "IN_PROGRESS"
    assert answer["ProcessedItemCount"] == 0 and answer["ErrorCount"] == 0
    return finished(ddb, answer["ImportArn"])




def scan(ddb, table):
    items = ddb.scan(TableName=table, ConsistentRead=True)["Items"]
    return sorted((normalized(i) for i in items), key=lambda i: (i["pk"]["S"], float(i["sk"]["N"])))


def expected():
    return sorted((normalized(i) for i in ITEMS), key=lambda i: (i["pk"]["S"], float(i["sk"]["N"])))


@pytest.mark.parametrize("fmt", ["DYNAMODB_JSON", "ION"])
def test_export_then_import_gives_back_the_same_items(server, ddb, fmt):
    source = f"Source{fmt.replace('_', '')}"
    ddb.create_table(TableName=source, KeySchema=KEYS, AttributeDefinitions=DEFINITIONS,
                     BillingMode="PAY_PER_REQUEST")
    ddb.update_continuous_backups(TableName=source, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    for item in ITEMS:
        ddb.put_item(TableName=source, Item=item)
    arn = ddb.describe_table(TableName=source)["Table"]["TableArn"]
    export = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="source",
                                               S3Prefix=f"trip-{fmt}", ExportFormat=fmt)
    export_arn = export["ExportDescription"]["ExportArn"]
    until_finished(lambda: ddb.describe_export(ExportArn=export_arn)["ExportDescription"],
                   "ExportStatus", "the export")
    export_id = export_arn.rsplit("/", 1)[1]
    target = f"Target{fmt.replace('_', '')}"
    description = import_table(
        ddb, f"trip-{fmt}/AWSDynamoDB/{export_id}/data/", fmt=fmt, compression="GZIP",
        table=creation(target, GlobalSecondaryIndexes=[{
            "IndexName": "ByOwner", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}]}],
            AttributeDefinitions=DEFINITIONS + [{"AttributeName": "owner",
                                                 "AttributeType": "S"}]))
    assert description["ImportStatus"] == "COMPLETED", description
    assert description["ImportedItemCount"] == 3 and description["ProcessedItemCount"] == 3
    assert description["ErrorCount"] == 0 and "FailureCode" not in description
    assert description["TableArn"].endswith(f":table/{target}")
    assert description["ImportArn"].startswith(description["TableArn"] + "/import/")
    assert description["CloudWatchLogGroupArn"] == \
        "arn:aws:logs:us-east-1:000000000000:log-group:/aws-dynamodb/imports:*"
    table = ddb.describe_table(TableName=target)["Table"]
    assert table["TableStatus"] == "ACTIVE" and table["ItemCount"] == 3
    assert scan(ddb, target) == expected()
    by_owner = ddb.query(TableName=target, IndexName="ByOwner",
                         KeyConditionExpression="#o = :o", ExpressionAttributeNames={"#o": "owner"},
                         ExpressionAttributeValues={":o": {"S": "bob"}})["Items"]
    assert [i["sk"]["N"] for i in by_owner] == ["-2.5"]


def zstd(data):
    return subprocess.run(["zstd", "-q", "-c"], input=data, stdout=subprocess.PIPE,
                          check=True).stdout


@pytest.mark.parametrize("compression, pack", [
    ("NONE", lambda b: b), ("GZIP", gzip.compress), ("ZSTD", zstd)])
def test_csv_import_types_keys_and_makes_the_rest_strings(server, ddb, compression, pack):
    put_object(server, "source", f"csv-{compression}/part1.csv", pack(
        b'pk,sk,city,note\nk1,1,Oslo,"a, ""quoted"" note"\nk1,2.50,,plain\n\nk2,-3,Rome,x\n'))
    description = import_table(ddb, f"csv-{compression}/", fmt="CSV", compression=compression)
    assert description["ImportStatus"] == "COMPLETED", description
    assert description["ImportedItemCount"] == 3
    table = f"csv-{compression}"
    items = {(i["pk"]["S"], i["sk"]["N"]): i for i in ddb.scan(TableName=table)["Items"]}
    assert items[("k1", "1")] == {"pk": {"S": "k1"}, "sk": {"N": "1"}, "city": {"S": "Oslo"},
                                  "note": {"S": 'a, "quoted" note'}}
    assert items[("k1", "2.5")] == {"pk": {"S": "k1"}, "sk": {"N": "2.5"},
                                    "note": {"S": "plain"}}
    assert items[("k2", "-3")]["city"] == {"S": "Rome"}


def test_csv_header_list_and_delimiter(server, ddb):
    put_object(server, "source", "csv-headers/data.csv", "k1;7;x\nk2;8;y\n")
    description = import_table(ddb, "csv-headers/", fmt="CSV", InputFormatOptions={
        "Csv": {"Delimiter": ";", "HeaderList": ["pk", "sk", "v"]}})
    assert description["ImportStatus"] == "COMPLETED"
    assert description["InputFormatOptions"] == {
        "Csv": {"Delimiter": ";", "HeaderList": ["pk", "sk", "v"]}}
    items = ddb.scan(TableName="csv-headers")["Items"]
    assert sorted(i["v"]["S"] for i in items) == ["x", "y"]


def test_a_malformed_line_ends_its_object_and_fails_the_import(server, ddb):
    lines = [json.dumps({"Item": {"pk": {"S": f"p{i}"}, "sk": {"N": str(i)}}}) for i in range(10)]
    lines[5] = "this is not json"
    put_object(server, "source", "broken/a.json", "\n".join(lines) + "\n")
    good = [json.dumps({"Item": {"pk": {"S": f"q{i}"}, "sk": {"N": str(i)}}}) for i in range(10)]
    good[3] = json.dumps({"Item": {"pk": {"S": "no sort key"}}})
    put_object(server, "source", "broken/b.json", "\n".join(good) + "\n")
    description = import_table(ddb, "broken/")
    assert description["ImportStatus"] == "FAILED"
    assert description["FailureCode"] == "ItemValidationError"
    assert description["FailureMessage"] == (
        "Some of the items failed validation checks and were not imported. Please check "
        "CloudWatch error logs for more details.")
    assert (description["ProcessedItemCount"], description["ImportedItemCount"],
            description["ErrorCount"]) == (16, 14, 2)
    assert ddb.describe_table(TableName="broken")["Table"]["TableStatus"] == "ACTIVE"
    assert len(ddb.scan(TableName="broken")["Items"]) == 14
    status, errors = server.control(
        "GET", "/ddbd/imports/" + description["ImportArn"].rsplit("/", 1)[1] + "/errors")
    assert status == 200
    assert errors["LogGroupName"] == "/aws-dynamodb/imports"
    assert errors["LogStreamName"] == description["ImportArn"].rsplit("/", 1)[1] + "/error"
    messages = [json.loads(e["message"]) for e in errors["Events"]]
    assert [(m["itemS3Pointer"]["key"], m["itemS3Pointer"]["itemIndex"]) for m in messages] == \
        [("broken/a.json", 5), ("broken/b.json", 3)]
    assert messages[1]["errorMessages"] == [
        "One or more parameter values were invalid: Missing the key sk in the item"]
    assert messages[1]["importArn"] == description["ImportArn"]


def test_empty_prefix_completes_with_an_empty_table(server, ddb):
    os.makedirs(os.path.join(server.data_dir, "s3", "source"), exist_ok=True)
    description = import_table(ddb, "nothing-here/")
    assert description["ImportStatus"] == "COMPLETED"
    assert description["ProcessedItemCount"] == 0 and description["ProcessedSizeBytes"] == 0
    assert ddb.describe_table(TableName="nothing-here")["Table"]["TableStatus"] == "ACTIVE"


def test_missing_bucket_fails_without_a_table(server, ddb):
    answer = ddb.import_table(S3BucketSource={"S3Bucket": "no-such-bucket"},
                              InputFormat="DYNAMODB_JSON",
                              TableCreationParameters=creation("NeverMade"))
    description = finished(ddb, answer["ImportTableDescription"]["ImportArn"])
    assert description["ImportStatus"] == "FAILED"
    assert description["FailureCode"] == "S3NoSuchBucket"
    assert description["FailureMessage"].startswith("The specified bucket does not exist")
    with pytest.raises(ClientError) as error:
        ddb.describe_table(TableName="NeverMade")
    assert error.value.response["Error"]["Code"] == "ResourceNotFoundException"


def error_of(call, **request):
    with pytest.raises(ClientError) as error:
        call(**request)
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]


def test_errors_are_dynamodb_s(server, ddb):
    put_object(server, "source", "slow/a.json", "")
    source = {"S3Bucket": "source", "S3KeyPrefix": "slow/"}
    assert error_of(ddb.import_table, S3BucketSource=source, InputFormat="DYNAMODB_JSON",
                    TableCreationParameters=creation("broken")) == (
        "ResourceInUseException", "Table already exists: broken")
    assert error_of(ddb.import_table, S3BucketSource=source, InputFormat="DYNAMODB_JSON",
                    InputFormatOptions={"Csv": {"Delimiter": ","}},
                    TableCreationParameters=creation("Other")) == (
        "ValidationException",
        "Invalid Request: Unsupported InputFormatOptions for the given input format: "
        "DYNAMODB_JSON.")
    code, message = error_of(ddb.import_table, S3BucketSource=source, InputFormat="CSV",
                             InputCompressionType="BZIP2", TableCreationParameters=creation("Oth"))
    assert code == "ValidationException"
    assert "Value 'BZIP2' at 'inputCompressionType' failed to satisfy constraint: Member must " \
           "satisfy enum value set: [ZSTD, NONE, GZIP]" in message
    code, message = error_of(ddb.import_table, S3BucketSource=source, InputFormat="CSV",
                             TableCreationParameters={"TableName": "NoMode", "KeySchema": KEYS,
                                                      "AttributeDefinitions": DEFINITIONS})
    assert code == "ValidationException" and "ReadCapacityUnits" in message
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/x/import/01800000000000-0badf00d"
    assert error_of(ddb.describe_import, ImportArn=arn) == (
        "ImportNotFoundException", f"Import not found: {arn}")
    assert error_of(ddb.describe_import, ImportArn=arn.replace("/import/", "/export/")) == (
        "ValidationException", "Invalid Import ARN")


def test_client_token_repeats_the_import_or_conflicts():
    # One background thread, busy with a large import first: the tokened import is still
    # IN_PROGRESS when it is asked for again.
    process = DdbdProcess("--in-memory", "--background-threads", "1").start()
    try:
        ddb = process.client()
        lines = "".join(json.dumps({"Item": {"pk": {"S": f"p{i}"}, "sk": {"N": str(i)},
                                             "pad": {"S": "x" * 200}}}) + "\n"
                        for i in range(60000))
        assert http(process, "PUT", "/ddbd/s3/source/big/items.json", lines.encode())[0] == 200
        assert http(process, "PUT", "/ddbd/s3/source/slow/a.json", b"")[0] == 200
        first_big = ddb.import_table(S3BucketSource={"S3Bucket": "source", "S3KeyPrefix": "big/"},
                                     InputFormat="DYNAMODB_JSON",
                                     TableCreationParameters=creation("Big"))
        request = dict(S3BucketSource={"S3Bucket": "source", "S3KeyPrefix": "slow/"},
                       InputFormat="DYNAMODB_JSON", ClientToken="token-1")
        first = ddb.import_table(TableCreationParameters=creation("Tokened"), **request)
        arn = first["ImportTableDescription"]["ImportArn"]
        again = ddb.import_table(TableCreationParameters=creation("Tokened"), **request)
        assert again["ImportTableDescription"]["ImportArn"] == arn
        assert again["ImportTableDescription"]["ImportStatus"] == "IN_PROGRESS"
        assert error_of(ddb.import_table, TableCreationParameters=creation("Other"),
                        **request) == (
            "ImportConflictException",
            "Import conflict: Duplicate request detected with conflicting parameters")
        finished(ddb, first_big["ImportTableDescription"]["ImportArn"])
        finished(ddb, arn)
        assert error_of(ddb.import_table, TableCreationParameters=creation("Tokened"),
                        **request)[0] == "ResourceInUseException"
    finally:
        process.cleanup()


def test_list_imports_pages_newest_first(server, ddb):
    arns = []
    request = {"PageSize": 2}
    while True:
        page = ddb.list_imports(**request)
        assert len(page["ImportSummaryList"]) <= 2
        for summary in page["ImportSummaryList"]:
            assert set(summary) <= {"ImportArn", "ImportStatus", "TableArn", "S3BucketSource",
                                    "CloudWatchLogGroupArn", "InputFormat", "StartTime",
                                    "EndTime"}
        arns += [s["ImportArn"] for s in page["ImportSummaryList"]]
        if "NextToken" not in page:
            break
        assert len(page["NextToken"]) >= 112 and len(page["NextToken"]) % 16 == 0
        request["NextToken"] = page["NextToken"]
    ids = [a.rsplit("/", 1)[1] for a in arns]
    assert len(ids) >= 8 and ids == sorted(ids, reverse=True)
    only = ddb.list_imports(TableArn=arns[0].rsplit("/import/", 1)[0])["ImportSummaryList"]
    assert [s["ImportArn"] for s in only] == [arns[0]]


def http(server, method, path, body=None):
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request(method, path, body=body)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def test_in_memory_objects_through_the_control_api():
    process = DdbdProcess("--in-memory").start()
    try:
        ddb = process.client()
        lines = "".join(json.dumps({"Item": {"pk": {"S": f"k{i}"}, "sk": {"N": str(i)}}}) + "\n"
                        for i in range(3))
        assert http(process, "PUT", "/ddbd/s3/mem/in/part%201.json.gz",
                    gzip.compress(lines.encode()))[0] == 200
        status, listing = http(process, "GET", "/ddbd/s3/mem?prefix=in/")
        assert status == 200
        assert json.loads(listing)["Objects"][0]["Key"] == "in/part 1.json.gz"
        description = import_table(ddb, "in/", bucket="mem", compression="GZIP",
                                   table=creation("Memory"))
        assert description["ImportStatus"] == "COMPLETED" and description["ImportedItemCount"] == 3
        ddb.update_continuous_backups(TableName="Memory", PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        arn = ddb.export_table_to_point_in_time(
            TableArn=description["TableArn"], S3Bucket="mem")["ExportDescription"]["ExportArn"]
        export = until_finished(lambda: ddb.describe_export(ExportArn=arn)["ExportDescription"],
                                "ExportStatus", "the export")
        status, summary = http(process, "GET", "/ddbd/s3/mem/" + export["ExportManifest"])
        assert status == 200 and json.loads(summary)["itemCount"] == 3
        assert http(process, "GET", "/ddbd/s3/mem/no/such/object")[0] == 404
        assert http(process, "DELETE", "/ddbd/s3/mem/in/part%201.json.gz")[0] == 405
    finally:
        process.cleanup()
