#!/usr/bin/env python3
"""Seeds tests/fuzz/corpus/<target>/ from the requests the integration tests really send.

Runs the Python integration tests (tests/integration/python) against a ddbd binary with
botocore's Endpoint._send wrapped, so every request boto3 sends is recorded, then derives one
small corpus per fuzz target from those requests:

  http_exchange              the request itself, written as the target reads it (a request
                             line, headers, a blank line, the body), table names mapped onto
                             the harness's tables "items" (hash key) and "sorted" (hash + range key)
  condition_expression, key_condition_expression, update_expression, projection_expression
                             the expressions, placeholders renamed to the #a..#f / :a..:h
                             that tests/fuzz/fuzz_values.h defines
  partiql                    Statement texts (ExecuteStatement, batches, transactions)
  legacy_parameters          the legacy members (Expected, KeyConditions, ScanFilter, ...)
  attribute_value_json       items, keys and expression values as DynamoDB JSON
  item_codec                 those items in the stored-item encoding (storage/FORMAT.md)
  key_codec                  pairs of key values (type byte, value, 0xFF, value)

Files are named by the SHA-1 of their content, so re-running adds only new inputs; each
target keeps at most --max-per-target files of at most --max-bytes. Regression inputs (files
named regression-*) are never touched.

  tests/fuzz/seed_corpus.py --binary build/server/ddbd [--tests test_items.py ...]
                            [--records requests.jsonl]

Besides the recorded requests, expression and Statement literals written in the Python and
JavaScript test sources are added (many are sent over raw HTTP or fail before boto3 sends
them).
"""
import argparse
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_TESTS = os.path.join(HERE, "..", "integration", "python")
RECORD_ENV = "DDBD_SEED_RECORD"


# --- pytest plugin: loaded into the test run with -p seed_corpus --------------------------

def pytest_configure(config):
    """Records every HTTP request made through http.client: botocore's connections, and the
    raw-HTTP helpers (urllib, http.client) the tests use for members boto3 lacks."""
    import http.client

    path = os.environ[RECORD_ENV]
    base = http.client.HTTPConnection
    original_putrequest, original_putheader = base.putrequest, base.putheader
    original_endheaders = base.endheaders

    def putrequest(self, method, url, *args, **kwargs):
        self._seed_request = {"method": method, "path": url, "headers": {}}
        return original_putrequest(self, method, url, *args, **kwargs)

    def putheader(self, header, *values):
        request = getattr(self, "_seed_request", None)
        if request is not None:
            name = header.decode() if isinstance(header, bytes) else header
            request["headers"][name] = ", ".join(
                v.decode("latin-1") if isinstance(v, bytes) else str(v) for v in values)
        return original_putheader(self, header, *values)

    def endheaders(self, message_body=None, **kwargs):
        request = getattr(self, "_seed_request", None)
        if request is not None:
            body = message_body
            if isinstance(body, str):
                body = body.encode()
            if not isinstance(body, (bytes, bytearray)):
                body = b""
            request["body"] = bytes(body).decode("utf-8", "replace")
            with open(path, "a") as out:
                out.write(json.dumps(request) + "\n")
            self._seed_request = None
        return original_endheaders(self, message_body, **kwargs)

    base.putrequest, base.putheader, base.endheaders = putrequest, putheader, endheaders


# --- corpus derivation ---------------------------------------------------------------------

def rename_placeholders(expression):
    names, values = {}, {}

    def name(match):
        return names.setdefault(match.group(0), "#" + "abcdef"[len(names) % 6])

    def value(match):
        return values.setdefault(match.group(0), ":" + "abcdefgh"[len(values) % 8])

    expression = re.sub(r"#[A-Za-z0-9_]+", name, expression)
    return re.sub(r":[A-Za-z0-9_]+", value, expression)


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def length_prefixed(data):
    return varint(len(data)) + data


TYPE_BYTES = {"S": 1, "N": 2, "B": 3, "BOOL": 4, "NULL": 5, "M": 6, "L": 7, "SS": 8, "NS": 9,
              "BS": 10}


def encode_value(value):
    """storage/item_codec.cc's value encoding; None if the JSON is not a valid value."""
    if not isinstance(value, dict) or len(value) != 1:
        return None
    (kind, content), = value.items()
    if kind not in TYPE_BYTES:
        return None
    out = bytes([TYPE_BYTES[kind]])
    try:
        if kind == "S":
            return out + length_prefixed(content.encode())
        if kind == "N":
            return out + length_prefixed(content.encode())
        if kind == "B":
            return out + length_prefixed(base64.b64decode(content))
        if kind == "BOOL":
            return out + bytes([1 if content else 0])
        if kind == "NULL":
            return out
        if kind == "M":
            members = sorted(content.items())
            parts = [encode_value(v) for _, v in members]
            if None in parts:
                return None
            return out + varint(len(parts)) + b"".join(
                length_prefixed(k.encode()) + p for (k, _), p in zip(members, parts))
        if kind == "L":
            parts = [encode_value(v) for v in content]
            return None if None in parts else out + varint(len(parts)) + b"".join(parts)
        members = [base64.b64decode(m) if kind == "BS" else m.encode() for m in content]
        return out + varint(len(members)) + b"".join(length_prefixed(m) for m in members)
    except (AttributeError, TypeError, ValueError):
        return None


