// Expressions through the JavaScript SDK v3 and its DocumentClient.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { CreateTableCommand, ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient, PutCommand, QueryCommand, ScanCommand, UpdateCommand, GetCommand,
  DeleteCommand, paginateQuery,
} from "@aws-sdk/lib-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, client, doc;

before(async () => {
  server = await startDdbd();
  client = server.client();
  doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  await client.send(new CreateTableCommand({
    TableName: "StoreData",
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }, { AttributeName: "SK", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" },
                           { AttributeName: "SK", AttributeType: "S" }],
    BillingMode: "PAY_PER_REQUEST",
  }));
  await doc.send(new PutCommand({ TableName: "StoreData", Item: {
    PK: "USER#1001", SK: "METADATA", name: "Jane Doe", email: "jane@example.com" } }));
  for (const [sk, status] of [["ORDER#2025-03-01#9981", "SHIPPED"], ["ORDER#2025-03-05#9982", "PENDING"]]) {
    await doc.send(new PutCommand({ TableName: "StoreData", Item: {
      PK: "USER#1001", SK: sk, status, total: 149.99 } }));
  }
});

after(async () => {
  client.destroy();
  await server.stop();
});

test("user and recent orders in one query, and the seed's invalid form", async () => {
  const { Items } = await doc.send(new QueryCommand({
    TableName: "StoreData",
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :orderPrefix)",
    ExpressionAttributeValues: { ":pk": "USER#1001", ":orderPrefix": "ORDER#" },
  }));
  assert.deepEqual(Items.map((i) => i.SK), ["ORDER#2025-03-01#9981", "ORDER#2025-03-05#9982"]);
  await assert.rejects(doc.send(new QueryCommand({
    TableName: "StoreData",
    KeyConditionExpression: "PK = :pk AND SK begins_with(:orderPrefix)",
    ExpressionAttributeValues: { ":pk": "USER#1001", ":orderPrefix": "ORDER#" },
  })), {
    name: "ValidationException",
    message: 'Invalid KeyConditionExpression: Syntax error; token: "begins_with", near: "SK begins_with("',
  });
});

test("newest first, filters and pagination", async () => {
  const { Items } = await doc.send(new QueryCommand({
    TableName: "StoreData", KeyConditionExpression: "PK = :pk",
    ExpressionAttributeValues: { ":pk": "USER#1001" }, ScanIndexForward: false,
  }));
  assert.deepEqual(Items.map((i) => i.SK),
                   ["ORDER#2025-03-05#9982", "ORDER#2025-03-01#9981", "METADATA"]);
  const filtered = await doc.send(new ScanCommand({
    TableName: "StoreData", FilterExpression: "#s = :s",
    ExpressionAttributeNames: { "#s": "status" }, ExpressionAttributeValues: { ":s": "PENDING" },
  }));
  assert.deepEqual(filtered.Items.map((i) => i.SK), ["ORDER#2025-03-05#9982"]);
  const pages = [];
  for await (const page of paginateQuery({ client: doc, pageSize: 1 }, {
    TableName: "StoreData", KeyConditionExpression: "PK = :pk",
    ExpressionAttributeValues: { ":pk": "USER#1001" },
  })) pages.push(page.Items.length);
  assert.deepEqual(pages, [1, 1, 1, 0]);
});

test("update with counters, nulls and removal", async () => {
  const key = { PK: "USER#1001", SK: "METADATA" };
  const counted = await doc.send(new UpdateCommand({
    TableName: "StoreData", Key: key,
    UpdateExpression: "SET view_count = if_not_exists(view_count, :zero) + :inc, nickname = :nil REMOVE email",
    ExpressionAttributeValues: { ":zero": 0, ":inc": 1, ":nil": null }, ReturnValues: "ALL_NEW",
  }));
  assert.deepEqual(counted.Attributes, { ...key, name: "Jane Doe", view_count: 1, nickname: null });
});

test("conditional writes", async () => {
  await assert.rejects(doc.send(new PutCommand({
    TableName: "StoreData", Item: { PK: "USER#1001", SK: "METADATA" },
    ConditionExpression: "attribute_not_exists(PK)",
  })), (error) => error instanceof ConditionalCheckFailedException &&
                  error.message === "The conditional request failed");
  await assert.rejects(doc.send(new DeleteCommand({
    TableName: "StoreData", Key: { PK: "USER#1001", SK: "METADATA" },
    ConditionExpression: "#n = :n", ExpressionAttributeNames: { "#n": "name" },
    ExpressionAttributeValues: { ":n": "Someone Else" }, ReturnValuesOnConditionCheckFailure: "ALL_OLD",
  })), (error) => error.name === "ConditionalCheckFailedException" && error.Item?.name?.S === "Jane Doe");
  const { Item } = await doc.send(new GetCommand({
    TableName: "StoreData", Key: { PK: "USER#1001", SK: "METADATA" }, ProjectionExpression: "#n",
    ExpressionAttributeNames: { "#n": "name" },
  }));
  assert.deepEqual(Item, { name: "Jane Doe" });
});
