// Resource-based policies through the JavaScript SDK: PutResourcePolicy, GetResourcePolicy and
// DeleteResourcePolicy on tables and streams, CreateTable's ResourcePolicy, DynamoDB's
// normalized documents, revisions, ExpectedRevisionId, the 15-second pause after a change
// (observed with the server's clock frozen and moved), the validation errors, policies kept
// across a kill -9 and dropped with their table, and — with --credentials — explicit denies
// enforced and ConfirmRemoveSelfResourceAccess.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateTableCommand, DeleteResourcePolicyCommand, DeleteTableCommand, DynamoDBClient,
  GetItemCommand, GetResourcePolicyCommand, PutItemCommand, PutResourcePolicyCommand, QueryCommand,
  UpdateTableCommand,
} from "@aws-sdk/client-dynamodb";
import { startDdbd } from "./ddbd.mjs";

const T0 = 1_800_000_000;  // 2027-01-15T08:00:00Z
let server, client;

before(async () => {
  server = await startDdbd();
  client = server.client();
  assert.equal((await server.control("PUT", "/ddbd/clock", { Now: T0 })).status, 200);
});

after(async () => {
  client.destroy();
  await server.stop();
});

const advance = (seconds) => server.control("PUT", "/ddbd/clock", { Advance: seconds });
const arnOf = (table) => `arn:aws:dynamodb:us-east-1:000000000000:table/${table}`;

async function createTable(TableName, extra = {}) {
  const { TableDescription } = await client.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }], ...extra }));
  return TableDescription;
}

function policy(table, statements) {
  return JSON.stringify({ Version: "2012-10-17", Statement: statements ?? [{
    Sid: "ReadOnly", Effect: "Allow", Principal: { AWS: ["111122223333"] },
    Action: ["dynamodb:GetItem"], Resource: [arnOf(table)] }] });
}

const put = (input) => client.send(new PutResourcePolicyCommand(input));
const get = (ResourceArn) => client.send(new GetResourcePolicyCommand({ ResourceArn }));
const remove = (input) => client.send(new DeleteResourcePolicyCommand(input));

async function rejects(promise, name, message) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.name, name);
    if (message !== undefined) assert.equal(error.message, message);
    return true;
  });
}

test("a policy is kept normalized, revised, paused after a change and deleted", async () => {
  await createTable("Orders");
  const arn = arnOf("Orders");
  const spaced = JSON.stringify(JSON.parse(policy("Orders")), null, 2);
  const { RevisionId: first } = await put({ ResourceArn: arn, Policy: spaced });
  assert.equal(first, String(T0 * 1000));  // the change's epoch milliseconds
  const got = await get(arn);
  assert.equal(got.RevisionId, first);
  assert.equal(got.Policy,
    '{"Version":"2012-10-17","Statement":[{"Sid":"ReadOnly","Effect":"Allow","Principal":' +
    '{"AWS":"arn:aws:iam::111122223333:root"},"Action":"dynamodb:GetItem","Resource":' +
    `"${arn}"}]}`);
  // The same document again is no change, even at once.
  assert.equal((await put({ ResourceArn: arn, Policy: policy("Orders") })).RevisionId, first);

  const other = policy("Orders", [{ Effect: "Deny", Principal: "*", Action: "dynamodb:DeleteItem",
                                    Resource: arn }]);
  await rejects(put({ ResourceArn: arn, Policy: other }), "ResourceInUseException",
                "Attempt to change a resource which is still in use: Table is pending previous " +
                "resource-based policy update: Orders");
  await advance(5);
  await rejects(put({ ResourceArn: arn, Policy: other }), "ThrottlingException",
                "Resource-based policy for table Orders modified within the previous 15000 " +
                "milliseconds. Please try again after 2027-01-15T08:00:15.000Z.");
  await advance(10);
  await rejects(put({ ResourceArn: arn, Policy: other, ExpectedRevisionId: "123" }),
                "PolicyNotFoundException",
                "Resource-based policy not found for the provided ResourceArn: Requested update " +
                `for policy with revision id 123, but the policy associated to target table ` +
                `Orders has revision id ${first}.`);
  await rejects(put({ ResourceArn: arn, Policy: other, ExpectedRevisionId: "NO_POLICY" }),
                "PolicyNotFoundException",
                "Resource-based policy not found for the provided ResourceArn: Requested policy " +
                `update expecting none to be present for table Orders, but a policy exists with ` +
                `revision id ${first}.`);
  const { RevisionId: second } = await put({ ResourceArn: arn, Policy: other, ExpectedRevisionId: first });
  assert.equal(second, String((T0 + 15) * 1000));

  await advance(15);
  assert.equal((await remove({ ResourceArn: arn, ExpectedRevisionId: second })).RevisionId, second);
  await rejects(get(arn), "PolicyNotFoundException",
                `Resource-based policy not found for the provided ResourceArn: ${arn}`);
  await createTable("NeverHad");
  assert.equal((await remove({ ResourceArn: arnOf("NeverHad") })).RevisionId, undefined);
});

