// The AWS SDK for JavaScript v2 (aws-sdk), as its documentation shows it: the low-level client
// with waiters, and the DocumentClient for items, conditions, queries, batches and transactions.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import AWS from "aws-sdk";
import { startDdbd } from "./ddbd.mjs";

let server;
let dynamodb;
let documents;

before(async () => {
  server = await startDdbd();
  const config = {
    endpoint: server.endpoint, region: "us-east-1", maxRetries: 0,
    credentials: new AWS.Credentials("AKIDV2", "secret"),
  };
  dynamodb = new AWS.DynamoDB(config);
  documents = new AWS.DynamoDB.DocumentClient({ service: dynamodb });
  await dynamodb.createTable({
    TableName: "Orders", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "customer", KeyType: "HASH" },
                { AttributeName: "orderId", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "customer", AttributeType: "S" },
                           { AttributeName: "orderId", AttributeType: "S" },
                           { AttributeName: "status", AttributeType: "S" },
                           { AttributeName: "placedAt", AttributeType: "N" }],
    GlobalSecondaryIndexes: [{
      IndexName: "byStatus", Projection: { ProjectionType: "ALL" },
      KeySchema: [{ AttributeName: "status", KeyType: "HASH" },
                  { AttributeName: "placedAt", KeyType: "RANGE" }],
    }],
  }).promise();
  const waited = await dynamodb.waitFor("tableExists", {
    TableName: "Orders", $waiter: { delay: 1, maxAttempts: 5 } }).promise();
  assert.equal(waited.Table.TableStatus, "ACTIVE");
  assert.equal(waited.Table.GlobalSecondaryIndexes[0].IndexStatus, "ACTIVE");
});

after(async () => {
  await server.stop();
});

const order = (customer, orderId, status, placedAt, amount, extra = {}) =>
  ({ customer, orderId, status, placedAt, amount, ...extra });

test("DocumentClient put, get, conditional update and delete", async () => {
  await documents.put({ TableName: "Orders", Item: order("ann", "o-1", "OPEN", 100, 25.5, {
    tags: documents.createSet(["gift", "express"]), lines: [{ sku: "A", qty: 2 }] }) }).promise();
  const got = await documents.get({ TableName: "Orders",
                                    Key: { customer: "ann", orderId: "o-1" } }).promise();
  assert.equal(got.Item.amount, 25.5);
  assert.deepEqual(got.Item.lines, [{ sku: "A", qty: 2 }]);
  assert.deepEqual(got.Item.tags.values.sort(), ["express", "gift"]);

  const updated = await documents.update({
    TableName: "Orders", Key: { customer: "ann", orderId: "o-1" },
    UpdateExpression: "SET #s = :shipped, amount = amount + :fee ADD tags :more",
    ConditionExpression: "#s = :open",
    ExpressionAttributeNames: { "#s": "status" },
    ExpressionAttributeValues: { ":shipped": "SHIPPED", ":open": "OPEN", ":fee": 4.5,
                                 ":more": documents.createSet(["fragile"]) },
    ReturnValues: "UPDATED_NEW",
  }).promise();
  assert.equal(updated.Attributes.status, "SHIPPED");
  assert.equal(updated.Attributes.amount, 30);
  assert.deepEqual(updated.Attributes.tags.values.sort(), ["express", "fragile", "gift"]);

  await assert.rejects(documents.update({
    TableName: "Orders", Key: { customer: "ann", orderId: "o-1" },
    UpdateExpression: "SET #s = :shipped", ConditionExpression: "#s = :open",
    ExpressionAttributeNames: { "#s": "status" },
    ExpressionAttributeValues: { ":shipped": "SHIPPED", ":open": "OPEN" },
  }).promise(), (error) => {
    assert.equal(error.code, "ConditionalCheckFailedException");
    assert.equal(error.statusCode, 400);
    return true;
  });

  const deleted = await documents.delete({ TableName: "Orders",
                                           Key: { customer: "ann", orderId: "o-1" },
                                           ReturnValues: "ALL_OLD" }).promise();
  assert.equal(deleted.Attributes.status, "SHIPPED");
  const gone = await documents.get({ TableName: "Orders",
                                     Key: { customer: "ann", orderId: "o-1" } }).promise();
  assert.equal(gone.Item, undefined);
});

