// Every operation of the JavaScript SDK's DynamoDB client reaches a handler: sent with an empty
// input, each answers anything but UnknownOperationException.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as sdk from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

test("every SDK operation reaches a handler", async () => {
  const server = await startDdbd();
  const client = server.client();
  const operations = Object.keys(sdk)
    .filter((name) => name.endsWith("Command") && typeof sdk[name] === "function")
    .map((name) => name.slice(0, -"Command".length)).sort();
  assert.ok(operations.length >= 60, `${operations.length} operations`);
  const unknown = [];
  for (const operation of operations) {
    try {
      await client.send(new sdk[`${operation}Command`]({}));
    } catch (error) {
      if (error.name === "UnknownOperationException") unknown.push(operation);
    }
  }
  client.destroy();
  await server.stop();
  assert.deepEqual(unknown, []);
});