test("documents and ARNs are checked as DynamoDB checks them", async () => {
  await createTable("Checked");
  const arn = arnOf("Checked");
  const invalid = "One or more parameter values were invalid: ";
  const refused = async (Policy, message) =>
    rejects(put({ ResourceArn: arn, Policy }), "ValidationException", message);
  await refused("{not json", `${invalid}Invalid policy document: This policy contains invalid Json`);
  await refused(JSON.stringify({ Version: "2012-10-17", Statement: [], Id: "x".repeat(20480) }),
                `${invalid}Maximum policy size of 20480 bytes exceeded`);
  await refused(JSON.stringify({ Version: "2012-10-17", Statement: [] }),
                `${invalid}Invalid policy document: Could not parse the policy: Statement is empty!`);
  await refused(policy("Checked", [{ Effect: "Allow", Principal: { AWS: "111122223333" },
                                     Action: "dynamodb:GetItem" }]),
                `${invalid}Invalid policy document: Missing required field Resource`);
  const statement = { Sid: "Same", Effect: "Deny", Principal: "*", Action: "dynamodb:Scan", Resource: arn };
  await refused(policy("Checked", [statement, statement]),
                `${invalid}Invalid policy document: The Statement Ids in the policy are not unique`);
  await refused(policy("Checked", [{ ...statement, Action: ["dynamodb:GetRecords", "dynamodb:Query",
                                                             "dynamodb:DescribeStream"] }]),
                `${invalid}Invalid policy document: The following action names are invalid: ` +
                '"dynamodb:GetRecords", "dynamodb:DescribeStream"');
  await refused(policy("Checked", [{ ...statement, Effect: "Allow" }]),
                "Resource-based policy grants unbounded access in one or more elements. Please " +
                "revise the policy to ensure least-privilege form of access");
  const good = policy("Checked");
  await rejects(put({ ResourceArn: "Checked", Policy: good }), "ValidationException",
                `${invalid}ARNs must start with 'arn:': Checked`);
  await rejects(put({ ResourceArn: `${arn}/index/ByDate`, Policy: good }), "ValidationException",
                `${invalid}Invalid resource arn provided, only table or stream is accepted. ` +
                `Provided resource arn: ${arn}/index/ByDate`);
  const elsewhere = "arn:aws:dynamodb:eu-west-1:000000000000:table/Checked";
  await rejects(put({ ResourceArn: elsewhere, Policy: good }), "ValidationException",
                `${invalid}Invalid resource Arn: ${elsewhere}`);
  await rejects(get(arnOf("Missing")), "ResourceNotFoundException",
                "Requested resource not found: Table: Missing not found");
  await rejects(createTable("BadPolicy", { ResourcePolicy: "[]" }), "ValidationException",
                `${invalid}Invalid policy document: This policy contains invalid Json`);
});