def encode_item(item):
    parts = []
    for name, value in sorted(item.items()):
        encoded = encode_value(value)
        if encoded is None:
            return None
        parts.append(length_prefixed(name.encode()) + encoded)
    size = len(json.dumps(item))  # any size header round-trips; roughly the real one
    return varint(size) + varint(len(parts)) + b"".join(parts)


def key_pair(a, b):
    """key_codec_fuzz's input for two key values of one type, or None."""
    if not (isinstance(a, dict) and isinstance(b, dict) and len(a) == 1 and len(b) == 1):
        return None
    (ta, va), = a.items()
    (tb, vb), = b.items()
    if ta != tb or ta not in ("S", "B", "N") or not isinstance(va, str) or not isinstance(vb, str):
        return None
    try:
        raw = (lambda v: base64.b64decode(v)) if ta == "B" else (lambda v: v.encode())
        first, second = raw(va), raw(vb)
    except ValueError:
        return None
    if b"\xff" in first:
        return None
    return bytes([{"S": 0, "B": 1, "N": 2}[ta]]) + first + b"\xff" + second


LEGACY_MEMBERS = ("Expected", "ConditionalOperator", "AttributeUpdates", "KeyConditions",
                  "QueryFilter", "ScanFilter", "AttributesToGet")
EXPRESSION_MEMBERS = {
    "ConditionExpression": "condition_expression",
    "FilterExpression": "condition_expression",
    "KeyConditionExpression": "key_condition_expression",
    "UpdateExpression": "update_expression",
    "ProjectionExpression": "projection_expression",
}


def walk_requests(body):
    """The body and the request-like objects nested in batches and transactions."""
    yield body
    for action in body.get("TransactItems", []) or []:
        if isinstance(action, dict):
            for inner in action.values():
                if isinstance(inner, dict):
                    yield inner
    for table, requests in (body.get("RequestItems") or {}).items():
        if isinstance(requests, dict):
            yield requests
        elif isinstance(requests, list):
            for request in requests:
                if isinstance(request, dict):
                    for inner in request.values():
                        if isinstance(inner, dict):
                            yield inner


