// Starts the real ddbd binary (DDBD_BINARY) on a loopback port with a fresh data directory,
// for the node:test suites. Stopped by its process id; restart() kills it and starts it again
// on the same data directory.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";

// `extraArgs` may begin with DynamoDB Local's "-jar DynamoDBLocal.jar": it stays first, as a
// command line written for DynamoDB Local has it.
async function launch(dataDir, extraArgs) {
  const binary = process.env.DDBD_BINARY ?? "ddbd";
  const leading = extraArgs[0] === "-jar" ? extraArgs.slice(0, 2) : [];
  const child = spawn(binary, [...leading, "--address", "127.0.0.1", "--port", "0",
                               "--threads", "2", "--db-path", join(dataDir, "db"),
                               ...extraArgs.slice(leading.length)],
                      { stdio: ["ignore", "ignore", "pipe"] });
  const output = { log: "" };
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("ddbd did not start: " + output.log)), 10000);
    child.stderr.on("data", (chunk) => {
      output.log += chunk;
      const match = output.log.match(/listening on [0-9.]+:(\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.on("exit", (code) => reject(new Error(`ddbd exited with ${code}: ${output.log}`)));
  });
  return { child, port, output };
}

async function terminate(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on("exit", resolve));
  process.kill(child.pid, signal);
  await exited;
}

export async function startDdbd(...extraArgs) {
  const dataDir = mkdtempSync(join(tmpdir(), "ddbd-js-"));
  let running;
  try {
    running = await launch(dataDir, extraArgs);
  } catch (error) {  // a server that refused to start leaves no directory behind
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const server = {
    get endpoint() { return `http://127.0.0.1:${running.port}`; },
    // What the server has written to stderr so far.
    log() { return running.output.log; },
    // `maxAttempts` as the SDK counts them (1: no retries).
    client(accessKeyId = "AKIDJS", region = "us-east-1", maxAttempts = 1) {
      return new DynamoDBClient({
        endpoint: server.endpoint, region, maxAttempts,
        credentials: { accessKeyId, secretAccessKey: "secret" },
      });
    },
    // A control API request (/ddbd/…): { status, body } with the body parsed.
    async control(method, path, body) {
      const response = await fetch(server.endpoint + path, {
        method, body: body === undefined ? undefined : JSON.stringify(body),
        headers: body === undefined ? {} : { "content-type": "application/json" },
      });
      return { status: response.status, body: await response.json() };
    },
    // Stops the server with `signal` (SIGKILL: no clean shutdown) and starts it again.
    async restart(signal = "SIGKILL") {
      await terminate(running.child, signal);
      running = await launch(dataDir, extraArgs);
    },
    async stop() {
      await terminate(running.child, "SIGTERM");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

// Creates an on-demand table keyed by `hash` and, when given, `range` (each [name, type]).
export async function createKeyedTable(client, TableName, hash, range) {
  const keys = range ? [hash, range] : [hash];
  return client.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: keys.map(([AttributeName], i) => ({ AttributeName, KeyType: i ? "RANGE" : "HASH" })),
    AttributeDefinitions: keys.map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
  }));
}