test("batches, queries with sort-key conditions and filters, the GSI, pagination", async () => {
  const items = [];
  for (let i = 0; i < 30; i++) {
    items.push(order("bob", `o-${String(i).padStart(2, "0")}`, i % 3 === 0 ? "OPEN" : "CLOSED",
                     1000 + i, i * 10));
  }
  for (let i = 0; i < items.length; i += 25) {
    const written = await documents.batchWrite({ RequestItems: {
      Orders: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }).promise();
    assert.deepEqual(written.UnprocessedItems, {});
  }
  const read = await documents.batchGet({ RequestItems: { Orders: {
    Keys: [{ customer: "bob", orderId: "o-03" }, { customer: "bob", orderId: "o-29" },
           { customer: "bob", orderId: "missing" }],
    ProjectionExpression: "orderId, amount" } } }).promise();
  assert.deepEqual(read.Responses.Orders.map((i) => i.orderId).sort(), ["o-03", "o-29"]);
  assert.deepEqual(read.UnprocessedKeys, {});

  const between = await documents.query({
    TableName: "Orders",
    KeyConditionExpression: "customer = :c AND orderId BETWEEN :from AND :to",
    FilterExpression: "amount >= :min",
    ExpressionAttributeValues: { ":c": "bob", ":from": "o-10", ":to": "o-19", ":min": 150 },
    ScanIndexForward: false,
  }).promise();
  assert.deepEqual(between.Items.map((i) => i.orderId),
                   ["o-19", "o-18", "o-17", "o-16", "o-15"]);
  assert.equal(between.ScannedCount, 10);

  const open = await documents.query({
    TableName: "Orders", IndexName: "byStatus",
    KeyConditionExpression: "#s = :open AND placedAt > :after",
    ExpressionAttributeNames: { "#s": "status" },
    ExpressionAttributeValues: { ":open": "OPEN", ":after": 1010 },
  }).promise();
  assert.deepEqual(open.Items.map((i) => i.placedAt), [1012, 1015, 1018, 1021, 1024, 1027]);

  const seen = [];
  let ExclusiveStartKey;
  do {
    const page = await documents.query({
      TableName: "Orders", KeyConditionExpression: "customer = :c AND begins_with(orderId, :p)",
      ExpressionAttributeValues: { ":c": "bob", ":p": "o-2" }, Limit: 4, ExclusiveStartKey,
    }).promise();
    seen.push(...page.Items.map((i) => i.orderId));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  assert.deepEqual(seen, ["o-20", "o-21", "o-22", "o-23", "o-24", "o-25", "o-26", "o-27",
                          "o-28", "o-29"]);
});

test("transactions: all or nothing, with the cancellation reasons", async () => {
  await documents.transactWrite({ TransactItems: [
    { Put: { TableName: "Orders", Item: order("cat", "o-1", "OPEN", 1, 5),
             ConditionExpression: "attribute_not_exists(orderId)" } },
    { Put: { TableName: "Orders", Item: order("cat", "o-2", "OPEN", 2, 7) } },
  ] }).promise();

  const request = documents.transactWrite({ TransactItems: [
    { Update: { TableName: "Orders", Key: { customer: "cat", orderId: "o-2" },
                UpdateExpression: "SET amount = :t", ExpressionAttributeValues: { ":t": 99 } } },
    { ConditionCheck: { TableName: "Orders", Key: { customer: "cat", orderId: "o-1" },
                        ConditionExpression: "#s = :closed",
                        ExpressionAttributeNames: { "#s": "status" },
                        ExpressionAttributeValues: { ":closed": "CLOSED" } } },
  ] });
  let reasons;
  request.on("extractError", (response) => {
    reasons = JSON.parse(response.httpResponse.body.toString()).CancellationReasons;
  });
  await assert.rejects(request.promise(), (error) => {
    assert.equal(error.code, "TransactionCanceledException");
    assert.match(error.message, /\[None, ConditionalCheckFailed\]/);
    return true;
  });
  assert.deepEqual(reasons.map((r) => r.Code), ["None", "ConditionalCheckFailed"]);

  const both = await documents.transactGet({ TransactItems: [
    { Get: { TableName: "Orders", Key: { customer: "cat", orderId: "o-1" } } },
    { Get: { TableName: "Orders", Key: { customer: "cat", orderId: "o-2" } } },
  ] }).promise();
  assert.deepEqual(both.Responses.map((r) => r.Item.amount), [5, 7]);  // the update did not apply
});

test("scan with a filter, then delete the table and wait for it to go", async () => {
  const scanned = await documents.scan({
    TableName: "Orders", FilterExpression: "customer = :c",
    ExpressionAttributeValues: { ":c": "cat" }, Select: "COUNT" }).promise();
  assert.equal(scanned.Count, 2);
  await dynamodb.deleteTable({ TableName: "Orders" }).promise();
  await dynamodb.waitFor("tableNotExists", {
    TableName: "Orders", $waiter: { delay: 1, maxAttempts: 5 } }).promise();
  const listed = await dynamodb.listTables().promise();
  assert.deepEqual(listed.TableNames, []);
});
