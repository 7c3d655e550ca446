#!/usr/bin/env python3
"""Side-by-side benchmark of ddbd and dynalite on this machine.

For each server: start-up time to the first answered request, idle RSS, server CPU time per
request for GetItem, PutItem and BatchWriteItem (wrk, server pinned to one core and wrk to
another), BatchWriteItem items/s, and CreateTable+DeleteTable with the JS SDK's waiters, on an
empty server and with 200k items stored in another table; then the time a clean shutdown
and a restart with all that data take.

Usage: bench/run.py [--ddbd build/server/ddbd] [--seconds 10] [--only ddbd|dynalite]
Needs: wrk, taskset, node + npm, a Python with boto3. Prints a Markdown table.
"""
import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import boto3
import botocore.config

import proc_stats

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SERVER_CORE, CLIENT_CORE = "0", "1"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def npm_install(folder):
    if not os.path.isdir(os.path.join(folder, "node_modules")):
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"],
                       cwd=folder, check=True)


class Server:
    def __init__(self, name, command, port, data_dir):
        self.name, self.command, self.port, self.data_dir = name, command, port, data_dir
        self.proc = None

    def start(self):
        """Starts the server pinned to SERVER_CORE; returns seconds to the first answer."""
        started = time.monotonic()
        self.proc = subprocess.Popen(["taskset", "-c", SERVER_CORE] + self.command,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        request = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
                   b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Amz-Date: 20260101T000000Z\r\n"
                   b"Authorization: AWS4-HMAC-SHA256 "
                   b"Credential=B/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, "
                   b"Signature=0\r\n"
                   b"Content-Length: 2\r\n\r\n{}")
        while time.monotonic() - started < 30:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(request)
                    if s.recv(64).startswith(b"HTTP/1.1 200"):
                        return time.monotonic() - started
            except OSError:
                time.sleep(0.0005)
        raise RuntimeError(f"{self.name} did not start")

    def cpu_seconds(self):
        return proc_stats.cpu_seconds(self.proc.pid)

    def rss_mb(self):
        return proc_stats.rss_mb(self.proc.pid)

    def client(self):
        return boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{self.port}",
                            region_name="us-east-1", aws_access_key_id="BENCH",
                            aws_secret_access_key="x",
                            config=botocore.config.Config(retries={"max_attempts": 10}))

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def settle(server, limit=600):
    """Waits until the server is idle (under 2 % of a core for a second: the load's flushes and
    compactions done); returns the seconds waited."""
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        before = server.cpu_seconds()
        time.sleep(1)
        if server.cpu_seconds() - before < 0.02:
            break
    return time.perf_counter() - started


def wrk(server, script, seconds, connections=8, table=None, change=False, env=None):
    """Runs wrk `script` against `server`: requests, requests/s, the server's CPU µs per
    request and the 99th percentile of latency in ms. `env`: more variables for the script."""
    before = server.cpu_seconds()
    env = dict(os.environ, **(env or {}))
    if table:
        env["DDBD_BENCH_TABLE"] = table
    if change:
        env["DDBD_BENCH_CHANGE"] = "1"
    out = subprocess.run(["taskset", "-c", CLIENT_CORE, "wrk", "--latency", "-t1", f"-c{connections}",
                          f"-d{seconds}s", "-s", os.path.join(HERE, "wrk", script),
                          f"http://127.0.0.1:{server.port}/"],
                         capture_output=True, text=True, check=True, env=env).stdout
    cpu = server.cpu_seconds() - before
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise RuntimeError(f"{server.name} {script}: {errors.group(1)} error responses\n{out}")
    p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
    p99_ms = float(p99.group(1)) * {"us": 1e-3, "ms": 1, "s": 1e3}[p99.group(2)]
    return {"requests": requests, "rps": requests / seconds, "cpu_us": cpu / requests * 1e6,
            "p99_ms": p99_ms}


def create_bench_table(client):
    client.create_table(TableName="bench", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    client.get_waiter("table_exists").wait(TableName="bench", WaiterConfig={"Delay": 1})


GSI_SETS = {
    2: [("ByName", "name", None), ("ByEmailAge", "email", "age")],
    5: [("ByName", "name", None), ("ByEmailAge", "email", "age"), ("ByAge", "age", None),
        ("ByNameEmail", "name", "email"), ("ByEmail", "email", None)],
}


def create_indexed_table(client, name, index_count):
    indexes = [{"IndexName": index, "Projection": {"ProjectionType": "ALL"},
                "KeySchema": [{"AttributeName": h, "KeyType": "HASH"}] +
                             ([{"AttributeName": r, "KeyType": "RANGE"}] if r else [])}
               for index, h, r in GSI_SETS[index_count]]
    client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "name", "AttributeType": "S"},
                                              {"AttributeName": "email", "AttributeType": "S"},
                                              {"AttributeName": "age", "AttributeType": "N"}],
                        GlobalSecondaryIndexes=indexes)
    client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1})


