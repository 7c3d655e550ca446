// Kinesis Data Streams destinations through the JavaScript SDK, against a real Kinesis
// (kinesalite, started here on a loopback port): EnableKinesisStreamingDestination,
// DisableKinesisStreamingDestination, DescribeKinesisStreamingDestination and
// UpdateKinesisStreamingDestination with DynamoDB's statuses and validation errors; and the
// delivery of a table's changes (puts, updates, deletes, a Time to Live deletion) as DynamoDB's
// Kinesis records, read back with GetRecords: each change once, in order per item, across a
// clean restart of the on-disk server — and, across a kill -9, none lost or reordered (a
// batch in flight may come again, with the same eventID).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import {
  DeleteItemCommand, DescribeKinesisStreamingDestinationCommand, DescribeTableCommand,
  DisableKinesisStreamingDestinationCommand, EnableKinesisStreamingDestinationCommand,
  PutItemCommand, UpdateItemCommand, UpdateKinesisStreamingDestinationCommand,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import {
  CreateStreamCommand, DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand,
  KinesisClient,
} from "@aws-sdk/client-kinesis";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { createKeyedTable, startDdbd } from "./ddbd.mjs";

const ACCOUNT = "000000000000";
const streamArn = (name) => `arn:aws:kinesis:us-east-1:${ACCOUNT}:stream/${name}`;
let kinesalite, kinesis, server, client;

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// kinesalite's own process (not npx's), so that its PID is the one to stop.
async function startKinesalite(port) {
  const child = spawn(process.execPath,
                      ["node_modules/.bin/kinesalite", "--port", String(port), "--host", "127.0.0.1",
                       "--createStreamMs", "50"],
                      { stdio: ["ignore", "pipe", "pipe"] });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("kinesalite did not start")), 10000);
    child.stdout.on("data", (chunk) => {
      if (String(chunk).includes("Listening")) { clearTimeout(timer); resolve(); }
    });
    child.on("exit", (code) => reject(new Error(`kinesalite exited with ${code}`)));
  });
  return child;
}

async function createStream(StreamName) {
  await kinesis.send(new CreateStreamCommand({ StreamName, ShardCount: 2 }));
  for (let i = 0; i < 100; i++) {
    const { StreamDescription } = await kinesis.send(new DescribeStreamCommand({ StreamName }));
    if (StreamDescription.StreamStatus === "ACTIVE") return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`stream ${StreamName} did not become ACTIVE`);
}

// Every record of the stream, shard by shard, in each shard's order, with Data parsed.
async function readStream(StreamName) {
  const { StreamDescription } = await kinesis.send(new DescribeStreamCommand({ StreamName }));
  const records = [];
  for (const { ShardId } of StreamDescription.Shards) {
    let { ShardIterator } = await kinesis.send(new GetShardIteratorCommand({
      StreamName, ShardId, ShardIteratorType: "TRIM_HORIZON" }));
    for (;;) {
      const page = await kinesis.send(new GetRecordsCommand({ ShardIterator, Limit: 1000 }));
      for (const record of page.Records) {
        records.push({ partitionKey: record.PartitionKey,
                       data: JSON.parse(Buffer.from(record.Data).toString("utf8")) });
      }
      if (page.Records.length === 0 || !page.NextShardIterator) break;
      ShardIterator = page.NextShardIterator;
    }
  }
  return records;
}

async function waitForRecords(StreamName, count) {
  let records = [];
  for (let i = 0; i < 150; i++) {
    records = await readStream(StreamName);
    if (records.length >= count) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return records;
}

before(async () => {
  const port = await freePort();
  kinesalite = await startKinesalite(port);
  kinesis = new KinesisClient({
    region: "us-east-1", endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: "AKIDJS", secretAccessKey: "secret" },
    requestHandler: new NodeHttpHandler(),
  });
  process.env.AWS_ACCESS_KEY_ID ??= "AKIDJS";
  process.env.AWS_SECRET_ACCESS_KEY ??= "secret";
  server = await startDdbd("--kinesis-endpoint", `http://127.0.0.1:${port}`);
  client = server.client();
});

after(async () => {
  client?.destroy();
  kinesis?.destroy();
  await server?.stop();
  if (kinesalite && kinesalite.exitCode === null) {
    const exited = new Promise((resolve) => kinesalite.on("exit", resolve));
    process.kill(kinesalite.pid, "SIGTERM");
    await exited;
  }
});

