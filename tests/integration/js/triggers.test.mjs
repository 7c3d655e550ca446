// Stream triggers (/ddbd/triggers) against a real ddbd and a small HTTP handler that records
// what it receives: Lambda's event shape, batching by size and by the clock's window, per-key
// order under concurrent writes with parallel lanes, bisection and the on-failure record,
// partial batch responses, filter criteria, Time to Live deletions with the service's
// identity, a SIGKILL mid-delivery, the control API's refusals, --triggers with a command.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateTableCommand, DeleteItemCommand, DescribeTableCommand, PutItemCommand,
  UpdateItemCommand, UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, client, handler;

// Records every POST: `batches[path]` holds each request's parsed body; `respond` decides the
// answer ({ status, body, delayMs }).
async function startHandler() {
  const state = { batches: {}, respond: () => ({ status: 200, body: "" }) };
  const http = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => { body += chunk; });
    request.on("end", async () => {
      const event = JSON.parse(body);
      (state.batches[request.url] ??= []).push(event);
      const answer = await state.respond(request.url, event);
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      response.writeHead(answer.status, { "content-type": "application/json" });
      response.end(answer.body);
    });
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  state.url = (path) => `http://127.0.0.1:${http.address().port}${path}`;
  state.close = () => { http.closeAllConnections(); return new Promise((r) => http.close(r)); };
  // The records delivered to `path`, batch by batch, as [pk, …].
  state.keys = (path) => (state.batches[path] ?? []).map(
    (event) => event.Records.map((record) => record.dynamodb.Keys.pk.S));
  return state;
}

async function eventually(check, what, ms = 10000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function createStreamTable(TableName) {
  await client.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  }));
}

const put = (TableName, pk, extra = {}) => client.send(new PutItemCommand({
  TableName, Item: { pk: { S: pk }, ...extra },
}));

