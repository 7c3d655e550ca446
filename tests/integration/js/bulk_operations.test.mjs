// Bulk put operations through the JavaScript SDK (StartBulkPutItems, DescribeBulkOperation,
// ListBulkOperations, CancelBulkOperation): items read from the local S3 (written and read
// back through the control API's /ddbd/s3/), written into an existing table under per-record
// conditions, with the ERROR and CONDITION_CHECK_FAILURE report, the counts and usage,
// idempotent starts, cancellation, and a kill -9 in the middle of an operation.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import {
  CancelBulkOperationCommand, CreateTableCommand, DescribeBulkOperationCommand, GetItemCommand,
  ListBulkOperationsCommand, PutItemCommand, ScanCommand, SearchVectorsCommand,
  StartBulkPutItemsCommand,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, client;

before(async () => {
  server = await startDdbd();
  client = server.client();
  await putObject("reports", "marker", "");  // the output bucket exists
});

after(async () => {
  client.destroy();
  await server.stop();
});

async function putObject(bucket, key, bytes) {
  const response = await fetch(`${server.endpoint}/ddbd/s3/${bucket}/${key}`,
                               { method: "PUT", body: bytes });
  assert.equal(response.status, 200);
}

async function getObject(bucket, key) {
  const response = await fetch(`${server.endpoint}/ddbd/s3/${bucket}/${key}`);
  assert.equal(response.status, 200, `${bucket}/${key}`);
  return response.text();
}

async function objectKeys(bucket, prefix) {
  const response = await fetch(`${server.endpoint}/ddbd/s3/${bucket}?prefix=${prefix}`);
  return (await response.json()).Objects.map((object) => object.Key);
}

async function createTable(TableName, extra = {}) {
  await client.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" },
                           { AttributeName: "sk", AttributeType: "N" },
                           ...(extra.AttributeDefinitions ?? [])],
    ...extra.indexes,
  }));
}

const jsonLines = (records) => records.map((r) => typeof r === "string" ? r : JSON.stringify(r))
  .join("\n") + "\n";

