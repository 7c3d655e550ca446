// CreateTable + DeleteTable with the JavaScript SDK's waiters, as a test suite's fixture does.
// Usage: node create_delete.mjs ENDPOINT WARMUP MEASURED
// Prints three means in milliseconds: a pair over the first (at most 100) pairs of this fresh
// client process, a pair over MEASURED pairs run after WARMUP pairs, and one ListTables call
// after them (the SDK's own cost of one request, for scale).
//
// Why a warm-up: node compiles the SDK's code as it runs it. On this machine a fresh client
// needs ~5 ms per pair for its first hundred pairs and settles after ~700, at less than half
// that; the server's share does not change (its CPU per pair is measured separately). The
// steady figure is what a long test run sees and what compares servers; the first figure is
// printed beside it so that the client's warm-up stays visible.
import {
  DynamoDBClient, ListTablesCommand, CreateTableCommand, DeleteTableCommand, waitUntilTableExists,
  waitUntilTableNotExists,
} from "@aws-sdk/client-dynamodb";

const [endpoint, warmupArg = "1000", measuredArg = "1000"] = process.argv.slice(2);
const warmup = Number(warmupArg), measured = Number(measuredArg);
const client = new DynamoDBClient({
  endpoint, region: "us-east-1", credentials: { accessKeyId: "BENCH", secretAccessKey: "x" },
});
const schema = {
  KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
  AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  BillingMode: "PAY_PER_REQUEST",
};
const waiter = { client, minDelay: 1, maxWaitTime: 60 };

async function pair(i) {
  const TableName = `fixture_${i}`;
  await client.send(new CreateTableCommand({ TableName, ...schema }));
  await waitUntilTableExists(waiter, { TableName });
  await client.send(new DeleteTableCommand({ TableName }));
  await waitUntilTableNotExists(waiter, { TableName });
}

async function meanMs(first, count, call) {
  const start = process.hrtime.bigint();
  for (let i = first; i < first + count; ++i) await call(i);
  return Number(process.hrtime.bigint() - start) / 1e6 / count;
}

const firstCount = Math.min(100, Math.max(warmup, 1));
const firstMs = await meanMs(0, firstCount, pair);
if (warmup > firstCount) await meanMs(firstCount, warmup - firstCount, pair);
const steadyMs = await meanMs(Math.max(warmup, firstCount), measured, pair);
const listMs = await meanMs(0, 200, () => client.send(new ListTablesCommand({ Limit: 1 })));
console.log([firstMs, steadyMs, listMs].map((ms) => ms.toFixed(3)).join(" "));
client.destroy();
