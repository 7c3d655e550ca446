// Control plane through @aws-sdk/client-dynamodb, including the SDK's waiters.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DescribeTableCommand, DeleteTableCommand, UpdateTableCommand,
  ListTablesCommand, TagResourceCommand, UntagResourceCommand, ListTagsOfResourceCommand,
  DescribeLimitsCommand, paginateListTables, waitUntilTableExists, waitUntilTableNotExists,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, client;
const schema = {
  KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
  AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
  BillingMode: "PAY_PER_REQUEST",
};

before(async () => {
  server = await startDdbd();
  client = server.client();
});

after(async () => {
  client.destroy();
  await server.stop();
});

test("create and delete with the SDK waiters", async () => {
  await client.send(new CreateTableCommand({ TableName: "Waited", ...schema }));
  await waitUntilTableExists({ client, maxWaitTime: 20, minDelay: 1 }, { TableName: "Waited" });
  const { Table } = await client.send(new DescribeTableCommand({ TableName: "Waited" }));
  assert.equal(Table.TableStatus, "ACTIVE");
  assert.equal(Table.TableArn, "arn:aws:dynamodb:us-east-1:000000000000:table/Waited");
  assert.equal(Table.BillingModeSummary.BillingMode, "PAY_PER_REQUEST");
  assert.equal(Table.DeletionProtectionEnabled, false);
  assert.ok(Table.CreationDateTime instanceof Date);
  assert.equal(Table.ItemCount, 0);
  await client.send(new DeleteTableCommand({ TableName: "Waited" }));
  await waitUntilTableNotExists({ client, maxWaitTime: 20, minDelay: 1 }, { TableName: "Waited" });
});

test("deletion protection and throughput updates", async () => {
  await client.send(new CreateTableCommand({
    TableName: "Guarded", ...schema, BillingMode: "PROVISIONED",
    ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 2 },
    DeletionProtectionEnabled: true,
  }));
  await assert.rejects(client.send(new DeleteTableCommand({ TableName: "Guarded" })), {
    name: "ValidationException",
    message: "Resource cannot be deleted as it is currently protected against deletion. " +
             "Disable deletion protection first.",
  });
  const updated = await client.send(new UpdateTableCommand({
    TableName: "Guarded", DeletionProtectionEnabled: false,
    ProvisionedThroughput: { ReadCapacityUnits: 4, WriteCapacityUnits: 2 },
  }));
  assert.equal(updated.TableDescription.DeletionProtectionEnabled, false);
  assert.equal(updated.TableDescription.ProvisionedThroughput.ReadCapacityUnits, 4);
  await client.send(new DeleteTableCommand({ TableName: "Guarded" }));
});

test("list tables with the paginator", async () => {
  const names = ["pg_a", "pg_b", "pg_c", "pg_d", "pg_e"];
  for (const TableName of names) await client.send(new CreateTableCommand({ TableName, ...schema }));
  const seen = [];
  for await (const page of paginateListTables({ client, pageSize: 2 }, {})) {
    assert.ok(page.TableNames.length <= 2);
    seen.push(...page.TableNames);
  }
  assert.deepEqual(seen.filter((n) => n.startsWith("pg_")), names);
  const first = await client.send(new ListTablesCommand({ Limit: 1, ExclusiveStartTableName: "pg_c" }));
  assert.deepEqual(first.TableNames, ["pg_d"]);
  assert.equal(first.LastEvaluatedTableName, "pg_d");
});

test("tags", async () => {
  const { TableDescription } = await client.send(new CreateTableCommand({
    TableName: "Tagged", ...schema, Tags: [{ Key: "env", Value: "dev" }],
  }));
  const ResourceArn = TableDescription.TableArn;
  await client.send(new TagResourceCommand({ ResourceArn, Tags: [{ Key: "team", Value: "core" }] }));
  let { Tags } = await client.send(new ListTagsOfResourceCommand({ ResourceArn }));
  assert.deepEqual(Tags, [{ Key: "env", Value: "dev" }, { Key: "team", Value: "core" }]);
  await client.send(new UntagResourceCommand({ ResourceArn, TagKeys: ["env"] }));
  ({ Tags } = await client.send(new ListTagsOfResourceCommand({ ResourceArn })));
  assert.deepEqual(Tags, [{ Key: "team", Value: "core" }]);
});

test("describe limits", async () => {
  const limits = await client.send(new DescribeLimitsCommand({}));
  assert.equal(limits.TableMaxReadCapacityUnits, 40000);
});

test("create validation errors", async () => {
  await assert.rejects(client.send(new CreateTableCommand({ TableName: "Tagged", ...schema })), {
    name: "ResourceInUseException", message: "Table already exists: Tagged" });
  await assert.rejects(client.send(new CreateTableCommand({
    TableName: "NoKey", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "other", AttributeType: "S" }],
  })), {
    name: "ValidationException",
    message: "One or more parameter values were invalid: Some index key attributes are not " +
             "defined in AttributeDefinitions. Keys: [id], AttributeDefinitions: [other]",
  });
});

