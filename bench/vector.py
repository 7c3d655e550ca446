#!/usr/bin/env python3
"""Vector search benchmark: ddbd's HNSW search against its exact search, on the same data.

Fixed-seed clustered data (default 100,000 × 128 dimensions) is loaded with BatchWriteItem
into a table with one vector index (no search schema: one partition, so the whole index is
searched through one graph). Two data sets (--data):
- gauss64: 64 clusters, centres N(0, 1) per coordinate, members centre + N(0, 0.5);
- box100: 100 clusters, centres N(0, 1), members centre + U(-0.35, 0.35).
Then, for the approximate server and for the same database restarted with
--exact-vector-search:

- start-up after a clean shutdown: time to the first answer, to the first search (every
  vector loaded) and to the saved graphs attached; and the time to build the graphs when
  none were saved (after a crash);
- readiness: from the last write of the load until the server's background graph work is
  done (searches at graph speed, no entry scored exactly for want of a graph);
- recall@10 of the HNSW answers against the exact answers over 1,000 held-out queries —
  mean, 1st percentile and minimum per query — both on the server that took the writes
  (graph grown by them) and after a clean restart (the graphs it saved, reattached);
- SearchVectors at TopK 10: requests/s and server CPU time per request (server on one core
  with one I/O thread, wrk on the other core);
- PutItem replacing vectors of the loaded index: server CPU per write, including the
  background graph work it causes (measured until the server is idle), and recall@10
  afterwards against exact search on the updated data;
- memory per vector: RSS after the graph is built minus the RSS of an empty server.

Usage: bench/vector.py [--ddbd build/server/ddbd] [--count 100000] [--dims 128]
                       [--data gauss64|box100] [--seconds 10]
Needs: wrk, taskset. Prints a Markdown table.
"""
import argparse
import http.client
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import proc_stats

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SERVER_CORE, CLIENT_CORE = "0", "1"
TABLE, INDEX = "bench_vectors", "Embeddings"
HEADERS = {"Content-Type": "application/x-amz-json-1.0",
           "Authorization": "AWS4-HMAC-SHA256 Credential=BENCH/20260101/us-east-1/dynamodb/"
                            "aws4_request, SignedHeaders=host, Signature=0"}


STARTED = []  # every server started, stopped on the way out whatever happens


