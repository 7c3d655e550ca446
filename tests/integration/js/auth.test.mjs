// --credentials with @aws-sdk/client-dynamodb: the SDK's SigV4 signatures verify with the
// right secret and fail as DynamoDB's do otherwise.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateTableCommand, DynamoDBClient, GetItemCommand, ListTablesCommand, PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, directory;

before(async () => {
  directory = mkdtempSync(join(tmpdir(), "ddbd-js-auth-"));
  const file = join(directory, "credentials");
  writeFileSync(file, "# keys\nAKIDJSAUTH js/secret+1\n");
  server = await startDdbd("--credentials", file);
});

after(async () => {
  await server.stop();
  rmSync(directory, { recursive: true, force: true });
});

function client(accessKeyId, secretAccessKey, region = "eu-central-1") {
  return new DynamoDBClient({
    endpoint: server.endpoint, region, maxAttempts: 1,
    credentials: { accessKeyId, secretAccessKey },
  });
}

test("requests signed with the right secret are served", async () => {
  const ddb = client("AKIDJSAUTH", "js/secret+1");
  await ddb.send(new CreateTableCommand({
    TableName: "JsSigned", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
  }));
  await ddb.send(new PutItemCommand({
    TableName: "JsSigned", Item: { id: { S: "ü 1" }, v: { S: "x".repeat(5000) } },
  }));
  const { Item } = await ddb.send(new GetItemCommand({
    TableName: "JsSigned", Key: { id: { S: "ü 1" } },
  }));
  assert.equal(Item.v.S.length, 5000);
  const { TableNames } = await ddb.send(new ListTablesCommand({}));
  assert.ok(TableNames.includes("JsSigned"));
  ddb.destroy();
});

test("a wrong secret is an InvalidSignatureException", async () => {
  const ddb = client("AKIDJSAUTH", "wrong");
  await assert.rejects(ddb.send(new ListTablesCommand({})), (error) => {
    assert.equal(error.name, "InvalidSignatureException");
    assert.equal(error.$metadata.httpStatusCode, 400);
    assert.match(error.message, /^The request signature we calculated does not match/);
    return true;
  });
  ddb.destroy();
});

test("an unknown access key is an UnrecognizedClientException", async () => {
  const ddb = client("AKIDUNKNOWN", "js/secret+1");
  await assert.rejects(ddb.send(new ListTablesCommand({})), (error) => {
    assert.equal(error.name, "UnrecognizedClientException");
    assert.equal(error.message, "The security token included in the request is invalid.");
    return true;
  });
  ddb.destroy();
});
