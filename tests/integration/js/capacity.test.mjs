// --enforce-capacity with the JavaScript SDK v3: a 1-WCU table's burst, the SDK's retries of a
// real throttling answer (its ThrottlingReasons parsed by the SDK), refill by the clock, and a
// BatchWriteItem loop finishing what capacity left unprocessed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  BatchWriteItemCommand, CreateTableCommand, PutItemCommand, ScanCommand,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server;

before(async () => {
  server = await startDdbd("--in-memory", "--enforce-capacity",
                           "--start-time", "2030-01-01T00:00:00Z");
});
after(async () => { await server.stop(); });

async function advance(seconds) {
  assert.equal((await server.control("PUT", "/ddbd/clock", { Advance: seconds })).status, 200);
}

const client = (maxAttempts = 1) => server.client("AKIDJS", "us-east-1", maxAttempts);

async function provisionedTable(ddb, name) {
  await ddb.send(new CreateTableCommand({
    TableName: name, BillingMode: "PROVISIONED",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
  }));
}

const put = (pk) => ({ PutRequest: { Item: { pk: { S: pk } } } });

async function fill(ddb, table, count, prefix) {
  for (let start = 0; start < count; start += 25) {
    const requests = [];
    for (let i = start; i < Math.min(count, start + 25); i++) requests.push(put(`${prefix}${i}`));
    const answer = await ddb.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
    assert.deepEqual(answer.UnprocessedItems, {});
  }
}

test("a 1-WCU table throttles past its burst; the SDK retries and the clock refills", async () => {
  const ddb = client();
  await provisionedTable(ddb, "JsOneWcu");
  await fill(ddb, "JsOneWcu", 300, "burst");
  const retrying = client(3);
  await assert.rejects(
    retrying.send(new PutItemCommand({ TableName: "JsOneWcu", Item: { pk: { S: "over" } } })),
    (error) => {
      assert.equal(error.name, "ProvisionedThroughputExceededException");
      assert.equal(error.$metadata.attempts, 3);
      assert.deepEqual(error.ThrottlingReasons, [{
        reason: "TableWriteProvisionedThroughputExceeded",
        resource: "arn:aws:dynamodb:us-east-1:000000000000:table/JsOneWcu",
      }]);
      return true;
    });
  await advance(1);
  const answer = await retrying.send(
    new PutItemCommand({ TableName: "JsOneWcu", Item: { pk: { S: "over" } } }));
  assert.equal(answer.$metadata.attempts, 1);
  const count = await ddb.send(new ScanCommand({ TableName: "JsOneWcu", Select: "COUNT" }));
  assert.equal(count.Count, 301);
});

test("a BatchWriteItem loop finishes what capacity left unprocessed", async () => {
  const ddb = client();
  await provisionedTable(ddb, "JsPartial");
  await fill(ddb, "JsPartial", 296, "burst");
  const requests = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => put(`batch${i}`));
  let answer = await ddb.send(new BatchWriteItemCommand({ RequestItems: { JsPartial: requests } }));
  assert.deepEqual(answer.UnprocessedItems, { JsPartial: requests.slice(4) });
  let rounds = 0;
  while (Object.keys(answer.UnprocessedItems).length > 0) {
    await advance(2);
    answer = await ddb.send(new BatchWriteItemCommand({ RequestItems: answer.UnprocessedItems }));
    rounds += 1;
  }
  assert.equal(rounds, 2);
  const count = await ddb.send(new ScanCommand({ TableName: "JsPartial", Select: "COUNT" }));
  assert.equal(count.Count, 304);
});
