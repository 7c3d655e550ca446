// Vector indexes and SearchVectors through the JavaScript SDK v3, on the seed guide's
// `Semantic` index (tenant HASH, lang INLINE_FILTER, INCLUDE text and lang, cosine).
// Expected rankings are computed here by exact search over the same 32-bit floats.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DeleteItemCommand, DescribeTableCommand, PutItemCommand,
  SearchVectorsCommand, UpdateItemCommand, UpdateTableCommand, BatchWriteItemCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient, PutCommand, SearchVectorsCommand as DocumentSearchVectorsCommand,
} from "@aws-sdk/lib-dynamodb";
import { startDdbd } from "./ddbd.mjs";

const TABLE = "KbChunks";
const DIMS = 8;
const TENANTS = ["acme", "globex", "initech"];
const LANGS = ["en", "de", "fr"];
const FUNCTIONS = { Semantic: "COSINE", SemanticL2: "EUCLIDEAN", SemanticDot: "DOT_PRODUCT" };

let server, client;
const items = [];  // { id, tenant, lang, text, embedding }

// A fixed-seed generator, so every run uses the same data.
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function score(fn, q, v) {
  let dot = 0, qq = 0, vv = 0, sq = 0;
  for (let i = 0; i < q.length; i++) {
    const a = Math.fround(q[i]), b = Math.fround(v[i]);
    dot += a * b; qq += a * a; vv += b * b; sq += (a - b) ** 2;
  }
  if (fn === "COSINE") {
    if (qq === 0 || vv === 0) return 1;
    const distance = 1 - dot / (Math.sqrt(qq) * Math.sqrt(vv));
    return distance < 1e-12 ? 0 : Math.fround(distance);  // the same direction scores exactly 0
  }
  if (fn === "EUCLIDEAN") return Math.fround(Math.sqrt(sq));
  return Math.fround(dot);
}

// The exact ranking: best score first, ties by key.
function expected(fn, query, filter, k) {
  return items.filter(filter)
    .map((item) => ({ id: item.id, score: score(fn, query, item.embedding) }))
    .sort((a, b) => (a.score !== b.score ? (fn === "DOT_PRODUCT" ? b.score - a.score : a.score - b.score)
                                         : (a.id < b.id ? -1 : 1)))
    .slice(0, k);
}

const toList = (vector) => ({ L: vector.map((x) => ({ N: String(x) })) });

function search(index, query, extra = {}) {
  return client.send(new SearchVectorsCommand({
    TableName: TABLE, IndexName: index, TopK: 10,
    SearchVector: query.map((x) => ({ N: String(x) })), ...extra,
  }));
}

function vectorIndex(name, distance, projection = { ProjectionType: "INCLUDE", NonKeyAttributes: ["text", "lang"] }) {
  return {
    IndexName: name, VectorAttribute: { AttributeName: "embedding" }, Dimensions: DIMS,
    DistanceFunction: distance, Projection: projection,
    SearchSchema: [{ AttributeName: "tenant", SearchSchemaElementType: "HASH" },
                   { AttributeName: "lang", SearchSchemaElementType: "INLINE_FILTER" }],
  };
}

