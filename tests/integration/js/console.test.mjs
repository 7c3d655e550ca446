// The console (GET /ddbd/console) driven in headless Chromium: a table holding every attribute
// type is browsed with each type shown, an item with a set and a binary is edited in the form and
// read back with GetItem to check that no type (nor digit, nor byte) changed, a query is built
// and run, a stream is tailed, the report's charts carry the figures the report has, and the
// control pages act on the server. Screenshots go to DDBD_SCREENSHOTS for a person to look at.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import {
  CreateTableCommand, DescribeTableCommand, GetItemCommand, PutItemCommand, UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand,
} from "@aws-sdk/client-dynamodb-streams";
import { startDdbd } from "./ddbd.mjs";

const screenshots = process.env.DDBD_SCREENSHOTS ?? join(process.cwd(), "console-screenshots");
const BIG = "12345678901234567890.123456789";  // beyond a double's 17 digits
const BYTES = Uint8Array.from([0, 1, 2, 250, 255]);

let server, client, browser, page;
const FIRST = `tr[data-key='{"S":"item-1"} {"N":"1"}']`;  // the row of EVERY_TYPE's item

// Every DynamoDB type, nested ones included.
const EVERY_TYPE = {
  id: { S: "item-1" }, version: { N: "1" },
  title: { S: "multi\nline ✓" }, price: { N: BIG }, blob: { B: BYTES },
  active: { BOOL: true }, nothing: { NULL: true },
  tags: { SS: ["blue", "red"] }, sizes: { NS: ["1", BIG] }, chunks: { BS: [Uint8Array.from([1]), Uint8Array.from([2, 3])] },
  parts: { L: [{ S: "a" }, { N: "2" }, { M: { deep: { BOOL: false } } }] },
  meta: { M: { owner: { S: "ann" }, counts: { L: [{ N: "3" }] }, codes: { BS: [Uint8Array.from([9])] } } },
};

async function shot(name) {
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

// Opens a view of the console (drawn afresh when it is already open) and waits until it has drawn.
async function open(hash) {
  await page.evaluate((target) => {
    document.body.dataset.ready = "false";
    if (location.hash === `#${target}`) route(); else location.hash = target;
  }, hash);
  await page.waitForSelector('body[data-ready="true"]');
}

before(async () => {
  mkdirSync(screenshots, { recursive: true });
  server = await startDdbd();
  client = server.client();
  await client.send(new CreateTableCommand({
    TableName: "Catalog", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }, { AttributeName: "version", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }, { AttributeName: "version", AttributeType: "N" }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  }));
  await client.send(new PutItemCommand({ TableName: "Catalog", Item: EVERY_TYPE }));
  for (const version of ["2", "3"]) {
    await client.send(new PutItemCommand({ TableName: "Catalog", Item: { id: { S: "item-1" }, version: { N: version } } }));
  }
  await client.send(new PutItemCommand({ TableName: "Catalog", Item: { id: { S: "item-2" }, version: { N: "1" } } }));
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  page.on("dialog", (dialog) => dialog.accept());
  await page.goto(`${server.endpoint}/ddbd/console`);
  await page.waitForSelector('body[data-ready="true"]');
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test("the console's page and files are served from the binary, and nothing else is", async () => {
  const pageAnswer = await fetch(`${server.endpoint}/ddbd/console`);
  assert.equal(pageAnswer.status, 200);
  assert.equal(pageAnswer.headers.get("content-type"), "text/html; charset=utf-8");
  assert.match(await pageAnswer.text(), /<script src="\/ddbd\/console\/console.js">/);
  const script = await fetch(`${server.endpoint}/ddbd/console/console.js`);
  assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
  const style = await fetch(`${server.endpoint}/ddbd/console/console.css`);
  assert.equal(style.headers.get("content-type"), "text/css; charset=utf-8");
  const missing = await fetch(`${server.endpoint}/ddbd/console/nothing.js`);
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).__type, "ddbd#NotFoundException");
  const posted = await fetch(`${server.endpoint}/ddbd/console`, { method: "POST" });
  assert.equal(posted.status, 405);
});

