#!/usr/bin/env python3
"""What the control API's namespace operations cost on realistic data.

1. Loads `--fixture-items` items of ~1 KB (a table with one GSI projecting everything) into
   the namespace `fixture`, then times, `--rounds` times each, saving it as a snapshot,
   restoring that snapshot, and forking it into a fresh namespace — against what a test suite
   without snapshots does: reloading the same items with BatchWriteItem.
2. Loads `--drop-items` items of ~1 KB into the namespace `big` (wrk, BatchWriteItem) and times
   DELETE /ddbd/namespaces/big.

Times are wall-clock milliseconds of the control request as the client sees it (median and
worst of the rounds). Usage:
  bench/namespaces.py [--ddbd build/server/ddbd] [--fixture-items 10000] [--drop-items 200000]
Needs: wrk, taskset, a Python with boto3. Prints a Markdown table.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.request

from payload import text
from run import Server, create_bench_table, free_port, ROOT, HERE, CLIENT_CORE



def use_namespace(client, namespace):
    """Every request of this boto3 client names `namespace`."""
    def add_header(request, **_):
        request.headers["X-Ddbd-Namespace"] = namespace
    client.meta.events.register("before-sign.*.*", add_header)


def control(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data, method=method)
    started = time.perf_counter()
    with urllib.request.urlopen(request) as answer:
        payload = json.load(answer)
    return (time.perf_counter() - started) * 1000, payload


def create_fixture_table(client):
    client.create_table(
        TableName="Orders", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "status", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "ByStatus", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
                                               {"AttributeName": "sk", "KeyType": "RANGE"}]}])


def fixture_batches(items):
    for start in range(0, items, 25):
        yield {"Orders": [{"PutRequest": {"Item": {
            "pk": {"S": f"customer#{i % 500}"}, "sk": {"S": f"order#{i:08d}"},
            "status": {"S": ("open", "paid", "shipped")[i % 3]}, "total": {"N": str(i % 997)},
            "payload": {"S": text(i, 940)}}}} for i in range(start, min(items, start + 25))]}


def load_fixture(client, items):
    started = time.perf_counter()
    for batch in fixture_batches(items):
        client.batch_write_item(RequestItems=batch)
    return (time.perf_counter() - started) * 1000


def load_big(server, port, items):
    client = server.client()
    use_namespace(client, "big")
    create_bench_table(client)
    env = dict(os.environ, DDBD_BENCH_ITEM_BYTES="1000", DDBD_BENCH_NAMESPACE="big")
    rounds = 0
    while True:
        _, described = control(port, "GET", "/ddbd/namespaces/big")
        if described["ItemCount"] >= items:
            return described["ItemCount"]
        rounds += 1
        env["DDBD_BENCH_PREFIX"] = f"r{rounds}-"
        subprocess.run(["taskset", "-c", CLIENT_CORE, "wrk", "-t1", "-c8", "-d5s", "-s",
                        os.path.join(HERE, "wrk", "batch_write.lua"), f"http://127.0.0.1:{port}/"],
                       capture_output=True, text=True, check=True, env=env)


def summary(times):
    return f"{statistics.median(times):.1f} (worst {max(times):.1f})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ddbd", default=os.path.join(ROOT, "build", "server", "ddbd"))
    parser.add_argument("--fixture-items", type=int, default=10_000)
    parser.add_argument("--drop-items", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    data_dir = tempfile.mkdtemp(prefix="ddbd-namespaces-bench-")
    port = free_port()
    server = Server("ddbd", [args.ddbd, "--address", "127.0.0.1", "--port", str(port),
                             "--db-path", data_dir, "--threads", "1"], port, data_dir)
    try:
        server.start()
        client = server.client()
        use_namespace(client, "fixture")
        create_fixture_table(client)
        reload_ms = [load_fixture(client, args.fixture_items)]
        save_ms, restore_ms, fork_ms = [], [], []
        for round_number in range(args.rounds):
            save_ms.append(control(port, "PUT", "/ddbd/namespaces/fixture/snapshots/base")[0])
            restore_ms.append(
                control(port, "POST", "/ddbd/namespaces/fixture/snapshots/base/restore")[0])
            fork_ms.append(control(port, "POST", "/ddbd/namespaces/fixture/snapshots/base/fork",
                                   {"To": f"worker-{round_number}"})[0])
        reloaded = server.client()
        use_namespace(reloaded, "reload")
        create_fixture_table(reloaded)
        reload_ms.append(load_fixture(reloaded, args.fixture_items))

        count = load_big(server, port, args.drop_items)
        drop_ms, dropped = control(port, "DELETE", "/ddbd/namespaces/big")
        print(f"| operation ({args.fixture_items:,} items of ~1 KB, one GSI) | ms |")
        print("|---|---|")
        print(f"| save a snapshot | {summary(save_ms)} |")
        print(f"| restore it | {summary(restore_ms)} |")
        print(f"| fork it into a new namespace | {summary(fork_ms)} |")
        print(f"| reload the items with BatchWriteItem (boto3, 25 a request) | "
              f"{summary(reload_ms)} |")
        print(f"| drop a namespace of {count:,} items ({dropped['TablesDeleted']} table) | "
              f"{drop_ms:.1f} |")
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
