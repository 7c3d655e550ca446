#!/usr/bin/env python3
"""What an export, an import and a bulk put cost, on a table of ~1 KB items.

Loads `--items` items of ~1 KB that look like users' (a string key, a few attributes of each
type and ~850 bytes of text drawn from a 2,000-word vocabulary, so that they compress about
as JSON documents do: 3-4x), written with BatchWriteItem from 4 threads; enables
point-in-time recovery, then times a full DYNAMODB_JSON export to the local S3 (request to
COMPLETED; the server's CPU) and an import of its data files into a new table (request to
COMPLETED). The floor beside them is this machine's gzip (zlib level 6) of the same JSON Lines
and the gunzip of them: the compression every export and import of this layout pays.

Usage: bench/portability.py [--ddbd build/server/ddbd] [--items 100000]
Needs: taskset, a Python with boto3. Prints a Markdown table.
"""
import argparse
import concurrent.futures
import glob
import gzip
import json
import os
import random
import shutil
import tempfile
import time
import urllib.request
import zlib

from run import Server, create_bench_table, free_port, ROOT

RANDOM = random.Random(7)
WORDS = ["".join(RANDOM.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(RANDOM.randint(2, 9)))
         for _ in range(2000)]


def user_item(i):
    text = " ".join(RANDOM.choice(WORDS) for _ in range(140))[:850]
    return {"pk": {"S": f"user#{i:09d}"}, "name": {"S": RANDOM.choice(WORDS).title()},
            "age": {"N": str(RANDOM.randint(18, 90))}, "score": {"N": f"{RANDOM.random():.6f}"},
            "active": {"BOOL": RANDOM.random() < 0.5},
            "tags": {"SS": sorted(set(RANDOM.sample(WORDS, 3)))},
            "address": {"M": {"city": {"S": RANDOM.choice(WORDS)},
                              "zip": {"S": f"{RANDOM.randint(10000, 99999)}"}}},
            "bio": {"S": text}}


def load(server, items):
    """Writes `items` user-like items, 25 per BatchWriteItem, from 4 threads."""
    batches = [[user_item(i) for i in range(start, min(start + 25, items))]
               for start in range(0, items, 25)]

    def write(batch):
        client = server.client()
        requests = {"bench": [{"PutRequest": {"Item": item}} for item in batch]}
        while requests:
            requests = client.batch_write_item(RequestItems=requests)["UnprocessedItems"]

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(write, batches))
    return items


def call(server, operation, body):
    """One request without an SDK (the installed botocore predates the bulk operations)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/", data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/x-amz-json-1.0",
                 "X-Amz-Target": "DynamoDB_20120810." + operation})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def until_done(describe, field):
    while (answer := describe())[field] == "IN_PROGRESS":
        time.sleep(0.01)
    return answer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ddbd", default=os.path.join(ROOT, "build", "server", "ddbd"))
    parser.add_argument("--items", type=int, default=100000)
    args = parser.parse_args()
    data_dir = tempfile.mkdtemp(prefix="ddbd-bench-portability-")
    port = free_port()
    server = Server("ddbd", [args.ddbd, "--address", "127.0.0.1", "--port", str(port),
                             "--db-path", os.path.join(data_dir, "db"),
                             "--s3-root", os.path.join(data_dir, "s3")], port, data_dir)
    server.start()
    try:
        client = server.client()
        create_bench_table(client)
        items = load(server, args.items)
        client.update_continuous_backups(TableName="bench", PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        arn = client.describe_table(TableName="bench")["Table"]["TableArn"]
        cpu, started = server.cpu_seconds(), time.monotonic()
        export_arn = client.export_table_to_point_in_time(TableArn=arn, S3Bucket="bench")[
            "ExportDescription"]["ExportArn"]
        export = until_done(lambda: client.describe_export(ExportArn=export_arn)[
            "ExportDescription"], "ExportStatus")
        export_s, export_cpu = time.monotonic() - started, server.cpu_seconds() - cpu
        export_id = export_arn.rsplit("/", 1)[1]
        files = glob.glob(os.path.join(data_dir, "s3", "bench", "AWSDynamoDB", export_id, "data", "*"))
        compressed = b"".join(open(f, "rb").read() for f in files)
        lines = gzip.decompress(compressed)
        cpu, started = server.cpu_seconds(), time.monotonic()
        import_arn = client.import_table(
            S3BucketSource={"S3Bucket": "bench", "S3KeyPrefix": f"AWSDynamoDB/{export_id}/data/"},
            InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
            TableCreationParameters={
                "TableName": "copy", "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})[
            "ImportTableDescription"]["ImportArn"]
        imported = until_done(lambda: client.describe_import(ImportArn=import_arn)[
            "ImportTableDescription"], "ImportStatus")
        import_s, import_cpu = time.monotonic() - started, server.cpu_seconds() - cpu
        client.create_table(TableName="bulk", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        cpu, started = server.cpu_seconds(), time.monotonic()
        bulk_arn = call(server, "StartBulkPutItems", {
            "TableName": "bulk",
            "InputS3Configuration": {"S3Bucket": "bench",
                                     "S3KeyPrefix": f"AWSDynamoDB/{export_id}/data/",
                                     "InputFormat": "DYNAMODB_JSON", "InputCompressionType": "GZIP"},
            "OutputS3Configuration": {"S3Bucket": "bench", "OutputType": ["ERROR"]}})[
            "BulkOperationDescription"]["BulkOperationArn"]
        bulk = until_done(lambda: call(server, "DescribeBulkOperation", {
            "BulkOperationArn": bulk_arn})["BulkOperationDescription"], "BulkOperationStatus")
        bulk_s, bulk_cpu = time.monotonic() - started, server.cpu_seconds() - cpu
        started = time.monotonic()
        zlib.compress(lines, 6)
        gzip_s = time.monotonic() - started
        started = time.monotonic()
        gzip.decompress(compressed)  # every member
        gunzip_s = time.monotonic() - started
        mb = len(lines) / 1e6
        print(f"{items} items, {mb:.0f} MB of JSON Lines, {len(compressed) / 1e6:.1f} MB gzipped\n")
        print("| step | seconds | items/s | MB/s of JSON Lines | server CPU s |")
        print("|---|---|---|---|---|")
        print(f"| ExportTableToPointInTime (request → COMPLETED, {export['ItemCount']} items) | "
              f"{export_s:.2f} | {items / export_s:,.0f} | {mb / export_s:.0f} | {export_cpu:.2f} |")
        print(f"| ImportTable (request → COMPLETED, {imported['ImportedItemCount']} items) | "
              f"{import_s:.2f} | {items / import_s:,.0f} | {mb / import_s:.0f} | {import_cpu:.2f} |")
        print(f"| StartBulkPutItems ({bulk['BulkOperationStatus']}, "
              f"{bulk['ProcessedItemCount']} items) | {bulk_s:.2f} | {items / bulk_s:,.0f} | "
              f"{mb / bulk_s:.0f} | {bulk_cpu:.2f} |")
        print(f"| floor: zlib level 6 of the same lines | {gzip_s:.2f} | {items / gzip_s:,.0f} | "
              f"{mb / gzip_s:.0f} | |")
        print(f"| floor: gunzip of the data files | {gunzip_s:.2f} | {items / gunzip_s:,.0f} | "
              f"{mb / gunzip_s:.0f} | |")
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
