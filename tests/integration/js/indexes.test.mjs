// Secondary indexes through the JavaScript SDK v3: the seed's inverted-index query.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DeleteTableCommand, DescribeTableCommand, UpdateTableCommand,
} from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { startDdbd } from "./ddbd.mjs";

let server, client, ddbDoc;

before(async () => {
  server = await startDdbd();
  client = server.client();
  ddbDoc = DynamoDBDocumentClient.from(client);
  await client.send(new CreateTableCommand({
    TableName: "EnterpriseTable", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }, { AttributeName: "SK", KeyType: "RANGE" }],
    AttributeDefinitions: ["PK", "SK", "GSI1_PK", "GSI1_SK"].map((n) => ({ AttributeName: n, AttributeType: "S" })),
    GlobalSecondaryIndexes: [{
      IndexName: "GSI_1", Projection: { ProjectionType: "ALL" },
      KeySchema: [{ AttributeName: "GSI1_PK", KeyType: "HASH" }, { AttributeName: "GSI1_SK", KeyType: "RANGE" }],
    }],
  }));
  const rows = [
    ["USER#101", "METADATA", "ORG#enterprise_corp", "USER#alice"],
    ["USER#102", "METADATA", "ORG#enterprise_corp", "USER#bob"],
    ["TEAM#7", "METADATA", "ORG#enterprise_corp", "TEAM#platform"],
    ["USER#103", "METADATA", "ORG#other", "USER#carol"],
  ];
  for (const [PK, SK, GSI1_PK, GSI1_SK] of rows) {
    await ddbDoc.send(new PutCommand({ TableName: "EnterpriseTable", Item: { PK, SK, GSI1_PK, GSI1_SK } }));
  }
});

after(async () => {
  client.destroy();
  await server.stop();
});

test("find all users belonging to an organization (seed 004)", async () => {
  const { Items } = await ddbDoc.send(
    new QueryCommand({
      TableName: "EnterpriseTable",
      IndexName: "GSI_1",
      KeyConditionExpression: "GSI1_PK = :orgId AND begins_with(GSI1_SK, :prefix)",
      ExpressionAttributeValues: { ":orgId": "ORG#enterprise_corp", ":prefix": "USER#" },
    }),
  );
  assert.deepEqual(Items.map((i) => i.PK), ["USER#101", "USER#102"]);
  const { Table } = await client.send(new DescribeTableCommand({ TableName: "EnterpriseTable" }));
  assert.equal(Table.GlobalSecondaryIndexes[0].IndexStatus, "ACTIVE");
  assert.equal(Table.GlobalSecondaryIndexes[0].ItemCount, 4);
});

test("consistent reads are refused on a GSI", async () => {
  await assert.rejects(ddbDoc.send(new QueryCommand({
    TableName: "EnterpriseTable", IndexName: "GSI_1", ConsistentRead: true,
    KeyConditionExpression: "GSI1_PK = :o", ExpressionAttributeValues: { ":o": "ORG#other" },
  })), { name: "ValidationException",
         message: "Consistent reads are not supported on global secondary indexes" });
});

test("multi-attribute GSI keys through the SDK", async () => {
  await client.send(new CreateTableCommand({
    TableName: "Matches", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "matchId", KeyType: "HASH" }],
    AttributeDefinitions: [["matchId", "S"], ["tournamentId", "S"], ["region", "S"], ["round", "N"]]
      .map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    GlobalSecondaryIndexes: [{
      IndexName: "ByTournamentRegion", Projection: { ProjectionType: "KEYS_ONLY" },
      KeySchema: [{ AttributeName: "tournamentId", KeyType: "HASH" },
                  { AttributeName: "region", KeyType: "HASH" },
                  { AttributeName: "round", KeyType: "RANGE" }],
    }],
  }));
  for (const [matchId, tournamentId, region, round] of
       [["m1", "WINTER", "NA", 3], ["m2", "WINTER", "NA", 1], ["m3", "WINTER", "EU", 2]]) {
    await ddbDoc.send(new PutCommand({ TableName: "Matches", Item: { matchId, tournamentId, region, round } }));
  }
  const { Items } = await ddbDoc.send(new QueryCommand({
    TableName: "Matches", IndexName: "ByTournamentRegion",
    KeyConditionExpression: "tournamentId = :t AND #region = :r AND #round < :n",
    ExpressionAttributeNames: { "#region": "region", "#round": "round" },
    ExpressionAttributeValues: { ":t": "WINTER", ":r": "NA", ":n": 5 },
  }));
  assert.deepEqual(Items, [
    { matchId: "m2", tournamentId: "WINTER", region: "NA", round: 1 },
    { matchId: "m1", tournamentId: "WINTER", region: "NA", round: 3 },
  ]);
});

