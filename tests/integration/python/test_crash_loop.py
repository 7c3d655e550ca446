"""Crash loop: an on-disk ddbd under a concurrent write load, killed with SIGKILL at random
moments, restarted, and checked after every restart.

The table has a global secondary index with projection ALL over the data items, one with
KEYS_ONLY whose sort key is an ADD counter (so every increment moves its entry), and a
NEW_AND_OLD_IMAGES stream. Writer threads run PutItem (conditional on the version they
expect), UpdateItem ADD, multi-item TransactWriteItems with a ClientRequestToken (now and
then repeated, which must change nothing) and BatchWriteItem (puts and deletes). Every key
belongs to one writer and each writer has at most one request outstanding, so a writer knows
each of its items exactly, except for the one request in flight when the process died.

After each restart (see `verify`):
- every acknowledged write is there, an in-flight write is wholly applied or not at all (a
  transaction on all its items), and nothing else is in the table;
- every GSI holds exactly the entries projected from a scan of the table, and DescribeTable's
  ItemCount (kept live by ddbd) equals the number of items, also per index; ItemCount and
  TableSizeBytes/IndexSizeBytes equal those of an in-memory ddbd given the same items;
- the stream holds one record for every change, in order: for each key, its records' new
  images are exactly the acknowledged writes (plus the in-flight one if it was applied), each
  record's old image is the image before it, and sequence numbers only increase.

DDBD_CRASH_CYCLES sets the number of kills (default 20), DDBD_CRASH_SEED the seed (default:
random; printed, and named in every failure).
"""
import os
import random
import signal
import subprocess
import threading
import time
import uuid

import boto3
import botocore.config
import botocore.exceptions

from conftest import BINARY, DdbdProcess

TABLE = "CrashLoop"
WRITERS = 4
DATA_KEYS_PER_WRITER = 24
COUNTERS_PER_WRITER = 3
GROUPS = ["g0", "g1", "g2"]
KINDS = ["k0", "k1"]

SESSION = boto3.session.Session()
CLIENT_CONFIG = botocore.config.Config(retries={"max_attempts": 1}, connect_timeout=2,
                                       read_timeout=20, max_pool_connections=4)


# ---------------------------------------------------------------------------------------------
# The server


class CrashServer(DdbdProcess):
    """A DdbdProcess whose stderr is drained once it listens, so a chatty log cannot block it."""

    def start(self, port=0):
        super().start(port)
        threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True).start()
        return self

    def _drain(self, stream):
        try:
            for line in stream:
                self.log.append(line)
                del self.log[:-200]
        except (OSError, ValueError):
            pass

    def client(self, service="dynamodb"):
        return SESSION.client(service, endpoint_url=self.endpoint, region_name="us-east-1",
                              aws_access_key_id="AKIDCRASH", aws_secret_access_key="secret",
                              config=CLIENT_CONFIG)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc.stderr.close()