def create_group_table(client):
    client.create_table(TableName="bench_gsi", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "grp", "AttributeType": "S"}],
                        GlobalSecondaryIndexes=[{"IndexName": "ByGroup",
                                                 "KeySchema": [{"AttributeName": "grp", "KeyType": "HASH"},
                                                               {"AttributeName": "pk", "KeyType": "RANGE"}],
                                                 "Projection": {"ProjectionType": "ALL"}}])
    client.get_waiter("table_exists").wait(TableName="bench_gsi", WaiterConfig={"Delay": 1})
    for start in range(0, 10000, 25):
        items = [{"PutRequest": {"Item": {"pk": {"S": f"user#{i}"}, "grp": {"S": f"g{i % 500}"},
                                          "name": {"S": "Some Body"}, "age": {"N": str(i % 90)}}}}
                 for i in range(start, start + 25)]
        pending = {"bench_gsi": items}
        while pending:
            pending = client.batch_write_item(RequestItems=pending)["UnprocessedItems"]


def preload(client, table, count, prefix="user#"):
    for start in range(0, count, 25):
        items = [{"PutRequest": {"Item": {"pk": {"S": f"{prefix}{i}"}, "name": {"S": "Some Body"},
                                          "email": {"S": "somebody@example.com"},
                                          "age": {"N": str(i % 90)}}}}
                 for i in range(start, min(start + 25, count))]
        pending = {table: items}
        while pending:
            pending = client.batch_write_item(RequestItems=pending)["UnprocessedItems"]


def create_delete_ms(server, warmup, measured):
    """Client-observed milliseconds per CreateTable+DeleteTable pair (with waiters) over the
    first pairs of a fresh client and over `measured` pairs after `warmup` (see
    js/create_delete.mjs), the server's CPU microseconds per pair, and one ListTables call's
    milliseconds. The CPU figure spans the whole client run, its 200 ListTables included."""
    before = server.cpu_seconds()
    out = subprocess.run(["taskset", "-c", CLIENT_CORE, "node", os.path.join(HERE, "js", "create_delete.mjs"),
                          f"http://127.0.0.1:{server.port}", str(warmup), str(measured)],
                         capture_output=True, text=True, check=True).stdout
    cpu_us = (server.cpu_seconds() - before) / (max(warmup, 1) + measured) * 1e6
    first_ms, steady_ms, list_ms = (float(x) for x in out.split())
    return {"first_ms": first_ms, "ms": steady_ms, "cpu_us": cpu_us, "sdk_call_ms": list_ms}