// dynamoose's `update: ["indexes"]`: for each index the model has and the table lacks, one
// UpdateTable that lists every attribute the model's keys use and creates that index, then a
// wait until it is ACTIVE; for each index the table has and the model lacks, a Delete.
async function waitForIndexes(TableName) {
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    const indexes = Table.GlobalSecondaryIndexes ?? [];
    if (Table.TableStatus === "ACTIVE" && indexes.every((i) => i.IndexStatus === "ACTIVE")) return Table;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("indexes added and removed one UpdateTable at a time, as dynamoose's update does", async () => {
  const TableName = "DynamooseCats";
  const attribute = (AttributeName, AttributeType = "S") => ({ AttributeName, AttributeType });
  const index = (IndexName, hash, range) => ({
    IndexName, Projection: { ProjectionType: "ALL" },
    KeySchema: [{ AttributeName: hash, KeyType: "HASH" },
                ...(range ? [{ AttributeName: range, KeyType: "RANGE" }] : [])],
  });
  await client.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "id", KeyType: "HASH" }, { AttributeName: "born", KeyType: "RANGE" }],
    AttributeDefinitions: [attribute("id"), attribute("born", "N"), attribute("owner"), attribute("color")],
    GlobalSecondaryIndexes: [index("ownerIndex", "owner")],
    LocalSecondaryIndexes: [index("colorIndex", "id", "color")],
  }));
  await ddbDoc.send(new PutCommand({ TableName, Item: { id: "c1", born: 2019, owner: "ann", color: "grey", breed: "tabby", age: 5 } }));
  // The model grows two indexes; each UpdateTable carries the model's whole attribute list.
  const model = [attribute("id"), attribute("born", "N"), attribute("owner"), attribute("color"),
                 attribute("breed"), attribute("age", "N")];
  for (const created of [index("breedIndex", "breed", "born"), index("ageIndex", "age")]) {
    const { TableDescription } = await client.send(new UpdateTableCommand({
      TableName, AttributeDefinitions: model, GlobalSecondaryIndexUpdates: [{ Create: created }],
    }));
    assert.equal(TableDescription.GlobalSecondaryIndexes.find((i) => i.IndexName === created.IndexName).IndexStatus, "CREATING");
    await waitForIndexes(TableName);
  }
  let table = await waitForIndexes(TableName);
  assert.deepEqual(table.GlobalSecondaryIndexes.map((i) => i.IndexName).sort(), ["ageIndex", "breedIndex", "ownerIndex"]);
  const { Items } = await ddbDoc.send(new QueryCommand({
    TableName, IndexName: "ageIndex", KeyConditionExpression: "age = :a", ExpressionAttributeValues: { ":a": 5 },
  }));
  assert.deepEqual(Items.map((i) => i.id), ["c1"]);
  // The model drops ownerIndex: its attribute definition goes with it, and it can come back.
  await client.send(new UpdateTableCommand({ TableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: "ownerIndex" } }] }));
  table = await waitForIndexes(TableName);
  assert.deepEqual(table.AttributeDefinitions.map((d) => d.AttributeName).sort(), ["age", "born", "breed", "color", "id"]);
  await client.send(new UpdateTableCommand({
    TableName, AttributeDefinitions: [...model.filter((d) => d.AttributeName !== "breed"), attribute("owner")],
    GlobalSecondaryIndexUpdates: [{ Create: index("ownerIndex", "owner", "born") }],
  }));
  table = await waitForIndexes(TableName);
  assert.deepEqual(table.GlobalSecondaryIndexes.map((i) => i.IndexName).sort(), ["ageIndex", "breedIndex", "ownerIndex"]);
  await client.send(new DeleteTableCommand({ TableName }));
});
