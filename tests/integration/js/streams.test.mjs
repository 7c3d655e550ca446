// DynamoDB Streams through @aws-sdk/client-dynamodb-streams: a table created with a
// NEW_AND_OLD_IMAGES stream, every kind of write read back in order with its images, the
// iterator types, a KEYS_ONLY stream enabled later with UpdateTable, disabling, and records
// surviving a restart.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DeleteItemCommand, DescribeTableCommand, PutItemCommand,
  TransactWriteItemsCommand, UpdateItemCommand, UpdateTableCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand,
  ListStreamsCommand,
} from "@aws-sdk/client-dynamodb-streams";
import { startDdbd } from "./ddbd.mjs";

let server, client, streams;

// (Re)creates the clients: a restarted server listens on a new port.
function connect() {
  client?.destroy();
  streams?.destroy();
  client = server.client();
  streams = new DynamoDBStreamsClient({
    endpoint: server.endpoint, region: "us-east-1", maxAttempts: 1,
    credentials: { accessKeyId: "AKIDJS", secretAccessKey: "secret" },
  });
}

before(async () => {
  server = await startDdbd();
  connect();
});

after(async () => {
  client.destroy();
  streams.destroy();
  await server.stop();
});

async function shardOf(StreamArn) {
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
  return StreamDescription.Shards[0].ShardId;
}

async function readAll(StreamArn, type = "TRIM_HORIZON", extra = {}) {
  const ShardId = await shardOf(StreamArn);
  let { ShardIterator } = await streams.send(new GetShardIteratorCommand({
    StreamArn, ShardId, ShardIteratorType: type, ...extra,
  }));
  const records = [];
  for (;;) {
    const page = await streams.send(new GetRecordsCommand({ ShardIterator, Limit: 2 }));
    records.push(...page.Records);
    if (page.Records.length === 0 || !page.NextShardIterator) {
      return { records, next: page.NextShardIterator };
    }
    ShardIterator = page.NextShardIterator;
  }
}

const summary = (records) => records.map((r) => [r.eventName, r.dynamodb.Keys.id.S,
                                                 r.dynamodb.OldImage?.v?.N, r.dynamodb.NewImage?.v?.N]);

