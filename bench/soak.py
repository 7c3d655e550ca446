#!/usr/bin/env python3
"""Soak: a mixed load against an on-disk ddbd for N minutes, watching whether its resources
stay flat.

The load: PutItem, UpdateItem, GetItem, Query (table and GSI), Scan pages, TransactWriteItems
with a fresh ClientRequestToken each, BatchWriteItem and DeleteItem, on 1 KB items over a
bounded key space, in a table with a GSI, a NEW_AND_OLD_IMAGES stream and Time to Live (a
share of the items expire within minutes and are swept). Every --interval seconds it samples
the server's resident memory (VmRSS), its open file descriptors (/proc/pid/fd), and the size
of its data directory (WAL files, SST files, all), then prints one row; at the end a Markdown
table and a verdict per resource: flat, or growing (with its slope after the warm-up).

The key space is bounded, so items, index entries and memory should reach a steady state; the
stream keeps 24 hours of records, so the SST files are expected to grow by about the stream's
share of the writes for the first day (reported separately from the WAL).

Usage: bench/soak.py [--ddbd build/server/ddbd] [--minutes 30] [--interval 15] [--threads 4]
                     [--keys 20000] [--seed N] [--warmup MINUTES] [--no-stream] [--no-ttl]
                     [ddbd options...]
Needs: a Python with boto3, Linux /proc. Starts ddbd on a free loopback port with a fresh
temporary data directory and stops it (by its pid) at the end.
"""
import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import boto3
import botocore.config
import botocore.exceptions

import proc_stats

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TABLE = "Soak"
GROUPS = [f"g{i}" for i in range(16)]
PAYLOAD = 1000  # bytes of filler per item: items of about 1 KB


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# The server and what is sampled of it


class Server:
    def __init__(self, binary, data_dir, extra_args):
        self.port = free_port()
        self.db_path = os.path.join(data_dir, "db")
        self.log_path = os.path.join(data_dir, "ddbd.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [binary, "--address", "127.0.0.1", "--port", str(self.port), "--db-path",
             self.db_path] + extra_args, stdout=self.log, stderr=subprocess.STDOUT)
        self.endpoint = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        raise RuntimeError("ddbd did not start: " + open(self.log_path).read())

    def client(self, service="dynamodb"):
        return boto3.session.Session().client(
            service, endpoint_url=self.endpoint, region_name="us-east-1",
            aws_access_key_id="soak", aws_secret_access_key="soak",
            config=botocore.config.Config(retries={"max_attempts": 1}, read_timeout=60,
                                          max_pool_connections=2))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def directory_mb(path):
    """(WAL MB, SST MB, total MB) of a RocksDB directory."""
    wal = sst = total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                size = os.path.getsize(os.path.join(folder, name))
            except OSError:
                continue  # deleted meanwhile (compaction, WAL recycling)
            total += size
            if name.endswith(".log"):
                wal += size
            elif name.endswith(".sst"):
                sst += size
    return wal / 2**20, sst / 2**20, total / 2**20


def open_fds(pid):
    """(all open file descriptors, of them sockets, of them SST files)."""
    sockets = ssts = 0
    names = os.listdir(f"/proc/{pid}/fd")
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue  # closed meanwhile
        sockets += target.startswith("socket:")
        ssts += target.endswith(".sst")
    return len(names), sockets, ssts


# ---------------------------------------------------------------------------------------------
# The load


