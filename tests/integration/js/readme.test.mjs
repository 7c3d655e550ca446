// The README's vector-search example, run verbatim against ddbd (only the endpoint differs),
// printing exactly what the README says it prints.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
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