test("streams have policies of their own; CreateTable's policy; kill -9; dropped with the table", async () => {
  const created = await createTable("Streamed", {
    ResourcePolicy: policy("Streamed"),
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_IMAGE" } });
  const now = (await server.control("GET", "/ddbd/clock")).body.Now;
  assert.equal((await get(arnOf("Streamed"))).RevisionId, String(Math.round(now * 1000)));
  const stream = created.LatestStreamArn;
  const streamPolicy = policy("Streamed", [{ Effect: "Allow", Principal: { AWS: "111122223333" },
                                             Action: ["dynamodb:GetRecords"], Resource: stream }]);
  await put({ ResourceArn: stream, Policy: streamPolicy });
  assert.match((await get(stream)).Policy, /"Action":"dynamodb:GetRecords"/);
  assert.match((await get(arnOf("Streamed"))).Policy, /"Action":"dynamodb:GetItem"/);
  const unknown = arnOf("Streamed") + "/stream/2020-01-01T00:00:00.000";
  await rejects(get(unknown), "ResourceNotFoundException",
                "Requested resource not found: Stream: 2020-01-01T00:00:00.000 not found for Table: Streamed");

  await server.restart("SIGKILL");
  client.destroy();
  client = server.client();
  assert.match((await get(stream)).Policy, /"Resource":"arn:aws:dynamodb/);
  assert.match((await get(arnOf("Streamed"))).Policy, /dynamodb:GetItem/);

  await client.send(new DeleteTableCommand({ TableName: "Streamed" }));
  await createTable("Streamed");
  await rejects(get(arnOf("Streamed")), "PolicyNotFoundException");
  await client.send(new UpdateTableCommand({ TableName: "Streamed",
    StreamSpecification: { StreamEnabled: true, StreamViewType: "KEYS_ONLY" } }));
});

test("with --credentials, an explicit deny is enforced for the principals it names", async () => {
  const directory = mkdtempSync(join(tmpdir(), "ddbd-js-policies-"));
  const file = join(directory, "credentials");
  writeFileSync(file, "ALICE alice-secret\nBOB bob-secret\n");
  const guarded = await startDdbd("--credentials", file);
  const as = (accessKeyId) => new DynamoDBClient({
    endpoint: guarded.endpoint, region: "us-east-1", maxAttempts: 1,
    credentials: { accessKeyId, secretAccessKey: accessKeyId === "ALICE" ? "alice-secret" : "bob-secret" } });
  const alice = as("ALICE");
  const bob = as("BOB");
  try {
    const arn = arnOf("Guarded");
    await alice.send(new CreateTableCommand({
      TableName: "Guarded", BillingMode: "PAY_PER_REQUEST",
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" },
                             { AttributeName: "owner", AttributeType: "S" }],
      GlobalSecondaryIndexes: [{ IndexName: "ByOwner", Projection: { ProjectionType: "ALL" },
                                 KeySchema: [{ AttributeName: "owner", KeyType: "HASH" }] }],
      ResourcePolicy: policy("Guarded", [
        { Sid: "NoWritesForBob", Effect: "Deny",
          Principal: { AWS: "arn:aws:iam::000000000000:user/BOB" },
          Action: ["dynamodb:PutItem", "dynamodb:Query"], Resource: [arn, `${arn}/index/*`] },
        { Sid: "Conditional", Effect: "Deny", Principal: "*", Action: "dynamodb:GetItem",
          Resource: arn, Condition: { Bool: { "aws:SecureTransport": "false" } } }]) }));
    const item = { pk: { S: "a" }, owner: { S: "alice" } };
    await alice.send(new PutItemCommand({ TableName: "Guarded", Item: item }));
    await rejects(bob.send(new PutItemCommand({ TableName: "Guarded", Item: item })),
                  "AccessDeniedException",
                  "User: arn:aws:iam::000000000000:user/BOB is not authorized to perform: " +
                  `dynamodb:PutItem on resource: ${arn} with an explicit deny in a ` +
                  "resource-based policy");
    await rejects(bob.send(new QueryCommand({ TableName: "Guarded", IndexName: "ByOwner",
                                              KeyConditionExpression: "#o = :o",
                                              ExpressionAttributeNames: { "#o": "owner" },
                                              ExpressionAttributeValues: { ":o": { S: "alice" } } })),
                  "AccessDeniedException",
                  "User: arn:aws:iam::000000000000:user/BOB is not authorized to perform: " +
                  `dynamodb:Query on resource: ${arn}/index/ByOwner with an explicit deny in a ` +
                  "resource-based policy");
    // Not denied: another action, and a statement with a condition (not evaluated).
    const { Item } = await bob.send(new GetItemCommand({ TableName: "Guarded", Key: { pk: { S: "a" } } }));
    assert.deepEqual(Item, item);

    await alice.send(new CreateTableCommand({
      TableName: "Locked", BillingMode: "PAY_PER_REQUEST",
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }] }));
    const lockout = policy("Locked", [{ Effect: "Deny", Principal: { AWS: "000000000000" },
                                        Action: "dynamodb:*ResourcePolicy", Resource: arnOf("Locked") }]);
    await rejects(alice.send(new PutResourcePolicyCommand({ ResourceArn: arnOf("Locked"), Policy: lockout })),
                  "AccessDeniedException",
                  "The new resource policy will not allow you to update the resource policy in the future.");
    await alice.send(new PutResourcePolicyCommand({ ResourceArn: arnOf("Locked"), Policy: lockout,
                                                    ConfirmRemoveSelfResourceAccess: true }));
    await rejects(alice.send(new GetResourcePolicyCommand({ ResourceArn: arnOf("Locked") })),
                  "AccessDeniedException");
  } finally {
    alice.destroy();
    bob.destroy();
    await guarded.stop();
    rmSync(directory, { recursive: true, force: true });
  }
});