class Server:
    """ddbd pinned to SERVER_CORE with one I/O thread; stderr collected for the build log."""

    def __init__(self, binary, data_dir, *extra):
        self.args = ["taskset", "-c", SERVER_CORE, binary, "--address", "127.0.0.1",
                     "--port", "0", "--threads", "1", "--db-path", data_dir, *extra]
        self.log, self.port = [], None

    def start(self):
        self.started = started = time.monotonic()
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        STARTED.append(self)
        while self.port is None:
            line = self.proc.stderr.readline()
            if not line:
                raise RuntimeError("ddbd did not start: " + "".join(self.log))
            self.log.append(line)
            match = re.search(r"listening on [0-9.]+:(\d+)", line)
            if match:
                self.port = int(match.group(1))
        self.call("ListTables", {})
        self.startup_s = time.monotonic() - started
        threading.Thread(target=self._drain, daemon=True).start()
        return self

    def _drain(self):
        for line in self.proc.stderr:
            self.log.append(line)

    def wait_for_log(self, pattern, timeout=1800):
        """The first match of `pattern` in the server's log, waiting for it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.log:
                match = re.search(pattern, line)
                if match:
                    return match
            time.sleep(0.05)
        raise RuntimeError(f"no log line matching {pattern}")

    def wait_for_graph(self):
        """Seconds the graphs took to build."""
        return int(self.wait_for_log(r"HNSW graphs built \((\d+) entries\) in (\d+) ms").group(2)) / 1000

    def wait_for_loaded(self):
        """(saved graphs attached, seconds from start to loaded) of the start-up load."""
        match = self.wait_for_log(r"vector indexes loaded \(\d+ entries, (\d+) saved graphs\)")
        return int(match.group(1)), time.monotonic() - self.started

    def call(self, operation, body):
        headers = {**HEADERS, "X-Amz-Target": "DynamoDB_20120810." + operation}
        for attempt in range(2):  # the server closes a connection idle for long
            if not hasattr(self, "connection") or attempt:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
            try:
                self.connection.request("POST", "/", json.dumps(body), headers)
                response = self.connection.getresponse()
                break
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                if attempt:
                    raise
        data = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"{operation}: {data}")
        return data

    def wait_idle(self, settle=1.0, timeout=600):
        """Waits until the server stops using CPU (background graph work done)."""
        deadline = time.monotonic() + timeout
        idle = 0
        while time.monotonic() < deadline:
            before = self.cpu_seconds()
            time.sleep(settle)
            idle = idle + 1 if self.cpu_seconds() - before < 0.05 * settle else 0
            if idle == 2:
                return
        raise RuntimeError("the server did not go idle")

    def idle_since(self, start, window=0.1, confirm=1.0, timeout=600):
        """Seconds from `start` (a monotonic time) to the start of the first `window` in
        which the server used under a tenth of a core, confirmed by `confirm` seconds idle."""
        deadline = time.monotonic() + timeout
        idle_from = None
        while time.monotonic() < deadline:
            began, before = time.monotonic(), self.cpu_seconds()
            time.sleep(window)
            if self.cpu_seconds() - before < 0.1 * (time.monotonic() - began):
                idle_from = began if idle_from is None else idle_from
                if time.monotonic() - idle_from >= confirm:
                    return idle_from - start
            else:
                idle_from = None
        raise RuntimeError("the server did not go idle")

    def cpu_seconds(self):
        return proc_stats.cpu_seconds(self.proc.pid)

    def rss_mb(self):
        return proc_stats.rss_mb(self.proc.pid)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)


DATA_SETS = {  # name: (clusters, a member's offset from its centre, per coordinate)
    "gauss64": (64, lambda rng: rng.gauss(0, 0.5)),
    "box100": (100, lambda rng: rng.uniform(-0.35, 0.35)),
}


def clustered(count, dims, seed, data):
    """`count` vectors of the named data set, and the generator for more."""
    clusters, offset = DATA_SETS[data]
    rng = random.Random(seed)
    centres = [[rng.gauss(0, 1) for _ in range(dims)] for _ in range(clusters)]

    def one():
        centre = centres[rng.randrange(clusters)]
        return [c + offset(rng) for c in centre]
    return [one() for _ in range(count)], one


def number_list(vector):
    return [{"N": f"{x:.6g}"} for x in vector]


def load(server, vectors, dims):
    server.call("CreateTable", {
        "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "VectorIndexes": [{"IndexName": INDEX, "VectorAttribute": {"AttributeName": "v"},
                           "Dimensions": dims, "DistanceFunction": "EUCLIDEAN",
                           "Projection": {"ProjectionType": "KEYS_ONLY"}}]})
    started = time.monotonic()
    for start in range(0, len(vectors), 25):
        server.call("BatchWriteItem", {"RequestItems": {TABLE: [
            {"PutRequest": {"Item": {"id": {"S": f"v{n}"}, "v": {"L": number_list(vectors[n])}}}}
            for n in range(start, min(start + 25, len(vectors)))]}})
    ended = time.monotonic()
    return ended - started, ended


def answers(server, queries):
    return [[r["Item"]["id"]["S"] for r in server.call("SearchVectors", {
        "TableName": TABLE, "IndexName": INDEX, "TopK": 10,
        "SearchVector": number_list(query)})["SearchResults"]] for query in queries]


def throughput(server, query_file, seconds, script="search_vectors.lua", dims=128):
    """(requests/s, server CPU µs per request) of a wrk run of `script`."""
    before = server.cpu_seconds()
    out = subprocess.run(["taskset", "-c", CLIENT_CORE, "wrk", "-t1", "-c4", f"-d{seconds}s",
                          "-s", os.path.join(HERE, "wrk", script),
                          f"http://127.0.0.1:{server.port}/"],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "DDBD_BENCH_QUERIES": query_file,
                              "DDBD_BENCH_DIMS": str(dims)}).stdout
    cpu = server.cpu_seconds() - before
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    if re.search(r"Non-2xx or 3xx responses: (\d+)", out):
        raise RuntimeError("error responses:\n" + out)
    return requests / seconds, cpu / requests * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ddbd", default=os.path.join(ROOT, "build", "server", "ddbd"))
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=128)
    parser.add_argument("--data", choices=sorted(DATA_SETS), default="gauss64")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--exact-threshold", type=int, default=None,
                        help="ddbd's --vector-exact-threshold (graphs from this many entries)")
    args = parser.parse_args()

    vectors, more = clustered(args.count, args.dims, seed=20261129, data=args.data)
    queries = [more() for _ in range(1000)]
    work = tempfile.mkdtemp(prefix="ddbd-vector-bench-")
    query_file = os.path.join(work, "queries.jsonl")
    with open(query_file, "w") as f:
        for query in queries:
            f.write(json.dumps(number_list(query)) + "\n")
    data_dir = os.path.join(work, "db")
    rows = {}
    try:
        empty = Server(args.ddbd, os.path.join(work, "empty")).start()
        empty_rss = empty.rss_mb()
        empty.stop()

        tuning = ([] if args.exact_threshold is None
                  else ["--vector-exact-threshold", str(args.exact_threshold)])
        server = Server(args.ddbd, data_dir, *tuning).start()
        rows["load"], load_ended = load(server, vectors, args.dims)
        rows["ready"] = server.idle_since(load_ended)
        rows["memory"] = (server.rss_mb() - empty_rss) * 1024 * 1024 / args.count
        loaded_answers = answers(server, queries)  # graph grown by the writes themselves
        server.stop()

        # A clean restart: the graphs saved at shutdown are attached.
        approximate = Server(args.ddbd, data_dir, *tuning).start()
        rows["startup"] = approximate.startup_s
        answers(approximate, queries[:1])
        rows["first_search"] = time.monotonic() - approximate.started
        attached, rows["graphs_attached"] = approximate.wait_for_loaded()
        if attached == 0:
            raise RuntimeError("the saved graphs were not used")
        hnsw_answers = answers(approximate, queries)
        rows["hnsw"] = throughput(approximate, query_file, args.seconds)
        approximate.stop()

        exact = Server(args.ddbd, data_dir, "--exact-vector-search").start()
        exact_answers = answers(exact, queries)
        rows["exact"] = throughput(exact, query_file, args.seconds)
        exact.stop()  # saves no graph: the next start has to build them

        rebuilding = Server(args.ddbd, data_dir, *tuning).start()
        rows["rebuild"] = rebuilding.wait_for_graph()
        # Updates: PutItem replacing vectors of the index (10,000 keys, random vectors). CPU
        # per write includes the background graph work they cause, until the server is idle.
        before = rebuilding.cpu_seconds()
        rate, _ = throughput(rebuilding, query_file, args.seconds, "put_vector.lua", args.dims)
        rebuilding.wait_idle()
        rows["put"] = (rebuilding.cpu_seconds() - before) / (rate * args.seconds) * 1e6
        updated_answers = answers(rebuilding, queries)
        rebuilding.stop()
        exact = Server(args.ddbd, data_dir, "--exact-vector-search").start()
        updated_exact = answers(exact, queries)
        exact.stop()
    finally:
        for server in STARTED:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)

    def recall(answered, truth=exact_answers):
        """Mean, 1st percentile and minimum of the queries' recall@10."""
        per_query = sorted(len(set(h) & set(e)) / len(e) for h, e in zip(answered, truth))
        return (f"{sum(per_query) / len(per_query):.4f} / {per_query[len(per_query) // 100]:.2f}"
                f" / {per_query[0]:.2f}")
    print(f"\n{args.count} × {args.dims} dimensions, {args.data}, EUCLIDEAN, TopK 10; "
          "recall@10 as mean / 1st percentile / minimum over 1,000 queries\n")
    print("| measure | HNSW | exact |")
    print("|---|---|---|")
    print(f"| recall@10 against exact search, after the load | {recall(loaded_answers)} | 1 |")
    print(f"| recall@10 against exact search, after a restart (saved graphs) | {recall(hnsw_answers)} | 1 |")
    print(f"| SearchVectors/s, one server core | {rows['hnsw'][0]:,.0f} | {rows['exact'][0]:,.0f} |")
    print(f"| server CPU per search (µs) | {rows['hnsw'][1]:,.0f} | {rows['exact'][1]:,.0f} |")
    print(f"| load with BatchWriteItem (s) | {rows['load']:.1f} | |")
    print(f"| end of the load to graph-speed searches (s) | {rows['ready']:.1f} | |")
    print(f"| PutItem replacing a vector: server CPU per write, background graph work included (µs) | {rows['put']:,.0f} | |")
    print(f"| recall@10 against exact search, after those updates | {recall(updated_answers, updated_exact)} | 1 |")
    print(f"| restart: first answer (s) | {rows['startup']:.2f} | |")
    print(f"| restart: first search answered, every vector loaded (s) | {rows['first_search']:.2f} | |")
    print(f"| restart: graphs saved at shutdown attached, from exec (s) | {rows['graphs_attached']:.2f} | |")
    print(f"| index build: HNSW graph of the whole index, without saved graphs (s) | {rows['rebuild']:.1f} | |")
    print(f"| memory per vector (bytes, RSS) | {rows['memory']:,.0f} | |")


if __name__ == "__main__":
    sys.exit(main())