async function rejects(command, name, message) {
  await assert.rejects(client.send(command), (error) => {
    assert.equal(error.name, name);
    assert.equal(error.message, message);
    return true;
  });
}

const describe = async (TableName) =>
  (await client.send(new DescribeKinesisStreamingDestinationCommand({ TableName })))
    .KinesisDataStreamDestinations;

test("statuses and validation errors", async () => {
  await createKeyedTable(client, "Validated", ["pk", "S"]);
  const arn = streamArn("validated"), other = streamArn("other");
  const invalidState = "Table is not in a valid state to enable Kinesis Streaming Destination: ";
  const enable = (StreamArn, config) => new EnableKinesisStreamingDestinationCommand({
    TableName: "Validated", StreamArn, EnableKinesisStreamingConfiguration: config });
  const disable = (StreamArn, config) => new DisableKinesisStreamingDestinationCommand({
    TableName: "Validated", StreamArn, EnableKinesisStreamingConfiguration: config });
  const update = (StreamArn, config) => new UpdateKinesisStreamingDestinationCommand({
    TableName: "Validated", StreamArn, UpdateKinesisStreamingConfiguration: config });

  await rejects(new DescribeKinesisStreamingDestinationCommand({ TableName: "Missing" }),
                "ResourceNotFoundException", "Requested resource not found: Table: Missing not found");
  assert.deepEqual(await describe("Validated"), []);
  await rejects(enable(arn, { ApproximateCreationDateTimePrecision: "SECOND" }), "ValidationException",
                "1 validation error detected: Value 'SECOND' at " +
                "'enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision' failed to " +
                "satisfy constraint: Member must satisfy enum value set: [MILLISECOND, MICROSECOND]");
  await rejects(enable("arn:aws:kinesis:x"), "ValidationException",
                "1 validation error detected: Value 'arn:aws:kinesis:x' at 'streamArn' failed to " +
                "satisfy constraint: Member must have length greater than or equal to 37");

  const enabled = await client.send(enable(arn));
  assert.deepEqual(
    { TableName: enabled.TableName, StreamArn: enabled.StreamArn,
      DestinationStatus: enabled.DestinationStatus, Config: enabled.EnableKinesisStreamingConfiguration },
    { TableName: "Validated", StreamArn: arn, DestinationStatus: "ENABLING", Config: {} });
  assert.deepEqual(await describe("Validated"), [{ StreamArn: arn, DestinationStatus: "ACTIVE" }]);
  const oneLive = invalidState + "EnableKinesisStreamingDestination must be DISABLED or " +
                  "ENABLE_FAILED to perform ENABLE operation.";
  await rejects(enable(arn), "ValidationException", oneLive);
  await rejects(enable(other), "ValidationException", oneLive);

  await rejects(update(arn), "ValidationException",
                "Streaming destination cannot be updated with given parameters: " +
                "UpdateKinesisStreamingConfiguration cannot be null or contain only null values");
  await rejects(update(arn, {}), "ValidationException",
                "Streaming destination cannot be updated with given parameters: " +
                "UpdateKinesisStreamingConfiguration cannot be null or contain only null values");
  const { Table } = await client.send(new DescribeTableCommand({ TableName: "Validated" }));
  assert.ok(!Object.keys(Table).some((key) => key.includes("Kinesis")));
  await rejects(update(arn, { ApproximateCreationDateTimePrecision: "MILLISECOND" }), "ValidationException",
                "Invalid Request: Precision is already set to the desired value of MILLISECOND for " +
                `tableId: ${Table.TableId}, kdsArn: ${arn}`);
  await rejects(update(other, { ApproximateCreationDateTimePrecision: "MICROSECOND" }),
                "ValidationException", invalidState + `No streaming destination with streamArn: ${other} ` +
                "found for table with tableName: Validated");
  const updated = await client.send(update(arn, { ApproximateCreationDateTimePrecision: "MICROSECOND" }));
  assert.equal(updated.DestinationStatus, "UPDATING");
  assert.deepEqual(updated.UpdateKinesisStreamingConfiguration,
                   { ApproximateCreationDateTimePrecision: "MICROSECOND" });
  assert.deepEqual(await describe("Validated"), [
    { StreamArn: arn, DestinationStatus: "ACTIVE", ApproximateCreationDateTimePrecision: "MICROSECOND" }]);

  await rejects(disable(arn, { ApproximateCreationDateTimePrecision: "MILLISECOND" }), "ValidationException",
                "Stream cannot be disabled using EnableKinesisStreamingConfiguration parameters");
  const mustBeActive = invalidState + "KinesisStreamingDestination must be ACTIVE to perform " +
                       "DISABLE operation.";
  await rejects(disable(other), "ValidationException", mustBeActive);
  assert.equal((await client.send(disable(arn))).DestinationStatus, "DISABLING");
  assert.deepEqual(await describe("Validated"), [
    { StreamArn: arn, DestinationStatus: "DISABLED", ApproximateCreationDateTimePrecision: "MICROSECOND" }]);
  await rejects(disable(arn), "ValidationException", mustBeActive);
  await rejects(update(arn, { ApproximateCreationDateTimePrecision: "MILLISECOND" }), "ValidationException",
                invalidState + "Kinesis streaming is not in ACTIVE state. Updates are only allowed in " +
                "ACTIVE state. TableName: Validated");

  // Another stream, then the first again: its DISABLED entry is reused, precision reset.
  assert.equal((await client.send(enable(other))).DestinationStatus, "ENABLING");
  await client.send(disable(other));
  await client.send(enable(arn));
  assert.deepEqual(await describe("Validated"), [
    { StreamArn: arn, DestinationStatus: "ACTIVE" },
    { StreamArn: other, DestinationStatus: "DISABLED" }]);
});

