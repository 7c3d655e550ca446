// SearchVectors through HNSW graphs: a server whose exact-search threshold is lowered to 50
// entries answers from graphs at once, and must agree with exact search — also under filters
// and after deletes and updates.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  BatchWriteItemCommand, CreateTableCommand, DeleteItemCommand, PutItemCommand, SearchVectorsCommand,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

const TABLE = "GraphChunks";
const DIMS = 16;
let server, client;
const items = new Map();  // id → { tenant, color, embedding }

function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
const random = generator(7);
const vector = () => Array.from({ length: DIMS }, () => Math.round((random() * 2 - 1) * 1e4) / 1e4);
const toList = (v) => ({ L: v.map((x) => ({ N: String(x) })) });

function exactTop(query, tenant, color, k) {
  const distance = (v) => Math.sqrt(v.reduce((sum, x, i) => sum + (Math.fround(x) - Math.fround(query[i])) ** 2, 0));
  return [...items].filter(([, item]) => item.tenant === tenant && (!color || item.color === color))
    .map(([id, item]) => ({ id, d: distance(item.embedding) }))
    .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : 1)).slice(0, k).map((hit) => hit.id);
}

async function search(query, tenant, color) {
  const values = { ":t": { S: tenant } };
  if (color) values[":c"] = { S: color };
  const { SearchResults } = await client.send(new SearchVectorsCommand({
    TableName: TABLE, IndexName: "Graph", TopK: 10, SearchVector: query.map((x) => ({ N: String(x) })),
    SearchConditionExpression: color ? "tenant = :t AND color = :c" : "tenant = :t",
    ExpressionAttributeValues: values,
  }));
  return SearchResults.map((r) => r.Item.id.S);
}

async function recall(queries, color) {
  let found = 0, wanted = 0;
  for (const [query, tenant] of queries) {
    const truth = exactTop(query, tenant, color, 10);
    const answer = await search(query, tenant, color);
    assert.ok(answer.every((id) => items.get(id).tenant === tenant && (!color || items.get(id).color === color)));
    found += answer.filter((id) => truth.includes(id)).length;
    wanted += truth.length;
  }
  return found / wanted;
}

before(async () => {
  server = await startDdbd("--vector-exact-threshold", "50");
  client = server.client();
  await client.send(new CreateTableCommand({
    TableName: TABLE, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: ["id", "tenant", "color"].map((n) => ({ AttributeName: n, AttributeType: "S" })),
    VectorIndexes: [{
      IndexName: "Graph", VectorAttribute: { AttributeName: "embedding" }, Dimensions: DIMS,
      DistanceFunction: "EUCLIDEAN", Projection: { ProjectionType: "KEYS_ONLY" },
      SearchSchema: [{ AttributeName: "tenant", SearchSchemaElementType: "HASH" },
                     { AttributeName: "color", SearchSchemaElementType: "INLINE_FILTER" }],
    }],
  }));
  const colors = ["red", "green", "blue", "black", "white", "grey", "pink", "teal"];
  for (let batch = 0; batch < 48; batch++) {
    const requests = [];
    for (let j = 0; j < 25; j++) {
      const n = batch * 25 + j;
      const item = { tenant: n % 2 ? "odd" : "even", color: colors[Math.floor(n / 2) % 8], embedding: vector() };
      items.set(`i${String(n).padStart(4, "0")}`, item);
      requests.push({ PutRequest: { Item: { id: { S: `i${String(n).padStart(4, "0")}` }, tenant: { S: item.tenant },
                                            color: { S: item.color }, embedding: toList(item.embedding) } } });
    }
    await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } }));
  }
  for (let attempt = 0; !/HNSW graphs built/.test(server.log()) && attempt < 500; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.match(server.log(), /HNSW graphs built/);
});

after(async () => {
  client.destroy();
  await server.stop();
});

const queries = () => Array.from({ length: 20 }, (_, i) => [vector(), i % 2 ? "odd" : "even"]);

test("graph answers agree with exact search", async () => {
  assert.ok(await recall(queries()) >= 0.98);
});

test("filtered graph answers (1 in 8 entries) agree with exact search and never leak", async () => {
  assert.ok(await recall(queries(), "teal") >= 0.98);
});

test("graphs follow deletes and updates", async () => {
  const ids = [...items.keys()].filter((id) => items.get(id).tenant === "even").slice(0, 200);
  for (const id of ids.slice(0, 100)) {
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { id: { S: id } } }));
    items.delete(id);
  }
  for (const id of ids.slice(100)) {
    const item = { ...items.get(id), embedding: vector() };
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: id }, tenant: { S: item.tenant },
      color: { S: item.color }, embedding: toList(item.embedding) } }));
    items.set(id, item);
  }
  const evenQueries = Array.from({ length: 20 }, () => [vector(), "even"]);
  assert.ok(await recall(evenQueries) >= 0.98);
  // An item's exact vector finds it first.
  const moved = ids[150];
  assert.equal((await search(items.get(moved).embedding, "even"))[0], moved);
});

test("a clean restart reuses the saved graphs; a crash rebuilds them", async () => {
  const queries = Array.from({ length: 20 }, (_, i) => [vector(), i % 2 ? "odd" : "even"]);
  const before = [];
  for (const [query, tenant] of queries) before.push(await search(query, tenant));
  client.destroy();
  await server.restart("SIGTERM");
  client = server.client();
  const after = [];
  for (const [query, tenant] of queries) after.push(await search(query, tenant));
  assert.match(server.log(), /vector indexes loaded \(\d+ entries, 2 saved graphs\)/);
  assert.doesNotMatch(server.log(), /HNSW graphs built/);  // nothing to rebuild
  assert.deepEqual(after, before);
  assert.ok(await recall(queries) >= 0.98);
  // After a crash the saved graphs are gone (used once) and the graphs are built again.
  client.destroy();
  await server.restart("SIGKILL");
  client = server.client();
  assert.ok(await recall(queries) >= 0.98);
  for (let attempt = 0; !/HNSW graphs built/.test(server.log()) && attempt < 500; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.match(server.log(), /vector indexes loaded \(\d+ entries, 0 saved graphs\)/);
  assert.match(server.log(), /HNSW graphs built/);
});
