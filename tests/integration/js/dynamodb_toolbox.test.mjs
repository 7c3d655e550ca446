// dynamodb-toolbox (v2), as its documentation shows it: a table with a GSI, an entity whose
// keys it computes, put/get/update/delete commands with conditions, queries of the table and
// the index with range conditions and filters, batch writes and reads, and transactions.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { CreateTableCommand, GetItemCommand as RawGetItemCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { Table } from "dynamodb-toolbox/table";
import { Entity } from "dynamodb-toolbox/entity";
import { item } from "dynamodb-toolbox/schema/item";
import { string } from "dynamodb-toolbox/schema/string";
import { number } from "dynamodb-toolbox/schema/number";
import { set } from "dynamodb-toolbox/schema/set";
import { PutItemCommand, isConditionCheckFailed } from "dynamodb-toolbox/entity/actions/put";
import { GetItemCommand } from "dynamodb-toolbox/entity/actions/get";
import { UpdateItemCommand, $add } from "dynamodb-toolbox/entity/actions/update";
import { DeleteItemCommand } from "dynamodb-toolbox/entity/actions/delete";
import { QueryCommand } from "dynamodb-toolbox/table/actions/query";
import { BatchWriteCommand, execute as writeBatch } from "dynamodb-toolbox/table/actions/batchWrite";
import { BatchGetCommand, execute as getBatch } from "dynamodb-toolbox/table/actions/batchGet";
import { BatchPutRequest } from "dynamodb-toolbox/entity/actions/batchPut";
import { BatchGetRequest } from "dynamodb-toolbox/entity/actions/batchGet";
import { PutTransaction } from "dynamodb-toolbox/entity/actions/transactPut";
import { UpdateTransaction } from "dynamodb-toolbox/entity/actions/transactUpdate";
import { ConditionCheck } from "dynamodb-toolbox/entity/actions/transactCheck";
import { execute as writeTransaction } from "dynamodb-toolbox/entity/actions/transactWrite";
import { startDdbd } from "./ddbd.mjs";

let server;
let table;
let User;

before(async () => {
  server = await startDdbd();
  const client = server.client("AKIDTOOLBOX");
  await client.send(new CreateTableCommand({
    TableName: "toolbox", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }, { AttributeName: "SK", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" },
                           { AttributeName: "SK", AttributeType: "S" },
                           { AttributeName: "team", AttributeType: "S" },
                           { AttributeName: "age", AttributeType: "N" }],
    GlobalSecondaryIndexes: [{
      IndexName: "byTeam", Projection: { ProjectionType: "ALL" },
      KeySchema: [{ AttributeName: "team", KeyType: "HASH" },
                  { AttributeName: "age", KeyType: "RANGE" }],
    }],
  }));
  table = new Table({
    name: "toolbox",
    partitionKey: { name: "PK", type: "string" },
    sortKey: { name: "SK", type: "string" },
    indexes: { byTeam: { type: "global", partitionKey: { name: "team", type: "string" },
                         sortKey: { name: "age", type: "number" } } },
    documentClient: DynamoDBDocumentClient.from(client),
  });
  User = new Entity({
    name: "USER",
    table,
    schema: item({
      org: string().key(),
      userId: string().key(),
      team: string(),
      age: number(),
      roles: set(string()).optional(),
    }),
    computeKey: ({ org, userId }) => ({ PK: `ORG#${org}`, SK: `USER#${userId}` }),
  });
});

after(async () => {
  await server.stop();
});

const user = (userId, team, age, extra = {}) => ({ org: "acme", userId, team, age, ...extra });
const userIds = (items) => items.map((i) => i.userId);

test("put under a condition, get, update with $add, delete", async () => {
  await User.build(PutItemCommand).item(user("ann", "red", 30, { roles: new Set(["dev"]) }))
    .options({ condition: { attr: "userId", exists: false } }).send();
  await assert.rejects(
    User.build(PutItemCommand).item(user("ann", "blue", 1))
      .options({ condition: { attr: "userId", exists: false } }).send(),
    (error) => isConditionCheckFailed(error) && error.name === "ConditionalCheckFailedException");

  const { Attributes } = await User.build(UpdateItemCommand)
    .item({ org: "acme", userId: "ann", age: $add(1), roles: $add(new Set(["admin"])) })
    .options({ condition: { attr: "age", gte: 18 }, returnValues: "ALL_NEW" }).send();
  assert.equal(Attributes.age, 31);
  assert.deepEqual([...Attributes.roles].sort(), ["admin", "dev"]);

  const { Item } = await User.build(GetItemCommand).key({ org: "acme", userId: "ann" }).send();
  assert.equal(Item.team, "red");
  assert.equal(Item.age, 31);
  const raw = await server.client("AKIDTOOLBOX").send(new RawGetItemCommand({
    TableName: "toolbox", Key: { PK: { S: "ORG#acme" }, SK: { S: "USER#ann" } } }));
  assert.equal(raw.Item.age.N, "31");  // stored under the keys computeKey made

  await User.build(DeleteItemCommand).key({ org: "acme", userId: "ann" }).send();
  const after = await User.build(GetItemCommand).key({ org: "acme", userId: "ann" }).send();
  assert.equal(after.Item, undefined);
});

test("batch writes and reads, queries with range conditions and filters, the index", async () => {
  const requests = [];
  for (let i = 0; i < 20; i++) {
    requests.push(User.build(BatchPutRequest).item(
      user(`u${String(i).padStart(2, "0")}`, i % 2 ? "red" : "blue", 20 + i)));
  }
  await writeBatch(table.build(BatchWriteCommand).requests(...requests.slice(0, 10)));
  await writeBatch(table.build(BatchWriteCommand).requests(...requests.slice(10)));
  const { Responses } = await getBatch(table.build(BatchGetCommand).requests(
    User.build(BatchGetRequest).key({ org: "acme", userId: "u03" }),
    User.build(BatchGetRequest).key({ org: "acme", userId: "u17" })));
  assert.deepEqual(Responses[0].map((i) => i?.userId), ["u03", "u17"]);

  const ranged = await table.build(QueryCommand)
    .query({ partition: "ORG#acme", range: { between: ["USER#u05", "USER#u09"] } })
    .entities(User)
    .options({ filters: { USER: { attr: "age", gt: 26 } } })
    .send();
  assert.deepEqual(userIds(ranged.Items), ["u07", "u08", "u09"]);
  assert.equal(ranged.ScannedCount, 5);

  const redOver30 = await table.build(QueryCommand)
    .query({ index: "byTeam", partition: "red", range: { gte: 33 } })
    .entities(User)
    .options({ reverse: true })
    .send();
  assert.deepEqual(userIds(redOver30.Items), ["u19", "u17", "u15", "u13"]);
});

test("transactions apply all of their writes or none", async () => {
  await writeTransaction(
    User.build(PutTransaction).item(user("t1", "green", 40)),
    User.build(PutTransaction).item(user("t2", "green", 41)));
  await assert.rejects(writeTransaction(
    User.build(UpdateTransaction).item({ org: "acme", userId: "t1", age: $add(10) }),
    User.build(ConditionCheck).key({ org: "acme", userId: "t2" })
      .condition({ attr: "team", eq: "blue" })),
  (error) => {
    assert.equal(error.name, "TransactionCanceledException");
    assert.deepEqual(error.CancellationReasons.map((r) => r.Code), ["None", "ConditionalCheckFailed"]);
    return true;
  });
  const { Item } = await User.build(GetItemCommand).key({ org: "acme", userId: "t1" }).send();
  assert.equal(Item.age, 40);
});
