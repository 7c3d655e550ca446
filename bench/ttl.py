#!/usr/bin/env python3
"""What Time to Live costs while nothing expires, on a large table.

Loads a table of `--items` items of ~1 KB (BatchWriteItem with wrk), each with an `expires`
attribute a year ahead; measures the idle server's CPU for `--seconds` with TTL disabled;
enables TTL on `expires`, waits for the expiry keyspace's backfill to finish (reported: its
CPU time), then measures the idle CPU again for `--seconds`. The sweeper's passes read only
the expiry records already due, so the second figure should match the first.

Usage: bench/ttl.py [--ddbd build/server/ddbd] [--items 1000000] [--seconds 60]
Needs: wrk, taskset, a Python with boto3. Prints a Markdown table.
"""
import argparse
import os
import shutil
import subprocess
import tempfile
import time

from run import Server, create_bench_table, free_port, ROOT, HERE, CLIENT_CORE

YEAR_S = 365 * 24 * 3600


def load(server, items, item_bytes):
    """Writes about `items` items with wrk, in 5-second rounds, and returns the count."""
    env = dict(os.environ, DDBD_BENCH_ITEM_BYTES=str(item_bytes),
               DDBD_BENCH_EXPIRES=str(int(time.time()) + YEAR_S))
    client = server.client()
    count = 0
    rounds = 0
    while count < items:
        rounds += 1
        env["DDBD_BENCH_PREFIX"] = f"r{rounds}-"
        subprocess.run(["taskset", "-c", CLIENT_CORE, "wrk", "-t1", "-c8", "-d5s", "-s",
                        os.path.join(HERE, "wrk", "batch_write.lua"),
                        f"http://127.0.0.1:{server.port}/"],
                       capture_output=True, text=True, check=True, env=env)
        count = client.describe_table(TableName="bench")["Table"]["ItemCount"]
    return count


def idle_cpu_share(server, seconds):
    before = server.cpu_seconds()
    time.sleep(seconds)
    return (server.cpu_seconds() - before) / seconds


def wait_until_idle(server, window=5, threshold=0.02, limit=1800):
    """Seconds until a `window`-second span costs under `threshold` of a core."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if idle_cpu_share(server, window) < threshold:
            return time.monotonic() - started
    raise RuntimeError("the server never went idle")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ddbd", default=os.path.join(ROOT, "build", "server", "ddbd"))
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--item-bytes", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=60)
    args = parser.parse_args()

    data_dir = tempfile.mkdtemp(prefix="ddbd-ttl-bench-")
    port = free_port()
    server = Server("ddbd", [args.ddbd, "--address", "127.0.0.1", "--port", str(port),
                             "--db-path", data_dir, "--threads", "1"], port, data_dir)
    try:
        server.start()
        client = server.client()
        create_bench_table(client)
        count = load(server, args.items, args.item_bytes)
        wait_until_idle(server)  # flushes and compactions of the load
        without_ttl = idle_cpu_share(server, args.seconds)
        before = server.cpu_seconds()
        client.update_time_to_live(TableName="bench", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})
        backfill_s = wait_until_idle(server)
        backfill_cpu = server.cpu_seconds() - before
        with_ttl = idle_cpu_share(server, args.seconds)
        print(f"| items | {count:,} |")
        print(f"| idle CPU, TTL disabled (% of a core, {args.seconds} s) | "
              f"{without_ttl * 100:.2f} |")
        print(f"| expiry keyspace backfill: CPU s (wall s until idle) | "
              f"{backfill_cpu:.1f} ({backfill_s:.0f}) |")
        print(f"| idle CPU, TTL enabled, nothing expired (% of a core, {args.seconds} s) | "
              f"{with_ttl * 100:.2f} |")
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
