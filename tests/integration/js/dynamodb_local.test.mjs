// Tools written for DynamoDB Local, against ddbd started with DynamoDB Local's command line
// (its compatibility profile, --compat dynamodb-local).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

// @shelf/jest-dynamodb's global setup waits for this check before it creates a suite's tables.
// It retries until it sees DynamoDB Local's answer, forever: each check runs in its own node
// process, stopped after `ms`. Resolves to whether the check passed in time.
function readinessCheckPasses(port, ms) {
  const check = `require("@shelf/jest-dynamodb/lib/utils/wait-for-localhost")` +
                `.default(${port}, "127.0.0.1").then(() => process.exit(0));`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", check], { stdio: "ignore", timeout: ms });
    child.on("exit", (code) => resolve(code === 0));
  });
}

test("@shelf/jest-dynamodb's readiness check passes on DynamoDB Local's command line", async () => {
  const server = await startDdbd("-jar", "DynamoDBLocal.jar", "-sharedDb");
  try {
    assert.match(server.log(), /DynamoDB Local compatibility profile on/);
    const port = Number(new URL(server.endpoint).port);
    assert.equal(await readinessCheckPasses(port, 10000), true);
    const listed = await server.client().send(new ListTablesCommand({}));
    assert.deepEqual(listed.TableNames, []);
  } finally {
    await server.stop();
  }
});

// Without the profile GET / answers 200, as DynamoDB does: the check keeps waiting for a 400
// (it would wait forever), which is why the profile exists.
test("the same check keeps waiting on DynamoDB's behaviour", async () => {
  const server = await startDdbd("-jar", "DynamoDBLocal.jar", "--compat", "none");
  try {
    const port = Number(new URL(server.endpoint).port);
    assert.equal(await readinessCheckPasses(port, 1500), false);
  } finally {
    await server.stop();
  }
});