test("on-demand maximums: set at creation, merged and cleared by UpdateTable, on GSIs too", async () => {
  await client.send(new CreateTableCommand({
    TableName: "Capped",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" },
      { AttributeName: "kind", AttributeType: "S" }],
    BillingMode: "PAY_PER_REQUEST",
    OnDemandThroughput: { MaxReadRequestUnits: 1000, MaxWriteRequestUnits: 500 },
    GlobalSecondaryIndexes: [{
      IndexName: "ByKind",
      KeySchema: [{ AttributeName: "kind", KeyType: "HASH" }],
      Projection: { ProjectionType: "KEYS_ONLY" },
      OnDemandThroughput: { MaxWriteRequestUnits: 40 },
    }],
  }));
  const describe = async () =>
    (await client.send(new DescribeTableCommand({ TableName: "Capped" }))).Table;
  let table = await describe();
  assert.deepEqual(table.OnDemandThroughput, { MaxReadRequestUnits: 1000, MaxWriteRequestUnits: 500 });
  assert.deepEqual(table.GlobalSecondaryIndexes[0].OnDemandThroughput, { MaxWriteRequestUnits: 40 });

  await client.send(new UpdateTableCommand({
    TableName: "Capped", OnDemandThroughput: { MaxReadRequestUnits: 2000 } }));
  assert.deepEqual((await describe()).OnDemandThroughput,
    { MaxReadRequestUnits: 2000, MaxWriteRequestUnits: 500 });
  await client.send(new UpdateTableCommand({
    TableName: "Capped", OnDemandThroughput: { MaxReadRequestUnits: -1 } }));
  assert.deepEqual((await describe()).OnDemandThroughput, { MaxWriteRequestUnits: 500 });
  await client.send(new UpdateTableCommand({
    TableName: "Capped", OnDemandThroughput: { MaxWriteRequestUnits: -1 } }));
  assert.equal((await describe()).OnDemandThroughput, undefined);

  await client.send(new UpdateTableCommand({
    TableName: "Capped",
    GlobalSecondaryIndexUpdates: [{ Update: {
      IndexName: "ByKind", OnDemandThroughput: { MaxReadRequestUnits: 7, MaxWriteRequestUnits: -1 } } }],
  }));
  table = await describe();
  assert.deepEqual(table.GlobalSecondaryIndexes[0].OnDemandThroughput, { MaxReadRequestUnits: 7 });

  for (const [member, value] of [["MaxWriteRequestUnits", 0], ["MaxReadRequestUnits", -2]]) {
    await assert.rejects(
      client.send(new UpdateTableCommand({ TableName: "Capped", OnDemandThroughput: { [member]: value } })),
      { name: "ValidationException",
        message: `One or more parameter values were invalid: Requested ${member} for OnDemandThroughput for table is outside of valid range` });
  }
  await assert.rejects(
    client.send(new UpdateTableCommand({ TableName: "Capped", BillingMode: "PROVISIONED",
      ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
      OnDemandThroughput: { MaxWriteRequestUnits: 5 } })),
    { name: "ValidationException",
      message: "One or more parameter values were invalid: MaxWriteRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED" });
  await client.send(new DeleteTableCommand({ TableName: "Capped" }));
});

test("on-demand maximums: -1 is refused at creation, and so are maximums on a PROVISIONED table", async () => {
  const base = {
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" },
      { AttributeName: "kind", AttributeType: "S" }],
  };
  const refused = (input, message) => assert.rejects(
    client.send(new CreateTableCommand({ TableName: "NeverMade", ...base, ...input })),
    { name: "ValidationException", message: `One or more parameter values were invalid: ${message}` });
  await refused({ BillingMode: "PAY_PER_REQUEST",
    OnDemandThroughput: { MaxReadRequestUnits: -1, MaxWriteRequestUnits: -1 } },
    "Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range");
  await refused({ BillingMode: "PAY_PER_REQUEST",
    OnDemandThroughput: { MaxReadRequestUnits: 0, MaxWriteRequestUnits: 0 } },
    "Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range");
  await refused({ BillingMode: "PROVISIONED",
    ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
    OnDemandThroughput: { MaxReadRequestUnits: 10 } },
    "MaxReadRequestUnits for OnDemandThroughput cannot be specified when table BillingMode is PROVISIONED.");
  await refused({ BillingMode: "PAY_PER_REQUEST",
    GlobalSecondaryIndexes: [{ IndexName: "g-a", KeySchema: [{ AttributeName: "kind", KeyType: "HASH" }],
      Projection: { ProjectionType: "ALL" }, OnDemandThroughput: { MaxReadRequestUnits: -1 } }] },
    "Requested MaxReadRequestUnits for OnDemandThroughput for index : g-a is outside of valid range");
  const { TableNames } = await client.send(new ListTablesCommand({}));
  assert.ok(!TableNames.includes("NeverMade"));
});
