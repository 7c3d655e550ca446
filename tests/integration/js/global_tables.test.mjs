// Global tables (version 2019.11.21) through the JavaScript SDK, with regions as namespaces
// (--isolate region): replicas added with UpdateTable's ReplicaUpdates hold a copy of the
// items and their indexes, a write in one region reaches the others once the replication
// delay has passed by the server's clock (frozen here, so the delay is observed exactly),
// conflicting writes resolve by last writer wins, a replica is deleted, replication resumes
// after a kill -9, and DynamoDB's refusals come with its texts. Also: the legacy 2017.11.29
// operations answer as DynamoDB now does, and replica auto scaling settings are stored and
// reported.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateGlobalTableCommand, CreateTableCommand, DeleteItemCommand, DeleteTableCommand,
  DescribeGlobalTableCommand, DescribeGlobalTableSettingsCommand, DescribeTableCommand,
  DescribeTableReplicaAutoScalingCommand, GetItemCommand, ListGlobalTablesCommand,
  PutItemCommand, QueryCommand, UpdateGlobalTableCommand, UpdateGlobalTableSettingsCommand,
  UpdateTableCommand, UpdateTableReplicaAutoScalingCommand, UpdateTimeToLiveCommand,
  DescribeTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand, DynamoDBStreamsClient, GetShardIteratorCommand,
} from "@aws-sdk/client-dynamodb-streams";
import { startDdbd } from "./ddbd.mjs";

const DELAY_S = 5;
let server, east, west, europe;

function connect() {
  east = server.client("AKIDJS", "us-east-1");
  west = server.client("AKIDJS", "us-west-2");
  europe = server.client("AKIDJS", "eu-west-1");
}

before(async () => {
  server = await startDdbd("--isolate", "region", "--replication-delay-ms", String(DELAY_S * 1000));
  connect();
  assert.equal((await server.control("PUT", "/ddbd/clock", { Run: false })).status, 200);
});

after(async () => {
  for (const client of [east, west, europe]) client.destroy();
  await server.stop();
});

const advance = (seconds) => server.control("PUT", "/ddbd/clock", { Advance: seconds });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function createTable(client, TableName, extra = {}) {
  return (await client.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" },
                           { AttributeName: "genre", AttributeType: "S" }],
    GlobalSecondaryIndexes: [{ IndexName: "ByGenre", Projection: { ProjectionType: "ALL" },
                               KeySchema: [{ AttributeName: "genre", KeyType: "HASH" }] }],
    ...extra }))).TableDescription;
}

const put = (client, TableName, pk, fields = {}) => client.send(new PutItemCommand({
  TableName, Item: { pk: { S: pk }, ...fields } }));
async function read(client, TableName, pk) {
  const { Item } = await client.send(new GetItemCommand({
    TableName, Key: { pk: { S: pk } }, ConsistentRead: true }));
  return Item;
}
const describe = async (client, TableName) =>
  (await client.send(new DescribeTableCommand({ TableName }))).Table;
const replicaUpdate = (client, TableName, ReplicaUpdates, extra = {}) =>
  client.send(new UpdateTableCommand({ TableName, ReplicaUpdates, ...extra }));

// Waits (by the wall clock: a pass runs every few milliseconds) until `check` holds.
async function eventually(check, what) {
  for (let i = 0; i < 200; ++i) {
    if (await check()) return;
    await sleep(25);
  }
  assert.fail(`never happened: ${what}`);
}

async function rejects(promise, name, message) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.name, name);
    if (message instanceof RegExp) assert.match(error.message, message);
    else if (message !== undefined) assert.equal(error.message, message);
    return true;
  });
}

const regions = (table) => (table.Replicas ?? []).map((r) => `${r.RegionName}:${r.ReplicaStatus}`);

