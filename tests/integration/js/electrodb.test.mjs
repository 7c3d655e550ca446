// ElectroDB, as its documentation shows it: an entity on a single table with a GSI, created,
// read, updated and patched under conditions, queried by sort-key conditions and filters,
// written and read in batches, and written in a transaction.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Entity, Service } from "electrodb";
import { CreateTableCommand } from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server;
let Task;
let tasks;

before(async () => {
  server = await startDdbd();
  const client = server.client("AKIDELECTRO");
  await client.send(new CreateTableCommand({
    TableName: "electro", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    AttributeDefinitions: ["pk", "sk", "gsi1pk", "gsi1sk"].map(
      (AttributeName) => ({ AttributeName, AttributeType: "S" })),
    GlobalSecondaryIndexes: [{
      IndexName: "gsi1pk-gsi1sk-index", Projection: { ProjectionType: "ALL" },
      KeySchema: [{ AttributeName: "gsi1pk", KeyType: "HASH" },
                  { AttributeName: "gsi1sk", KeyType: "RANGE" }],
    }],
  }));
  Task = new Entity({
    model: { entity: "task", version: "1", service: "taskapp" },
    attributes: {
      project: { type: "string", required: true },
      taskId: { type: "string", required: true },
      title: { type: "string", required: true },
      status: { type: ["open", "done"], default: "open" },
      points: { type: "number", default: 0 },
      tags: { type: "set", items: "string" },
      owner: { type: "string", required: true },
    },
    indexes: {
      byProject: {
        pk: { field: "pk", composite: ["project"] },
        sk: { field: "sk", composite: ["taskId"] },
      },
      byOwner: {
        index: "gsi1pk-gsi1sk-index",
        pk: { field: "gsi1pk", composite: ["owner"] },
        sk: { field: "gsi1sk", composite: ["status", "taskId"] },
      },
    },
  }, { table: "electro", client });
  tasks = new Service({ task: Task });
});

after(async () => {
  await server.stop();
});

const ids = (items) => items.map((item) => item.taskId);

test("create is conditional; get, update with a where clause, patch and delete", async () => {
  const created = await Task.create({ project: "p1", taskId: "t-01", title: "Write docs",
                                      owner: "ann", tags: ["docs"] }).go();
  assert.equal(created.data.status, "open");
  await assert.rejects(Task.create({ project: "p1", taskId: "t-01", title: "again",
                                     owner: "bob" }).go(),
                       (error) => /The conditional request failed/.test(error.message));

  const updated = await Task.update({ project: "p1", taskId: "t-01" })
    .set({ status: "done" }).add({ points: 3, tags: ["urgent"] })
    .where(({ status }, { eq }) => eq(status, "open"))
    .go({ response: "all_new" });
  assert.equal(updated.data.status, "done");
  assert.equal(updated.data.points, 3);
  assert.deepEqual([...updated.data.tags].sort(), ["docs", "urgent"]);
  await assert.rejects(Task.update({ project: "p1", taskId: "t-01" }).set({ points: 9 })
                         .where(({ status }, { eq }) => eq(status, "open")).go(),
                       (error) => /The conditional request failed/.test(error.message));

  await assert.rejects(Task.patch({ project: "p1", taskId: "nope" }).set({ points: 1 }).go(),
                       (error) => /The conditional request failed/.test(error.message));

  const got = await Task.get({ project: "p1", taskId: "t-01" }).go();
  assert.equal(got.data.points, 3);
  assert.equal(got.data.title, "Write docs");
  await Task.delete({ project: "p1", taskId: "t-01" }).go();
  assert.equal((await Task.get({ project: "p1", taskId: "t-01" }).go()).data, null);
});

test("batch put and get, queries by sort-key conditions, filters and the GSI", async () => {
  const batch = [];
  for (let i = 0; i < 30; i++) {
    batch.push({ project: "p2", taskId: `t-${String(i).padStart(2, "0")}`, title: `task ${i}`,
                 owner: i % 2 ? "ann" : "bob", status: i % 3 ? "open" : "done", points: i });
  }
  const put = await Task.put(batch).go();
  assert.deepEqual(put.unprocessed, []);
  const read = await Task.get([{ project: "p2", taskId: "t-07" },
                               { project: "p2", taskId: "t-28" }]).go();
  assert.deepEqual(ids(read.data).sort(), ["t-07", "t-28"]);
  assert.deepEqual(read.unprocessed, []);

  const between = await Task.query.byProject({ project: "p2" })
    .between({ taskId: "t-10" }, { taskId: "t-14" }).go();
  assert.deepEqual(ids(between.data), ["t-10", "t-11", "t-12", "t-13", "t-14"]);

  const filtered = await Task.query.byProject({ project: "p2" })
    .begins({ taskId: "t-2" })
    .where(({ points, status }, { gt, eq }) => `${gt(points, 24)} AND ${eq(status, "open")}`)
    .go();
  assert.deepEqual(ids(filtered.data), ["t-25", "t-26", "t-28", "t-29"]);

  const annOpen = await Task.query.byOwner({ owner: "ann", status: "open" }).go();
  assert.deepEqual(ids(annOpen.data), ["t-01", "t-05", "t-07", "t-11", "t-13", "t-17", "t-19",
                                       "t-23", "t-25", "t-29"]);
  const annAll = await Task.query.byOwner({ owner: "ann" }).go({ pages: "all" });
  assert.equal(annAll.data.length, 15);
});

test("a transaction applies all its writes or none, with ElectroDB's reasons", async () => {
  const committed = await tasks.transaction.write(({ task }) => [
    task.create({ project: "p3", taskId: "t-1", title: "one", owner: "cat" }).commit(),
    task.create({ project: "p3", taskId: "t-2", title: "two", owner: "cat" }).commit(),
  ]).go();
  assert.equal(committed.canceled, false);

  const refused = await tasks.transaction.write(({ task }) => [
    task.patch({ project: "p3", taskId: "t-1" }).set({ points: 50 }).commit(),
    task.create({ project: "p3", taskId: "t-2", title: "dup", owner: "cat" }).commit(),
  ]).go();
  assert.equal(refused.canceled, true);
  assert.deepEqual(refused.data.map(({ rejected, code }) => [rejected, code]),
                   [[false, "None"], [true, "ConditionalCheckFailed"]]);
  assert.equal((await Task.get({ project: "p3", taskId: "t-1" }).go()).data.points, 0);
});