def bench(server, seconds):
    result = {}
    # CPU time comes from /proc in 10 ms ticks: enough pairs to span many ticks, and for ddbd
    # enough warm-up for node to finish compiling the SDK (js/create_delete.mjs). dynalite's
    # pairs take over a second each (its waiters sleep), so fewer of them: the client's
    # warm-up is lost in that.
    warmup, measured = (1000, 1000) if server.name == "ddbd" else (5, 20)
    starts = []
    for _ in range(5):
        starts.append(server.start())
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)
        os.makedirs(server.data_dir)
    result["startup_ms"] = statistics.median(starts) * 1000
    server.start()
    time.sleep(1)
    result["idle_rss_mb"] = server.rss_mb()
    client = server.client()
    result["create_delete"] = create_delete_ms(server, warmup, measured)
    create_bench_table(client)
    preload(client, "bench", 10000)
    result["get"] = wrk(server, "get_item.lua", seconds)
    result["put"] = wrk(server, "put_item.lua", seconds)
    result["batch"] = wrk(server, "batch_write.lua", seconds)
    result["batch_items_per_s"] = result["batch"]["rps"] * 25
    for count in (2, 5):
        create_indexed_table(client, f"bench_{count}gsi", count)
        result[f"put_{count}gsi"] = wrk(server, "put_item.lua", seconds, table=f"bench_{count}gsi")
    # The runs above mostly replace items with identical ones, whose index entries need no
    # rewrite; here every replacement changes an attribute the indexes project.
    result["put_2gsi_changed"] = wrk(server, "put_item.lua", seconds, table="bench_2gsi", change=True)
    create_group_table(client)
    result["query_gsi"] = wrk(server, "query_gsi.lua", seconds)
    client.create_table(TableName="big", BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    client.get_waiter("table_exists").wait(TableName="big", WaiterConfig={"Delay": 1})
    preload(client, "big", 200000, prefix="big#")
    time.sleep(5)  # let background flushes and compactions of the load finish first
    result["create_delete_200k"] = create_delete_ms(server, warmup, measured // 2)
    result["loaded_rss_mb"] = server.rss_mb()
    stopping = time.monotonic()
    server.stop()
    result["loaded_stop_ms"] = (time.monotonic() - stopping) * 1000
    result["loaded_restart_ms"] = server.start() * 1000
    server.stop()
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ddbd", default=os.path.join(ROOT, "build", "server", "ddbd"))
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--only", choices=["ddbd", "dynalite"])
    args = parser.parse_args()
    npm_install(os.path.join(HERE, "js"))

    results = {}
    with tempfile.TemporaryDirectory(prefix="ddbd-bench-") as tmp:
        servers = []
        if args.only in (None, "ddbd"):
            port = free_port()
            data = os.path.join(tmp, "ddbd")
            os.makedirs(data)
            servers.append(Server("ddbd", [args.ddbd, "--address", "127.0.0.1", "--port", str(port),
                                           "--threads", "1", "--db-path", data], port, data))
        if args.only in (None, "dynalite"):
            npm_install(os.path.join(HERE, "peer"))
            port = free_port()
            data = os.path.join(tmp, "dynalite")
            os.makedirs(data)
            servers.append(Server("dynalite", ["node", os.path.join(HERE, "peer", "node_modules", "dynalite", "cli.js"),
                                               "--port", str(port), "--createTableMs", "0",
                                               "--deleteTableMs", "0", "--updateTableMs", "0"],
                                  port, data))
        for server in servers:
            print(f"benchmarking {server.name} …", file=sys.stderr)
            try:
                results[server.name] = bench(server, args.seconds)
            finally:
                server.stop()

    names = list(results)
    rows = [
        ("first request answered after start (ms, median of 5)", lambda r: f"{r['startup_ms']:.1f}"),
        ("idle RSS (MB)", lambda r: f"{r['idle_rss_mb']:.1f}"),
        ("GetItem: server CPU per request (µs)", lambda r: f"{r['get']['cpu_us']:.1f}"),
        ("GetItem: requests/s (8 connections)", lambda r: f"{r['get']['rps']:.0f}"),
        ("PutItem: server CPU per request (µs)", lambda r: f"{r['put']['cpu_us']:.1f}"),
        ("PutItem: requests/s (8 connections)", lambda r: f"{r['put']['rps']:.0f}"),
        ("PutItem, 2 GSIs: server CPU per request (µs)", lambda r: f"{r['put_2gsi']['cpu_us']:.1f}"),
        ("PutItem, 5 GSIs: server CPU per request (µs)", lambda r: f"{r['put_5gsi']['cpu_us']:.1f}"),
        ("PutItem, 2 GSIs, every replacement changing a projected attribute (µs)",
         lambda r: f"{r['put_2gsi_changed']['cpu_us']:.1f}"),
        ("GSI Query returning 20 items: server CPU per request (µs)", lambda r: f"{r['query_gsi']['cpu_us']:.1f}"),
        ("BatchWriteItem ×25: server CPU per request (µs)", lambda r: f"{r['batch']['cpu_us']:.1f}"),
        ("BatchWriteItem load: items/s", lambda r: f"{r['batch_items_per_s']:.0f}"),
        ("CreateTable+DeleteTable with JS SDK waiters, warmed-up client (ms)",
         lambda r: f"{r['create_delete']['ms']:.2f}"),
        ("… the first pairs of a fresh client (ms)", lambda r: f"{r['create_delete']['first_ms']:.2f}"),
        ("… server CPU per pair (µs)", lambda r: f"{r['create_delete']['cpu_us']:.0f}"),
        ("… JS SDK ListTables round trip, for scale (ms)", lambda r: f"{r['create_delete']['sdk_call_ms']:.2f}"),
        ("… with 200k items in another table, warmed-up client (ms)",
         lambda r: f"{r['create_delete_200k']['ms']:.2f}"),
        ("… with 200k items: server CPU per pair (µs)", lambda r: f"{r['create_delete_200k']['cpu_us']:.0f}"),
        ("RSS after loading ~200k+ items (MB)", lambda r: f"{r['loaded_rss_mb']:.1f}"),
        ("after all that: SIGTERM to exit (ms)", lambda r: f"{r['loaded_stop_ms']:.0f}"),
        ("… then restart to first answer (ms)", lambda r: f"{r['loaded_restart_ms']:.0f}"),
    ]
    print("| measure | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for label, fmt in rows:
        print(f"| {label} | " + " | ".join(fmt(results[n]) for n in names) + " |")
    print(json.dumps(results), file=sys.stderr)


if __name__ == "__main__":
    main()