test("replicas hold the items, and a write in one region reaches the others after the delay",
     async () => {
  await createTable(east, "Music");
  await put(east, "Music", "before", { genre: { S: "jazz" } });
  const { TableDescription: adding } =
    await replicaUpdate(east, "Music", [{ Create: { RegionName: "us-west-2" } }]);
  assert.equal(adding.TableStatus, "UPDATING");
  assert.equal(adding.GlobalTableVersion, "2019.11.21");
  assert.deepEqual(regions(adding), ["us-west-2:CREATING"]);
  // A global table always has a stream: enabled with both images when it had none.
  assert.deepEqual(adding.StreamSpecification,
                   { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" });
  await replicaUpdate(east, "Music", [{ Create: { RegionName: "eu-west-1" } }]);

  const inEast = await describe(east, "Music");
  assert.equal(inEast.TableStatus, "ACTIVE");
  assert.deepEqual(regions(inEast), ["us-west-2:ACTIVE", "eu-west-1:ACTIVE"]);
  assert.equal(inEast.MultiRegionConsistency, undefined);  // EVENTUAL is not shown
  const inWest = await describe(west, "Music");
  assert.equal(inWest.TableArn, "arn:aws:dynamodb:us-west-2:000000000000:table/Music");
  assert.notEqual(inWest.TableId, inEast.TableId);
  assert.deepEqual(regions(inWest), ["us-east-1:ACTIVE", "eu-west-1:ACTIVE"]);
  assert.equal(inWest.GlobalSecondaryIndexes[0].IndexName, "ByGenre");
  assert.notEqual(inWest.LatestStreamArn, inEast.LatestStreamArn);

  // The items there before the replicas were added were copied, index entries included.
  assert.deepEqual(await read(west, "Music", "before"), { pk: { S: "before" }, genre: { S: "jazz" } });
  const jazz = await europe.send(new QueryCommand({
    TableName: "Music", IndexName: "ByGenre", KeyConditionExpression: "genre = :g",
    ExpressionAttributeValues: { ":g": { S: "jazz" } } }));
  assert.deepEqual(jazz.Items.map((item) => item.pk.S), ["before"]);

  // With the clock frozen, a change waits for the delay.
  await put(east, "Music", "song", { genre: { S: "rock" }, v: { N: "1" } });
  await sleep(300);
  assert.equal(await read(west, "Music", "song"), undefined);
  assert.equal(await read(europe, "Music", "song"), undefined);
  await advance(DELAY_S - 1);
  await sleep(300);
  assert.equal(await read(west, "Music", "song"), undefined);
  await advance(1);
  await eventually(async () => (await read(west, "Music", "song"))?.v?.N === "1", "west has it");
  await eventually(async () => (await read(europe, "Music", "song"))?.v?.N === "1", "eu has it");
  const rock = await west.send(new QueryCommand({
    TableName: "Music", IndexName: "ByGenre", KeyConditionExpression: "genre = :g",
    ExpressionAttributeValues: { ":g": { S: "rock" } } }));
  assert.deepEqual(rock.Items.map((item) => item.pk.S), ["song"]);

  // A change made in a replica travels the other way too; deletes travel as well.
  await put(europe, "Music", "from-eu", { v: { N: "7" } });
  await europe.send(new DeleteItemCommand({ TableName: "Music", Key: { pk: { S: "before" } } }));
  await advance(DELAY_S);
  await eventually(async () => (await read(east, "Music", "from-eu"))?.v?.N === "7", "east");
  await eventually(async () => (await read(west, "Music", "before")) === undefined, "deleted");
  assert.equal(await read(east, "Music", "before"), undefined);
});

test("conflicting writes resolve by last writer wins", async () => {
  await put(east, "Music", "gone", { v: { S: "east, first" } });
  await advance(DELAY_S);
  await eventually(async () => (await read(west, "Music", "gone")) !== undefined, "in west");
  // Two regions write the same item before either hears of the other: the later write wins
  // everywhere, whichever arrives last; so does a delete.
  await put(west, "Music", "clash", { v: { S: "west, earlier" } });
  await advance(1);
  await put(europe, "Music", "clash", { v: { S: "europe, later" } });
  await put(east, "Music", "gone", { v: { S: "east, earlier" } });
  await advance(1);
  await west.send(new DeleteItemCommand({ TableName: "Music", Key: { pk: { S: "gone" } } }));
  // Before replication each region has its own version.
  assert.equal((await read(west, "Music", "clash")).v.S, "west, earlier");
  assert.equal((await read(europe, "Music", "clash")).v.S, "europe, later");
  await advance(DELAY_S);
  for (const client of [east, west, europe]) {
    await eventually(async () => (await read(client, "Music", "clash"))?.v?.S === "europe, later",
                     "the later write everywhere");
    await eventually(async () => (await read(client, "Music", "gone")) === undefined,
                     "the later delete everywhere");
  }
  await sleep(200);  // and nothing older comes back afterwards
  assert.equal((await read(west, "Music", "clash")).v.S, "europe, later");
  assert.equal(await read(east, "Music", "gone"), undefined);
});

test("group-wide settings reach every replica", async () => {
  await east.send(new UpdateTimeToLiveCommand({ TableName: "Music",
    TimeToLiveSpecification: { AttributeName: "expires", Enabled: true } }));
  const ttl = await west.send(new DescribeTimeToLiveCommand({ TableName: "Music" }));
  assert.deepEqual(ttl.TimeToLiveDescription,
                   { AttributeName: "expires", TimeToLiveStatus: "ENABLED" });
  await west.send(new UpdateTableCommand({ TableName: "Music",
    AttributeDefinitions: [{ AttributeName: "year", AttributeType: "N" }],
    GlobalSecondaryIndexUpdates: [{ Create: { IndexName: "ByYear",
      KeySchema: [{ AttributeName: "year", KeyType: "HASH" }],
      Projection: { ProjectionType: "KEYS_ONLY" } } }] }));
  for (const client of [east, west, europe]) {
    await eventually(async () => (await describe(client, "Music")).GlobalSecondaryIndexes
      .some((index) => index.IndexName === "ByYear" && index.IndexStatus === "ACTIVE"), "ByYear");
  }
  await rejects(east.send(new UpdateTableCommand({ TableName: "Music",
    StreamSpecification: { StreamEnabled: false } })), "ValidationException",
    "One or more parameter values were invalid: Disabling Stream is not allowed for a Global " +
    "Table replica.");
});

test("DynamoDB's refusals of replica updates", async () => {
  const only = "One or more parameter values were invalid: Replica modification must be the only " +
               "operation in the request";
  await rejects(replicaUpdate(east, "Music", [{ Create: { RegionName: "ap-south-1" } }],
                              { DeletionProtectionEnabled: true }), "ValidationException", only);
  await rejects(replicaUpdate(east, "Music", [{ Create: { RegionName: "us-east-1" } }]),
    "ValidationException", "Cannot add or delete the local region through ReplicaUpdates. Use " +
    "CreateTable, DeleteTable, or UpdateTable as required.");
  await rejects(replicaUpdate(east, "Music", [{ Create: { RegionName: "us-fake-1" } }]),
    "ValidationException", new RegExp("^Region us-fake-1 is not supported\\. The latest version " +
      "of global tables are only supported in the following regions: \\[af-south-1, .*us-west-2" +
      ".*\\]\\.$"));
  await rejects(replicaUpdate(east, "Music", [{ Create: { RegionName: "eu-west-1" } }]),
    "ValidationException", "Failed to create a the new replica of table with name: \u2018Music\u2019 " +
    "because one or more replicas already existed as tables.");
  await rejects(replicaUpdate(east, "Music", [{ Delete: { RegionName: "ca-central-1" } }]),
    "ValidationException", "Update global table operation failed because one or more replicas " +
    "were not part of the global table. Please retry the request without these replicas: " +
    "[ca-central-1].");
  await rejects(replicaUpdate(east, "Music", [{ Create: { RegionName: "ap-south-1" } },
                                              { Create: { RegionName: "ap-south-2" } }]),
    "ValidationException",
    "Update table operation with more than one create or delete replica actions not allowed");
  await rejects(replicaUpdate(east, "Music", [{ Create: { RegionName: "ap-south-1" } },
                                              { Delete: { RegionName: "eu-west-1" } }]),
    "ValidationException",
    "Update table operation with more than one type of replica actions not allowed.");
  await rejects(replicaUpdate(east, "Music", [{ Update: { RegionName: "eu-west-1" } }]),
    "ValidationException",
    "There are no actions specified in the Replica Update Action of the request.");
  await rejects(replicaUpdate(east, "Music", [{ Update: { RegionName: "eu-west-1",
    ProvisionedThroughputOverride: { ReadCapacityUnits: 5 } } }]), "ValidationException",
    "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is " +
    "PAY_PER_REQUEST");
  await rejects(replicaUpdate(east, "Music", [{ Create: { RegionName: "ap-south-1" } }],
                              { MultiRegionConsistency: "STRONG" }), "ValidationException",
    "MultiRegionConsistency parameter is unsupported on existing global table");

  await createTable(east, "Strong");
  await rejects(replicaUpdate(east, "Strong", [{ Create: { RegionName: "us-east-2" } }],
                              { MultiRegionConsistency: "STRONG" }), "ValidationException",
    "Unsupported replica count for global tables with MultiRegionConsistency set to STRONG.");
  await rejects(replicaUpdate(east, "Strong", [{ Create: { RegionName: "us-east-2" } }],
    { GlobalTableWitnessUpdates: [{ Create: { RegionName: "us-west-2" } }] }),
    "ValidationException", "MultiRegionConsistency must be set as STRONG when " +
    "GlobalTableWitnessUpdates parameter is present.");
  await rejects(replicaUpdate(east, "Strong", [{ Create: { RegionName: "us-east-2" } },
    { Create: { RegionName: "us-west-1" } }], { MultiRegionConsistency: "STRONG" }),
    "ValidationException", "Unsupported Region(s) specified for global tables with " +
    "MultiRegionConsistency set to STRONG: [us-west-1].");
  const { TableDescription: strong } = await replicaUpdate(east, "Strong",
    [{ Create: { RegionName: "us-east-2" } }],
    { MultiRegionConsistency: "STRONG", GlobalTableWitnessUpdates: [{ Create: { RegionName: "us-west-2" } }] });
  assert.equal(strong.MultiRegionConsistency, "STRONG");
  assert.deepEqual(strong.GlobalTableWitnesses, [{ RegionName: "us-west-2", WitnessStatus: "ACTIVE" }]);
  // Strongly consistent: a write is in the other replica when the request returns, though
  // the clock stands still.
  const ohio = server.client("AKIDJS", "us-east-2");
  await put(east, "Strong", "now", { v: { N: "1" } });
  assert.deepEqual(await read(ohio, "Strong", "now"), { pk: { S: "now" }, v: { N: "1" } });
  await put(ohio, "Strong", "now", { v: { N: "2" } });
  assert.equal((await read(east, "Strong", "now")).v.N, "2");
  ohio.destroy();
  await rejects(east.send(new DeleteTableCommand({ TableName: "Strong" })), "ValidationException",
    "Deletion of only one table replica is not supported for global tables with " +
    "MultiRegionConsistency set to STRONG.");
  // Taken apart whole: the other replica and the witness in one request.
  await replicaUpdate(east, "Strong", [{ Delete: { RegionName: "us-east-2" } }],
    { GlobalTableWitnessUpdates: [{ Delete: { RegionName: "us-west-2" } }] });
  const regional = await describe(east, "Strong");
  assert.equal(regional.Replicas, undefined);
  assert.equal(regional.GlobalTableVersion, undefined);
  assert.equal(regional.MultiRegionConsistency, undefined);
  await rejects(describe(server.client("AKIDJS", "us-east-2"), "Strong"),
                "ResourceNotFoundException");
});

test("a replica is deleted, and the last one leaves a regional table with its stream",
     async () => {
  const { TableDescription: deleting } =
    await replicaUpdate(east, "Music", [{ Delete: { RegionName: "eu-west-1" } }]);
  assert.equal(deleting.TableStatus, "UPDATING");
  assert.deepEqual(regions(deleting), ["us-west-2:ACTIVE", "eu-west-1:ACTIVE"]);
  assert.deepEqual(regions(await describe(east, "Music")), ["us-west-2:ACTIVE"]);
  assert.deepEqual(regions(await describe(west, "Music")), ["us-east-1:ACTIVE"]);
  await rejects(describe(europe, "Music"), "ResourceNotFoundException");
  // The remaining replicas still replicate.
  await put(west, "Music", "after-delete", { v: { N: "1" } });
  await advance(DELAY_S);
  await eventually(async () => (await read(east, "Music", "after-delete")) !== undefined, "east");

  // DeleteTable in a replica's own region removes that replica from the group.
  await west.send(new DeleteTableCommand({ TableName: "Music" }));
  const regional = await describe(east, "Music");
  assert.equal(regional.Replicas, undefined);
  assert.equal(regional.GlobalTableVersion, undefined);
  assert.deepEqual(regional.StreamSpecification,
                   { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" });
  // A regional table again: its stream can be disabled.
  await east.send(new UpdateTableCommand({ TableName: "Music",
                                           StreamSpecification: { StreamEnabled: false } }));
});

test("replication resumes after a kill -9", async () => {
  await createTable(east, "Durable");
  await replicaUpdate(east, "Durable", [{ Create: { RegionName: "us-west-2" } }]);
  for (let i = 0; i < 20; ++i) await put(east, "Durable", `k${i}`, { v: { N: String(i) } });
  await sleep(200);
  assert.equal(await read(west, "Durable", "k0"), undefined);  // the clock is frozen
  // The restarted server's clock runs from the system's: moved past the changes' delay, every
  // change is due.
  const { body: frozen } = await server.control("GET", "/ddbd/clock");
  await server.restart("SIGKILL");
  for (const client of [east, west, europe]) client.destroy();
  connect();  // the restarted server listens on another port
  assert.equal((await server.control("PUT", "/ddbd/clock",
                                     { Now: frozen.Now + DELAY_S, Run: false })).status, 200);
  for (let i = 0; i < 20; ++i) {
    await eventually(async () => (await read(west, "Durable", `k${i}`))?.v?.N === String(i),
                     `k${i} replicated after the restart`);
  }
  assert.deepEqual(regions(await describe(west, "Durable")), ["us-east-1:ACTIVE"]);
  await put(west, "Durable", "k0", { v: { S: "newer" } });
  await advance(DELAY_S);
  await eventually(async () => (await read(east, "Durable", "k0"))?.v?.S === "newer", "back east");
});

test("a change is not lost when the clock moves past the stream's retention", async () => {
  const streams = new DynamoDBStreamsClient({
    endpoint: server.endpoint, region: "us-east-1", maxAttempts: 1,
    credentials: { accessKeyId: "AKIDJS", secretAccessKey: "secret" },
  });
  try {
    await put(east, "Durable", "late", { v: { N: "1" } });
    await advance(25 * 3600);
    // Reading the stream trims what is past 24 hours at once — after replicating it.
    const { LatestStreamArn } = await describe(east, "Durable");
    const { StreamDescription } =
      await streams.send(new DescribeStreamCommand({ StreamArn: LatestStreamArn }));
    await streams.send(new GetShardIteratorCommand({ StreamArn: LatestStreamArn,
      ShardId: StreamDescription.Shards[0].ShardId, ShardIteratorType: "TRIM_HORIZON" }));
    assert.equal((await read(west, "Durable", "late")).v.N, "1");
  } finally {
    streams.destroy();
  }
});

test("version 2017.11.29 is refused as DynamoDB refuses it now", async () => {
  await rejects(east.send(new CreateGlobalTableCommand({
    GlobalTableName: "Durable", ReplicationGroup: [{ RegionName: "us-east-1" }] })),
    "ValidationException", "One or more parameter values were invalid: DynamoDB global tables " +
    "version 2017.11.29 is not supported. We recommend using DynamoDB global tables version " +
    "2019.11.21, instead of version 2017.11.29 (Legacy).");
  await rejects(east.send(new DescribeGlobalTableCommand({ GlobalTableName: "Durable" })),
    "GlobalTableNotFoundException",
    "Global table not found: Global table with name: 'Durable' does not exist.");
  await rejects(east.send(new DescribeGlobalTableSettingsCommand({ GlobalTableName: "Durable" })),
    "GlobalTableNotFoundException", "Global table with name: 'Durable' does not exist.");
  await rejects(east.send(new UpdateGlobalTableSettingsCommand({ GlobalTableName: "Durable",
    GlobalTableProvisionedWriteCapacityUnits: 5 })), "GlobalTableNotFoundException",
    "Global table with name: 'Durable' does not exist.");
  await rejects(east.send(new UpdateGlobalTableCommand({ GlobalTableName: "Durable",
    ReplicaUpdates: [{ Delete: { RegionName: "us-west-2" } }] })), "GlobalTableNotFoundException",
    "Global table not found: Global table with name: 'Durable' does not exist.");
  const listed = await east.send(new ListGlobalTablesCommand({ Limit: 1 }));
  assert.deepEqual(listed.GlobalTables, []);
  assert.equal(listed.LastEvaluatedGlobalTableName, undefined);
});

test("replica auto scaling settings are stored and reported", async () => {
  await rejects(east.send(new DescribeTableReplicaAutoScalingCommand({ TableName: "Strong" })),
    "ResourceNotFoundException", "Global table with name: 'Strong' does not exist.");
  await east.send(new CreateTableCommand({ TableName: "Scaled", BillingMode: "PROVISIONED",
    ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }] }));
  await replicaUpdate(east, "Scaled", [{ Create: { RegionName: "eu-west-1",
    ProvisionedThroughputOverride: { ReadCapacityUnits: 3 } } }]);
  const { TableAutoScalingDescription: initial } = await east.send(
    new DescribeTableReplicaAutoScalingCommand({ TableName: "Scaled" }));
  const off = { AutoScalingDisabled: true, ScalingPolicies: [] };
  assert.deepEqual(initial, { TableName: "Scaled", TableStatus: "ACTIVE", Replicas: [
    { RegionName: "eu-west-1", GlobalSecondaryIndexes: [], ReplicaStatus: "ACTIVE",
      ReplicaProvisionedReadCapacityAutoScalingSettings: off,
      ReplicaProvisionedWriteCapacityAutoScalingSettings: off },
    { RegionName: "us-east-1", GlobalSecondaryIndexes: [], ReplicaStatus: "ACTIVE",
      ReplicaProvisionedReadCapacityAutoScalingSettings: off,
      ReplicaProvisionedWriteCapacityAutoScalingSettings: off }] });
  assert.deepEqual((await describe(europe, "Scaled")).ProvisionedThroughput.ReadCapacityUnits, 3);

  await rejects(east.send(new UpdateTableReplicaAutoScalingCommand({ TableName: "Scaled",
    ProvisionedWriteCapacityAutoScalingUpdate: { MinimumUnits: 1, MaximumUnits: 10 } })),
    "ValidationException", "Failed to update settings for global table with name: \u2018Scaled\u2019: " +
    "Parameters 'ScalingPolicyUpdate' are required unless auto scaling is being disabled.");
  await rejects(east.send(new UpdateTableReplicaAutoScalingCommand({ TableName: "Scaled",
    ProvisionedWriteCapacityAutoScalingUpdate: { MinimumUnits: 20, MaximumUnits: 10,
      ScalingPolicyUpdate: { TargetTrackingScalingPolicyConfiguration: { TargetValue: 70 } } } })),
    "ValidationException", /^Maximum capacity cannot be less than minimum capacity \(Service: AWSApplicationAutoScaling; /);
  await rejects(east.send(new UpdateTableReplicaAutoScalingCommand({ TableName: "Scaled",
    ReplicaUpdates: [{ RegionName: "eu-west-1", ReplicaProvisionedReadCapacityAutoScalingUpdate: {
      MinimumUnits: 1, MaximumUnits: 10,
      ScalingPolicyUpdate: { TargetTrackingScalingPolicyConfiguration: { TargetValue: 90.1 } } } }] })),
    "ValidationException", /^For predefined metric type DynamoDBReadCapacityUtilization, target value must be between '10\.0' and '90\.0', but was '90\.1'\. /);

  const { TableAutoScalingDescription: updated } = await east.send(
    new UpdateTableReplicaAutoScalingCommand({ TableName: "Scaled",
      ProvisionedWriteCapacityAutoScalingUpdate: { MinimumUnits: 2, MaximumUnits: 20,
        ScalingPolicyUpdate: { TargetTrackingScalingPolicyConfiguration: { TargetValue: 70 } } },
      ReplicaUpdates: [{ RegionName: "eu-west-1", ReplicaProvisionedReadCapacityAutoScalingUpdate: {
        MinimumUnits: 1, MaximumUnits: 8, ScalingPolicyUpdate: { PolicyName: "reads",
          TargetTrackingScalingPolicyConfiguration: { TargetValue: 50, ScaleInCooldown: 60 } } } }] }));
  const role = "arn:aws:iam::000000000000:role/aws-service-role/dynamodb.application-autoscaling." +
               "amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable";
  const writes = { MinimumUnits: 2, MaximumUnits: 20, AutoScalingRoleArn: role, ScalingPolicies: [{
    PolicyName: "DynamoDBWriteCapacityUtilization:table/Scaled",
    TargetTrackingScalingPolicyConfiguration: { TargetValue: 70 } }] };
  assert.deepEqual(updated.Replicas[0].ReplicaProvisionedWriteCapacityAutoScalingSettings, writes);
  assert.deepEqual(updated.Replicas[1].ReplicaProvisionedWriteCapacityAutoScalingSettings, writes);
  assert.deepEqual(updated.Replicas[0].ReplicaProvisionedReadCapacityAutoScalingSettings, {
    MinimumUnits: 1, MaximumUnits: 8, AutoScalingRoleArn: role, ScalingPolicies: [{
      PolicyName: "reads",
      TargetTrackingScalingPolicyConfiguration: { ScaleInCooldown: 60, TargetValue: 50 } }] });
  assert.deepEqual(updated.Replicas[1].ReplicaProvisionedReadCapacityAutoScalingSettings, off);
  // Every replica reports the same settings.
  const fromEurope = await europe.send(
    new DescribeTableReplicaAutoScalingCommand({ TableName: "Scaled" }));
  assert.deepEqual(fromEurope.TableAutoScalingDescription, updated);
});

test("without region isolation a replica is recorded and every region sees the same table",
     async () => {
  const shared = await startDdbd();
  const here = shared.client("AKIDJS", "us-east-1");
  const there = shared.client("AKIDJS", "ap-northeast-1");
  try {
    await createTable(here, "Shared");
    const { TableDescription } =
      await replicaUpdate(here, "Shared", [{ Create: { RegionName: "ap-northeast-1" } }]);
    assert.deepEqual(regions(TableDescription), ["ap-northeast-1:CREATING"]);
    assert.deepEqual(regions(await describe(here, "Shared")), ["ap-northeast-1:ACTIVE"]);
    await put(here, "Shared", "one");
    assert.deepEqual(await read(there, "Shared", "one"), { pk: { S: "one" } });
    await replicaUpdate(here, "Shared", [{ Delete: { RegionName: "ap-northeast-1" } }]);
    assert.equal((await describe(here, "Shared")).Replicas, undefined);
  } finally {
    here.destroy();
    there.destroy();
    await shared.stop();
  }
});

test("a replica still being created when the server is killed is removed at the next start",
     async () => {
  const slow = await startDdbd("--isolate", "region", "--transient-status-ms", "2000");
  let here = slow.client("AKIDJS", "us-east-1");
  try {
    await createTable(here, "Slow");
    await eventually(async () => (await describe(here, "Slow")).TableStatus === "ACTIVE", "ACTIVE");
    await replicaUpdate(here, "Slow", [{ Create: { RegionName: "eu-west-1" } }]);
    const creating = await describe(here, "Slow");
    assert.equal(creating.TableStatus, "UPDATING");
    assert.deepEqual(regions(creating), ["eu-west-1:CREATING"]);
    await slow.restart("SIGKILL");
    here.destroy();
    here = slow.client("AKIDJS", "us-east-1");
    const after = await describe(here, "Slow");
    assert.equal(after.Replicas, undefined);
    const there = slow.client("AKIDJS", "eu-west-1");
    await rejects(describe(there, "Slow"), "ResourceNotFoundException");
    there.destroy();
  } finally {
    here.destroy();
    await slow.stop();
  }
});