test("every change, in order, with old and new images", async () => {
  const created = await client.send(new CreateTableCommand({
    TableName: "Orders", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  }));
  const description = created.TableDescription;
  assert.deepEqual(description.StreamSpecification,
                   { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" });
  assert.match(description.LatestStreamArn,
               /^arn:aws:dynamodb:us-east-1:\d{12}:table\/Orders\/stream\/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
  assert.equal(description.LatestStreamArn.endsWith(description.LatestStreamLabel), true);
  const StreamArn = description.LatestStreamArn;

  await client.send(new PutItemCommand({ TableName: "Orders", Item: { id: { S: "o1" }, v: { N: "1" } } }));
  await client.send(new PutItemCommand({ TableName: "Orders", Item: { id: { S: "o1" }, v: { N: "1" } } }));  // unchanged: no record
  await client.send(new UpdateItemCommand({
    TableName: "Orders", Key: { id: { S: "o1" } }, UpdateExpression: "SET v = :two",
    ExpressionAttributeValues: { ":two": { N: "2" } },
  }));
  await client.send(new DeleteItemCommand({ TableName: "Orders", Key: { id: { S: "missing" } } }));  // nothing deleted: no record
  await client.send(new TransactWriteItemsCommand({ TransactItems: [
    { Put: { TableName: "Orders", Item: { id: { S: "o2" }, v: { N: "5" } } } },
    { Delete: { TableName: "Orders", Key: { id: { S: "o1" } } } },
  ] }));

  const { records, next } = await readAll(StreamArn);
  assert.deepEqual(summary(records), [
    ["INSERT", "o1", undefined, "1"],
    ["MODIFY", "o1", "1", "2"],
    ["INSERT", "o2", undefined, "5"],
    ["REMOVE", "o1", "2", undefined],
  ]);
  const sequences = records.map((r) => BigInt(r.dynamodb.SequenceNumber));
  assert.deepEqual([...sequences].sort((a, b) => (a < b ? -1 : 1)), sequences);
  assert.equal(new Set(records.map((r) => r.eventID)).size, 4);
  for (const record of records) {
    assert.equal(record.eventSource, "aws:dynamodb");
    assert.equal(record.awsRegion, "us-east-1");
    assert.equal(record.dynamodb.StreamViewType, "NEW_AND_OLD_IMAGES");
    assert.ok(record.dynamodb.ApproximateCreationDateTime instanceof Date);
    assert.ok(record.dynamodb.SizeBytes > 0);
  }
  assert.ok(next, "an enabled stream's shard stays open");

  // AT/AFTER_SEQUENCE_NUMBER and LATEST.
  const second = records[1].dynamodb.SequenceNumber;
  assert.deepEqual(summary((await readAll(StreamArn, "AT_SEQUENCE_NUMBER", { SequenceNumber: second })).records).length, 3);
  assert.deepEqual(summary((await readAll(StreamArn, "AFTER_SEQUENCE_NUMBER", { SequenceNumber: second })).records).length, 2);
  const ShardId = await shardOf(StreamArn);
  const latest = await streams.send(new GetShardIteratorCommand({ StreamArn, ShardId, ShardIteratorType: "LATEST" }));
  await client.send(new PutItemCommand({ TableName: "Orders", Item: { id: { S: "o3" }, v: { N: "7" } } }));
  const fresh = await streams.send(new GetRecordsCommand({ ShardIterator: latest.ShardIterator }));
  assert.deepEqual(summary(fresh.Records), [["INSERT", "o3", undefined, "7"]]);

  // The records are stored with the items: they survive a crash.
  await server.restart("SIGKILL");
  connect();
  assert.equal((await readAll(StreamArn)).records.length, 5);
});

test("a KEYS_ONLY stream enabled later, listed, then disabled", async () => {
  await client.send(new CreateTableCommand({
    TableName: "Later", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
  }));
  await client.send(new PutItemCommand({ TableName: "Later", Item: { id: { S: "before" } } }));
  const updated = await client.send(new UpdateTableCommand({
    TableName: "Later", StreamSpecification: { StreamEnabled: true, StreamViewType: "KEYS_ONLY" },
  }));
  const StreamArn = updated.TableDescription.LatestStreamArn;
  await client.send(new PutItemCommand({ TableName: "Later", Item: { id: { S: "after" }, v: { N: "1" } } }));
  const { records } = await readAll(StreamArn);
  assert.equal(records.length, 1);
  assert.deepEqual(records[0].dynamodb.Keys, { id: { S: "after" } });
  assert.equal(records[0].dynamodb.NewImage, undefined);

  const listed = await streams.send(new ListStreamsCommand({ TableName: "Later" }));
  assert.deepEqual(listed.Streams, [{ StreamArn, TableName: "Later", StreamLabel: StreamArn.split("/stream/")[1] }]);

  await assert.rejects(client.send(new UpdateTableCommand({
    TableName: "Later", StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_IMAGE" },
  })), { name: "ValidationException", message: "Table already has an enabled stream: TableName: Later" });

  await client.send(new UpdateTableCommand({ TableName: "Later", StreamSpecification: { StreamEnabled: false } }));
  const { Table } = await client.send(new DescribeTableCommand({ TableName: "Later" }));
  assert.equal(Table.StreamSpecification, undefined);
  assert.equal(Table.LatestStreamArn, StreamArn);
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
  assert.equal(StreamDescription.StreamStatus, "DISABLED");
  assert.equal(StreamDescription.StreamViewType, "KEYS_ONLY");
  assert.equal(StreamDescription.Shards[0].SequenceNumberRange.EndingSequenceNumber,
               records[0].dynamodb.SequenceNumber);
  await client.send(new PutItemCommand({ TableName: "Later", Item: { id: { S: "ignored" } } }));
  const closed = await readAll(StreamArn);
  assert.equal(closed.records.length, 1);
  assert.equal(closed.next, undefined, "a disabled stream's shard ends");
  await assert.rejects(client.send(new UpdateTableCommand({
    TableName: "Later", StreamSpecification: { StreamEnabled: false },
  })), { name: "ValidationException", message: "Table has no stream to disable: TableName: Later" });
});