// The changes of the workload, as the records they must become, per item.
function expectation() {
  const byItem = new Map();
  return {
    byItem,
    add(pk, eventName, NewImage, OldImage, ttl = false) {
      const key = JSON.stringify({ pk: { S: pk } });
      if (!byItem.has(key)) byItem.set(key, []);
      byItem.get(key).push({ eventName, NewImage, OldImage, ttl });
    },
    get count() { return [...byItem.values()].reduce((n, list) => n + list.length, 0); },
  };
}

// Writes a round of changes to `items`, recording what each must produce.
async function workload(expected, state, round, items) {
  const TableName = "Orders";
  for (const pk of items) {
    const image = { pk: { S: pk }, round: { N: String(round) }, step: { S: "put" } };
    await client.send(new PutItemCommand({ TableName, Item: image }));
    expected.add(pk, state.has(pk) ? "MODIFY" : "INSERT", image, state.get(pk));
    state.set(pk, image);
    const updated = { ...image, step: { S: "update" } };
    await client.send(new UpdateItemCommand({
      TableName, Key: { pk: { S: pk } }, UpdateExpression: "SET step = :s",
      ExpressionAttributeValues: { ":s": { S: "update" } } }));
    expected.add(pk, "MODIFY", updated, image);
    state.set(pk, updated);
  }
  const removed = items[round % items.length];
  await client.send(new DeleteItemCommand({ TableName, Key: { pk: { S: removed } } }));
  expected.add(removed, "REMOVE", undefined, state.get(removed));
  state.delete(removed);
}

