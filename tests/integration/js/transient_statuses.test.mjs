// -delayTransientStatuses with the JavaScript SDK's waiters: tables pass through CREATING and
// DELETING, and the waiters poll until the change is done, as against DynamoDB.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DeleteTableCommand, DescribeTableCommand, PutItemCommand,
  waitUntilTableExists, waitUntilTableNotExists,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, client;

before(async () => {
  server = await startDdbd("-delayTransientStatuses");
  client = server.client();
});

after(async () => {
  client.destroy();
  await server.stop();
});

test("waiters see CREATING, then ACTIVE; DELETING, then no table", async () => {
  const TableName = "Waited";
  const { TableDescription } = await client.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  }));
  assert.equal(TableDescription.TableStatus, "CREATING");
  await assert.rejects(client.send(new PutItemCommand({ TableName, Item: { pk: { S: "early" } } })),
                       { name: "ResourceNotFoundException" });
  const created = await waitUntilTableExists({ client, minDelay: 1, maxDelay: 1, maxWaitTime: 20 },
                                             { TableName });
  assert.equal(created.state, "SUCCESS");
  const { Table } = await client.send(new DescribeTableCommand({ TableName }));
  assert.equal(Table.TableStatus, "ACTIVE");
  await client.send(new PutItemCommand({ TableName, Item: { pk: { S: "a" } } }));

  const deleted = await client.send(new DeleteTableCommand({ TableName }));
  assert.equal(deleted.TableDescription.TableStatus, "DELETING");
  const described = await client.send(new DescribeTableCommand({ TableName }));
  assert.equal(described.Table.TableStatus, "DELETING");
  const gone = await waitUntilTableNotExists({ client, minDelay: 1, maxDelay: 1, maxWaitTime: 20 },
                                             { TableName });
  assert.equal(gone.state, "SUCCESS");
});
