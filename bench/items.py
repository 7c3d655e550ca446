#!/usr/bin/env python3
"""ddbd against dynalite and the loopback floor, on items that look like users' data.

Each server runs pinned to one core, wrk (8 connections) on the other; the figure is the
server's CPU time per request from /proc, counted from a workload's start until the server
is idle again (its writes' flushes and compactions included, and kept out of the next row).
The floor is bench/floor.c: a server that reads each request and answers without looking at
it — what any server here pays for the network alone; the Beast floor is
bench/beast_floor.cc, the same through Boost.Beast and Asio as ddbd reads and writes requests
— what ddbd's fixed HTTP stack costs before any DynamoDB work. The floors answer each row's
requests with the body DynamoDB would send (the item for GetItem, the 20 items of a Query's
page, 5.7 KB), since sending it is part of what the network costs. Workloads
(bench/wrk/items.lua), at 1 KB and at 4 KB items (a string payload, a number, a bool, a
string set and a small map):

  GetItem of random keys among 20,000 preloaded; PutItem of never-used keys; UpdateItem
  ADD #c :one on random existing keys; PutItem with attribute_not_exists of new keys; Query of
  20 items of 200 B (1,000 partitions), right after the preload and again after the write rows
  (RocksDB then reads the partitions from table files: see rows()); BatchWriteItem of 25 new
  items (items/s and CPU per item). And the time from spawning each server on a fresh data directory to its first
  answer (median of 5).

Usage: bench/items.py [--ddbd build/server/ddbd] [--seconds 10]
                      [--only ddbd|dynalite|floor|beast] [--sizes 1024,4096] [--perf]
Needs: wrk, taskset, cc, c++ with Boost headers, node + npm (dynalite); perf for --perf.
Prints a Markdown table; with --perf also, for ddbd and each floor, where each row's time went
(bench/perf_split.py).
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import tempfile

import perf_split
from run import Server, free_port, npm_install, settle, wrk, HERE, ROOT

KEYS = 20_000
GROUPS = 1_000
GROUP_ITEMS = 20
HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Date": "20260101T000000Z",
    "Authorization": "AWS4-HMAC-SHA256 Credential=BENCH/20260101/us-east-1/dynamodb/"
                     "aws4_request, SignedHeaders=host, Signature=0",
}
WORKLOADS = [("get", "GetItem, random keys of 20k"),
             ("put_new", "PutItem, never-used keys"),
             ("add", "UpdateItem `ADD #c :one`, random existing keys"),
             ("put_if", "PutItem with `attribute_not_exists`, new keys"),
             ("batch", "BatchWriteItem load (25 a request, 8 in flight)")]


def call(port, operation, body):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = dict(HEADERS, **{"X-Amz-Target": "DynamoDB_20120810." + operation})
    connection.request("POST", "/", json.dumps(body), headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError(f"{operation}: {response.status} {data[:300]!r}")
    return json.loads(data)


def item(key, item_bytes):
    payload = ("abcdefghijklmnopqrstuvwxyz012345" * (item_bytes // 32 + 1))[:max(16, item_bytes - 110)]
    return {"pk": {"S": key}, "payload": {"S": payload}, "count": {"N": "42"},
            "active": {"BOOL": True}, "tags": {"SS": ["red", "green", "blue"]},
            "meta": {"M": {"source": {"S": "bench"}, "version": {"N": "3"}}}}


def write_all(port, table, items):
    """BatchWriteItem of `items`, 25 a request, 8 requests in flight, retrying what comes back."""
    def batch(chunk):
        pending = {table: [{"PutRequest": {"Item": i}} for i in chunk]}
        while pending:
            pending = call(port, "BatchWriteItem", {"RequestItems": pending})["UnprocessedItems"]
    chunks = [items[i:i + 25] for i in range(0, len(items), 25)]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(batch, chunks))


def create_table(port, name, sort_key=False):
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    definitions = [{"AttributeName": "pk", "AttributeType": "S"}]
    if sort_key:
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
        definitions.append({"AttributeName": "sk", "AttributeType": "S"})
    call(port, "CreateTable", {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                               "KeySchema": schema, "AttributeDefinitions": definitions})


def prepare(port, item_bytes):
    """Tables "items" (20k items of `item_bytes`) and "groups" (1,000 × 20 items of 200 B)."""
    for table in ("items", "groups"):
        try:
            call(port, "DeleteTable", {"TableName": table})
        except RuntimeError:
            pass
    create_table(port, "items")
    create_table(port, "groups", sort_key=True)
    write_all(port, "items", [item(f"item#{i}", item_bytes) for i in range(KEYS)])
    write_all(port, "groups", [dict(item(f"group#{g}", 200), sk={"S": f"{n:02d}"})
                               for g in range(GROUPS) for n in range(GROUP_ITEMS)])


def measure_op(server, row, op, item_bytes, seconds, run, perf_dir=None):
    """Row `row`'s figure: the workload's server CPU per request, counted from its start until
    the server is idle again (the flushes and compactions its writes leave are its own, not the
    next row's). With `perf_dir`, the server is recorded by `perf record -g` meanwhile (into
    that folder) and the figure carries how its time split (bench/perf_split.py)."""
    recorder = None
    if perf_dir:
        profile = os.path.join(perf_dir,
                               f"{server.name.replace(' ', '-')}-{row}-{item_bytes}.data")
        recorder = subprocess.Popen(["perf", "record", "-F", "999", "-g", "-o", profile, "-p",
                                     str(server.proc.pid)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    before = server.cpu_seconds()
    figure = wrk(server, "items.lua", seconds, env={
        "DDBD_BENCH_OP": op, "DDBD_BENCH_ITEM_BYTES": str(item_bytes),
        "DDBD_BENCH_KEYS": str(KEYS), "DDBD_BENCH_GROUPS": str(GROUPS),
        "DDBD_BENCH_PREFIX": f"{run}-"})
    settle(server)
    per_request = 25 if op == "batch" else 1
    result = {"cpu_us": (server.cpu_seconds() - before) / figure["requests"] * 1e6,
              "items_per_s": figure["rps"] * per_request}
    if recorder:
        recorder.send_signal(signal.SIGINT)
        recorder.wait()
        result["split"] = perf_split.split(profile)
    return result


def build_floor(tmp):
    binary = os.path.join(tmp, "floor")
    subprocess.run(["cc", "-O2", "-o", binary, os.path.join(HERE, "floor.c")], check=True)
    return binary


def build_beast_floor(tmp):
    binary = os.path.join(tmp, "beast_floor")
    subprocess.run(["c++", "-O2", "-std=c++20", "-o", binary,
                    os.path.join(HERE, "beast_floor.cc"), "-pthread"], check=True)
    return binary


SPAWNS = 5


def spawn_ms(server):
    """Median of SPAWNS starts on a fresh data directory: spawn to the first answer, in ms."""
    starts = []
    for _ in range(SPAWNS):
        shutil.rmtree(server.data_dir, ignore_errors=True)
        os.makedirs(server.data_dir)
        starts.append(server.start())
        server.stop()
    return statistics.median(starts) * 1000


def rows(sizes):
    """The rows measured, in order, as (row, workload, item size). Query reads 200-byte items
    whatever the sizes, twice: right after the first preload and GetItem row (its partitions
    among ~25 MB of items, mostly in the memtable), and after every write row (in table files
    under about 1 GB of other items), the state a store that has been written to is in."""
    first = [(op, op, sizes[0]) for op, _ in WORKLOADS]
    return (first[:1] + [("query_preloaded", "query", 200)] + first[1:] +
            [(op, op, size) for size in sizes[1:] for op, _ in WORKLOADS] +
            [("query", "query", 200)])


def answer(op, item_bytes):
    """The body DynamoDB answers a workload's request with, for the floors to send: the item
    for GetItem, one partition's 20 items for Query, what the writes answer otherwise."""
    compact = {"separators": (",", ":")}
    if op == "get":
        return json.dumps({"Item": item("item#0", item_bytes)}, **compact)
    if op == "query":
        page = [dict(item("group#0", 200), sk={"S": f"{n:02d}"}) for n in range(GROUP_ITEMS)]
        return json.dumps({"Count": GROUP_ITEMS, "Items": page, "ScannedCount": GROUP_ITEMS},
                          **compact)
    if op == "batch":
        return json.dumps({"UnprocessedItems": {}}, **compact)
    return "{}"