def create_table(client, stream=True, ttl=True):
    client.create_table(**({"StreamSpecification": {
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}} if stream else {}),
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in
                              [("pk", "S"), ("sk", "S"), ("grp", "S"), ("ts", "N")]],
        GlobalSecondaryIndexes=[{
            "IndexName": "ByGroup",
            "KeySchema": [{"AttributeName": "grp", "KeyType": "HASH"},
                          {"AttributeName": "ts", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])
    if ttl:
        client.update_time_to_live(TableName=TABLE, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})


class Load:
    """The writer/reader threads and their tallies."""

    def __init__(self, keys, seed):
        self.keys = keys
        self.seed = seed
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.requests = 0
        self.errors = {}  # error code (or exception name) → count

    def key(self, rng, n=None):
        n = rng.randrange(self.keys) if n is None else n
        return {"pk": {"S": f"p{n % (self.keys // 8 or 1)}"}, "sk": {"S": f"s{n}"}}

    def item(self, rng, key=None):
        item = {**(key or self.key(rng)), "grp": {"S": rng.choice(GROUPS)},
                "ts": {"N": str(time.time_ns() // 1000)},
                "body": {"S": "".join(rng.choices("abcdefghij", k=PAYLOAD))}}
        if rng.random() < 0.3:  # expires within two minutes: the TTL sweeper deletes it
            item["expires"] = {"N": str(int(time.time()) + rng.randrange(5, 120))}
        return item

    def operations(self, client, rng):
        return [
            (30, lambda: client.put_item(TableName=TABLE, Item=self.item(rng))),
            (15, lambda: client.update_item(
                TableName=TABLE, Key=self.key(rng),
                UpdateExpression="SET grp = :g, ts = :t ADD hits :one",
                ExpressionAttributeValues={":g": {"S": rng.choice(GROUPS)},
                                           ":t": {"N": str(time.time_ns() // 1000)},
                                           ":one": {"N": "1"}})),
            (15, lambda: client.get_item(TableName=TABLE, Key=self.key(rng))),
            (8, lambda: client.query(
                TableName=TABLE, KeyConditionExpression="pk = :p", Limit=20,
                ExpressionAttributeValues={":p": self.key(rng)["pk"]})),
            (5, lambda: client.query(
                TableName=TABLE, IndexName="ByGroup", KeyConditionExpression="grp = :g",
                ScanIndexForward=False, Limit=20,
                ExpressionAttributeValues={":g": {"S": rng.choice(GROUPS)}})),
            (2, lambda: client.scan(TableName=TABLE, Limit=50, Segment=rng.randrange(64),
                                    TotalSegments=64)),
            (10, lambda: self.transact(client, rng)),
            (7, lambda: client.batch_write_item(RequestItems={TABLE: list({
                str(item["sk"]): {"PutRequest": {"Item": item}}
                for item in (self.item(rng) for _ in range(10))}.values())})),
            (8, lambda: client.delete_item(TableName=TABLE, Key=self.key(rng))),
        ]

    def transact(self, client, rng):
        """A Put and an Update of two different items, with a fresh ClientRequestToken."""
        put, update = (self.key(rng, n) for n in rng.sample(range(self.keys), 2))
        client.transact_write_items(
            ClientRequestToken=uuid.uuid4().hex,
            TransactItems=[{"Put": {"TableName": TABLE, "Item": self.item(rng, put)}},
                           {"Update": {"TableName": TABLE, "Key": update,
                                       "UpdateExpression": "ADD hits :one",
                                       "ExpressionAttributeValues": {":one": {"N": "1"}}}}])

    def run(self, server, index):
        rng = random.Random(self.seed * 1000 + index)
        client = server.client()
        operations = self.operations(client, rng)
        weights = [w for w, _ in operations]
        calls = [c for _, c in operations]
        done = 0
        while not self.stop.is_set():
            try:
                rng.choices(calls, weights)[0]()
            except botocore.exceptions.ClientError as error:
                self.count_error(error.response["Error"]["Code"])
            except (botocore.exceptions.BotoCoreError, OSError) as error:
                self.count_error(type(error).__name__)
                if server.proc.poll() is not None:
                    return
            done += 1
            if done == 100:
                with self.lock:
                    self.requests += done
                done = 0
        with self.lock:
            self.requests += done

    def count_error(self, code):
        with self.lock:
            self.errors[code] = self.errors.get(code, 0) + 1


# ---------------------------------------------------------------------------------------------
# Sampling and the verdict


def sample(server, load, started, last):
    pid = server.proc.pid
    wal, sst, total = directory_mb(server.db_path)
    with load.lock:
        requests = load.requests
    now = time.monotonic()
    cpu = proc_stats.cpu_seconds(pid)
    fds, sockets, ssts = open_fds(pid)
    row = {"minute": (now - started) / 60, "rss": proc_stats.rss_mb(pid),
           "fds": fds, "sockets": sockets, "sst_fds": ssts, "wal": wal, "sst": sst, "disk": total,
           "requests": requests, "cpu": cpu,
           "rate": (requests - last["requests"]) / max(now - last["time"], 1e-9),
           "cpu_share": (cpu - last["cpu"]) / max(now - last["time"], 1e-9), "time": now}
    return row


def print_row(row, file=sys.stdout):
    print(f"| {row['minute']:6.1f} | {row['rss']:7.1f} | {row['fds']:4d} | "
          f"{row['sockets']:3d} | {row['sst_fds']:3d} | {row['wal']:8.1f} | "
          f"{row['sst']:8.1f} | {row['disk']:8.1f} | {row['requests']:9d} | "
          f"{row['rate']:6.0f} | {100 * row['cpu_share']:4.0f}% |", file=file, flush=True)


HEADER = ("| minute | RSS MB | fds | sockets | SST fds | WAL MB | SST MB | disk MB | requests | "
          "req/s | CPU |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def slope_per_hour(rows, field):
    """Least-squares slope of `field` against time, per hour."""
    xs = [r["minute"] / 60 for r in rows]
    ys = [r[field] for r in rows]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mean_x) ** 2 for x in xs)
    if var == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / var


def verdict(rows, warmup_minutes):
    """Per resource: flat, or growing, judged on the samples after the warm-up: growing when
    the fitted line rises by more than the tolerance over that window."""
    steady = [r for r in rows if r["minute"] >= warmup_minutes] or rows
    hours = (steady[-1]["minute"] - steady[0]["minute"]) / 60
    lines = []
    # field, label, unit, tolerance over the window: absolute, or a share of the first value
    for field, label, unit, absolute, share in [
            ("rss", "RSS", "MB", 16, 0.10), ("fds", "open fds", "", 4, 0.0),
            ("sockets", "open sockets", "", 2, 0.0), ("sst_fds", "open SST files", "", 4, 0.0),
            ("wal", "WAL", "MB", 64, 0.0), ("sst", "SST files", "MB", 32, 0.10),
            ("disk", "data directory", "MB", 64, 0.10)]:
        slope = slope_per_hour(steady, field)
        rise = slope * hours
        tolerance = max(absolute, share * steady[0][field])
        low = min(r[field] for r in steady)
        high = max(r[field] for r in steady)
        state = "flat" if rise <= tolerance else "GROWING"
        lines.append(f"- {label}: {state} — {low:.1f}–{high:.1f} {unit} after minute "
                     f"{steady[0]['minute']:.0f}, fitted slope {slope:+.1f} {unit}/hour "
                     f"({rise:+.1f} {unit} over the window, tolerance {tolerance:.1f})")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ddbd", default=os.path.join(ROOT, "build", "server", "ddbd"))
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--interval", type=float, default=15, help="seconds between samples")
    parser.add_argument("--threads", type=int, default=4, help="client threads")
    parser.add_argument("--keys", type=int, default=20000, help="distinct item keys")
    parser.add_argument("--warmup", type=float, default=None,
                        help="minutes left out of the verdict (default: 12, past the ten "
                             "minutes ClientRequestTokens are kept, or half a shorter run)")
    parser.add_argument("--no-stream", action="store_true", help="a table without a stream")
    parser.add_argument("--no-ttl", action="store_true", help="Time to Live left disabled")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the data directory")
    args, extra = parser.parse_known_args()
    warmup = args.warmup if args.warmup is not None else min(12, args.minutes / 2)

    data_dir = tempfile.mkdtemp(prefix="ddbd-soak-")
    server = Server(args.ddbd, data_dir, extra)
    print(f"soak: ddbd pid {server.proc.pid} on {server.endpoint}, {args.minutes:g} minutes, "
          f"{args.threads} threads, {args.keys} keys, seed {args.seed}, stream "
          f"{'off' if args.no_stream else 'on'}, TTL {'off' if args.no_ttl else 'on'}",
          flush=True)
    load = Load(args.keys, args.seed)
    rows = []
    try:
        create_table(server.client(), stream=not args.no_stream, ttl=not args.no_ttl)
        started = time.monotonic()
        threads = [threading.Thread(target=load.run, args=(server, i), daemon=True)
                   for i in range(args.threads)]
        for thread in threads:
            thread.start()
        print(HEADER, flush=True)
        last = {"requests": 0, "time": started, "cpu": proc_stats.cpu_seconds(server.proc.pid)}
        end = started + args.minutes * 60
        while time.monotonic() < end:
            time.sleep(min(args.interval, max(end - time.monotonic(), 0.1)))
            if server.proc.poll() is not None:
                raise RuntimeError(f"ddbd exited with status {server.proc.returncode}")
            last = sample(server, load, started, last)
            rows.append(last)
            print_row(last)
        load.stop.set()
        for thread in threads:
            thread.join(timeout=120)
        items = server.client().describe_table(TableName=TABLE)["Table"]["ItemCount"]
        peak = proc_stats.peak_rss_mb(server.proc.pid)
    finally:
        load.stop.set()
        server.stop()
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    print(f"\n{load.requests} requests in {args.minutes:g} minutes "
          f"({load.requests / (args.minutes * 60):.0f}/s), {items} items at the end, "
          f"peak RSS {peak:.1f} MB, errors: {load.errors or 'none'}")
    print("\nVerdict:")
    print("\n".join(verdict(rows, warmup)))
    print("\nTable:\n" + HEADER)
    for row in rows:
        print_row(row)
    if args.keep:
        print(f"\ndata directory kept: {data_dir}")


if __name__ == "__main__":
    main()