test("the item browser shows every type as DynamoDB holds it", async () => {
  await open("tables/Catalog");
  const cell = (attribute) => page.$eval(
    `table.items tbody ${FIRST} td[data-attribute="${attribute}"] > .value`,
    (element) => ({ type: element.dataset.type, text: element.textContent }));
  assert.deepEqual(await page.$$eval("table.items thead th", (heads) => heads.map((th) => th.textContent)),
    ["id", "version", "active", "blob", "chunks", "meta", "nothing", "parts", "price", "sizes", "tags", "title"]);
  assert.deepEqual(await cell("price"), { type: "N", text: `N${BIG}` });
  assert.deepEqual(await cell("blob"), { type: "B", text: `B${Buffer.from(BYTES).toString("base64")}` });
  assert.deepEqual(await cell("tags"), { type: "SS", text: "SS{ blue, red }" });
  assert.deepEqual(await cell("sizes"), { type: "NS", text: `NS{ 1, ${BIG} }` });
  assert.deepEqual(await cell("chunks"), { type: "BS", text: "BS{ AQ==, AgM= }" });
  assert.deepEqual(await cell("active"), { type: "BOOL", text: "BOOLtrue" });
  assert.deepEqual(await cell("nothing"), { type: "NULL", text: "NULLnull" });
  assert.deepEqual(await cell("title"), { type: "S", text: "Smulti\nline ✓" });
  const nestedTypes = await page.$$eval(
    `table.items tbody ${FIRST} td[data-attribute="meta"] .value`,
    (values) => values.map((value) => value.dataset.type));
  assert.deepEqual(nestedTypes, ["M", "BS", "L", "N", "S"]);  // meta; codes, counts, counts[0], owner
  assert.equal(await page.$$eval("table.items tbody tr", (rows) => rows.length), 4);
  await shot("items");
});

test("editing an item with a set and a binary in the form keeps every type", async () => {
  await open("tables/Catalog");
  await page.click(`table.items tbody ${FIRST}`);
  await page.waitForSelector("dialog#editor[open]");
  await shot("editor");
  const editor = (attribute) => `dialog#editor tr.attribute[data-attribute="${attribute}"] .value-input`;
  const replace = async (selector, text) => {
    await page.$eval(selector, (input, value) => { input.value = value; }, text);
  };
  await replace(editor("tags"), '["blue", "green", "red"]');
  await replace(editor("blob"), Buffer.from([7, 7, 7]).toString("base64"));
  await replace(editor("title"), "edited");
  await page.click("dialog#editor button.save");
  await page.waitForSelector("dialog#editor:not([open])");
  await page.waitForSelector('body[data-ready="true"]');
  const { Item: item } = await client.send(new GetItemCommand({
    TableName: "Catalog", Key: { id: { S: "item-1" }, version: { N: "1" } },
  }));
  assert.deepEqual(item.tags, { SS: ["blue", "green", "red"] });
  assert.deepEqual(item.blob, { B: Uint8Array.from([7, 7, 7]) });
  assert.deepEqual(item.title, { S: "edited" });
  // Untouched attributes come back exactly as they were written: types, digits and bytes.
  for (const name of ["price", "active", "nothing", "sizes", "chunks", "parts", "meta"]) {
    assert.deepEqual(item[name], EVERY_TYPE[name], name);
  }
});

test("the editor refuses a value that is not of its type, and writes nothing", async () => {
  await open("tables/Catalog");
  await page.click(`table.items tbody ${FIRST}`);
  await page.waitForSelector("dialog#editor[open]");
  await page.$eval('dialog#editor tr.attribute[data-attribute="price"] .value-input',
    (input) => { input.value = "twelve"; });
  await page.click("dialog#editor button.save");
  const problem = await page.$eval("dialog#editor .error-text", (element) => element.textContent);
  assert.equal(problem, 'price: "twelve" is not a number');
  await page.$eval("dialog#editor", (dialog) => dialog.close());
  const { Item: item } = await client.send(new GetItemCommand({
    TableName: "Catalog", Key: { id: { S: "item-1" }, version: { N: "1" } },
  }));
  assert.deepEqual(item.price, { N: BIG });
});

test("the query builder runs a key condition with a sort-key range and shows the request", async () => {
  await open("query");
  await page.select("form.builder select:nth-of-type(1)", "Catalog");
  await page.type(".key-condition input:nth-of-type(1)", "item-1");
  const operator = await page.$(".key-condition select");
  await operator.select(">=");
  await page.type(".key-condition input:nth-of-type(2)", "2");
  await page.click("button.run");
  await page.waitForSelector(".results .summary");
  assert.equal(await page.$eval("[data-count]", (e) => e.dataset.count), "2");
  assert.equal(await page.$eval("[data-scanned-count]", (e) => e.dataset.scannedCount), "2");
  assert.deepEqual(
    await page.$$eval('table.items tbody td[data-attribute="version"]', (cells) => cells.map((c) => c.textContent)),
    ["N2", "N3"]);
  const request = await page.$eval("pre.request", (e) => e.textContent);
  assert.match(request, /"KeyConditionExpression": "#K0 = :k0 AND #K1 >= :k1"/);
  await shot("query");
});

test("the stream tail shows a change made while it runs", async () => {
  await open("stream");
  await page.click("button.tail");
  await page.waitForFunction(() => document.querySelector(".tail-status")?.textContent.startsWith("tailing"));
  await client.send(new UpdateItemCommand({
    TableName: "Catalog", Key: { id: { S: "item-2" }, version: { N: "1" } },
    UpdateExpression: "SET colour = :c", ExpressionAttributeValues: { ":c": { SS: ["teal"] } },
  }));
  await page.waitForSelector('li.record[data-event="MODIFY"]', { timeout: 10000 });
  const records = await page.$$eval("li.record", (items) => items.map((item) => item.dataset.event));
  assert.deepEqual(records, ["MODIFY"]);  // only what happened after the tail began
  const text = await page.$eval("li.record", (item) => item.textContent);
  assert.match(text, /colour: SS\{ teal \}/);
  await shot("stream");
});

