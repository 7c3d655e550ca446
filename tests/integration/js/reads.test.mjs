// Query/Scan paging, parallel scan and legacy parameters through the JavaScript SDK v3.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, BatchWriteItemCommand, ScanCommand, QueryCommand, PutItemCommand,
  UpdateItemCommand, GetItemCommand, ConditionalCheckFailedException, paginateScan,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, client;

before(async () => {
  server = await startDdbd();
  client = server.client();
  await client.send(new CreateTableCommand({
    TableName: "Events",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "ts", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" },
                           { AttributeName: "ts", AttributeType: "N" }],
    BillingMode: "PAY_PER_REQUEST",
  }));
  const payload = "x".repeat(60000);
  for (let batch = 0; batch < 4; ++batch) {
    await client.send(new BatchWriteItemCommand({ RequestItems: { Events: Array.from(
      { length: 25 }, (_, i) => ({ PutRequest: { Item: {
        pk: { S: `device#${(batch * 25 + i) % 10}` }, ts: { N: String(batch * 25 + i) },
        payload: { S: payload } } } })) } }));
  }
});

after(async () => {
  client.destroy();
  await server.stop();
});

test("scan pages over more than 1 MB until LastEvaluatedKey is gone", async () => {
  let pages = 0, items = 0;
  for await (const page of paginateScan({ client }, { TableName: "Events" })) {
    pages += 1;
    items += page.Count;
  }
  // 100 items of ~60 KB: a page ends after the item that crosses 1 MB (18 items).
  assert.equal(items, 100);
  assert.equal(pages, 6);
});

test("parallel scan segments partition the table", async () => {
  const seen = new Set();
  let total = 0;
  for (let segment = 0; segment < 3; ++segment) {
    for await (const page of paginateScan({ client }, {
      TableName: "Events", Segment: segment, TotalSegments: 3, ProjectionExpression: "pk, ts" })) {
      for (const item of page.Items) {
        seen.add(`${item.pk.S}/${item.ts.N}`);
        total += 1;
      }
    }
  }
  assert.equal(total, 100);
  assert.equal(seen.size, 100);
});

test("numeric sort-key ranges with a filter", async () => {
  const { Items, Count, ScannedCount } = await client.send(new QueryCommand({
    TableName: "Events", KeyConditionExpression: "pk = :pk AND ts BETWEEN :a AND :b",
    FilterExpression: "size(payload) > :n",
    ExpressionAttributeValues: { ":pk": { S: "device#3" }, ":a": { N: "10" }, ":b": { N: "60" },
                                 ":n": { N: "100" } },
    ProjectionExpression: "ts", ScanIndexForward: false,
  }));
  assert.deepEqual(Items.map((i) => i.ts.N), ["53", "43", "33", "23", "13"]);
  assert.equal(Count, 5);
  assert.equal(ScannedCount, 5);
});

test("legacy KeyConditions, Expected and AttributeUpdates", async () => {
  const { Items } = await client.send(new QueryCommand({
    TableName: "Events",
    KeyConditions: {
      pk: { ComparisonOperator: "EQ", AttributeValueList: [{ S: "device#1" }] },
      ts: { ComparisonOperator: "LT", AttributeValueList: [{ N: "30" }] },
    },
    AttributesToGet: ["ts"],
  }));
  assert.deepEqual(Items, [{ ts: { N: "1" } }, { ts: { N: "11" } }, { ts: { N: "21" } }]);
  await assert.rejects(client.send(new PutItemCommand({
    TableName: "Events", Item: { pk: { S: "device#1" }, ts: { N: "1" } },
    Expected: { pk: { Exists: false } },
  })), (error) => error instanceof ConditionalCheckFailedException);
  await client.send(new UpdateItemCommand({
    TableName: "Events", Key: { pk: { S: "device#1" }, ts: { N: "1" } },
    AttributeUpdates: { hits: { Action: "ADD", Value: { N: "3" } }, payload: { Action: "DELETE" } },
  }));
  const { Item } = await client.send(new GetItemCommand({
    TableName: "Events", Key: { pk: { S: "device#1" }, ts: { N: "1" } } }));
  assert.deepEqual(Item, { pk: { S: "device#1" }, ts: { N: "1" }, hits: { N: "3" } });
});

test("Limit counts evaluated items and LastEvaluatedKey resumes", async () => {
  const first = await client.send(new ScanCommand({ TableName: "Events", Limit: 7,
                                                    ProjectionExpression: "pk" }));
  assert.equal(first.ScannedCount, 7);
  assert.ok(first.LastEvaluatedKey);
  const second = await client.send(new ScanCommand({
    TableName: "Events", Limit: 7, ExclusiveStartKey: first.LastEvaluatedKey,
    ProjectionExpression: "pk" }));
  assert.equal(second.ScannedCount, 7);
  assert.notDeepEqual(second.LastEvaluatedKey, first.LastEvaluatedKey);
});
