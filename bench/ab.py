#!/usr/bin/env python3
"""A/B: two ddbd binaries, interleaved, on the request paths a change could slow.

Each round starts each binary fresh (in turn, order alternating between rounds) on an on-disk
database, preloads 10,000 items into a plain table and into one with two GSIs, and measures
the server's CPU time per request (wrk, server pinned to one core, wrk to the other) for
GetItem, PutItem, PutItem into the 2-GSI table changing a projected attribute, GSI Query and
BatchWriteItem. On a machine whose speed drifts (a shared VM), only interleaved rounds
compare: the table gives each measure's median over the rounds for A and B, and the median
of the per-round ratios B/A.

Usage: bench/ab.py A_BINARY B_BINARY [--rounds 5] [--seconds 5]
Needs: wrk, taskset, a Python with boto3. Prints a Markdown table.
"""
import argparse
import os
import shutil
import statistics
import tempfile

from run import (Server, create_bench_table, create_group_table, create_indexed_table, free_port,
                 preload, wrk)

MEASURES = [
    ("GetItem", "get_item.lua", {}),
    ("PutItem", "put_item.lua", {}),
    ("PutItem, 2 GSIs, projected attribute changed", "put_item.lua",
     {"table": "bench_2gsi", "change": True}),
    ("GSI Query returning 20 items", "query_gsi.lua", {}),
    ("BatchWriteItem ×25", "batch_write.lua", {}),
]


def one_run(binary, seconds):
    data_dir = tempfile.mkdtemp(prefix="ddbd-ab-")
    port = free_port()
    server = Server("ddbd", [binary, "--address", "127.0.0.1", "--port", str(port),
                             "--threads", "1", "--db-path", data_dir], port, data_dir)
    try:
        server.start()
        client = server.client()
        create_bench_table(client)
        preload(client, "bench", 10000)
        create_indexed_table(client, "bench_2gsi", 2)
        preload(client, "bench_2gsi", 10000)
        create_group_table(client)
        return {name: wrk(server, script, seconds, **options)["cpu_us"]
                for name, script, options in MEASURES}
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    runs = {"a": [], "b": []}
    for round_number in range(args.rounds):
        order = ["a", "b"] if round_number % 2 == 0 else ["b", "a"]
        for which in order:
            runs[which].append(one_run(getattr(args, which), args.seconds))
    print("| server CPU per request (µs) | A (median) | B (median) | B/A (median of rounds) |")
    print("|---|---|---|---|")
    for name, _, _ in MEASURES:
        a = [run[name] for run in runs["a"]]
        b = [run[name] for run in runs["b"]]
        ratio = statistics.median(y / x for x, y in zip(a, b))
        print(f"| {name} | {statistics.median(a):.1f} | {statistics.median(b):.1f} | "
              f"{ratio:.2f} |")


if __name__ == "__main__":
    main()