test("the report's charts carry the report's figures", async () => {
  await client.send(new GetItemCommand({ TableName: "Catalog", Key: { id: { S: "item-2" }, version: { N: "1" } } }));
  await open("report");
  const report = (await server.control("GET", "/ddbd/report")).body;
  const catalog = report.Namespaces.find((space) => space.Name === "default").Tables[0];
  const bars = (chart) => page.$$eval(`section.card[data-table="Catalog"] [data-chart="${chart}"] .bar`,
    (items) => items.map((bar) => [bar.dataset.label, Number(bar.dataset.value)]));
  const operations = Object.fromEntries(await bars("operations"));
  assert.deepEqual(operations, catalog.Operations);
  // Four puts by the test and one by the editor; the one refused in the form was never sent.
  assert.equal(operations.PutItem, 5);
  assert.equal(operations.Query, 1);
  assert.equal(operations.GetItem, 3);
  assert.equal(operations.UpdateItem, 1);
  const requests = Object.values(catalog.Operations).reduce((sum, count) => sum + count, 0);
  assert.equal(await page.$eval('[data-chart="timeline"]', (chart) => Number(chart.dataset.total)), requests);
  assert.deepEqual(await bars("hot-partitions-by-writes"),
    [["item-1", 4], ["item-2", 2]]);  // 4 writes of item-1's partition (1 unit each), 2 of item-2's
  const cost = Object.fromEntries(await bars("cost"));
  assert.equal(cost["on demand"], catalog.EstimatedMonthlyCost.OnDemand);
  await shot("report");
});

test("the triggers page creates a trigger, shows its counters and deletes it", async () => {
  await open("triggers");
  assert.equal(await page.$eval("main p.muted", (p) => p.textContent), "No triggers.");
  await page.type("input.trigger-name", "audit");
  await page.$eval("textarea.definition", (area) => {
    area.value = JSON.stringify({ TableName: "Catalog", Command: "cat > /dev/null",
                                  StartingPosition: "TRIM_HORIZON", BatchSize: 10 });
  });
  await page.click("button.put-trigger");
  await page.waitForSelector('tr[data-trigger="audit"]');
  // Every record the table's stream holds (the earlier tests' changes too) is delivered.
  const { Table } = await client.send(new DescribeTableCommand({ TableName: "Catalog" }));
  const streams = new DynamoDBStreamsClient({ endpoint: server.endpoint, region: "us-east-1",
                                              credentials: { accessKeyId: "AKIDJS", secretAccessKey: "secret" } });
  const { StreamDescription: stream } =
    await streams.send(new DescribeStreamCommand({ StreamArn: Table.LatestStreamArn }));
  const { ShardIterator } = await streams.send(new GetShardIteratorCommand({
    StreamArn: Table.LatestStreamArn, ShardId: stream.Shards[0].ShardId,
    ShardIteratorType: "TRIM_HORIZON" }));
  const { Records: records } = await streams.send(new GetRecordsCommand({ ShardIterator }));
  streams.destroy();
  const delivered = async () => (await server.control("GET", "/ddbd/triggers/audit")).body.Statistics;
  for (let i = 0; i < 200 && (await delivered()).RecordsDelivered < records.length; ++i) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await open("triggers");
  assert.deepEqual(
    await page.$$eval('tr[data-trigger="audit"] td', (cells) => cells.slice(0, 9).map((c) => c.textContent)),
    ["audit", "default/Catalog", "cat > /dev/null", "Enabled", "OK", "1", "0", "0",
     String(records.length)]);
  assert.ok(records.length >= 4);
  await shot("triggers");
  await page.click('tr[data-trigger="audit"] button.danger');
  await page.waitForFunction(() => !document.querySelector('tr[data-trigger="audit"]'));
  assert.equal((await server.control("GET", "/ddbd/triggers/audit")).status, 404);
});

test("the control pages freeze the clock and save a snapshot", async () => {
  await open("clock");
  await page.click("main button");  // Freeze
  await page.waitForFunction(() => document.querySelector(".mode")?.textContent === "frozen");
  assert.equal((await server.control("GET", "/ddbd/clock")).body.Mode, "frozen");
  await shot("clock");
  await open("namespaces");
  assert.deepEqual(
    await page.$$eval('tr[data-namespace="default"] td', (cells) => cells.slice(0, 3).map((c) => c.textContent)),
    ["default", "1", "4"]);
  await page.type(".row input", "base");
  await page.click("button.save-snapshot");
  await page.waitForSelector('tr[data-snapshot="base"]');
  const { Snapshots: snapshots } = (await server.control("GET", "/ddbd/snapshots")).body;
  assert.deepEqual(snapshots.map((s) => [s.Namespace, s.Name, s.ItemCount]), [["default", "base", 4]]);
  await shot("namespaces");
});
