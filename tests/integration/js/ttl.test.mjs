// Time to Live through the JavaScript SDK: enabling it, and sessions that expire out of a
// table written with lib-dynamodb's DocumentClient, as a login store would use it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DescribeTimeToLiveCommand, UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, client, documents;

before(async () => {
  server = await startDdbd("--ttl-interval-ms", "100");
  client = server.client();
  documents = DynamoDBDocumentClient.from(client);
});

after(async () => {
  client.destroy();
  await server.stop();
});

async function sessionsOf(userId) {
  const { Items } = await documents.send(new QueryCommand({
    TableName: "Sessions", KeyConditionExpression: "userId = :u",
    ExpressionAttributeValues: { ":u": userId }, ConsistentRead: true,
  }));
  return Items.map((item) => item.token).sort();
}

test("expired sessions disappear; live ones stay", async () => {
  await client.send(new CreateTableCommand({
    TableName: "Sessions", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "userId", KeyType: "HASH" },
                { AttributeName: "token", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "userId", AttributeType: "S" },
                           { AttributeName: "token", AttributeType: "S" }],
  }));
  const enabled = await client.send(new UpdateTimeToLiveCommand({
    TableName: "Sessions", TimeToLiveSpecification: { Enabled: true, AttributeName: "expiresAt" },
  }));
  assert.deepEqual(enabled.TimeToLiveSpecification, { Enabled: true, AttributeName: "expiresAt" });
  const described = await client.send(new DescribeTimeToLiveCommand({ TableName: "Sessions" }));
  assert.deepEqual(described.TimeToLiveDescription,
                   { TimeToLiveStatus: "ENABLED", AttributeName: "expiresAt" });

  const now = Math.floor(Date.now() / 1000);
  for (const [token, expiresAt] of [["old", now - 30], ["live", now + 3600], ["older", now - 90]]) {
    await documents.send(new PutCommand({ TableName: "Sessions",
                                          Item: { userId: "u1", token, expiresAt } }));
  }
  const deadline = Date.now() + 10000;
  while ((await sessionsOf("u1")).length > 1 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.deepEqual(await sessionsOf("u1"), ["live"]);

  await assert.rejects(
    client.send(new UpdateTimeToLiveCommand({
      TableName: "Sessions", TimeToLiveSpecification: { Enabled: true, AttributeName: "expiresAt" },
    })),
    { name: "ValidationException", message: "TimeToLive is already enabled" });
});