async function until(arn, done) {
  const deadline = Date.now() + 30000;
  for (;;) {
    const { BulkOperationDescription: d } =
      await client.send(new DescribeBulkOperationCommand({ BulkOperationArn: arn }));
    if (done(d) || Date.now() > deadline) return d;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const finished = (arn) => until(arn, (d) => !["IN_PROGRESS", "CANCELLING"].includes(d.BulkOperationStatus));

// The table's item count, page by page (a Scan reads 1 MB at most).
async function countItems(TableName) {
  let count = 0;
  let ExclusiveStartKey;
  do {
    const page = await client.send(new ScanCommand({ TableName, Select: "COUNT", ExclusiveStartKey }));
    count += page.Count;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}

async function scanAll(TableName) {
  const { Items } = await client.send(new ScanCommand({ TableName, ConsistentRead: true }));
  return Items.sort((a, b) => (a.pk.S + a.sk.N).localeCompare(b.pk.S + b.sk.N));
}

// DynamoDB's item size: each attribute's name plus its value (a string's UTF-8 bytes; a number
// one byte per two significant digits, plus one).
function itemSize(item) {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    size += Buffer.byteLength(name);
    if (value.S !== undefined) size += Buffer.byteLength(value.S);
    else if (value.N !== undefined) size += Math.ceil(value.N.replace(/^[-0.]+|\./g, "").length / 2) + 1;
    else throw new Error("itemSize: only S and N");
  }
  return size;
}

const start = (input) => client.send(new StartBulkPutItemsCommand(input));

test("records are written under their conditions; failures are counted and reported", async () => {
  await createTable("Orders", {
    AttributeDefinitions: [{ AttributeName: "color", AttributeType: "S" },
                           { AttributeName: "rank", AttributeType: "N" }],
    indexes: {
      GlobalSecondaryIndexes: [{ IndexName: "byColor", Projection: { ProjectionType: "KEYS_ONLY" },
                                 KeySchema: [{ AttributeName: "color", KeyType: "HASH" }] }],
      LocalSecondaryIndexes: [{ IndexName: "byRank", Projection: { ProjectionType: "ALL" },
                                KeySchema: [{ AttributeName: "pk", KeyType: "HASH" },
                                            { AttributeName: "rank", KeyType: "RANGE" }] }],
    },
  });
  const existing = { pk: { S: "a" }, sk: { N: "1" }, note: { S: "kept" } };
  await client.send(new PutItemCommand({ TableName: "Orders", Item: existing }));
  const fresh = { pk: { S: "b" }, sk: { N: "2" }, color: { S: "red" }, rank: { N: "7" } };
  const replacing = { pk: { S: "c" }, sk: { N: "3" }, note: { S: "new" } };
  const blocked = { pk: { S: "a" }, sk: { N: "1" }, note: { S: "overwritten" } };
  const first = gzipSync(jsonLines([
    { Item: fresh },
    { Item: blocked, ConditionExpression: "attribute_not_exists(#p)",
      ExpressionAttributeNames: { "#p": "pk" } },
    { Item: replacing, ConditionExpression: "attribute_not_exists(pk) OR note = :old",
      ExpressionAttributeValues: { ":old": { S: "old" } } },
  ]));
  const second = gzipSync(jsonLines([
    { Item: { pk: { S: "d" } } },                                    // no sort key: ERROR
    { Item: { pk: { S: "e" }, sk: { N: "5" } }, ConditionExpression: "pk = :unbound" },  // ERROR
    "this line is not JSON",                                         // ends the object
    { Item: { pk: { S: "f" }, sk: { N: "6" } } },                    // never read
  ]));
  await putObject("input", "orders/part-1.json.gz", first);
  await putObject("input", "orders/part-2.json.gz", second);
  await putObject("input", "other/ignored.json.gz", gzipSync(jsonLines([{ Item: fresh }])));

  const { BulkOperationDescription: started } = await start({
    TableName: "Orders", ClientToken: "orders-1",
    InputS3Configuration: { S3Bucket: "input", S3KeyPrefix: "orders/",
                            InputFormat: "DYNAMODB_JSON", InputCompressionType: "GZIP" },
    OutputS3Configuration: { S3Bucket: "reports", S3KeyPrefix: "bulk",
                             OutputType: ["ERROR", "CONDITION_CHECK_FAILURE"] },
  });
  assert.equal(started.BulkOperationStatus, "IN_PROGRESS");
  assert.match(started.BulkOperationArn,
               /^arn:aws:dynamodb:us-east-1:\d{12}:table\/Orders\/bulk-operation\/\d{14}-[0-9a-f]{8}$/);
  assert.equal(started.ClientToken, "orders-1");
  assert.equal(started.PerformanceTier, "STANDARD");
  assert.equal(started.TableDetails[0].TableName, "Orders");
  assert.equal(started.EndTime, undefined);

  const done = await finished(started.BulkOperationArn);
  assert.equal(done.BulkOperationStatus, "COMPLETED_WITH_ERRORS");
  assert.equal(done.ProcessedItemCount, 6);  // three, then two and the unreadable line
  assert.equal(done.FailedItemCount, 3);
  assert.equal(done.TotalInputBytes, first.length + second.length);
  assert.equal(done.ProcessedInputBytes, first.length + second.length);
  assert.equal(done.FailureCode, undefined);
  assert.ok(done.EndTime >= done.StartTime);
  assert.deepEqual(done.InputS3Configuration, {
    S3BucketOwner: "000000000000", S3Bucket: "input", S3KeyPrefix: "orders/",
    InputFormat: "DYNAMODB_JSON", InputCompressionType: "GZIP" });
  assert.deepEqual(done.OutputS3Configuration.OutputType, ["ERROR", "CONDITION_CHECK_FAILURE"]);

  assert.deepEqual(await scanAll("Orders"), [existing, fresh, replacing]);

  // Usage: the two items written; the GSI holds fresh's keys, the LSI fresh whole.
  const [usage] = done.BulkOperationUsage;
  const keysOf = (item) => ({ pk: item.pk, sk: item.sk, color: item.color });
  assert.equal(usage.TableName, "Orders");
  assert.equal(usage.Table.BulkPutBytes, itemSize(fresh) + itemSize(replacing));
  assert.deepEqual(usage.GlobalSecondaryIndexes, { byColor: { BulkPutBytes: itemSize(keysOf(fresh)) } });
  assert.deepEqual(usage.LocalSecondaryIndexes, { byRank: { BulkPutBytes: itemSize(fresh) } });
  assert.equal(usage.BulkPutBytes, itemSize(fresh) * 2 + itemSize(replacing) + itemSize(keysOf(fresh)));

  const id = started.BulkOperationArn.split("/").pop();
  const folder = `bulk/AWSDynamoDB/${id}/`;
  assert.deepEqual(await objectKeys("reports", folder), [
    `${folder}condition-check-failures/part-00000.json`, `${folder}errors/part-00000.json`,
    `${folder}manifest.json`]);
  const errors = (await getObject("reports", `${folder}errors/part-00000.json`))
    .trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(errors.map((e) => [e.itemS3Pointer, e.errorCode]), [
    [{ bucket: "input", key: "orders/part-2.json.gz", itemIndex: 0 }, "ValidationException"],
    [{ bucket: "input", key: "orders/part-2.json.gz", itemIndex: 1 }, "ValidationException"],
    [{ bucket: "input", key: "orders/part-2.json.gz", itemIndex: 2 }, "ValidationException"]]);
  assert.equal(errors[0].errorMessage,
               "One or more parameter values were invalid: Missing the key sk in the item");
  assert.equal(errors[1].errorMessage, "Invalid ConditionExpression: An expression attribute " +
               "value used in expression is not defined; attribute value: :unbound");
  assert.match(errors[2].errorMessage, /not a JSON object/);
  const failures = (await getObject("reports", `${folder}condition-check-failures/part-00000.json`))
    .trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(failures, [{
    itemS3Pointer: { bucket: "input", key: "orders/part-1.json.gz", itemIndex: 1 },
    Item: blocked, ExistingItem: existing }]);
  const manifest = JSON.parse(await getObject("reports", `${folder}manifest.json`));
  assert.equal(manifest.bulkOperationArn, started.BulkOperationArn);
  assert.equal(manifest.status, "COMPLETED_WITH_ERRORS");
  assert.deepEqual([manifest.processedItemCount, manifest.failedItemCount,
                    manifest.conditionCheckFailureCount], [6, 3, 1]);
  assert.deepEqual(manifest.outputFiles.map((f) => [f.outputType, f.key]), [
    ["ERROR", `${folder}errors/part-00000.json`],
    ["CONDITION_CHECK_FAILURE", `${folder}condition-check-failures/part-00000.json`]]);
});

test("Ion input, and a run without failures is COMPLETED", async () => {
  await createTable("Ion");
  await putObject("input", "ion/items.ion", [
    '$ion_1_0 {Item: {pk: "x", sk: 1., tags: $dynamodb_SS::["a", "b"]}}',
    '{Item: {pk: "y", sk: 2., nested: {deep: [true, null]}}, ConditionExpression: "attribute_not_exists(pk)"}',
  ].join("\n"));
  const { BulkOperationDescription: started } = await start({
    TableName: "Ion",
    InputS3Configuration: { S3Bucket: "input", S3KeyPrefix: "ion/", InputFormat: "ION" },
    OutputS3Configuration: { OutputType: ["ERROR"] },
  });
  assert.ok(started.ClientToken.length > 0);  // the SDK made one up
  const done = await finished(started.BulkOperationArn);
  assert.equal(done.BulkOperationStatus, "COMPLETED");
  assert.deepEqual([done.ProcessedItemCount, done.FailedItemCount], [2, 0]);
  assert.deepEqual(await scanAll("Ion"), [
    { pk: { S: "x" }, sk: { N: "1" }, tags: { SS: ["a", "b"] } },
    { pk: { S: "y" }, sk: { N: "2" }, nested: { M: { deep: { L: [{ BOOL: true }, { NULL: true }] } } } }]);
});

test("a vector index is fed and metered; a bad vector is an ERROR", async () => {
  await client.send(new CreateTableCommand({
    TableName: "Chunks", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
    VectorIndexes: [{ IndexName: "Semantic", VectorAttribute: { AttributeName: "embedding" },
                      Dimensions: 2, DistanceFunction: "EUCLIDEAN",
                      Projection: { ProjectionType: "KEYS_ONLY" } }],
  }));
  const chunk = (id, vector) => ({ Item: { id: { S: id },
                                           embedding: { L: vector.map((x) => ({ N: String(x) })) } } });
  await putObject("input", "chunks/a.json",
                  jsonLines([chunk("near", [1, 0]), chunk("far", [0, 9]), chunk("bad", [1, 2, 3])]));
  const { BulkOperationDescription: started } = await start({
    TableName: "Chunks",
    InputS3Configuration: { S3Bucket: "input", S3KeyPrefix: "chunks/", InputFormat: "DYNAMODB_JSON" },
    OutputS3Configuration: { OutputType: ["ERROR"] } });
  const done = await finished(started.BulkOperationArn);
  assert.equal(done.BulkOperationStatus, "COMPLETED_WITH_ERRORS");
  assert.deepEqual([done.ProcessedItemCount, done.FailedItemCount], [3, 1]);
  // Each vector entry is metered at 1 KB at least, as a PutItem's VectorWriteRequestBytes.
  assert.deepEqual(done.BulkOperationUsage[0].VectorIndexes, { Semantic: { BulkPutVectorBytes: 2048 } });
  const { SearchResults } = await client.send(new SearchVectorsCommand({
    TableName: "Chunks", IndexName: "Semantic", TopK: 1, SearchVector: [{ N: "1" }, { N: "0.1" }] }));
  assert.deepEqual(SearchResults.map((r) => r.Item.id.S), ["near"]);
});

test("requests are validated as DynamoDB validates them", async () => {
  const input = { S3Bucket: "input", InputFormat: "DYNAMODB_JSON" };
  const output = { OutputType: ["ERROR"] };
  const rejects = (request, name, message) => assert.rejects(start(request), (error) => {
    assert.equal(error.name, name);
    if (message) assert.equal(error.message, message);
    return true;
  });
  await rejects({ TableName: "Ion", InputS3Configuration: input, OutputS3Configuration: output,
                  MaxWriteRequestUnits: 100 }, "ValidationException",
                "1 validation error detected: Value '100' at 'maxWriteRequestUnits' failed to " +
                "satisfy constraint: Member must have value greater than or equal to 1024");
  await rejects({ TableName: "Ion", InputS3Configuration: { S3Bucket: "input" },
                  OutputS3Configuration: { OutputType: ["EVERYTHING"] } }, "ValidationException",
                "2 validation errors detected: Value null at 'inputS3Configuration.inputFormat' " +
                "failed to satisfy constraint: Member must not be null; Value '[EVERYTHING]' at " +
                "'outputS3Configuration.outputType' failed to satisfy constraint: Member must " +
                "satisfy constraint: [Member must satisfy enum value set: [ERROR, " +
                "CONDITION_CHECK_FAILURE]]");
  await rejects({ TableName: "Missing", InputS3Configuration: input, OutputS3Configuration: output },
                "ResourceNotFoundException");
  await assert.rejects(client.send(new DescribeBulkOperationCommand({
    BulkOperationArn: "arn:aws:dynamodb:us-east-1:000000000000:table/Ion/bulk-operation/" +
                      "01234567890123-89abcdef" })), { name: "ResourceNotFoundException" });
  await assert.rejects(client.send(new CancelBulkOperationCommand({
    BulkOperationArn: "arn:aws:dynamodb:us-east-1:000000000000:table/Ion/export/" +
                      "01234567890123-89abcdef" })), { name: "ValidationException" });
  await assert.rejects(client.send(new ListBulkOperationsCommand({ MaxResults: 26 })),
                       { name: "ValidationException" });
});

test("a client token replays its operation; other parameters with it are refused", async () => {
  await createTable("Tokens");
  await putObject("input", "tokens/a.json", jsonLines([{ Item: { pk: { S: "t" }, sk: { N: "1" } } }]));
  const request = { TableName: "Tokens", ClientToken: "same",
                    InputS3Configuration: { S3Bucket: "input", S3KeyPrefix: "tokens/",
                                            InputFormat: "DYNAMODB_JSON" },
                    OutputS3Configuration: { OutputType: ["ERROR"] } };
  const { BulkOperationDescription: first } = await start(request);
  const { BulkOperationDescription: again } = await start(request);
  assert.equal(again.BulkOperationArn, first.BulkOperationArn);
  await assert.rejects(start({ ...request, PerformanceTier: "ACCELERATED" }),
                       { name: "IdempotentParameterMismatchException" });
  assert.equal((await finished(first.BulkOperationArn)).BulkOperationStatus, "COMPLETED");
  // Cancelling an operation that ended leaves it as it ended.
  const cancelled = await client.send(new CancelBulkOperationCommand({
    BulkOperationArn: first.BulkOperationArn }));
  assert.deepEqual([cancelled.BulkOperationArn, cancelled.BulkOperationStatus],
                   [first.BulkOperationArn, "COMPLETED"]);
});

test("a missing input bucket fails the operation", async () => {
  const { BulkOperationDescription: started } = await start({
    TableName: "Tokens",
    InputS3Configuration: { S3Bucket: "no-such-bucket", InputFormat: "DYNAMODB_JSON" },
    OutputS3Configuration: { OutputType: ["ERROR"] } });
  const done = await finished(started.BulkOperationArn);
  assert.equal(done.BulkOperationStatus, "FAILED");
  assert.equal(done.FailureCode, "S3NoSuchBucket");
  assert.equal(done.ProcessedItemCount, 0);
});

// 5,000 records of about 1 KB: at 1,024 write units a second, about five seconds of work.
function paced(prefix, count, conditional) {
  const lines = [];
  for (let i = 0; i < count; ++i) {
    const record = { Item: { pk: { S: `${prefix}${i}` }, sk: { N: "1" }, body: { S: "x".repeat(900) } } };
    if (conditional) record.ConditionExpression = "attribute_not_exists(pk)";
    lines.push(record);
  }
  return jsonLines(lines);
}

test("cancelling stops the operation at its next checkpoint", async () => {
  await createTable("Cancelled");
  await putObject("input", "cancel/items.json", paced("c", 5000, false));
  const { BulkOperationDescription: started } = await start({
    TableName: "Cancelled", MaxWriteRequestUnits: 1024,
    InputS3Configuration: { S3Bucket: "input", S3KeyPrefix: "cancel/", InputFormat: "DYNAMODB_JSON" },
    OutputS3Configuration: { OutputType: ["ERROR"] } });
  const cancel = await client.send(new CancelBulkOperationCommand({
    BulkOperationArn: started.BulkOperationArn }));
  assert.equal(cancel.BulkOperationStatus, "CANCELLING");
  const done = await finished(started.BulkOperationArn);
  assert.equal(done.BulkOperationStatus, "CANCELLED");
  assert.equal(done.FailureCode, "BulkOperationCancelled");
  assert.ok(done.ProcessedItemCount < 5000, `${done.ProcessedItemCount} processed`);
  assert.equal(await countItems("Cancelled"), done.ProcessedItemCount);  // every processed record, and no other

  const { BulkOperationsSummaryList: page, NextToken } =
    await client.send(new ListBulkOperationsCommand({ MaxResults: 1 }));
  assert.deepEqual(page.map((s) => [s.BulkOperationArn, s.BulkOperationStatus]),
                   [[started.BulkOperationArn, "CANCELLED"]]);  // newest first
  const { BulkOperationsSummaryList: rest } =
    await client.send(new ListBulkOperationsCommand({ NextToken }));
  assert.equal(rest.length, 5);  // Orders, Ion, Chunks, Tokens and the missing bucket's
  assert.ok(rest.every((s) => s.StartTime <= page[0].StartTime && s.EndTime));
});

test("after kill -9 an operation resumes at its checkpoint: no record is applied twice", async () => {
  await createTable("Resumed");
  await putObject("input", "resume/items.json", paced("r", 5000, true));
  const { BulkOperationDescription: started } = await start({
    TableName: "Resumed", MaxWriteRequestUnits: 1024,
    InputS3Configuration: { S3Bucket: "input", S3KeyPrefix: "resume/", InputFormat: "DYNAMODB_JSON" },
    OutputS3Configuration: { S3Bucket: "reports", OutputType: ["ERROR", "CONDITION_CHECK_FAILURE"] } });
  const midway = await until(started.BulkOperationArn, (d) => d.ProcessedItemCount > 0);
  assert.equal(midway.BulkOperationStatus, "IN_PROGRESS");
  await server.restart("SIGKILL");
  client.destroy();
  client = server.client();
  const done = await finished(started.BulkOperationArn);
  assert.equal(done.BulkOperationStatus, "COMPLETED");
  assert.deepEqual([done.ProcessedItemCount, done.FailedItemCount], [5000, 0]);
  const id = started.BulkOperationArn.split("/").pop();
  const manifest = JSON.parse(await getObject("reports", `AWSDynamoDB/${id}/manifest.json`));
  assert.equal(manifest.conditionCheckFailureCount, 0);  // each condition checked once
  assert.equal(await countItems("Resumed"), 5000);
  const { Item } = await client.send(new GetItemCommand({
    TableName: "Resumed", Key: { pk: { S: "r4999" }, sk: { N: "1" } } }));
  assert.equal(Item.body.S.length, 900);
});