async function waitActive(index) {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    const described = Table.VectorIndexes.find((v) => v.IndexName === index);
    if (described.IndexStatus === "ACTIVE" && described.Backfilling === undefined) return described;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${index} did not become ACTIVE`);
}

before(async () => {
  server = await startDdbd();
  client = server.client();
  await client.send(new CreateTableCommand({
    TableName: TABLE, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: ["id", "tenant", "lang"].map((n) => ({ AttributeName: n, AttributeType: "S" })),
    VectorIndexes: [
      vectorIndex("Semantic", "COSINE"),
      vectorIndex("SemanticL2", "EUCLIDEAN"),
      vectorIndex("SemanticDot", "DOT_PRODUCT", { ProjectionType: "ALL" }),
    ],
  }));
  const random = generator(42);
  for (let i = 0; i < 300; i++) {
    const item = {
      id: `chunk-${String(i).padStart(3, "0")}`,
      tenant: TENANTS[i % 3], lang: LANGS[Math.floor(i / 3) % 3], text: `text of chunk ${i}`,
      embedding: Array.from({ length: DIMS }, () => Math.round((random() * 2 - 1) * 1e6) / 1e6),
    };
    items.push(item);
  }
  for (let start = 0; start < items.length; start += 25) {
    await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: items.slice(start, start + 25).map((item) => ({
      PutRequest: { Item: { id: { S: item.id }, tenant: { S: item.tenant }, lang: { S: item.lang },
                            text: { S: item.text }, embedding: toList(item.embedding) } },
    })) } }));
  }
  // Items without a vector, or without the HASH attribute, are simply not indexed.
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: "no-vector" }, tenant: { S: "acme" } } }));
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: "no-tenant" }, embedding: toList(items[0].embedding) } }));
});

after(async () => {
  client.destroy();
  await server.stop();
});

test("DescribeTable reports the vector indexes with live counts", async () => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
  assert.equal(Table.ItemCount, 302);
  assert.deepEqual(Table.VectorIndexes.map((v) => [v.IndexName, v.DistanceFunction, v.Dimensions, v.IndexStatus, v.ItemCount]),
                   [["Semantic", "COSINE", 8, "ACTIVE", 300], ["SemanticL2", "EUCLIDEAN", 8, "ACTIVE", 300],
                    ["SemanticDot", "DOT_PRODUCT", 8, "ACTIVE", 300]]);
  const semantic = Table.VectorIndexes[0];
  assert.deepEqual(semantic.SearchSchema, [{ AttributeName: "tenant", SearchSchemaElementType: "HASH" },
                                           { AttributeName: "lang", SearchSchemaElementType: "INLINE_FILTER" }]);
  assert.deepEqual(semantic.Projection, { ProjectionType: "INCLUDE", NonKeyAttributes: ["text", "lang"] });
  assert.equal(semantic.VectorAttribute.AttributeName, "embedding");
  assert.equal(semantic.IndexArn, "arn:aws:dynamodb:us-east-1:000000000000:table/KbChunks/index/Semantic");
  assert.equal(semantic.Backfilling, undefined);
  assert.ok(semantic.IndexSizeBytes > 300 * 4 * DIMS);
});

for (const [index, fn] of Object.entries(FUNCTIONS)) {
  test(`${fn}: the exact nearest neighbours, best first, with their scores`, async () => {
    for (const probe of [5, 77, 123]) {
      const target = items[probe];
      // A query near one stored vector: that item must rank first.
      const query = target.embedding.map((x) => x * 1.001);
      const { SearchResults } = await search(index, query, {
        SearchConditionExpression: "tenant = :t", ExpressionAttributeValues: { ":t": { S: target.tenant } },
      });
      const want = expected(fn, query, (item) => item.tenant === target.tenant, 10);
      assert.deepEqual(SearchResults.map((r) => r.Item.id.S), want.map((w) => w.id));
      if (fn !== "DOT_PRODUCT") assert.equal(SearchResults[0].Item.id.S, target.id);
      SearchResults.forEach((r, i) => assert.equal(r.Score, want[i].score));
    }
  });
}

test("scoping by tenant and filtering by lang never leak other items", async () => {
  const query = Array.from({ length: DIMS }, (_, i) => (i % 2 ? 0.5 : -0.25));
  const { SearchResults } = await search("Semantic", query, {
    TopK: 100,
    SearchConditionExpression: "tenant = :t AND #l = :l",
    ExpressionAttributeNames: { "#l": "lang" },
    ExpressionAttributeValues: { ":t": { S: "globex" }, ":l": { S: "de" } },
  });
  const matching = items.filter((item) => item.tenant === "globex" && item.lang === "de");
  assert.ok(matching.length > 10 && matching.length < 100);
  assert.equal(SearchResults.length, matching.length);
  assert.deepEqual(new Set(SearchResults.map((r) => r.Item.id.S)), new Set(matching.map((m) => m.id)));
  for (const { Item } of SearchResults) {
    assert.equal(Item.tenant.S, "globex");
    assert.equal(Item.lang.S, "de");
  }
  const none = await search("Semantic", query, {
    SearchConditionExpression: "tenant = :t", ExpressionAttributeValues: { ":t": { S: "nobody" } },
  });
  assert.deepEqual(none.SearchResults, []);
});

test("the vector is not returned unless projected and named", async () => {
  const query = items[10].embedding;
  const condition = { SearchConditionExpression: "tenant = :t", ExpressionAttributeValues: { ":t": { S: items[10].tenant } } };
  // INCLUDE without the vector: the projected entry is keys, schema attributes, text and lang.
  const included = await search("Semantic", query, { TopK: 1, ...condition });
  assert.deepEqual(Object.keys(included.SearchResults[0].Item).sort(), ["id", "lang", "tenant", "text"]);
  const asked = await search("Semantic", query, { TopK: 1, ProjectionExpression: "id, embedding", ...condition });
  assert.deepEqual(asked.SearchResults[0].Item, { id: { S: items[10].id } });
  // ALL projects the vector, but only a ProjectionExpression naming it returns it (as floats).
  const all = await search("SemanticDot", query, { TopK: 1, ...condition });
  assert.equal(all.SearchResults[0].Item.embedding, undefined);
  assert.equal(all.SearchResults[0].Item.text.S, items[10].text);
  const withVector = await search("SemanticDot", items[10].embedding.map((x) => x * 3), {
    TopK: 1, ProjectionExpression: "embedding", ...condition,
  });
  const top = expected("DOT_PRODUCT", items[10].embedding.map((x) => x * 3), (item) => item.tenant === items[10].tenant, 1)[0];
  const stored = items.find((item) => item.id === top.id).embedding;
  // The index's 32-bit copy, each as the shortest decimal that reads back as that float.
  const returned = withVector.SearchResults[0].Item.embedding.L.map((n) => n.N);
  assert.deepEqual(returned.map((text) => Math.fround(Number(text))), stored.map(Math.fround));
  assert.deepEqual(returned, stored.map(String));
});

test("the DocumentClient writes and searches with plain JavaScript numbers", async () => {
  const documents = DynamoDBDocumentClient.from(client);
  const embedding = [0.25, -0.5, 0.75, 1, 0, 0.125, -1, 0.5];
  await documents.send(new PutCommand({ TableName: TABLE, Item: {
    id: "document", tenant: "docs", lang: "en", text: "written by lib-dynamodb", embedding } }));
  const { SearchResults } = await documents.send(new DocumentSearchVectorsCommand({
    TableName: TABLE, IndexName: "SemanticDot", TopK: 1, SearchVector: embedding,
    SearchConditionExpression: "tenant = :t", ExpressionAttributeValues: { ":t": "docs" },
    ProjectionExpression: "id, embedding, #text", ExpressionAttributeNames: { "#text": "text" },
  }));
  assert.deepEqual(SearchResults, [{
    Item: { id: "document", embedding, text: "written by lib-dynamodb" },
    Score: embedding.reduce((sum, x) => sum + x * x, 0),
  }]);
  await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { id: { S: "document" } } }));
});

test("SearchVectors meters bytes, not capacity units", async () => {
  const condition = { SearchConditionExpression: "tenant = :t", ExpressionAttributeValues: { ":t": { S: "acme" } } };
  const { SearchResults, ConsumedCapacity } = await search("Semantic", items[0].embedding, {
    ReturnConsumedCapacity: "TOTAL", ...condition });
  // 30.6875 bytes per dimension, 72 per result, and the returned attributes' sizes.
  const size = (item) => Object.entries(item).reduce((sum, [name, value]) => sum + name.length + value.S.length, 0);
  const bytes = Math.ceil(30.6875 * DIMS + 72 * SearchResults.length +
                          SearchResults.reduce((sum, r) => sum + size(r.Item), 0));
  assert.ok(bytes > 1024);
  assert.deepEqual(ConsumedCapacity, { VectorSearchRequestBytes: bytes });
  const small = await search("Semantic", items[0].embedding, {
    TopK: 1, ProjectionExpression: "id", ReturnConsumedCapacity: "INDEXES", ...condition });
  assert.deepEqual(small.ConsumedCapacity, { VectorSearchRequestBytes: 1024 });
  const none = await search("Semantic", items[0].embedding, condition);
  assert.equal(none.ConsumedCapacity, undefined);
});

test("wrong-dimension and non-numeric vectors are rejected with DynamoDB's messages", async () => {
  await assert.rejects(client.send(new PutItemCommand({ TableName: TABLE, Item: {
    id: { S: "bad" }, tenant: { S: "acme" }, embedding: toList([1, 2, 3]) } })), {
    name: "ValidationException",
    message: "One or more parameter values are not valid. One or more parameter values were invalid . Invalid size for parameter embedding, Expected: 8, Actual: 3. IndexName: Semantic",
  });
  await assert.rejects(client.send(new PutItemCommand({ TableName: TABLE, Item: {
    id: { S: "bad" }, tenant: { S: "acme" }, embedding: { L: [{ N: "1" }, { S: "x" }, ...Array(6).fill({ N: "0" })] } } })), {
    name: "ValidationException",
    message: "One or more parameter values were invalid. Invalid type for parameter embedding[1], Expected: 32-bit floating point number, Actual: S. IndexName: Semantic",
  });
  await assert.rejects(search("Semantic", [1, 2, 3], {
    SearchConditionExpression: "tenant = :t", ExpressionAttributeValues: { ":t": { S: "acme" } } }), {
    name: "ValidationException", message: "Input search vector dimension 3 does not match vector index dimension 8",
  });
});

test("a search without the HASH condition is rejected", async () => {
  await assert.rejects(search("Semantic", items[0].embedding), {
    name: "ValidationException", message: "SearchConditionExpression must be provided when SearchSchema has a HASH key",
  });
  await assert.rejects(search("Semantic", items[0].embedding, {
    SearchConditionExpression: "#l = :l", ExpressionAttributeNames: { "#l": "lang" },
    ExpressionAttributeValues: { ":l": { S: "en" } } }), {
    name: "ValidationException", message: "SearchConditionExpression must be provided when SearchSchema has a HASH key",
  });
});

test("updates and deletes keep the index in step", async () => {
  const condition = { SearchConditionExpression: "tenant = :t", ExpressionAttributeValues: { ":t": { S: "acme" } } };
  const far = Array(DIMS).fill(0).map((_, i) => (i === 0 ? 100 : 0));
  await client.send(new PutItemCommand({ TableName: TABLE, Item: {
    id: { S: "moving" }, tenant: { S: "acme" }, lang: { S: "en" }, embedding: toList(far) } }));
  let { SearchResults } = await search("SemanticL2", far, { TopK: 1, ...condition });
  assert.equal(SearchResults[0].Item.id.S, "moving");
  assert.equal(SearchResults[0].Score, 0);
  // Moving the vector moves the item.
  const elsewhere = far.map((x) => -x);
  await client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: "moving" } },
    UpdateExpression: "SET embedding = :v", ExpressionAttributeValues: { ":v": toList(elsewhere) } }));
  ({ SearchResults } = await search("SemanticL2", elsewhere, { TopK: 1, ...condition }));
  assert.equal(SearchResults[0].Item.id.S, "moving");
  ({ SearchResults } = await search("SemanticL2", far, { TopK: 1, ...condition }));
  assert.notEqual(SearchResults[0].Item.id.S, "moving");
  // Removing the HASH attribute de-indexes the item; a delete removes it too.
  await client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: "moving" } }, UpdateExpression: "REMOVE tenant" }));
  ({ SearchResults } = await search("SemanticL2", elsewhere, { TopK: 1, ...condition }));
  assert.notEqual(SearchResults[0].Item.id.S, "moving");
  await client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: "moving" } },
    UpdateExpression: "SET tenant = :t", ExpressionAttributeValues: { ":t": { S: "acme" } } }));
  ({ SearchResults } = await search("SemanticL2", elsewhere, { TopK: 1, ...condition }));
  assert.equal(SearchResults[0].Item.id.S, "moving");
  await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { id: { S: "moving" } } }));
  ({ SearchResults } = await search("SemanticL2", elsewhere, { TopK: 1, ...condition }));
  assert.notEqual(SearchResults[0].Item.id.S, "moving");
});

test("writes report per-index vector bytes under INDEXES", async () => {
  const { ConsumedCapacity } = await client.send(new PutItemCommand({
    TableName: TABLE, ReturnConsumedCapacity: "INDEXES",
    Item: { id: { S: "metered" }, tenant: { S: "acme" }, lang: { S: "en" }, embedding: toList(items[0].embedding) } }));
  assert.deepEqual(ConsumedCapacity.VectorIndexes, {
    Semantic: { VectorWriteRequestBytes: 1024 }, SemanticL2: { VectorWriteRequestBytes: 1024 },
    SemanticDot: { VectorWriteRequestBytes: 1024 },
  });
  const total = await client.send(new PutItemCommand({
    TableName: TABLE, ReturnConsumedCapacity: "TOTAL",
    Item: { id: { S: "metered" }, tenant: { S: "acme" }, lang: { S: "de" }, embedding: toList(items[0].embedding) } }));
  assert.equal(total.ConsumedCapacity.VectorIndexes, undefined);
  await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { id: { S: "metered" } } }));
});

test("an index added by UpdateTable backfills, then serves correct results", async () => {
  const response = await client.send(new UpdateTableCommand({
    TableName: TABLE,
    AttributeDefinitions: [{ AttributeName: "lang", AttributeType: "S" }],
    VectorIndexUpdates: [{ Create: {
      IndexName: "ByLang", VectorAttribute: { AttributeName: "embedding" }, Dimensions: DIMS,
      DistanceFunction: "EUCLIDEAN", Projection: { ProjectionType: "KEYS_ONLY" },
      SearchSchema: [{ AttributeName: "lang", SearchSchemaElementType: "HASH" }] } }],
  }));
  assert.equal(response.TableDescription.TableStatus, "UPDATING");
  const created = response.TableDescription.VectorIndexes.find((v) => v.IndexName === "ByLang");
  assert.equal(created.IndexStatus, "CREATING");
  assert.equal(created.Backfilling, true);
  const active = await waitActive("ByLang");
  assert.equal(active.ItemCount, 300);
  const query = items[200].embedding;
  const { SearchResults } = await search("ByLang", query, {
    TopK: 5, SearchConditionExpression: "#l = :l", ExpressionAttributeNames: { "#l": "lang" },
    ExpressionAttributeValues: { ":l": { S: items[200].lang } } });
  const want = expected("EUCLIDEAN", query, (item) => item.lang === items[200].lang, 5);
  assert.deepEqual(SearchResults.map((r) => r.Item.id.S), want.map((w) => w.id));
  assert.deepEqual(Object.keys(SearchResults[0].Item).sort(), ["id", "lang"]);
});

test("a restart keeps every index intact", async () => {
  const queries = [3, 150, 299].map((i) => ({ query: items[i].embedding, tenant: items[i].tenant, lang: items[i].lang }));
  const run = async () => {
    const results = [];
    for (const index of ["Semantic", "SemanticL2", "SemanticDot"]) {
      for (const { query, tenant } of queries) {
        const { SearchResults } = await search(index, query, {
          SearchConditionExpression: "tenant = :t", ExpressionAttributeValues: { ":t": { S: tenant } } });
        results.push(SearchResults);
      }
    }
    for (const { query, lang } of queries) {
      const { SearchResults } = await search("ByLang", query, {
        SearchConditionExpression: "#l = :l", ExpressionAttributeNames: { "#l": "lang" },
        ExpressionAttributeValues: { ":l": { S: lang } } });
      results.push(SearchResults);
    }
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    return { results, indexes: Table.VectorIndexes };
  };
  const before = await run();
  client.destroy();
  await server.restart("SIGKILL");
  client = server.client();
  const afterRestart = await run();
  assert.deepEqual(afterRestart, before);
  assert.deepEqual(afterRestart.indexes.map((v) => [v.IndexName, v.IndexStatus, v.ItemCount]),
                   [["Semantic", "ACTIVE", 300], ["SemanticL2", "ACTIVE", 300],
                    ["SemanticDot", "ACTIVE", 300], ["ByLang", "ACTIVE", 300]]);
});

test("deleting a vector index with UpdateTable", async () => {
  const { TableDescription } = await client.send(new UpdateTableCommand({
    TableName: TABLE, VectorIndexUpdates: [{ Delete: { IndexName: "ByLang" } }] }));
  assert.equal(TableDescription.VectorIndexes.find((v) => v.IndexName === "ByLang").IndexStatus, "DELETING");
  const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
  assert.deepEqual(Table.VectorIndexes.map((v) => v.IndexName), ["Semantic", "SemanticL2", "SemanticDot"]);
  await assert.rejects(search("ByLang", items[0].embedding), {
    name: "ValidationException", message: "The table does not have the specified index: ByLang" });
});
