// --gsi-lag-ms with the JavaScript SDK v3: an item is missing from a GSI Query right after
// its write and found once the server's clock has passed the lag; the table reads it at once.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, GetItemCommand, PutItemCommand, QueryCommand,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server;

before(async () => {
  server = await startDdbd("--in-memory", "--gsi-lag-ms", "500",
                           "--start-time", "2030-01-01T00:00:00Z");
});
after(async () => { await server.stop(); });

async function advance(seconds) {
  assert.equal((await server.control("PUT", "/ddbd/clock", { Advance: seconds })).status, 200);
}

test("a GSI Query right after a write misses it until the lag has passed", async () => {
  const ddb = server.client();
  await ddb.send(new CreateTableCommand({
    TableName: "JsLagged", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" },
                           { AttributeName: "email", AttributeType: "S" }],
    GlobalSecondaryIndexes: [{
      IndexName: "byEmail", KeySchema: [{ AttributeName: "email", KeyType: "HASH" }],
      Projection: { ProjectionType: "KEYS_ONLY" },
    }],
  }));
  await ddb.send(new PutItemCommand({
    TableName: "JsLagged", Item: { id: { S: "u1" }, email: { S: "a@example.com" } },
  }));
  const byEmail = () => ddb.send(new QueryCommand({
    TableName: "JsLagged", IndexName: "byEmail", KeyConditionExpression: "email = :e",
    ExpressionAttributeValues: { ":e": { S: "a@example.com" } },
  }));
  assert.equal((await byEmail()).Count, 0);
  const got = await ddb.send(new GetItemCommand({
    TableName: "JsLagged", Key: { id: { S: "u1" } }, ConsistentRead: true,
  }));
  assert.equal(got.Item.email.S, "a@example.com");
  await advance(0.5);
  assert.deepEqual((await byEmail()).Items, [{ id: { S: "u1" }, email: { S: "a@example.com" } }]);
});
