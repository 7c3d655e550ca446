// The README's examples, run verbatim against ddbd (only the endpoint and ports differ),
// printing exactly what the README says they print: vector search, and a local stream
// handler behind a trigger.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createServer } from "node:net";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startDdbd } from "./ddbd.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, "..", "..", "..", "README.md"), "utf8");
let server;

function blockAfter(marker) {
  const start = readme.indexOf(marker);
  assert.ok(start >= 0, `README has no ${marker}`);
  const match = readme.slice(start).match(/```[a-z]*\n([\s\S]*?)```/);
  return match[1];
}

before(async () => { server = await startDdbd(); });
after(async () => { await server.stop(); });

test("the README's vector search example prints what the README shows", async () => {
  const code = blockAfter("<!-- vector-example:");
  assert.ok(code.includes('endpoint: "http://localhost:8000"'));
  const script = join(here, `.readme-example-${process.pid}.mjs`);  // beside node_modules
  writeFileSync(script, code.replace("http://localhost:8000", server.endpoint));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ["--no-warnings", script]);
    assert.equal(stdout, blockAfter("<!-- vector-example-output -->"));
  } finally {
    rmSync(script, { force: true });
  }
});

// A loopback port free a moment ago.
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test("the README's local stream handler example prints what the README shows", async () => {
  const port = await freePort();
  const script = join(here, `.readme-handler-${process.pid}.mjs`);
  writeFileSync(script, blockAfter("<!-- triggers-example: handler.mjs -->"));
  const handler = spawn(process.execPath, [script], {
    env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "inherit"] });
  let printed = "";
  handler.stdout.on("data", (chunk) => { printed += chunk; });
  try {
    const commands = blockAfter("<!-- triggers-example: commands -->")
      .replaceAll("http://localhost:8000", server.endpoint)
      .replaceAll("127.0.0.1:3000", `127.0.0.1:${port}`);
    await promisify(execFile)("bash", ["-e", "-c", commands], { env: {
      ...process.env, AWS_ACCESS_KEY_ID: "x", AWS_SECRET_ACCESS_KEY: "y",
      AWS_DEFAULT_REGION: "us-east-1", AWS_PAGER: "" } });
    const expected = blockAfter("<!-- triggers-example: output -->");
    const deadline = Date.now() + 10000;
    while (printed !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(printed, expected);
    const trigger = await server.control("GET", "/ddbd/triggers/orders-indexer");
    assert.equal(trigger.body.Statistics.RecordsDelivered, 2);
  } finally {
    handler.kill("SIGKILL");
    rmSync(script, { force: true });
  }
});