def measure(server, sizes, seconds, perf_dir=None):
    """The workloads' figures on a DynamoDB server, and its spawn time."""
    results = {"spawn": {"ms": spawn_ms(server)}}
    server.start()
    try:
        prepared = None
        for run, (row, op, item_bytes) in enumerate(rows(sizes)):
            if op != "query" and item_bytes != prepared:
                prepare(server.port, item_bytes)
                settle(server)  # the preload's flushes and compactions belong to no row
                prepared = item_bytes
            results[(row, item_bytes)] = measure_op(server, row, op, item_bytes, seconds, run,
                                                    perf_dir)
    finally:
        server.stop()
    return results


def measure_floor(name, binary, tmp, sizes, seconds, perf_dir=None):
    """The workloads' figures on a floor started afresh for each row, answering that row's
    requests with what DynamoDB would answer (its size is part of what the network costs)."""
    results = {}
    for run, (row, op, item_bytes) in enumerate(rows(sizes)):
        body = os.path.join(tmp, f"answer-{op}-{item_bytes}.json")
        with open(body, "w") as out:
            out.write(answer(op, item_bytes))
        port = free_port()
        floor = Server(name, [binary, str(port), body], port, tmp)
        floor.start()
        try:
            results[(row, item_bytes)] = measure_op(floor, row, op, item_bytes, seconds, run,
                                                    perf_dir)
        finally:
            floor.stop()
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ddbd", default=os.path.join(ROOT, "build", "server", "ddbd"))
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--only", choices=["ddbd", "dynalite", "floor", "beast"])
    parser.add_argument("--sizes", default="1024,4096")
    parser.add_argument("--perf", action="store_true",
                        help="record ddbd and the floors with perf during each row and print "
                             "where their time went (the figures a little higher for it)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    tmp = tempfile.mkdtemp(prefix="ddbd-items-bench-")
    perf_dir = tmp if args.perf else None
    results = {}
    try:
        if args.only in (None, "floor"):
            results["floor"] = measure_floor("floor", build_floor(tmp), tmp, sizes, args.seconds,
                                             perf_dir)
        if args.only in (None, "beast"):
            results["beast floor"] = measure_floor("beast floor", build_beast_floor(tmp), tmp,
                                                   sizes, args.seconds, perf_dir)
        if args.only in (None, "ddbd"):
            port = free_port()
            data = os.path.join(tmp, "ddbd")
            results["ddbd"] = measure(
                Server("ddbd", [args.ddbd, "--address", "127.0.0.1", "--port", str(port),
                                "--db-path", data, "--threads", "1"], port, data),
                sizes, args.seconds, perf_dir)
        if args.only in (None, "dynalite"):
            npm_install(os.path.join(HERE, "peer"))
            port = free_port()
            data = os.path.join(tmp, "dynalite")
            os.makedirs(data)
            results["dynalite"] = measure(
                Server("dynalite", ["node", os.path.join(HERE, "peer", "node_modules", "dynalite",
                                                         "cli.js"),
                                    "--port", str(port), "--createTableMs", "0",
                                    "--deleteTableMs", "0", "--updateTableMs", "0"], port, data),
                sizes, args.seconds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print_figures(results, sizes)
    if args.perf:
        print_splits(results, sizes)


ROW_LABELS = dict(WORKLOADS + [
    ("query_preloaded", "Query of 20 items of 200 B, right after the preload"),
    ("query", "Query of 20 items of 200 B, after the write rows")])


def size_label(op, size):
    return "200 B" if op == "query" else f"{size // 1024} KB"


def print_figures(results, sizes):
    """The table of every server's figures, with ratios when ddbd, dynalite and the floor ran."""
    names = [n for n in ("ddbd", "dynalite", "floor", "beast floor") if n in results]
    all_three = all(n in results for n in ("ddbd", "dynalite", "floor"))
    print("| workload | item | " + " | ".join(f"{n} µs/request" for n in names) +
          (" | ddbd ÷ floor | dynalite ÷ ddbd |" if all_three else " |"))
    print("|---|---|" + "---|" * len(names) + ("---|---|" if all_three else ""))
    for row, op, size in rows(sizes):
        key = (row, size)
        cells = []
        for name in names:
            figure = results[name][key]
            cell = f"{figure['cpu_us']:.1f}"
            if op == "batch":
                cell = f"{figure['cpu_us'] / 25:.1f} per item ({figure['items_per_s'] / 1000:.1f}k items/s)"
            cells.append(cell)
        ratios = ""
        if all_three:
            d, p, f = (results[n][key]["cpu_us"] for n in ("ddbd", "dynalite", "floor"))
            ratios = f" {d / f:.1f}× | {p / d:.1f}× |"
        print(f"| {ROW_LABELS[row]} | {size_label(op, size)} | " + " | ".join(cells) + " |" +
              ratios)
    print("| spawn → first answer, fresh data directory (ms, median of 5) | | " +
          " | ".join(f"{results[n]['spawn']['ms']:.1f}" if "spawn" in results[n] else ""
                     for n in names) + " |" + (" | |" if all_three else ""))


def print_splits(results, sizes):
    """For each profiled server, each row's µs per request split as bench/perf_split.py does
    (per item for the batch rows)."""
    for name, figures in results.items():
        if not any("split" in figures.get((row, size), {}) for row, _, size in rows(sizes)):
            continue
        print(f"\n{name}: where a request's µs went\n")
        print("| workload | item | µs | " + " | ".join(perf_split.PARTS) + " |")
        print("|---|---|---|" + "---|" * len(perf_split.PARTS))
        for row, op, size in rows(sizes):
            figure = figures[(row, size)]
            total = figure["cpu_us"] / (25 if op == "batch" else 1)
            print(f"| {ROW_LABELS[row]} | {size_label(op, size)} | {total:.1f} | " +
                  " | ".join(f"{figure['split'][part] * total:.1f}"
                             for part in perf_split.PARTS) + " |")

if __name__ == "__main__":
    main()
