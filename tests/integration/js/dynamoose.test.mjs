// dynamoose, as its documentation shows it: a model whose table (with a GSI) dynamoose creates
// and waits for, items created and updated under conditions, queries on the table and the
// index with sort-key conditions and filters, scans, batches and a transaction.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import dynamoose from "dynamoose";
import { startDdbd } from "./ddbd.mjs";

let server;
let Player;

before(async () => {
  server = await startDdbd();
  dynamoose.aws.ddb.set(new dynamoose.aws.ddb.DynamoDB({
    endpoint: server.endpoint, region: "us-east-1", maxAttempts: 1,
    credentials: { accessKeyId: "AKIDDYNAMOOSE", secretAccessKey: "secret" },
  }));
  const schema = new dynamoose.Schema({
    id: { type: String, hashKey: true },
    round: { type: Number, rangeKey: true },
    team: { type: String, index: { name: "byTeam", type: "global", rangeKey: "score" } },
    score: Number,
    active: Boolean,
    tags: { type: Set, schema: [String] },
  });
  Player = dynamoose.model("Players", schema, {
    create: true, throughput: "ON_DEMAND", initialize: false,
    waitForActive: { enabled: true, check: { timeout: 10000, frequency: 50 } },
  });
  await Player.table().initialize();
});

after(async () => {
  await server.stop();
});

test("the table dynamoose created has the schema's keys and index", async () => {
  const described = await dynamoose.aws.ddb().describeTable({ TableName: "Players" });
  assert.deepEqual(described.Table.KeySchema, [{ AttributeName: "id", KeyType: "HASH" },
                                               { AttributeName: "round", KeyType: "RANGE" }]);
  assert.equal(described.Table.GlobalSecondaryIndexes[0].IndexName, "byTeam");
  assert.equal(described.Table.BillingModeSummary.BillingMode, "PAY_PER_REQUEST");
});

test("create refuses an existing key; update under a condition; get and delete", async () => {
  await Player.create({ id: "ann", round: 1, team: "red", score: 10, active: true,
                        tags: new Set(["new"]) });
  await assert.rejects(Player.create({ id: "ann", round: 1, team: "blue", score: 0 }),
                       (error) => error.name === "ConditionalCheckFailedException");
  const updated = await Player.update({ id: "ann", round: 1 },
                                      { $ADD: { score: 5, tags: ["veteran"] } },
                                      { condition: new dynamoose.Condition("active").eq(true),
                                        returnValues: "ALL_NEW" });
  assert.equal(updated.score, 15);
  assert.deepEqual([...updated.tags].sort(), ["new", "veteran"]);
  await assert.rejects(Player.update({ id: "ann", round: 1 }, { score: 0 },
                                     { condition: new dynamoose.Condition("active").eq(false) }),
                       (error) => error.name === "ConditionalCheckFailedException");
  const got = await Player.get({ id: "ann", round: 1 });
  assert.equal(got.score, 15);
  assert.equal(got.team, "red");
  await Player.delete({ id: "ann", round: 1 });
  assert.equal(await Player.get({ id: "ann", round: 1 }), undefined);
});

test("batches, queries on the table and the index, and scans", async () => {
  const players = [];
  for (let round = 1; round <= 12; round++) {
    players.push({ id: "bob", round, team: round % 2 ? "red" : "blue", score: round * 3,
                   active: round % 4 !== 0 });
  }
  const put = await Player.batchPut(players);
  assert.deepEqual(put.unprocessedItems, []);
  const two = await Player.batchGet([{ id: "bob", round: 2 }, { id: "bob", round: 11 }]);
  assert.deepEqual(two.map((p) => p.round).sort((a, b) => a - b), [2, 11]);

  const middle = await Player.query("id").eq("bob").where("round").between(3, 8)
    .filter("active").eq(true).exec();
  assert.deepEqual(middle.map((p) => p.round), [3, 5, 6, 7]);
  assert.equal(middle.count, 4);

  const red = await Player.query("team").eq("red").using("byTeam").where("score").gt(10)
    .sort("descending").exec();
  assert.deepEqual(red.map((p) => p.score), [33, 27, 21, 15]);

  const counted = await Player.scan("score").ge(30).count().exec();
  assert.equal(counted.count, 3);
});

test("a transaction applies all of its writes or none", async () => {
  await dynamoose.transaction([
    Player.transaction.create({ id: "cat", round: 1, team: "red", score: 1 }),
    Player.transaction.create({ id: "cat", round: 2, team: "red", score: 2 }),
  ]);
  await assert.rejects(dynamoose.transaction([
    Player.transaction.update({ id: "cat", round: 1 }, { $ADD: { score: 100 } }),
    Player.transaction.create({ id: "cat", round: 2, team: "red", score: 9 }),
  ]), (error) => {
    assert.equal(error.name, "TransactionCanceledException");
    assert.match(error.message, /\[None, ConditionalCheckFailed\]/);
    return true;
  });
  assert.equal((await Player.get({ id: "cat", round: 1 })).score, 1);
});
