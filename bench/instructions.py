#!/usr/bin/env python3
"""Instructions per GetItem of a 1 KB item, counted by callgrind: an A/B that the shared
machine's drifting speed cannot blur (the same binary gives the same count, run after run).

Each binary runs under `valgrind --tool=callgrind` with instrumentation off; 300 items of
1 KB (bench/items.py's shape: a string payload, a number, a bool, a string set and a small
map) are written and 50 read to warm up; then instrumentation is switched on for 900
GetItems (every item three times) and off again. The figure is the instructions counted,
server-wide, divided by 900. `--close` opens a new connection for each request (as a client
without keep-alive does) instead of one kept alive.

Usage: bench/instructions.py BINARY [BINARY ...] [--close]
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

READS = 3  # times each item is read while counting


def count(binary, close):
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
        keys = [f"item#{i}" for i in range(300)]
        items.write_all(port, "items", [items.item(key, 1024) for key in keys])
        for key in keys[:50]:
            items.call(port, "GetItem", {"TableName": "items", "Key": {"pk": {"S": key}}})
        headers = dict(items.HEADERS, **{"X-Amz-Target": "DynamoDB_20120810.GetItem"})
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        subprocess.run(["callgrind_control", "-i", "on", str(server.pid)], check=True,
                       capture_output=True)
        for _ in range(READS):
            for key in keys:
                if close:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                body = json.dumps({"TableName": "items", "Key": {"pk": {"S": key}}})
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
    shutil.rmtree(work, ignore_errors=True)
    return total / (READS * len(keys))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--close", action="store_true",
                        help="a new connection per request instead of one kept alive")
    args = parser.parse_args()
    for binary in args.binaries:
        print(f"{binary}: {count(binary, args.close) / 1000:.1f} k instructions per GetItem")


if __name__ == "__main__":
    sys.exit(main())