def derive(records):
    corpus = {}

    def add(target, data):
        if isinstance(data, str):
            data = data.encode()
        corpus.setdefault(target, set()).add(data)

    # Which test tables have a sort key, from the CreateTable requests.
    with_sort_key = {}
    for record in records:
        record["headers"] = {k.lower(): v for k, v in record["headers"].items()}
    for record in records:
        target = record["headers"].get("x-amz-target", "")
        if target.endswith(".CreateTable"):
            try:
                body = json.loads(record["body"])
                if isinstance(body["TableName"], str):
                    with_sort_key[body["TableName"]] = len(body.get("KeySchema", [])) > 1
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                pass  # a malformed CreateTable of an error test

    def rename_tables(text):
        for name, sorted_ in sorted(with_sort_key.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(json.dumps(name), '"sorted"' if sorted_ else '"items"')
        return text

    for record in records:
        headers = record["headers"]
        target = headers.get("x-amz-target", "")
        text = record["body"]
        if not target.endswith(".CreateTable"):
            text = rename_tables(text)
        head = [f"{record['method']} {record.get('path', '/')}"]
        for name in ("X-Amz-Target", "Content-Type", "Content-Encoding", "Accept-Encoding",
                     "Origin", "Access-Control-Request-Headers", "Access-Control-Request-Method"):
            if name.lower() in headers:
                head.append(f"{name}: {headers[name.lower()]}")
        if headers.get("content-encoding") in ("gzip", "deflate"):
            continue  # the recorded body is compressed bytes, not text
        add("http_exchange", "\n".join(head) + "\n\n" + text)
        try:
            body = json.loads(record["body"])
        except (ValueError, RecursionError):  # the depth-limit tests nest 100,000 deep
            continue
        if not isinstance(body, dict):
            continue
        # Error tests send every member in every wrong shape: take what has the right one.
        try:
            for request in walk_requests(body):
                for member, fuzz_target in EXPRESSION_MEMBERS.items():
                    if isinstance(request.get(member), str):
                        add(fuzz_target, rename_placeholders(request[member]))
                legacy = {k: request[k] for k in LEGACY_MEMBERS if k in request}
                if legacy:
                    for k in ("ExpressionAttributeNames", "ExpressionAttributeValues"):
                        if k in request:
                            legacy[k] = request[k]
                    add("legacy_parameters", json.dumps(legacy))
                for member in ("Item", "Key", "ExpressionAttributeValues", "ExclusiveStartKey"):
                    value = request.get(member)
                    if isinstance(value, dict):
                        add("attribute_value_json", json.dumps(value))
                        for v in value.values():
                            add("attribute_value_json", json.dumps(v))
                        encoded = encode_item(value)
                        if encoded is not None:
                            add("item_codec", encoded)
                        values = list(value.values())
                        for a, b in zip(values, values[1:] + values[:1]):
                            pair = key_pair(a, b)
                            if pair is not None:
                                add("key_codec", pair)
            statements = [body.get("Statement")]
            statements += [s.get("Statement") for s in body.get("Statements", []) or []
                           if isinstance(s, dict)]
            statements += [s.get("Statement") for s in body.get("TransactStatements", []) or []
                           if isinstance(s, dict)]
            for statement in statements:
                if isinstance(statement, str):
                    add("partiql", statement)
        except (AttributeError, TypeError, ValueError):
            pass
    return corpus


SOURCE_EXPRESSION = re.compile(
    r"""(ConditionExpression|FilterExpression|KeyConditionExpression|UpdateExpression|"""
    r"""ProjectionExpression|Statement)["']?\s*[:=]\s*(["'])((?:(?!\2)[^\\\n]|\\.)*)\2""")


def scan_sources(corpus):
    """Expression and statement literals written in the integration tests' sources (many
    tests send them over raw HTTP or from JavaScript, or in requests that fail early)."""
    targets = dict(EXPRESSION_MEMBERS, Statement="partiql")
    folders = [PYTHON_TESTS, os.path.join(HERE, "..", "integration", "js")]
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not (name.endswith(".py") or name.endswith(".mjs")):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as source:
                text = source.read()
            for match in SOURCE_EXPRESSION.finditer(text):
                member, literal = match.group(1), match.group(3)
                literal = literal.replace("\\\"", "\"").replace("\\'", "'")
                if "{" in literal and member != "Statement":
                    continue  # an f-string or template
                value = literal if member == "Statement" else rename_placeholders(literal)
                corpus.setdefault(targets[member], set()).add(value.encode())


def write(corpus, root, max_per_target, max_bytes):
    for target, inputs in sorted(corpus.items()):
        folder = os.path.join(root, target)
        os.makedirs(folder, exist_ok=True)
        kept = sorted((data for data in inputs if 0 < len(data) <= max_bytes),
                      key=lambda d: (len(d), d))
        # Keep variety: spread the picks over the size-sorted list.
        if len(kept) > max_per_target:
            step = len(kept) / max_per_target
            kept = [kept[int(i * step)] for i in range(max_per_target)]
        for data in kept:
            name = hashlib.sha1(data).hexdigest()
            with open(os.path.join(folder, name), "wb") as out:
                out.write(data)
        print(f"{target}: {len(kept)} of {len(inputs)} inputs", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True, help="the ddbd binary the tests start")
    parser.add_argument("--tests", nargs="*", default=None,
                        help="test files (default: every test_*.py but test_container.py)")
    parser.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    parser.add_argument("--max-per-target", type=int, default=150)
    parser.add_argument("--max-bytes", type=int, default=4096)
    parser.add_argument("--records", help="keep the recorded requests in this JSONL file, or "
                        "reuse it without running the tests if it exists")
    args = parser.parse_args()

    if args.records and os.path.exists(args.records):
        with open(args.records) as lines:
            records = [json.loads(line) for line in lines]
    else:
        records = record_requests(args)
        if args.records:
            with open(args.records, "w") as out:
                out.writelines(json.dumps(r) + "\n" for r in records)
    print(f"{len(records)} requests recorded", file=sys.stderr)
    corpus = derive(records)
    scan_sources(corpus)
    write(corpus, args.corpus, args.max_per_target, args.max_bytes)


def record_requests(args):
    tests = args.tests or sorted(f for f in os.listdir(PYTHON_TESTS)
                                 if f.startswith("test_") and f.endswith(".py")
                                 and f != "test_container.py")
    with tempfile.TemporaryDirectory() as scratch:
        record = os.path.join(scratch, "requests.jsonl")
        env = dict(os.environ, DDBD_BINARY=os.path.abspath(args.binary), PYTHONPATH=HERE,
                   PYTHONDONTWRITEBYTECODE="1", **{RECORD_ENV: record})
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "seed_corpus", *tests], cwd=PYTHON_TESTS, env=env, check=False)
        with open(record) as lines:
            return [json.loads(line) for line in lines]


if __name__ == "__main__":
    main()