def kill_during_start_up(data_dir, delay):
    """Starts ddbd on `data_dir` and kills it `delay` seconds later, listening or not."""
    proc = subprocess.Popen([BINARY, "--address", "127.0.0.1", "--port", "0", "--threads", "2",
                             "--db-path", os.path.join(data_dir, "db")],
                            stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def create_table(client):
    client.create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in
                              [("pk", "S"), ("sk", "S"), ("grp", "S"), ("ver", "N"),
                               ("kind", "S"), ("cnt", "N")]],
        GlobalSecondaryIndexes=[
            {"IndexName": "ByGroup",
             "KeySchema": [{"AttributeName": "grp", "KeyType": "HASH"},
                           {"AttributeName": "ver", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "ALL"}},
            {"IndexName": "ByKind",
             "KeySchema": [{"AttributeName": "kind", "KeyType": "HASH"},
                           {"AttributeName": "cnt", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    return client.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]


# What each GSI holds of an item: (index name, its key attributes, projected attributes or
# None for ALL).
GSIS = [("ByGroup", ("grp", "ver"), None),
        ("ByKind", ("kind", "cnt"), ("pk", "sk", "kind", "cnt"))]


# ---------------------------------------------------------------------------------------------
# The writers and what they know


def key_of(item):
    return (item["pk"]["S"], item["sk"]["S"])


def key_av(key):
    return {"pk": {"S": key[0]}, "sk": {"S": key[1]}}


class KeyModel:
    """What one key holds: the image last acknowledged (None: absent), and the images written
    since the stream was last read, oldest first (None: a delete)."""

    def __init__(self):
        self.image = None
        self.unstreamed = []
        self.streamed_image = None  # the image the stream's last record for this key left

    def apply(self, image):
        self.image = image
        self.unstreamed.append(image)


class InFlight:
    """A request sent and not answered: the image each key it touches would get."""

    def __init__(self, operation, atomic, images):
        self.operation, self.atomic, self.images = operation, atomic, images


class Writer:
    """One writer thread's keys, its model of them, and its request loop."""

    def __init__(self, index, seed, models):
        self.index = index
        self.rng = random.Random(seed)
        self.version = 0
        self.data_keys = [(f"w{index}.{i % 4}", f"d{i:03d}") for i in range(DATA_KEYS_PER_WRITER)]
        self.counter_keys = [(f"w{index}.c", f"c{j}") for j in range(COUNTERS_PER_WRITER)]
        for key in self.data_keys + self.counter_keys:
            models[key] = KeyModel()
        self.models = models
        self.in_flight = None
        self.failures = []  # unexpected answers: each is a defect
        self.acknowledged = 0
        self.repeats = 0

    # The images this writer writes: each differs from every earlier image of its key.
    def new_data_image(self, key):
        self.version += 1
        image = {**key_av(key), "ver": {"N": str(self.version)},
                 "val": {"S": "v%d-" % self.version + "x" * self.rng.randrange(1, 200)}}
        if self.rng.random() < 0.8:  # a sparse index: some items are not in ByGroup
            image["grp"] = {"S": self.rng.choice(GROUPS)}
        return image

    def incremented(self, key):
        old = self.models[key].image
        count = int(old["cnt"]["N"]) + 1 if old else 1
        return {**key_av(key), "kind": {"S": KINDS[int(key[1][1:]) % 2]}, "cnt": {"N": str(count)}}

    def version_condition(self, key):
        """A condition that holds only if the item is as this writer last saw it."""
        old = self.models[key].image
        if old is None:
            return {"ConditionExpression": "attribute_not_exists(pk)"}
        return {"ConditionExpression": "ver = :old",
                "ExpressionAttributeValues": {":old": old["ver"]}}

    # The operations. Each sets in_flight, sends, and returns the images acknowledged.
    def put_item(self, client):
        key = self.rng.choice(self.data_keys)
        image = self.new_data_image(key)
        self.in_flight = InFlight("PutItem", True, {key: image})
        client.put_item(TableName=TABLE, Item=image, **self.version_condition(key))
        return {key: image}

    def add_counter(self, client):
        key = self.rng.choice(self.counter_keys)
        image = self.incremented(key)
        self.in_flight = InFlight("UpdateItem", True, {key: image})
        answer = client.update_item(TableName=TABLE, Key=key_av(key),
                                    UpdateExpression="SET kind = :k ADD cnt :one",
                                    ExpressionAttributeValues={":k": image["kind"],
                                                               ":one": {"N": "1"}},
                                    ReturnValues="ALL_NEW")
        if answer["Attributes"] != image:
            self.failures.append(f"UpdateItem ADD on {key} answered {answer['Attributes']}, "
                                 f"expected {image}")
        return {key: image}

    def transact(self, client):
        keys = self.rng.sample(self.data_keys, self.rng.randrange(2, 4))
        counter = self.rng.choice(self.counter_keys)
        images, actions = {}, []
        for key in keys:
            if self.models[key].image is not None and self.rng.random() < 0.2:
                images[key] = None
                actions.append({"Delete": {"TableName": TABLE, "Key": key_av(key),
                                           **self.version_condition(key)}})
            else:
                images[key] = self.new_data_image(key)
                actions.append({"Put": {"TableName": TABLE, "Item": images[key],
                                        **self.version_condition(key)}})
        images[counter] = self.incremented(counter)
        actions.append({"Update": {"TableName": TABLE, "Key": key_av(counter),
                                   "UpdateExpression": "SET kind = :k ADD cnt :one",
                                   "ExpressionAttributeValues": {
                                       ":k": images[counter]["kind"], ":one": {"N": "1"}}}})
        token = uuid.UUID(int=self.rng.getrandbits(128)).hex
        self.in_flight = InFlight("TransactWriteItems", True, images)
        client.transact_write_items(TransactItems=actions, ClientRequestToken=token)
        if self.rng.random() < 0.15:
            # The same token again: answered, and nothing changes (nor is streamed).
            self.acknowledge(images)
            self.in_flight = InFlight("TransactWriteItems (repeated token)", True, {})
            client.transact_write_items(TransactItems=actions, ClientRequestToken=token)
            self.repeats += 1
            return {}
        return images

    def batch_write(self, client):
        keys = self.rng.sample(self.data_keys, self.rng.randrange(2, 7))
        images, requests = {}, []
        for key in keys:
            if self.models[key].image is not None and self.rng.random() < 0.25:
                images[key] = None
                requests.append({"DeleteRequest": {"Key": key_av(key)}})
            else:
                images[key] = self.new_data_image(key)
                requests.append({"PutRequest": {"Item": images[key]}})
        self.in_flight = InFlight("BatchWriteItem", False, images)
        answer = client.batch_write_item(RequestItems={TABLE: requests})
        unprocessed = answer.get("UnprocessedItems", {}).get(TABLE, [])
        for request in unprocessed:  # not written: DynamoDB's promise
            (kind, body), = request.items()
            del images[key_of(body["Item"] if kind == "PutRequest" else body["Key"])]
        return images

    def run(self, endpoint_client, killed):
        operations = [(self.put_item, 3), (self.add_counter, 2), (self.transact, 3),
                      (self.batch_write, 2)]
        while not self.failures:
            operation = self.rng.choices([o for o, _ in operations],
                                         [w for _, w in operations])[0]
            try:
                images = operation(endpoint_client)
            except (botocore.exceptions.BotoCoreError, ConnectionError) as error:
                if killed.is_set():
                    return  # the request in flight stays in self.in_flight
                self.failures.append(f"{self.in_flight.operation} failed before the kill: "
                                     f"{error!r}")
                return
            except botocore.exceptions.ClientError as error:
                self.failures.append(f"{self.in_flight.operation} on "
                                     f"{list(self.in_flight.images)} refused: {error}")
                return
            self.acknowledge(images)
            if killed.is_set():
                return

    def acknowledge(self, images):
        for key, image in images.items():
            self.models[key].apply(image)
        self.acknowledged += 1
        self.in_flight = None


def run_load(server, writers, duration):
    """Runs the writers against `server` and SIGKILLs it after `duration` seconds."""
    killed = threading.Event()
    threads = [threading.Thread(target=w.run, args=(server.client(), killed)) for w in writers]
    for thread in threads:
        thread.start()
    time.sleep(duration)
    killed.set()
    server.kill()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive(), "a writer hung after the kill"


# ---------------------------------------------------------------------------------------------
# The checks


def scan_all(client, **kwargs):
    items, start = [], {}
    while True:
        page = client.scan(TableName=TABLE, **kwargs, **start)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


def table_items(client):
    items = scan_all(client, ConsistentRead=True)
    by_key = {key_of(item): item for item in items}
    assert len(by_key) == len(items), "a table scan returned a key twice"
    return by_key


def resolve_in_flight(writer, observed):
    """Decides whether the request the kill interrupted was applied, from what the table holds
    after the restart. Returns problems (an atomic request half applied, an impossible value)."""
    flight, writer.in_flight = writer.in_flight, None
    if flight is None:
        return [], None
    problems, applied = [], {}
    for key, image in flight.images.items():
        now, old = observed.get(key), writer.models[key].image
        if now == old:
            applied[key] = False
        elif now == image:
            applied[key] = True
        else:
            problems.append(f"{key} after an interrupted {flight.operation}: {now}, "
                            f"expected {old} or {image}")
    if flight.atomic and len(set(applied.values())) > 1:
        problems.append(f"{flight.operation} half applied: {applied}")
    for key, was_applied in applied.items():
        if was_applied:
            writer.models[key].apply(flight.images[key])
    return problems, any(applied.values())


def check_acknowledged_writes(writers, models, observed, in_flight_outcomes):
    """Every key holds what its writer last had acknowledged; the table holds nothing else.
    Counts the interrupted requests found applied (True) and not (False) in the dict given."""
    problems = []
    for writer in writers:
        flight_problems, applied = resolve_in_flight(writer, observed)
        problems += flight_problems
        if applied is not None:
            in_flight_outcomes[applied] += 1
    for key, model in models.items():
        if observed.get(key) != model.image:
            problems.append(f"{key} holds {observed.get(key)}, acknowledged {model.image}")
    problems += [f"{key} is in the table but was never written: {item}"
                 for key, item in observed.items() if key not in models]
    return problems


def project(item, key_attributes, projected):
    if any(a not in item for a in key_attributes):
        return None
    return dict(item) if projected is None else {a: item[a] for a in projected if a in item}


def check_gsis(client, observed):
    """Each GSI holds exactly the projection of each table item that has its key attributes.
    Returns (problems, the number of entries each GSI holds)."""
    problems, sizes = [], {}
    for name, key_attributes, projected in GSIS:
        expected = {}
        for key, item in observed.items():
            entry = project(item, key_attributes, projected)
            if entry is not None:
                expected[key] = entry
        entries = scan_all(client, IndexName=name)
        sizes[name] = len(entries)
        actual = {key_of(entry): entry for entry in entries}
        if len(actual) != len(entries):
            problems.append(f"{name} holds {len(entries) - len(actual)} duplicate entries")
        for key in sorted(set(expected) | set(actual)):
            if expected.get(key) != actual.get(key):
                problems.append(f"{name} entry of {key} is {actual.get(key)}, "
                                f"expected {expected.get(key)}")
    return problems, sizes


def check_item_counts(client, observed, gsi_entries):
    """DescribeTable's live ItemCount equals the items scanned, for the table and each GSI
    (`gsi_entries`: index name → entries scanned)."""
    table = client.describe_table(TableName=TABLE)["Table"]
    problems = []
    if table["ItemCount"] != len(observed):
        problems.append(f"ItemCount {table['ItemCount']}, the table holds {len(observed)}")
    for index in table.get("GlobalSecondaryIndexes", []):
        entries = gsi_entries.get(index["IndexName"])
        if index["ItemCount"] != entries:
            problems.append(f"{index['IndexName']} ItemCount {index['ItemCount']}, "
                            f"it holds {entries}")
    return problems


class Reference:
    """An in-memory ddbd holding what the crashed one holds after each restart, written there
    afresh: its statistics are what the table's must be, so sizes that drift across crashes
    show (ItemCount could be checked by counting; TableSizeBytes cannot)."""

    def __init__(self):
        self.server = CrashServer("--in-memory").start()
        self.client = self.server.client()
        create_table(self.client)
        self.items = {}

    def sync(self, observed):
        for key, item in observed.items():
            if self.items.get(key) != item:
                self.client.put_item(TableName=TABLE, Item=item)
        for key in set(self.items) - set(observed):
            self.client.delete_item(TableName=TABLE, Key=key_av(key))
        self.items = dict(observed)

    def stop(self):
        self.server.cleanup()


def statistics(client):
    table = client.describe_table(TableName=TABLE)["Table"]
    figures = {"table": (table["ItemCount"], table["TableSizeBytes"])}
    for index in table.get("GlobalSecondaryIndexes", []):
        figures[index["IndexName"]] = (index["ItemCount"], index["IndexSizeBytes"])
    return figures


def check_sizes(client, reference, observed):
    """ItemCount and TableSizeBytes (and each GSI's) equal those of a fresh server given the
    same items."""
    reference.sync(observed)
    actual, expected = statistics(client), statistics(reference.client)
    return [f"{name} (ItemCount, size in bytes) {actual.get(name)}, a fresh server with the "
            f"same items has {expected[name]}"
            for name in expected if actual.get(name) != expected[name]]


class StreamReader:
    """Reads a stream's shards from where the last read stopped (sequence numbers survive
    restarts), so each check reads only the records written since."""

    def __init__(self, arn):
        self.arn = arn
        self.after = {}  # shard id → last sequence number read
        self.records = 0

    def read_new(self, streams):
        """Yields the records written since the last read, shard by shard, in order."""
        shards = streams.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]
        for shard in shards:
            shard_id = shard["ShardId"]
            position = ({"ShardIteratorType": "AFTER_SEQUENCE_NUMBER",
                         "SequenceNumber": self.after[shard_id]}
                        if shard_id in self.after else {"ShardIteratorType": "TRIM_HORIZON"})
            iterator = streams.get_shard_iterator(StreamArn=self.arn, ShardId=shard_id,
                                                  **position)["ShardIterator"]
            while iterator:
                page = streams.get_records(ShardIterator=iterator, Limit=1000)
                if not page["Records"]:
                    break  # an open shard read to its end
                self.after[shard_id] = page["Records"][-1]["dynamodb"]["SequenceNumber"]
                self.records += len(page["Records"])
                yield from page["Records"]
                iterator = page.get("NextShardIterator")


def check_stream(streams, reader, models, last_sequence):
    """The records written since the last check are, for each key, exactly the writes applied
    to it (acknowledged or found applied), in order, each with the image before it as its old
    image; sequence numbers increase. Returns (problems, the last sequence number seen)."""
    problems = []
    for record in reader.read_new(streams):
        change = record["dynamodb"]
        sequence = int(change["SequenceNumber"])
        if sequence <= last_sequence:
            problems.append(f"sequence number {sequence} after {last_sequence}")
        last_sequence = max(last_sequence, sequence)
        key = key_of(change["Keys"])
        model = models.get(key)
        if model is None:
            problems.append(f"a record of {key}, never written: {record}")
            continue
        if not model.unstreamed:
            problems.append(f"a record of {key} for no write (a write recorded twice, or one "
                            f"unacknowledged and not applied): {record}")
            continue
        expected = model.unstreamed.pop(0)
        event = "REMOVE" if expected is None else (
            "INSERT" if model.streamed_image is None else "MODIFY")
        if (record["eventName"] != event or change.get("NewImage") != expected
                or change.get("OldImage") != model.streamed_image
                or change["StreamViewType"] != "NEW_AND_OLD_IMAGES"):
            problems.append(f"record {sequence} of {key}: {record['eventName']} "
                            f"new {change.get('NewImage')} old {change.get('OldImage')}; "
                            f"expected {event} new {expected} old {model.streamed_image}")
        model.streamed_image = expected
    for key, model in models.items():
        if model.unstreamed:
            problems.append(f"no stream record for {len(model.unstreamed)} writes of {key}, "
                            f"the first {model.unstreamed[0]}")
            model.streamed_image = model.unstreamed[-1]
            model.unstreamed = []
    return problems, last_sequence


class Checker:
    """The state the checks carry from one restart to the next."""

    def __init__(self, arn, writers, models, reference):
        self.reader = StreamReader(arn)
        self.reference = reference
        self.writers, self.models = writers, models
        self.last_sequence = 0
        self.in_flight_outcomes = {True: 0, False: 0}

    def verify(self, server):
        client, streams = server.client(), server.client("dynamodbstreams")
        observed = table_items(client)
        problems = check_acknowledged_writes(self.writers, self.models, observed,
                                             self.in_flight_outcomes)
        gsi_problems, gsi_entries = check_gsis(client, observed)
        problems += gsi_problems + check_item_counts(client, observed, gsi_entries)
        problems += check_sizes(client, self.reference, observed)
        stream_problems, self.last_sequence = check_stream(streams, self.reader, self.models,
                                                           self.last_sequence)
        return problems + stream_problems, len(observed)


# ---------------------------------------------------------------------------------------------
# The loop


def test_acknowledged_writes_indexes_counts_and_streams_survive_repeated_sigkill():
    cycles = int(os.environ.get("DDBD_CRASH_CYCLES", "20"))
    seed = int(os.environ.get("DDBD_CRASH_SEED", str(random.randrange(1 << 32))))
    print(f"crash loop: seed {seed} (DDBD_CRASH_SEED={seed} repeats it), {cycles} cycles")
    rng = random.Random(seed)
    models = {}
    writers = [Writer(i, rng.getrandbits(64), models) for i in range(WRITERS)]

    server = CrashServer().start()
    data_dir = server.data_dir
    reference = Reference()
    try:
        checker = Checker(create_table(server.client()), writers, models, reference)
        started = time.monotonic()
        for cycle in range(1, cycles + 1):
            run_load(server, writers, rng.uniform(0.3, 1.5))
            failures = [f for w in writers for f in w.failures]
            assert not failures, f"seed {seed}, cycle {cycle}: {failures[:5]}"
            if rng.random() < 0.15:  # a second kill, during recovery or soon after it
                kill_during_start_up(data_dir, rng.uniform(0.0, 0.1))
            server = CrashServer(data_dir=data_dir).start()
            problems, items = checker.verify(server)
            assert not problems, (f"seed {seed}, cycle {cycle}: {len(problems)} problems:\n"
                                  + "\n".join(problems[:20]))
            if cycle % 10 == 0:
                print(f"crash loop: cycle {cycle}, {time.monotonic() - started:.0f} s, "
                      f"{sum(w.acknowledged for w in writers)} acknowledged, {items} items",
                      flush=True)
        acknowledged = sum(w.acknowledged for w in writers)
        # A clean shutdown and restart, then the whole stream once more from its start.
        server.stop()
        server = CrashServer(data_dir=data_dir).start()
        problems, items = checker.verify(server)
        assert not problems, f"seed {seed}, after a clean restart: {problems[:20]}"
        replay_problems = check_whole_stream(server, checker.reader.arn, table_items(
            server.client()))
        assert not replay_problems, f"seed {seed}, whole stream: {replay_problems[:20]}"
        print(f"crash loop: {cycles} kills in {time.monotonic() - started:.0f} s, "
              f"{acknowledged} acknowledged requests "
              f"({sum(w.repeats for w in writers)} repeated tokens), interrupted requests "
              f"{checker.in_flight_outcomes[True]} applied and "
              f"{checker.in_flight_outcomes[False]} not, "
              f"{checker.reader.records} stream records, {items} items at the end")
    finally:
        reference.stop()
        server.stop()
        server.owns_dir = True
        server.cleanup()


def check_whole_stream(server, arn, observed):
    """Replaying the whole stream from TRIM_HORIZON rebuilds the table exactly."""
    replay = {}
    for record in StreamReader(arn).read_new(server.client("dynamodbstreams")):
        change = record["dynamodb"]
        key = key_of(change["Keys"])
        if change.get("OldImage") != replay.get(key):
            return [f"record {change['SequenceNumber']}: old image {change.get('OldImage')}, "
                    f"replay has {replay.get(key)}"]
        if "NewImage" in change:
            replay[key] = change["NewImage"]
        else:
            replay.pop(key, None)
    return [f"{key}: the stream replays to {replay.get(key)}, the table holds {observed.get(key)}"
            for key in sorted(set(replay) | set(observed)) if replay.get(key) != observed.get(key)]