function checkDelivery(records, expected, since, precision, { duplicates = false } = {}) {
  const eventId = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const seen = new Map();
  const byItem = new Map();
  for (const { partitionKey, data } of records) {
    assert.match(partitionKey, /^[0-9A-F]{32}$/);
    assert.deepEqual(Object.keys(data), ["awsRegion", "eventID", "eventName", "userIdentity",
                                         "recordFormat", "tableName", "dynamodb", "eventSource"]);
    assert.equal(data.awsRegion, "us-east-1");
    assert.match(data.eventID, eventId);
    assert.equal(data.recordFormat, "application/json");
    assert.equal(data.tableName, "Orders");
    assert.equal(data.eventSource, "aws:dynamodb");
    const again = seen.get(data.eventID);
    if (again) {
      assert.ok(duplicates, `record ${data.eventID} delivered twice`);
      assert.deepEqual(data, again);
      continue;
    }
    seen.set(data.eventID, data);
    const key = JSON.stringify(data.dynamodb.Keys);
    if (!byItem.has(key)) byItem.set(key, { partitionKey, list: [] });
    assert.equal(byItem.get(key).partitionKey, partitionKey, "one partition key per item");
    byItem.get(key).list.push(data);
  }
  assert.deepEqual([...byItem.keys()].sort(), [...expected.byItem.keys()].sort());
  const now = Date.now();
  for (const [key, wanted] of expected.byItem) {
    const got = byItem.get(key).list;
    assert.deepEqual(got.map((d) => d.eventName), wanted.map((w) => w.eventName), key);
    got.forEach((data, i) => {
      const { dynamodb } = data;
      assert.deepEqual(dynamodb.NewImage, wanted[i].NewImage, `${key} #${i} NewImage`);
      assert.deepEqual(dynamodb.OldImage, wanted[i].OldImage, `${key} #${i} OldImage`);
      assert.deepEqual(data.userIdentity, wanted[i].ttl
        ? { principalId: "dynamodb.amazonaws.com", type: "Service" } : null);
      const scale = precision === "MICROSECOND" ? 1000 : 1;
      assert.ok(dynamodb.ApproximateCreationDateTime >= (since - 1000) * scale &&
                dynamodb.ApproximateCreationDateTime <= (now + 1000) * scale,
                `${dynamodb.ApproximateCreationDateTime} in ${precision}`);
      assert.equal(dynamodb.ApproximateCreationDateTimePrecision,
                   precision === "MICROSECOND" ? "MICROSECOND" : undefined);
      assert.equal(typeof dynamodb.SizeBytes, "number");
    });
  }
}

test("changes are delivered once each, in order per item, across restarts", async () => {
  const since = Date.now();
  await createStream("orders");
  await createKeyedTable(client, "Orders", ["pk", "S"]);
  await client.send(new UpdateTimeToLiveCommand({
    TableName: "Orders", TimeToLiveSpecification: { Enabled: true, AttributeName: "expireAt" } }));
  await client.send(new EnableKinesisStreamingDestinationCommand({
    TableName: "Orders", StreamArn: streamArn("orders") }));
  const expected = expectation(), state = new Map();
  const items = ["a", "b", "c", "d", "e"];
  await workload(expected, state, 0, items);

  // A Time to Live deletion carries the service's identity.
  const expiring = { pk: { S: "ttl" }, expireAt: { N: String(Math.floor(Date.now() / 1000) - 60) } };
  await client.send(new PutItemCommand({ TableName: "Orders", Item: expiring }));
  expected.add("ttl", "INSERT", expiring, undefined);
  assert.equal((await server.control("POST", "/ddbd/ttl/sweep")).body.Deleted, 1);
  expected.add("ttl", "REMOVE", undefined, expiring, true);

  await workload(expected, state, 1, items);
  await server.restart("SIGTERM");  // some records may still wait: they are sent after it
  client.destroy();
  client = server.client();
  await workload(expected, state, 2, items);
  let records = await waitForRecords("orders", expected.count);
  assert.equal(records.length, expected.count);
  checkDelivery(records, expected, since, "MILLISECOND");

  // With MICROSECOND, then across a kill -9: nothing lost or reordered; a batch that was in
  // flight may come again, with the same eventID.
  await client.send(new UpdateKinesisStreamingDestinationCommand({
    TableName: "Orders", StreamArn: streamArn("orders"),
    UpdateKinesisStreamingConfiguration: { ApproximateCreationDateTimePrecision: "MICROSECOND" } }));
  await createStream("orders-micro");
  await client.send(new DisableKinesisStreamingDestinationCommand({
    TableName: "Orders", StreamArn: streamArn("orders") }));
  await client.send(new EnableKinesisStreamingDestinationCommand({
    TableName: "Orders", StreamArn: streamArn("orders-micro"),
    EnableKinesisStreamingConfiguration: { ApproximateCreationDateTimePrecision: "MICROSECOND" } }));
  const micro = expectation();
  await workload(micro, state, 3, items);
  await server.restart("SIGKILL");
  client.destroy();
  client = server.client();
  await workload(micro, state, 4, items);
  records = await waitForRecords("orders-micro", micro.count);
  checkDelivery(records, micro, since, "MICROSECOND", { duplicates: true });
  // Nothing more went to the disabled destination's stream.
  assert.equal((await readStream("orders")).length, expected.count);
});
