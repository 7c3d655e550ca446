// PartiQL through lib-dynamodb: ExecuteStatementCommand with native JavaScript parameters,
// paging with NextToken, and ExecuteTransactionCommand.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  DynamoDBDocumentClient, ExecuteStatementCommand, ExecuteTransactionCommand,
} from "@aws-sdk/lib-dynamodb";
import { createKeyedTable, startDdbd } from "./ddbd.mjs";

let server, client, documents;

before(async () => {
  server = await startDdbd();
  client = server.client();
  documents = DynamoDBDocumentClient.from(client);
  await createKeyedTable(client, "Posts", ["author", "S"], ["id", "N"]);
});

after(async () => {
  client.destroy();
  await server.stop();
});

test("statements with JavaScript values, pages and a transaction", async () => {
  for (let id = 1; id <= 5; ++id) {
    await documents.send(new ExecuteStatementCommand({
      Statement: "INSERT INTO Posts VALUE {'author': ?, 'id': ?, 'tags': ?, 'draft': ?}",
      Parameters: ["ann", id, new Set(["a", `t${id}`]), id % 2 === 0],
    }));
  }
  const ids = [];
  let NextToken;
  do {
    const page = await documents.send(new ExecuteStatementCommand({
      Statement: "SELECT id, draft FROM Posts WHERE author = ? AND id >= ?",
      Parameters: ["ann", 2], Limit: 2, NextToken,
    }));
    ids.push(...page.Items.map((item) => item.id));
    NextToken = page.NextToken;
  } while (NextToken);
  assert.deepEqual(ids, [2, 3, 4, 5]);

  const drafts = await documents.send(new ExecuteStatementCommand({
    Statement: "SELECT id FROM Posts WHERE draft = ? AND contains(tags, ?)", Parameters: [true, "t4"],
  }));
  assert.deepEqual(drafts.Items, [{ id: 4 }]);

  await documents.send(new ExecuteTransactionCommand({ TransactStatements: [
    { Statement: "UPDATE Posts SET draft = ? WHERE author = ? AND id = ?", Parameters: [false, "ann", 2] },
    { Statement: "DELETE FROM Posts WHERE author = ? AND id = ?", Parameters: ["ann", 5] },
  ] }));
  const rest = await documents.send(new ExecuteStatementCommand({
    Statement: "SELECT id FROM Posts WHERE author = 'ann' AND draft = TRUE",
  }));
  assert.deepEqual(rest.Items, [{ id: 4 }]);
});
