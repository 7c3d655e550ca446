#!/usr/bin/env python3
"""Instructions per request of bench/items.py's workloads, counted by callgrind: an A/B that
the shared machine's drifting speed cannot blur (the same binary gives the same count, run
after run).

Each binary runs under `valgrind --tool=callgrind` with instrumentation off; 300 items of
1 KB (bench/items.py's shape: a string payload, a number, a bool, a string set and a small
map) and 15 partitions of 20 items of 200 B are written and 50 requests of the workload
made to warm up; then instrumentation is switched on for 900 requests and off again. The
figure is the instructions counted, server-wide (background threads included: a write's
flushes and compactions are part of its cost), divided by 900. Workloads:

  get      GetItem of the 300 items, each three times
  put_new  PutItem of never-used keys
  add      UpdateItem ADD #c :one on the 300 items
  put_if   PutItem with attribute_not_exists(pk) of never-used keys
  query    Query of one partition (20 items of 200 B)
  batch    BatchWriteItem of 25 never-used items (the figure is per request of 25)

`--close` opens a new connection for each request (as a client without keep-alive does)
instead of one kept alive. `--pitr` enables point-in-time recovery on the tables first (each
write then also records the item as it was, for RestoreTableToPointInTime).

Usage: bench/instructions.py BINARY [BINARY ...] [--workload get] [--close] [--pitr]
         [--profile DIR]  (keeps each binary's callgrind.out there, for callgrind_annotate)
Needs: valgrind (callgrind_control). Prints one line per binary.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import items
from run import free_port

KEYS = 300
GROUPS = 15
REQUESTS = 900
WARM_UP = 50
OPERATIONS = {"get": "GetItem", "put_new": "PutItem", "add": "UpdateItem",
              "put_if": "PutItem", "query": "Query", "batch": "BatchWriteItem"}


def request_body(workload, n):
    """The body of the workload's `n`th request; keys written by `n` are never reused."""
    if workload == "get":
        return {"TableName": "items", "Key": {"pk": {"S": f"item#{n % KEYS}"}}}
    if workload == "put_new":
        return {"TableName": "items", "Item": items.item(f"new#{n}", 1024)}
    if workload == "add":
        return {"TableName": "items", "Key": {"pk": {"S": f"item#{n % KEYS}"}},
                "UpdateExpression": "ADD #c :one", "ExpressionAttributeNames": {"#c": "count"},
                "ExpressionAttributeValues": {":one": {"N": "1"}}}
    if workload == "put_if":
        return {"TableName": "items", "Item": items.item(f"new#{n}", 1024),
                "ConditionExpression": "attribute_not_exists(pk)"}
    if workload == "query":
        return {"TableName": "groups", "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": {"S": f"group#{n % GROUPS}"}}}
    return {"RequestItems": {"items": [{"PutRequest": {"Item": items.item(f"new#{n}#{i}", 1024)}}
                                       for i in range(25)]}}


def count(binary, workload, close, profile, pitr=False):
    work = tempfile.mkdtemp(prefix="ddbd-instructions-")
    port = free_port()
    out = os.path.join(work, "callgrind.out")
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
         binary, "--address", "127.0.0.1", "--port", str(port), "--threads", "1",
         "--db-path", os.path.join(work, "db")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):  # valgrind starts slowly
            try:
                items.call(port, "ListTables", {})
                break
            except OSError:
                time.sleep(0.2)
        items.create_table(port, "items")
        items.create_table(port, "groups", sort_key=True)
        for table in ("items", "groups") if pitr else ():
            items.call(port, "UpdateContinuousBackups", {
                "TableName": table,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
        items.write_all(port, "items", [items.item(f"item#{i}", 1024) for i in range(KEYS)])
        items.write_all(port, "groups", [dict(items.item(f"group#{g}", 200), sk={"S": f"{n:02d}"})
                                         for g in range(GROUPS) for n in range(20)])
        operation = OPERATIONS[workload]
        for n in range(REQUESTS, REQUESTS + WARM_UP):
            items.call(port, operation, request_body(workload, n))
        headers = dict(items.HEADERS, **{"X-Amz-Target": "DynamoDB_20120810." + operation})
        bodies = [json.dumps(request_body(workload, n)) for n in range(REQUESTS)]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        subprocess.run(["callgrind_control", "-i", "on", str(server.pid)], check=True,
                       capture_output=True)
        for body in bodies:
            if close:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            connection.request("POST", "/", body, headers)
            response = connection.getresponse()
            if response.status != 200:
                raise RuntimeError(response.read())
            response.read()
            if close:
                connection.close()
        subprocess.run(["callgrind_control", "-i", "off", str(server.pid)], check=True,
                       capture_output=True)
    finally:
        server.terminate()
        server.wait(timeout=300)
    with open(out) as f:
        total = int(re.search(r"^totals: (\d+)", f.read(), re.M).group(1))
    if profile:
        os.makedirs(profile, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9]+", "_", os.path.abspath(binary)).strip("_")
        shutil.copy(out, os.path.join(profile, f"callgrind.{workload}.{name}"))
    shutil.rmtree(work, ignore_errors=True)
    return total / REQUESTS


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--workload", choices=sorted(OPERATIONS), default="get")
    parser.add_argument("--close", action="store_true",
                        help="a new connection per request instead of one kept alive")
    parser.add_argument("--profile", help="a directory to keep each callgrind.out in")
    parser.add_argument("--pitr", action="store_true",
                        help="point-in-time recovery enabled on the tables")
    args = parser.parse_args()
    for binary in args.binaries:
        figure = count(binary, args.workload, args.close, args.profile, args.pitr)
        print(f"{binary}: {figure / 1000:.1f} k instructions per {args.workload} request")


if __name__ == "__main__":
    sys.exit(main())
