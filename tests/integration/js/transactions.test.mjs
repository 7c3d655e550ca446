// Transactions through the JavaScript SDK: lib-dynamodb's TransactWriteCommand and
// TransactGetCommand on an order that reserves stock, and the SDK's
// TransactionCanceledException with its CancellationReasons when the stock runs out.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient, PutCommand, TransactGetCommand, TransactWriteCommand,
} from "@aws-sdk/lib-dynamodb";
import { createKeyedTable, startDdbd } from "./ddbd.mjs";

let server, client, documents;

before(async () => {
  server = await startDdbd();
  client = server.client();
  documents = DynamoDBDocumentClient.from(client);
  await createKeyedTable(client, "Shop", ["pk", "S"], ["sk", "S"]);
  await documents.send(new PutCommand({ TableName: "Shop",
                                        Item: { pk: "PRODUCT#1", sk: "STOCK", count: 2 } }));
});

after(async () => {
  client.destroy();
  await server.stop();
});

function order(id) {
  return new TransactWriteCommand({ TransactItems: [
    { Update: { TableName: "Shop", Key: { pk: "PRODUCT#1", sk: "STOCK" },
                UpdateExpression: "SET #c = #c - :one", ConditionExpression: "#c >= :one",
                ExpressionAttributeNames: { "#c": "count" }, ExpressionAttributeValues: { ":one": 1 },
                ReturnValuesOnConditionCheckFailure: "ALL_OLD" } },
    { Put: { TableName: "Shop", Item: { pk: `ORDER#${id}`, sk: "ORDER", product: "PRODUCT#1" },
             ConditionExpression: "attribute_not_exists(pk)" } },
  ] });
}

test("orders reserve stock until none is left", async () => {
  await documents.send(order(1));
  await documents.send(order(2));
  const error = await documents.send(order(3)).catch((e) => e);
  assert.ok(error instanceof TransactionCanceledException);
  assert.equal(error.message, "Transaction cancelled, please refer cancellation reasons for " +
                              "specific reasons [ConditionalCheckFailed, None]");
  assert.deepEqual(error.CancellationReasons.map((reason) => reason.Code),
                   ["ConditionalCheckFailed", "None"]);
  assert.deepEqual(error.CancellationReasons[0].Item,
                   { pk: { S: "PRODUCT#1" }, sk: { S: "STOCK" }, count: { N: "0" } });

  const { Responses } = await documents.send(new TransactGetCommand({ TransactItems: [
    { Get: { TableName: "Shop", Key: { pk: "PRODUCT#1", sk: "STOCK" } } },
    { Get: { TableName: "Shop", Key: { pk: "ORDER#2", sk: "ORDER" } } },
    { Get: { TableName: "Shop", Key: { pk: "ORDER#3", sk: "ORDER" } } },
  ] }));
  assert.deepEqual(Responses, [
    { Item: { pk: "PRODUCT#1", sk: "STOCK", count: 0 } },
    { Item: { pk: "ORDER#2", sk: "ORDER", product: "PRODUCT#1" } },
    {},
  ]);
});
