// The control API with the JavaScript SDK v3: namespaces named by a middleware header, the
// clock and TTL sweeps, and the SDK's own retries under injected faults.
import { test, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import {
  BatchWriteItemCommand, CreateTableCommand, DescribeTableCommand, DynamoDBClient, GetItemCommand,
  ListTablesCommand, PutItemCommand, UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server;

before(async () => { server = await startDdbd("--in-memory"); });
after(async () => { await server.stop(); });
afterEach(async () => { await control("DELETE", "/ddbd/faults"); });

const control = (method, path, body) => server.control(method, path, body);

// A client whose every request names `namespace`; `maxAttempts` as the SDK counts them.
function client({ namespace, maxAttempts = 1 } = {}) {
  const ddb = new DynamoDBClient({
    endpoint: server.endpoint, region: "us-east-1", maxAttempts,
    credentials: { accessKeyId: "AKIDJS", secretAccessKey: "secret" },
  });
  if (namespace) {
    ddb.middlewareStack.add((next) => (args) => {
      args.request.headers["x-ddbd-namespace"] = namespace;
      return next(args);
    }, { step: "build", name: "ddbdNamespace" });
  }
  return ddb;
}

async function createTable(ddb, name) {
  await ddb.send(new CreateTableCommand({
    TableName: name, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  }));
}

test("workers in different namespaces own the same table name", async () => {
  const [a, b] = [client({ namespace: "js-a" }), client({ namespace: "js-b" })];
  await Promise.all([createTable(a, "Jobs"), createTable(b, "Jobs")]);
  await a.send(new PutItemCommand({ TableName: "Jobs", Item: { pk: { S: "only-a" } } }));
  const fromB = await b.send(new GetItemCommand({ TableName: "Jobs", Key: { pk: { S: "only-a" } } }));
  assert.equal(fromB.Item, undefined);
  const listed = await control("GET", "/ddbd/namespaces");
  assert.deepEqual(listed.body.Namespaces.filter((n) => n.Name.startsWith("js-")), [
    { Name: "js-a", TableCount: 1, ItemCount: 1, SnapshotCount: 0 },
    { Name: "js-b", TableCount: 1, ItemCount: 0, SnapshotCount: 0 },
  ]);
  assert.deepEqual((await control("DELETE", "/ddbd/namespaces/js-a")).body,
                   { Name: "js-a", TablesDeleted: 1, BackupsDeleted: 0 });
  assert.deepEqual((await a.send(new ListTablesCommand({}))).TableNames, []);
  assert.deepEqual((await b.send(new ListTablesCommand({}))).TableNames, ["Jobs"]);
  a.destroy(); b.destroy();
});

test("the SDK retries injected throttling and reports its attempts", async () => {
  const ddb = client({ maxAttempts: 3 });
  await createTable(ddb, "Retried");
  await control("PUT", "/ddbd/faults", { Rules: [{
    Operation: "PutItem", Count: 2, Error: { Type: "ProvisionedThroughputExceededException" } }] });
  const answer = await ddb.send(new PutItemCommand({ TableName: "Retried", Item: { pk: { S: "a" } } }));
  assert.equal(answer.$metadata.attempts, 3);
  assert.ok(answer.$metadata.totalRetryDelay > 0);

  await control("PUT", "/ddbd/faults", { Rules: [{
    Operation: "GetItem", Error: { Type: "ThrottlingException" } }] });
  await assert.rejects(ddb.send(new GetItemCommand({ TableName: "Retried", Key: { pk: { S: "a" } } })),
    (error) => {
      assert.equal(error.name, "ThrottlingException");
      assert.equal(error.$metadata.attempts, 3);
      assert.equal(error.$metadata.httpStatusCode, 400);
      return true;
    });
  const { body } = await control("GET", "/ddbd/faults");
  assert.equal(body.Rules[0].Fired, 3);
  ddb.destroy();
});

test("a batch write with injected UnprocessedItems completes in the user's retry loop", async () => {
  const ddb = client();
  await createTable(ddb, "Batched");
  await control("PUT", "/ddbd/faults", { Rules: [{
    Operation: "BatchWriteItem", Count: 2, Seed: 9, Unprocessed: { Fraction: 0.5 } }] });
  let requests = { Batched: Array.from({ length: 20 }, (_, i) => (
    { PutRequest: { Item: { pk: { S: `k${i}` } } } })) };
  const unprocessedCounts = [];
  while (Object.keys(requests).length > 0) {
    const answer = await ddb.send(new BatchWriteItemCommand({ RequestItems: requests }));
    requests = answer.UnprocessedItems ?? {};
    unprocessedCounts.push(requests.Batched?.length ?? 0);
  }
  assert.deepEqual(unprocessedCounts, [10, 5, 0]);
  const { Table } = await ddb.send(new DescribeTableCommand({ TableName: "Batched" }));
  assert.equal(Table.ItemCount, 20);
  ddb.destroy();
});

test("one fixture, forked per worker, restored after a test", async () => {
  const fixture = client({ namespace: "js-fixture" });
  await createTable(fixture, "Catalog");
  for (let i = 0; i < 50; i += 25) {
    await fixture.send(new BatchWriteItemCommand({ RequestItems: { Catalog: Array.from(
      { length: 25 }, (_, j) => ({ PutRequest: { Item: { pk: { S: `p${i + j}` } } } })) } }));
  }
  const saved = await control("PUT", "/ddbd/namespaces/js-fixture/snapshots/base");
  assert.equal(saved.status, 200);
  assert.equal(saved.body.ItemCount, 50);
  for (const worker of ["js-w1", "js-w2"]) {
    const forked = await control("POST", "/ddbd/namespaces/js-fixture/snapshots/base/fork",
                                 { To: worker });
    assert.equal(forked.status, 200);
  }
  const w1 = client({ namespace: "js-w1" });
  const w2 = client({ namespace: "js-w2" });
  await w1.send(new PutItemCommand({ TableName: "Catalog", Item: { pk: { S: "extra" } } }));
  assert.equal((await w1.send(new DescribeTableCommand({ TableName: "Catalog" }))).Table.ItemCount, 51);
  assert.equal((await w2.send(new DescribeTableCommand({ TableName: "Catalog" }))).Table.ItemCount, 50);
  // A test that changed its copy puts it back.
  assert.equal((await control("PUT", "/ddbd/namespaces/js-w1/snapshots/clean")).status, 200);
  await w1.send(new PutItemCommand({ TableName: "Catalog", Item: { pk: { S: "more" } } }));
  assert.equal((await control("POST", "/ddbd/namespaces/js-w1/snapshots/clean/restore")).status, 200);
  assert.equal((await w1.send(new DescribeTableCommand({ TableName: "Catalog" }))).Table.ItemCount, 51);
  const { body } = await control("GET", "/ddbd/snapshots");
  assert.deepEqual(body.Snapshots.map((s) => [s.Namespace, s.Name, s.ItemCount]),
                   [["js-fixture", "base", 50], ["js-w1", "clean", 51]]);
  for (const [namespace, name] of [["js-fixture", "base"], ["js-w1", "clean"]]) {
    await control("DELETE", `/ddbd/namespaces/${namespace}/snapshots/${name}`);
  }
  for (const namespace of ["js-fixture", "js-w1", "js-w2"]) {
    await control("DELETE", `/ddbd/namespaces/${namespace}`);
  }
  fixture.destroy(); w1.destroy(); w2.destroy();
});

test("TTL expiry through the clock", async () => {
  const ddb = client({ namespace: "js-ttl" });
  await createTable(ddb, "Expiring");
  await ddb.send(new UpdateTimeToLiveCommand({
    TableName: "Expiring", TimeToLiveSpecification: { Enabled: true, AttributeName: "expireAt" },
  }));
  const frozen = await control("PUT", "/ddbd/clock", { Run: false });
  assert.equal(frozen.body.Mode, "frozen");
  const now = Math.floor(frozen.body.Now);
  await ddb.send(new PutItemCommand({
    TableName: "Expiring", Item: { pk: { S: "s" }, expireAt: { N: String(now + 60) } },
  }));
  await control("PUT", "/ddbd/clock", { Advance: 61 });
  const swept = await control("POST", "/ddbd/ttl/sweep");
  assert.equal(swept.status, 200);
  assert.equal(swept.body.Deleted, 1);
  assert.equal(Math.round(swept.body.Now * 1000), Math.round(frozen.body.Now * 1000) + 61000);
  const { Item } = await ddb.send(new GetItemCommand({ TableName: "Expiring", Key: { pk: { S: "s" } } }));
  assert.equal(Item, undefined);
  await control("PUT", "/ddbd/clock", { Run: true });
  ddb.destroy();
});