async function putTrigger(name, definition) {
  const answer = await server.control("PUT", `/ddbd/triggers/${name}`, definition);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

const statistics = async (name) =>
  (await server.control("GET", `/ddbd/triggers/${name}`)).body.Statistics;

// A trigger's statistics once `records` deliveries are counted: a handler has a batch before
// the server has its answer and counts the batch as delivered.
async function statisticsOnceDelivered(name, records) {
  let stats;
  await eventually(async () => {
    stats = await statistics(name);
    return stats.RecordsDelivered >= records;
  }, `${records} records counted as delivered by ${name}`);
  return stats;
}

before(async () => {
  server = await startDdbd();
  client = server.client();
  handler = await startHandler();
});

after(async () => {
  client.destroy();
  await handler.close();
  await server.stop();
});

test("records arrive in Lambda's event shape, in batches of BatchSize", async () => {
  await createStreamTable("Sized");
  for (const pk of ["a", "b", "c", "d", "e", "f", "g"]) await put("Sized", pk, { n: { N: "1" } });
  const created = await putTrigger("sized", {
    TableName: "Sized", Url: handler.url("/sized"), BatchSize: 3, StartingPosition: "TRIM_HORIZON",
  });
  assert.equal(created.State, "Enabled");
  assert.equal(created.BatchSize, 3);
  assert.equal(created.MaximumRetryAttempts, -1);
  await eventually(() => handler.keys("/sized").flat().length === 7, "7 records");
  assert.deepEqual(handler.keys("/sized"), [["a", "b", "c"], ["d", "e", "f"], ["g"]]);
  const { Table } = await client.send(new DescribeTableCommand({ TableName: "Sized" }));
  const record = handler.batches["/sized"][0].Records[0];
  assert.deepEqual(Object.keys(record), ["eventID", "eventName", "eventVersion", "eventSource",
                                         "awsRegion", "dynamodb", "eventSourceARN"]);
  assert.equal(record.eventName, "INSERT");
  assert.equal(record.eventVersion, "1.1");
  assert.equal(record.eventSource, "aws:dynamodb");
  assert.equal(record.awsRegion, "us-east-1");
  assert.equal(record.eventSourceARN, Table.LatestStreamArn);
  assert.match(record.eventID, /^[0-9a-f]{32}$/);
  assert.ok(Number.isInteger(record.dynamodb.ApproximateCreationDateTime));
  assert.ok(Math.abs(record.dynamodb.ApproximateCreationDateTime - Date.now() / 1000) < 60);
  assert.deepEqual(record.dynamodb.Keys, { pk: { S: "a" } });
  assert.deepEqual(record.dynamodb.NewImage, { pk: { S: "a" }, n: { N: "1" } });
  assert.equal(record.dynamodb.OldImage, undefined);
  assert.match(record.dynamodb.SequenceNumber, /^\d{21}$/);
  assert.equal(typeof record.dynamodb.SizeBytes, "number");
  assert.equal(record.dynamodb.StreamViewType, "NEW_AND_OLD_IMAGES");
  const stats = await statisticsOnceDelivered("sized", 7);
  assert.equal(stats.BatchesDelivered, 3);
  assert.equal(stats.RecordsDelivered, 7);
  assert.equal(stats.BatchesFailed, 0);
  const listed = await server.control("GET", "/ddbd/triggers");
  assert.ok(listed.body.Triggers.some((trigger) => trigger.Name === "sized"));
  const metrics = await (await fetch(`${server.endpoint}/metrics`)).text();
  assert.match(metrics, /^ddbd_trigger_batches_total\{trigger="sized",outcome="delivered"\} 3$/m);
  assert.match(metrics, /^ddbd_trigger_records_total\{trigger="sized",fate="delivered"\} 7$/m);
  assert.match(metrics, /^ddbd_trigger_iterator_age_seconds\{trigger="sized"\} 0$/m);
});

test("MaximumBatchingWindowInSeconds holds a batch until the service clock has moved on", async () => {
  await createStreamTable("Windowed");
  const now = (await server.control("GET", "/ddbd/clock")).body.Now;
  assert.equal((await server.control("PUT", "/ddbd/clock", { Now: now + 1 })).status, 200);
  try {
    await putTrigger("windowed", {
      TableName: "Windowed", Url: handler.url("/windowed"), StartingPosition: "LATEST",
      MaximumBatchingWindowInSeconds: 30,
    });
    await put("Windowed", "w1");
    await put("Windowed", "w2");
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(handler.keys("/windowed"), []);  // the frozen clock keeps the window open
    assert.equal((await server.control("PUT", "/ddbd/clock", { Advance: 29 })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(handler.keys("/windowed"), []);
    await server.control("PUT", "/ddbd/clock", { Advance: 2 });
    await eventually(() => handler.keys("/windowed").length === 1, "the window's batch");
    assert.deepEqual(handler.keys("/windowed"), [["w1", "w2"]]);
  } finally {
    await server.control("PUT", "/ddbd/clock", { Run: true });
  }
});

test("each key's changes arrive in order under concurrent writes, with parallel lanes", async () => {
  await createStreamTable("Concurrent");
  await putTrigger("concurrent", {
    TableName: "Concurrent", Url: handler.url("/concurrent"), StartingPosition: "LATEST",
    BatchSize: 4, ParallelizationFactor: 5,
  });
  const keys = Array.from({ length: 20 }, (_, i) => `key${i}`);
  await Promise.all(keys.map(async (pk) => {
    for (let version = 1; version <= 10; ++version) {
      await client.send(new UpdateItemCommand({
        TableName: "Concurrent", Key: { pk: { S: pk } },
        UpdateExpression: "SET version = :v", ExpressionAttributeValues: { ":v": { N: `${version}` } },
      }));
    }
  }));
  const versions = () => {
    const byKey = {};
    for (const event of handler.batches["/concurrent"] ?? []) {
      for (const record of event.Records) {
        (byKey[record.dynamodb.Keys.pk.S] ??= []).push(Number(record.dynamodb.NewImage.version.N));
      }
    }
    return byKey;
  };
  await eventually(() => Object.values(versions()).flat().length === 200, "200 records");
  for (const pk of keys) {
    assert.deepEqual(versions()[pk], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], pk);
  }
  assert.ok(handler.batches["/concurrent"].every((event) => event.Records.length <= 4));
});

test("bisection isolates the failing record, which goes to the on-failure destination", async () => {
  await createStreamTable("Poisoned");
  const items = ["p1", "p2", "p3", "poison", "p5", "p6", "p7", "p8"];
  for (const pk of items) await put("Poisoned", pk);
  handler.respond = (path, event) => {
    const poisoned = event.Records?.some((record) => record.dynamodb.Keys.pk.S === "poison");
    return path === "/poisoned" && poisoned ? { status: 500, body: '{"message":"boom"}' }
                                            : { status: 200, body: "" };
  };
  try {
    await putTrigger("poisoned", {
      TableName: "Poisoned", Url: handler.url("/poisoned"), StartingPosition: "TRIM_HORIZON",
      BatchSize: 8, BisectBatchOnFunctionError: true, MaximumRetryAttempts: 1,
      DestinationConfig: { OnFailure: { Destination: handler.url("/poisoned-failures") } },
    });
    await eventually(() => (handler.batches["/poisoned-failures"] ?? []).length === 1,
                     "the on-failure record");
    await eventually(() => handler.keys("/poisoned").flat().at(-1) === "p8", "the last record");
    // 8 → 4 + 4 → (poison's half) 2 + 2 → poison alone, retried once, then given up.
    assert.deepEqual(handler.keys("/poisoned"), [
      items, ["p1", "p2", "p3", "poison"], ["p1", "p2"], ["p3", "poison"], ["p3"], ["poison"],
      ["poison"], ["p5", "p6", "p7", "p8"]]);
    const failure = handler.batches["/poisoned-failures"][0];
    const poisonRecord = handler.batches["/poisoned"][0].Records[3];
    assert.equal(failure.requestContext.condition, "RetryAttemptsExhausted");
    assert.equal(failure.requestContext.approximateInvokeCount, 5);
    assert.equal(failure.responseContext.functionError, "Unhandled");
    assert.equal(failure.version, "1.0");
    assert.equal(failure.DDBStreamBatchInfo.batchSize, 1);
    assert.equal(failure.DDBStreamBatchInfo.startSequenceNumber, poisonRecord.dynamodb.SequenceNumber);
    assert.equal(failure.DDBStreamBatchInfo.endSequenceNumber, poisonRecord.dynamodb.SequenceNumber);
    assert.equal(failure.DDBStreamBatchInfo.streamArn, poisonRecord.eventSourceARN);
    assert.match(failure.DDBStreamBatchInfo.shardId, /^shardId-/);
    const stats = await statisticsOnceDelivered("poisoned", 7);
    assert.equal(stats.RecordsDiscarded, 1);
    assert.equal(stats.RecordsDelivered, 7);
    assert.equal(stats.BatchesFailed, 5);
    assert.match(stats.LastError, /HTTP 500/);
  } finally {
    handler.respond = () => ({ status: 200, body: "" });
  }
});

test("ReportBatchItemFailures: delivery resumes at the first failed record", async () => {
  await createStreamTable("Partial");
  for (const pk of ["a", "b", "c", "d", "e"]) await put("Partial", pk);
  let calls = 0;
  handler.respond = (path, event) => {
    if (path !== "/partial" || calls++ > 0) return { status: 200, body: '{"batchItemFailures":[]}' };
    const failed = event.Records.filter((r) => ["c", "e"].includes(r.dynamodb.Keys.pk.S));
    return { status: 200, body: JSON.stringify({
      batchItemFailures: failed.map((r) => ({ itemIdentifier: r.dynamodb.SequenceNumber })) }) };
  };
  try {
    await putTrigger("partial", {
      TableName: "Partial", Url: handler.url("/partial"), StartingPosition: "TRIM_HORIZON",
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
    await eventually(() => handler.keys("/partial").length === 2, "the retry");
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(handler.keys("/partial"), [["a", "b", "c", "d", "e"], ["c", "d", "e"]]);
    const stats = await statisticsOnceDelivered("partial", 5);
    assert.equal(stats.BatchesRetried, 1);
    assert.equal(stats.RecordsDelivered, 5);
  } finally {
    handler.respond = () => ({ status: 200, body: "" });
  }
});

test("FilterCriteria delivers only the INSERTs of one entity type", async () => {
  await createStreamTable("Entities");
  await putTrigger("orders-only", {
    TableName: "Entities", Url: handler.url("/orders"), StartingPosition: "LATEST",
    FilterCriteria: { Filters: [{ Pattern: JSON.stringify({
      eventName: ["INSERT"], dynamodb: { NewImage: { type: { S: ["Order"] } } } }) }] },
  });
  await put("Entities", "order#1", { type: { S: "Order" } });
  await put("Entities", "user#1", { type: { S: "User" } });
  await put("Entities", "order#1", { type: { S: "Order" }, total: { N: "5" } });  // MODIFY
  await client.send(new DeleteItemCommand({ TableName: "Entities", Key: { pk: { S: "user#1" } } }));
  await put("Entities", "order#2", { type: { S: "Order" } });
  await eventually(async () => (await statistics("orders-only")).RecordsFiltered === 3,
                   "three filtered records");
  await eventually(() => handler.keys("/orders").flat().length === 2, "two orders");
  assert.deepEqual(handler.keys("/orders").flat(), ["order#1", "order#2"]);
});

test("Time to Live deletions arrive as REMOVE records with the service's identity", async () => {
  await createStreamTable("Expiring");
  await client.send(new UpdateTimeToLiveCommand({
    TableName: "Expiring", TimeToLiveSpecification: { Enabled: true, AttributeName: "expireAt" },
  }));
  await putTrigger("expiring", {
    TableName: "Expiring", Url: handler.url("/expiring"), StartingPosition: "LATEST",
    FilterCriteria: { Filters: [{ Pattern: '{"userIdentity":{"type":["Service"]}}' }] },
  });
  const now = (await server.control("GET", "/ddbd/clock")).body.Now;
  await put("Expiring", "session", { expireAt: { N: `${Math.floor(now) + 60}` } });
  await server.control("PUT", "/ddbd/clock", { Advance: 61 });
  try {
    assert.equal((await server.control("POST", "/ddbd/ttl/sweep")).body.Deleted, 1);
    await eventually(() => handler.keys("/expiring").length === 1, "the REMOVE record");
    const record = handler.batches["/expiring"][0].Records[0];
    assert.equal(record.eventName, "REMOVE");
    assert.deepEqual(record.userIdentity,
                     { type: "Service", principalId: "dynamodb.amazonaws.com" });
    assert.equal(record.dynamodb.OldImage.pk.S, "session");
    assert.equal((await statistics("expiring")).RecordsFiltered, 1);  // the INSERT
  } finally {
    await server.control("PUT", "/ddbd/clock", { Run: true });
  }
});

test("after a SIGKILL mid-delivery every change arrives, in order, only the open batch twice",
     async () => {
  await createStreamTable("Durable");
  for (let i = 0; i < 60; ++i) await put("Durable", `k${i % 6}`, { i: { N: `${i}` } });
  let received = 0;
  let inFlight;
  const killed = new Promise((resolve) => {
    handler.respond = (path) => {
      if (path !== "/durable") return { status: 200, body: "" };
      if (++received === 4) {
        resolve();
        return { status: 200, body: "", delayMs: 5000 };  // never answered: the server dies
      }
      return { status: 200, body: "" };
    };
  });
  try {
    await putTrigger("durable", {
      TableName: "Durable", Url: handler.url("/durable"), StartingPosition: "TRIM_HORIZON",
      BatchSize: 5,
    });
    await killed;
    inFlight = handler.batches["/durable"][3];
    await server.restart("SIGKILL");
    client.destroy();
    client = server.client();
    const numbers = () => (handler.batches["/durable"] ?? []).map(
      (event) => event.Records.map((record) => Number(record.dynamodb.NewImage.i.N)));
    await eventually(() => numbers().flat().at(-1) === 59, "the last change after the restart");
    const batches = numbers();
    // Batches 1–4 before the kill, the unacknowledged 4th again, then the rest.
    assert.deepEqual(batches[4], batches[3]);
    assert.deepEqual(inFlight.Records.map((r) => Number(r.dynamodb.NewImage.i.N)), batches[3]);
    const once = [...batches.slice(0, 4), ...batches.slice(5)].flat();
    assert.deepEqual(once, Array.from({ length: 60 }, (_, i) => i));
    const stats = await statisticsOnceDelivered("durable", 45);
    assert.equal(stats.RecordsDelivered, 45);  // since the restart: batches 4 to 12
  } finally {
    handler.respond = () => ({ status: 200, body: "" });
  }
});

test("the control API refuses bad definitions and answers 404 for unknown triggers", async () => {
  const invalid = await server.control("PUT", "/ddbd/triggers/bad", {
    TableName: "Sized", Url: handler.url("/bad"), StartingPosition: "LATEST", BatchSize: 0,
  });
  assert.equal(invalid.status, 400);
  assert.equal(invalid.body.__type, "com.amazon.coral.validate#ValidationException");
  assert.equal(invalid.body.message, "1 validation error detected: Value '0' at 'batchSize' " +
               "failed to satisfy constraint: Member must have value greater than or equal to 1");
  const noTarget = await server.control("PUT", "/ddbd/triggers/bad",
                                        { TableName: "Sized", StartingPosition: "LATEST" });
  assert.equal(noTarget.status, 400);
  assert.match(noTarget.body.message, /exactly one target/);
  const badName = await server.control("PUT", "/ddbd/triggers/b@d",
                                       { TableName: "Sized", Command: "cat", StartingPosition: "LATEST" });
  assert.equal(badName.status, 400);
  const missing = await server.control("GET", "/ddbd/triggers/nope");
  assert.equal(missing.status, 404);
  assert.equal((await server.control("DELETE", "/ddbd/triggers/nope")).status, 404);
  const deleted = await server.control("DELETE", "/ddbd/triggers/sized");
  assert.equal(deleted.status, 200);
  assert.equal(deleted.body.Name, "sized");
  await put("Sized", "after-delete");
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(!handler.keys("/sized").flat().includes("after-delete"));
  assert.equal((await server.control("GET", "/ddbd/triggers/sized")).status, 404);
});

test("--triggers FILE starts a command trigger before its table exists", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ddbd-triggers-"));
  const output = join(dir, "events.jsonl");
  const file = join(dir, "triggers.json");
  writeFileSync(file, JSON.stringify({ Triggers: [{
    Name: "audit", TableName: "Audit", StartingPosition: "LATEST",
    Command: `cat >> '${output}' && echo >> '${output}'`,
  }] }));
  const other = await startDdbd("--triggers", file);
  const otherClient = other.client();
  try {
    await otherClient.send(new CreateTableCommand({
      TableName: "Audit", BillingMode: "PAY_PER_REQUEST",
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: "KEYS_ONLY" },
    }));
    await otherClient.send(new PutItemCommand({ TableName: "Audit", Item: { pk: { S: "x" } } }));
    await eventually(() => existsSync(output) && readFileSync(output, "utf8").includes("\n"),
                     "the command's output");
    const event = JSON.parse(readFileSync(output, "utf8").trim());
    assert.equal(event.Records.length, 1);
    assert.deepEqual(event.Records[0].dynamodb.Keys, { pk: { S: "x" } });
    assert.equal(event.Records[0].dynamodb.StreamViewType, "KEYS_ONLY");
    assert.equal(event.Records[0].dynamodb.NewImage, undefined);
    const listed = await other.control("GET", "/ddbd/triggers/audit");
    assert.equal(listed.body.LastProcessingResult, "OK");
  } finally {
    otherClient.destroy();
    await other.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a --triggers file that Lambda's rules refuse stops the server at start-up", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ddbd-triggers-"));
  const file = join(dir, "triggers.json");
  try {
    writeFileSync(file, JSON.stringify({ Triggers: [{
      Name: "audit", TableName: "Audit", Command: "cat", StartingPosition: "LATEST",
      ParallelizationFactor: 11,
    }] }));
    await assert.rejects(startDdbd("--triggers", file),
                         /exited with 1: .*trigger audit: 1 validation error detected: Value '11' at 'parallelizationFactor'/s);
    writeFileSync(file, "[]");
    await assert.rejects(startDdbd("--triggers", file),
                         /exited with 1: .*the file must be \{"Triggers"/s);
    await assert.rejects(startDdbd("--triggers", join(dir, "missing.json")),
                         /exited with 1: .*--triggers: cannot read/s);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
