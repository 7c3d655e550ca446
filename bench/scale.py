#!/usr/bin/env python3
"""How ddbd's costs move as an on-disk store grows: 5M items of 200 bytes.

Loads the table "scale" (item n at pk "g#<n // 20>", sk "<n % 20>": 20 items a partition;
a text payload, a number; 200 bytes in DynamoDB's measure) with BatchWriteItem, 25 items a
request and 8 in flight, and at each checkpoint (10k, 1M, 5M items by default) reports:

  - the load rate since the previous checkpoint, and the server's CPU per item including the
    flushes and compactions the load leaves behind, which are waited for (the server idle)
    before the reads are measured;
  - GetItem of random items and Query of random partitions (20 items): server CPU per request
    (wrk, 8 connections) and the 99th percentile of latency with one connection, block-cache
    misses included (keys are uniformly random over the whole store);
  - a full Scan (1 MB pages, one client): MB/s of table size (DynamoDB's measure) per wall
    second and per second of the server's CPU (the client waits for each page: the wall rate
    includes its round trips), against a raw RocksDB iteration of the same column family (bench/raw_scan.cc,
    opened read-only while the server is stopped): the storage limit;
  - the server's resident memory (now, and its peak since the previous checkpoint) and the
    data directory's size.

The server runs pinned to one core with one I/O thread; this script and wrk on the other.
Usage: bench/scale.py [--ddbd build/server/ddbd] [--checkpoints 10000,1000000,5000000]
                      [--seconds 5] [--block-cache-mb N]
Needs: wrk, taskset, c++ and librocksdb-dev. Prints a Markdown table.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

import proc_stats
from payload import text
from run import Server, free_port, settle, wrk, HERE, ROOT, SERVER_CORE, CLIENT_CORE

PER_PARTITION = 20
HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Date": "20260101T000000Z",
    "Authorization": "AWS4-HMAC-SHA256 Credential=BENCH/20260101/us-east-1/dynamodb/"
                     "aws4_request, SignedHeaders=host, Signature=0",
}
# Payloads drawn from a pool: enough variety that block compression sees text, not repeats.
PAYLOADS = [json.dumps(text(seed, 170)) for seed in range(4096)]


class Connection:
    """One kept-alive connection to the server, sending DynamoDB requests."""

    def __init__(self, port):
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, operation, body):
        headers = dict(HEADERS, **{"X-Amz-Target": "DynamoDB_20120810." + operation})
        self.http.request("POST", "/", body, headers)
        response = self.http.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{operation}: {response.status} {data[:300]!r}")
        return data


def item_json(n):
    return (f'{{"pk":{{"S":"g#{n // PER_PARTITION}"}},"sk":{{"S":"{n % PER_PARTITION:02d}"}},'
            f'"payload":{{"S":{PAYLOADS[n % len(PAYLOADS)]}}},"n":{{"N":"{n}"}}}}')


def load(port, start, end, in_flight=8):
    """Writes items [start, end) with BatchWriteItem, 25 a request, `in_flight` at once."""
    batches = iter(range(start, end, 25))
    lock = threading.Lock()

    def worker():
        connection = Connection(port)
        while True:
            with lock:
                first = next(batches, None)
            if first is None:
                return
            puts = ",".join(f'{{"PutRequest":{{"Item":{item_json(n)}}}}}'
                            for n in range(first, min(end, first + 25)))
            body = f'{{"RequestItems":{{"scale":[{puts}]}}}}'
            while True:
                answer = json.loads(connection.call("BatchWriteItem", body))
                pending = answer.get("UnprocessedItems")
                if not pending:
                    break
                body = json.dumps({"RequestItems": pending})

    threads = [threading.Thread(target=worker) for _ in range(in_flight)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def table_size_bytes(port):
    answer = json.loads(Connection(port).call("DescribeTable", '{"TableName":"scale"}'))
    return answer["Table"]["TableSizeBytes"]


LAST_KEY = re.compile(rb'"LastEvaluatedKey":(\{.*\})\}$', re.S)


def scan_seconds(port):
    """Wall seconds of a full Scan, page by page (the response is not parsed past its key)."""
    connection = Connection(port)
    start_key = None
    started = time.perf_counter()
    while True:
        body = '{"TableName":"scale"' + (f',"ExclusiveStartKey":{start_key}' if start_key else "")
        data = connection.call("Scan", body + "}")
        found = LAST_KEY.search(data[-400:])
        if not found:
            return time.perf_counter() - started
        start_key = found.group(1).decode()


def raw_scan_seconds(binary, db_dir):
    """The faster of two raw iterations (the second finds the files in the page cache)."""
    best = None
    for _ in range(2):
        out = subprocess.run(["taskset", "-c", SERVER_CORE, binary, db_dir], check=True,
                             capture_output=True, text=True).stdout.split()
        best = float(out[2]) if best is None else min(best, float(out[2]))
    return best


def disk_mb(folder):
    return sum(os.path.getsize(os.path.join(path, name))
               for path, _, names in os.walk(folder) for name in names) / 2**20


def checkpoint(server, items, seconds, raw_binary):
    env = {"DDBD_BENCH_ITEMS": str(items)}
    figures = {}
    for op in ("get", "query"):
        throughput = wrk(server, "scale.lua", seconds, env=dict(env, DDBD_BENCH_OP=op))
        latency = wrk(server, "scale.lua", seconds, connections=1,
                      env=dict(env, DDBD_BENCH_OP=op))
        figures[op] = (throughput["cpu_us"], latency["p99_ms"])
    size = table_size_bytes(server.port)
    cpu_before = server.cpu_seconds()
    figures["scan_mb_s"] = size / 2**20 / scan_seconds(server.port)
    figures["scan_cpu_mb_s"] = size / 2**20 / (server.cpu_seconds() - cpu_before)
    figures["rss_mb"] = server.rss_mb()
    figures["peak_rss_mb"] = proc_stats.peak_rss_mb(server.proc.pid)
    # A read-only open beside the running server sees only part of its write-ahead log: the
    # raw iteration runs while the server is stopped, and the server starts again after it.
    server.stop()
    figures["disk_mb"] = disk_mb(server.data_dir)
    figures["raw_mb_s"] = size / 2**20 / raw_scan_seconds(raw_binary, server.data_dir)
    server.start()
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ddbd", default=os.path.join(ROOT, "build", "server", "ddbd"))
    parser.add_argument("--checkpoints", default="10000,1000000,5000000")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--block-cache-mb", type=int)
    args = parser.parse_args()
    os.sched_setaffinity(0, {int(CLIENT_CORE)})
    tmp = tempfile.mkdtemp(prefix="ddbd-scale-bench-")
    raw_binary = os.path.join(tmp, "raw_scan")
    subprocess.run(["c++", "-O2", "-std=c++17", os.path.join(HERE, "raw_scan.cc"), "-lrocksdb",
                    "-o", raw_binary], check=True)
    port = free_port()
    data = os.path.join(tmp, "data")
    command = [args.ddbd, "--address", "127.0.0.1", "--port", str(port), "--db-path", data,
               "--threads", "1"]
    if args.block_cache_mb:
        command += ["--block-cache-mb", str(args.block_cache_mb)]
    server = Server("ddbd", command, port, data)
    rows = []
    try:
        server.start()
        Connection(port).call("CreateTable", json.dumps({
            "TableName": "scale", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "S"}]}))
        loaded = 0
        for target in (int(c) for c in args.checkpoints.split(",")):
            cpu_before, started = server.cpu_seconds(), time.perf_counter()
            load(port, loaded, target)
            elapsed = time.perf_counter() - started
            settled = settle(server)
            cpu = server.cpu_seconds() - cpu_before
            load_figures = ((target - loaded) / elapsed, cpu / (target - loaded) * 1e6, settled)
            loaded = target
            rows.append((target, load_figures, checkpoint(server, target, args.seconds,
                                                          raw_binary)))
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    print("| items | load items/s (µs CPU an item; s to settle) | GetItem µs, p99 ms | "
          "Query (20 items) µs, p99 ms | Scan MB/s (per CPU s) | raw RocksDB MB/s | RSS MB (peak) | "
          "disk MB |")
    print("|---|---|---|---|---|---|---|---|")
    for items, (rate, cpu_us, settled), f in rows:
        print(f"| {items:,} | {rate / 1000:.1f}k ({cpu_us:.1f}; {settled:.0f}) | "
              f"{f['get'][0]:.1f}, {f['get'][1]:.2f} | {f['query'][0]:.1f}, {f['query'][1]:.2f} | "
              f"{f['scan_mb_s']:.0f} ({f['scan_cpu_mb_s']:.0f}) | {f['raw_mb_s']:.0f} | {f['rss_mb']:.0f} "
              f"({f['peak_rss_mb']:.0f}) | {f['disk_mb']:.0f} |")


if __name__ == "__main__":
    main()
