// Items through @aws-sdk/client-dynamodb and @aws-sdk/lib-dynamodb.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, PutItemCommand, GetItemCommand, DeleteItemCommand, BatchWriteItemCommand,
  BatchGetItemCommand, DescribeTableCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient, PutCommand, GetCommand, DeleteCommand, BatchWriteCommand,
  BatchGetCommand,
} from "@aws-sdk/lib-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, client, doc;

before(async () => {
  server = await startDdbd();
  client = server.client();
  doc = DynamoDBDocumentClient.from(client);
  await client.send(new CreateTableCommand({
    TableName: "Users",
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }, { AttributeName: "SK", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" },
                           { AttributeName: "SK", AttributeType: "S" }],
    BillingMode: "PAY_PER_REQUEST",
  }));
});

after(async () => {
  client.destroy();
  await server.stop();
});

test("the seed's PutItemCommand on Users", async () => {
  const command = new PutItemCommand({
    TableName: "Users",
    Item: { PK: { S: "USER#123" }, SK: { S: "PROFILE" }, Name: { S: "Alice" } },
  });
  await client.send(command);
  const { Item } = await client.send(new GetItemCommand({
    TableName: "Users", Key: { PK: { S: "USER#123" }, SK: { S: "PROFILE" } },
  }));
  assert.deepEqual(Item, { PK: { S: "USER#123" }, SK: { S: "PROFILE" }, Name: { S: "Alice" } });
});

test("DocumentClient round trip of native JavaScript values", async () => {
  const item = {
    PK: "USER#1001", SK: "METADATA", name: "Jane Doe", email: "jane@example.com",
    total: 149.99, active: true, nothing: null, tags: new Set(["a", "b"]),
    address: { city: "Paris", zip: "75001", lines: ["1 rue", 2] },
    raw: new Uint8Array([0, 1, 255]),
  };
  await doc.send(new PutCommand({ TableName: "Users", Item: item }));
  const { Item } = await doc.send(new GetCommand({
    TableName: "Users", Key: { PK: "USER#1001", SK: "METADATA" }, ConsistentRead: true,
  }));
  assert.deepEqual(Item, item);
});

test("ReturnValues ALL_OLD and delete", async () => {
  const key = { PK: "USER#2", SK: "PROFILE" };
  await doc.send(new PutCommand({ TableName: "Users", Item: { ...key, version: 1 } }));
  const replaced = await doc.send(new PutCommand({
    TableName: "Users", Item: { ...key, version: 2 }, ReturnValues: "ALL_OLD",
  }));
  assert.deepEqual(replaced.Attributes, { ...key, version: 1 });
  const deleted = await doc.send(new DeleteCommand({
    TableName: "Users", Key: key, ReturnValues: "ALL_OLD", ReturnConsumedCapacity: "TOTAL",
  }));
  assert.deepEqual(deleted.Attributes, { ...key, version: 2 });
  assert.equal(deleted.ConsumedCapacity.CapacityUnits, 1);
  const { Item } = await doc.send(new GetCommand({ TableName: "Users", Key: key }));
  assert.equal(Item, undefined);
});

test("batch write and batch get with the DocumentClient", async () => {
  const items = Array.from({ length: 25 }, (_, i) => ({
    PK: "ORG#acme", SK: `USER#${String(i).padStart(3, "0")}`, n: i,
  }));
  const written = await doc.send(new BatchWriteCommand({
    RequestItems: { Users: items.map((Item) => ({ PutRequest: { Item } })) },
  }));
  assert.deepEqual(written.UnprocessedItems, {});
  const read = await doc.send(new BatchGetCommand({
    RequestItems: { Users: { Keys: [{ PK: "ORG#acme", SK: "USER#007" },
                                    { PK: "ORG#acme", SK: "USER#024" }] } },
  }));
  const got = read.Responses.Users.sort((a, b) => a.n - b.n);
  assert.deepEqual(got, [items[7], items[24]]);
  assert.deepEqual(read.UnprocessedKeys, {});
  const { Table } = await client.send(new DescribeTableCommand({ TableName: "Users" }));
  assert.ok(Table.ItemCount >= 25);
});

test("errors carry DynamoDB's names and messages", async () => {
  await assert.rejects(
    client.send(new GetItemCommand({ TableName: "Users", Key: { PK: { S: "x" } } })),
    { name: "ValidationException", message: "The provided key element does not match the schema" });
  await assert.rejects(
    client.send(new GetItemCommand({ TableName: "Nope", Key: { PK: { S: "x" } } })),
    { name: "ResourceNotFoundException", message: "Requested resource not found" });
  await assert.rejects(
    client.send(new PutItemCommand({ TableName: "Users", Item: { PK: { S: "x" } } })),
    { name: "ValidationException",
      message: "One or more parameter values were invalid: Missing the key SK in the item" });
  await assert.rejects(
    client.send(new BatchWriteItemCommand({ RequestItems: { Users: [
      { PutRequest: { Item: { PK: { S: "d" }, SK: { S: "1" } } } },
      { DeleteRequest: { Key: { PK: { S: "d" }, SK: { S: "1" } } } },
    ] } })),
    { name: "ValidationException", message: "Provided list of item keys contains duplicates" });
  await assert.rejects(
    client.send(new BatchGetItemCommand({ RequestItems: { Users: { Keys: [] } } })),
    { name: "ValidationException" });
  await assert.rejects(
    client.send(new DeleteItemCommand({ TableName: "Users",
      Key: { PK: { S: "a" }, SK: { S: "b" } }, ReturnValues: "ALL_NEW" })),
    { name: "ValidationException", message: "ReturnValues can only be ALL_OLD or NONE" });
});
