// CreateTable + DeleteTable with the JavaScript SDK's waiters, as a test suite's fixture does.
// Usage: node create_delete.mjs ENDPOINT ITERATIONS → prints the mean milliseconds per pair,
// then the mean milliseconds of one ListTables call: the SDK's own floor per request.
import {
  DynamoDBClient, ListTablesCommand, CreateTableCommand, DeleteTableCommand, waitUntilTableExists,
  waitUntilTableNotExists,
} from "@aws-sdk/client-dynamodb";

const [endpoint, iterations = "50"] = process.argv.slice(2);
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

await pair(-1);  // warm-up: connection, SDK initialisation
const start = process.hrtime.bigint();
for (let i = 0; i < Number(iterations); ++i) await pair(i);
const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
console.log((elapsed / Number(iterations)).toFixed(3));
const calls = 200;
const listStart = process.hrtime.bigint();
for (let i = 0; i < calls; ++i) await client.send(new ListTablesCommand({ Limit: 1 }));
console.log((Number(process.hrtime.bigint() - listStart) / 1e6 / calls).toFixed(3));
client.destroy();
