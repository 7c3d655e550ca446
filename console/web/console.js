// The ddbd console: tables and items, a query and scan builder, a stream tail, the
// access-pattern report as charts, and the control API (namespaces, snapshots, clock, faults,
// stream triggers).
// It speaks DynamoDB's JSON protocol to this same server, in the namespace chosen at the top
// (the X-Ddbd-Namespace header). Values stay in DynamoDB JSON from the wire to the screen and
// back: numbers stay the strings DynamoDB sends (every digit kept), binaries stay base64, sets
// stay sets, so editing an item never changes a type.
"use strict";

const state = {
  namespace: localStorage.getItem("ddbd.namespace") || "default",
  timers: [],  // the current view's intervals, cleared when the view changes
};

// ---------- the wire ----------

class ApiError extends Error {
  constructor(type, message) {
    super(`${type}: ${message}`);
    this.type = type;
  }
}

async function readAnswer(response) {
  const text = await response.text();
  let data = {};
  try { data = text ? JSON.parse(text) : {}; } catch { data = { message: text }; }
  if (!response.ok) {
    const type = (data.__type || `HTTP ${response.status}`).split("#").pop();
    throw new ApiError(type, data.message || data.Message || text);
  }
  return data;
}

// One DynamoDB (or, with `service`, Streams) operation in the chosen namespace.
async function dynamo(operation, body, service = "DynamoDB_20120810") {
  const response = await fetch("/", {
    method: "POST",
    headers: {
      "Content-Type": "application/x-amz-json-1.0",
      "X-Amz-Target": `${service}.${operation}`,
      "X-Ddbd-Namespace": state.namespace,
    },
    body: JSON.stringify(body),
  });
  return readAnswer(response);
}
const streams = (operation, body) => dynamo(operation, body, "DynamoDBStreams_20120810");

async function control(method, path, body) {
  const init = { method };
  if (body !== undefined) init.body = JSON.stringify(body);
  return readAnswer(await fetch(path, init));
}

// ---------- small DOM helpers ----------

// h("div.card", {title: "x"}, child, "text", …): an element; null children are skipped.
function h(spec, attributes, ...children) {
  const [tag, ...classes] = spec.split(".");
  const element = document.createElement(tag);
  if (classes.length) element.className = classes.join(" ");
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "value") element.value = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

function show(...children) {
  const view = document.getElementById("view");
  view.replaceChildren(...children.flat(Infinity).filter(Boolean));
}

function say(text, isError = false) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.className = isError ? "error" : "";
  box.hidden = false;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { box.hidden = true; }, isError ? 8000 : 3000);
}

// Runs `work`, telling the user of a failure instead of losing it.
async function attempt(work) {
  try { return await work(); } catch (error) { say(error.message, true); return undefined; }
}

function every(milliseconds, work) {
  state.timers.push(setInterval(work, milliseconds));
}

function field(label, input) {
  return h("label", {}, label, input);
}

function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// ---------- values: shown with their types ----------

const SCALAR_TYPES = ["S", "N", "B", "BOOL", "NULL"];
const SET_TYPES = ["SS", "NS", "BS"];
const ALL_TYPES = [...SCALAR_TYPES, ...SET_TYPES, "L", "M"];

function typeOf(value) { return Object.keys(value)[0]; }

function typeBadge(type) { return h(`span.type.type-${type}`, {}, type); }

// A value as a tree of elements, each part with its DynamoDB type.
function valueView(value) {
  const type = typeOf(value);
  const content = value[type];
  const view = h("span.value", { "data-type": type }, typeBadge(type));
  switch (type) {
    case "S": case "N": case "B": view.append(content); break;
    case "BOOL": view.append(content ? "true" : "false"); break;
    case "NULL": view.append("null"); break;
    case "SS": case "NS": case "BS": view.append(`{ ${content.join(", ")} }`); break;
    case "L":
      view.append(h("div.nested", {}, content.map((member, index) =>
        h("div", {}, h("span.member-name", {}, `${index}: `), valueView(member)))));
      break;
    case "M":
      view.append(h("div.nested", {}, Object.keys(content).sort().map((name) =>
        h("div", {}, h("span.member-name", {}, `${name}: `), valueView(content[name])))));
      break;
    default: view.append(JSON.stringify(content));
  }
  return view;
}

// ---------- items: a grid ----------

// The grid of `items`, key attributes first; a click on a row calls `open(item)`.
function itemGrid(items, keyNames, open) {
  const names = [...keyNames];
  for (const item of items) {
    for (const name of Object.keys(item).sort()) if (!names.includes(name)) names.push(name);
  }
  const head = h("tr", {}, names.map((name) =>
    h(keyNames.includes(name) ? "th.key" : "th", { "data-attribute": name }, name)));
  const keyText = (item) => keyNames.map((name) => JSON.stringify(item[name])).join(" ");
  const rows = items.map((item) => h("tr", { "data-key": keyText(item), onclick: () => open && open(item) },
    names.map((name) => h("td", { "data-attribute": name },
      item[name] === undefined ? "" : valueView(item[name])))));
  return h("div.scroller", {}, h("table.grid.items", {}, h("thead", {}, head), h("tbody", {}, rows)));
}

// ---------- tables ----------

async function listTables() {
  const names = [];
  let start;
  do {
    const page = await dynamo("ListTables", start ? { ExclusiveStartTableName: start } : {});
    names.push(...page.TableNames);
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}

function keyNamesOf(description, indexName) {
  const index = indexName && [...(description.GlobalSecondaryIndexes || []),
                              ...(description.LocalSecondaryIndexes || [])]
    .find((candidate) => candidate.IndexName === indexName);
  const schema = index ? index.KeySchema : description.KeySchema;
  const hash = schema.find((key) => key.KeyType === "HASH").AttributeName;
  const range = schema.find((key) => key.KeyType === "RANGE");
  return range ? [hash, range.AttributeName] : [hash];
}

function attributeType(description, name) {
  const definition = description.AttributeDefinitions.find((d) => d.AttributeName === name);
  return definition ? definition.AttributeType : "S";
}

function tableFacts(table) {
  const keys = (schema) => schema.map((key) =>
    `${key.AttributeName} (${key.KeyType === "HASH" ? "partition" : "sort"}, ${attributeType(table, key.AttributeName)})`)
    .join(", ");
  const facts = [
    ["Status", table.TableStatus],
    ["Key", keys(table.KeySchema)],
    ["Billing", table.BillingModeSummary ? table.BillingModeSummary.BillingMode : "PROVISIONED"],
    ["Items", table.ItemCount], ["Size", formatBytes(table.TableSizeBytes)],
    ["Stream", table.StreamSpecification && table.StreamSpecification.StreamEnabled
      ? table.StreamSpecification.StreamViewType : "off"],
  ];
  const indexes = [...(table.GlobalSecondaryIndexes || []).map((index) => ["GSI", index]),
                   ...(table.LocalSecondaryIndexes || []).map((index) => ["LSI", index])];
  return h("div", {},
    h("dl.facts", {}, facts.map(([name, value]) => [h("dt", {}, name), h("dd", {}, value)])),
    indexes.length ? h("table.grid.indexes", {},
      h("thead", {}, h("tr", {}, ["Index", "Kind", "Key", "Projection", "Status"].map((n) => h("th", {}, n)))),
      h("tbody", {}, indexes.map(([kind, index]) => h("tr", { "data-index": index.IndexName },
        h("td", {}, index.IndexName), h("td", {}, kind), h("td", {}, keys(index.KeySchema)),
        h("td", {}, index.Projection.ProjectionType +
          (index.Projection.NonKeyAttributes ? ` (${index.Projection.NonKeyAttributes.join(", ")})` : "")),
        h("td", {}, index.IndexStatus || "ACTIVE"))))) : null);
}

async function tablesView(selected) {
  const names = await listTables();
  const list = h("ul.list.tables", {}, names.map((name) =>
    h("li", {}, h(name === selected ? "a.current" : "a", { href: `#tables/${encodeURIComponent(name)}` }, name))));
  const side = h("div", {}, h("h1", {}, "Tables"),
    names.length ? list : h("p.muted", {}, `No tables in namespace ${state.namespace}.`));
  if (!selected) { show(h("div.split", {}, side, h("div"))); return; }
  const { Table: table } = await dynamo("DescribeTable", { TableName: selected });
  const body = h("div", {}, h("h1", {}, table.TableName), tableFacts(table));
  show(h("div.split", {}, side, body));
  body.append(await itemBrowser(table));
}

// Pages of a Scan of `table`, 50 items at a time, each row opening the editor.
async function itemBrowser(table) {
  const keyNames = keyNamesOf(table);
  const holder = h("div.browser");
  const starts = [undefined];  // the ExclusiveStartKey of each page seen
  async function load(page) {
    const request = { TableName: table.TableName, Limit: 50 };
    if (starts[page]) request.ExclusiveStartKey = starts[page];
    const answer = await dynamo("Scan", request);
    starts[page + 1] = answer.LastEvaluatedKey;
    const edit = (item) => openEditor(table, item, () => load(page));
    holder.replaceChildren(
      h("h2", {}, "Items"),
      h("div.row", {},
        h("button", { onclick: () => openEditor(table, null, () => load(page)) }, "New item"),
        h("button.plain", { disabled: page === 0, onclick: () => attempt(() => load(page - 1)) }, "Previous page"),
        h("button.plain", { disabled: !answer.LastEvaluatedKey, onclick: () => attempt(() => load(page + 1)) }, "Next page"),
        h("span.muted", {}, `page ${page + 1} · ${answer.Count} items`)),
      answer.Items.length ? itemGrid(answer.Items, keyNames, edit) : h("p.muted", {}, "No items."));
  }
  await load(0);
  return holder;
}

// ---------- the item editor: a form of typed attributes, or the item's DynamoDB JSON ----------

// The text a value's editor shows: scalars as they are, sets as JSON arrays of strings (numbers
// in quotes keep every digit), lists and maps as DynamoDB JSON.
function editableText(type, content) {
  if (type === "BOOL") return content ? "true" : "false";
  if (type === "NULL") return "";
  if (SCALAR_TYPES.includes(type)) return content;
  return JSON.stringify(content, null, SET_TYPES.includes(type) ? 0 : 2);
}

// Numbers in a set's array may be written bare; quoting them before JSON.parse keeps digits a
// double would lose.
function parseSetText(text, type) {
  const quoted = type === "NS"
    ? text.replace(/(^|[[,])\s*(-?[0-9][0-9.eE+-]*)\s*(?=[,\]])/g, '$1"$2"') : text;
  const members = JSON.parse(quoted);
  if (!Array.isArray(members) || members.some((member) => typeof member !== "string")) {
    throw new Error(`a ${type} is written as a JSON array of strings, like ["a", "b"]`);
  }
  return members;
}

// The DynamoDB value a form row describes; throws with the reason when it is not one.
function valueFromText(type, text) {
  switch (type) {
    case "S": return { S: text };
    case "N":
      if (!/^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$/.test(text)) {
        throw new Error(`"${text}" is not a number`);
      }
      return { N: text.trim() };
    case "B":
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.trim())) throw new Error("a binary is written in base64");
      return { B: text.trim() };
    case "BOOL": return { BOOL: text === "true" };
    case "NULL": return { NULL: true };
    case "SS": case "NS": case "BS": return { [type]: parseSetText(text, type) };
    case "L": case "M": {
      const content = JSON.parse(text);
      const ok = type === "L" ? Array.isArray(content)
        : typeof content === "object" && content !== null && !Array.isArray(content);
      if (!ok) throw new Error(`a ${type} is written as DynamoDB JSON, like ${type === "L" ? '[{"S": "a"}]' : '{"name": {"S": "a"}}'}`);
      return { [type]: content };
    }
    default: throw new Error(`unknown type ${type}`);
  }
}

function valueEditor(type, text) {
  if (type === "BOOL") {
    return h("select.value-input", {}, ["true", "false"].map((v) => h("option", { selected: v === text }, v)));
  }
  if (type === "NULL") return h("input.value-input", { disabled: true, value: "null" });
  if (["S", "SS", "NS", "BS", "L", "M"].includes(type)) {
    const lines = Math.min(12, Math.max(1, text.split("\n").length));
    return h("textarea.value-input", { rows: lines, spellcheck: "false", value: text });
  }
  return h("input.value-input", { spellcheck: "false", value: text });
}

function attributeRow(name, value, isKey) {
  const type = value ? typeOf(value) : "S";
  const nameInput = h("input.name-input", { value: name, readonly: isKey, spellcheck: "false" });
  const typeSelect = h("select.type-select", { disabled: isKey },
    ALL_TYPES.map((t) => h("option", { selected: t === type }, t)));
  const cell = h("td", {}, valueEditor(type, value ? editableText(type, value[type]) : ""));
  typeSelect.addEventListener("change", () => {
    cell.replaceChildren(valueEditor(typeSelect.value, SET_TYPES.includes(typeSelect.value) ? "[]"
      : typeSelect.value === "L" ? "[]" : typeSelect.value === "M" ? "{}" : ""));
  });
  const row = h("tr.attribute", { "data-attribute": name },
    h("td", {}, nameInput), h("td", {}, typeSelect), cell,
    h("td", {}, isKey ? null : h("button.danger", { type: "button", onclick: () => row.remove() }, "✕")));
  row.read = () => {
    const input = cell.firstChild;
    if (!nameInput.value) throw new Error("an attribute needs a name");
    try {
      return [nameInput.value, valueFromText(typeSelect.value, input.value)];
    } catch (error) {
      throw new Error(`${nameInput.value}: ${error.message}`);
    }
  };
  return row;
}

// Opens the editor on `item` of `table` (null: a new item); `saved` runs after a write.
function openEditor(table, item, saved) {
  const dialog = document.getElementById("editor");
  const keyNames = keyNamesOf(table);
  const isNew = !item;
  const start = item || Object.fromEntries(keyNames.map((name) =>
    [name, { [attributeType(table, name)]: attributeType(table, name) === "N" ? "0" : "" }]));
  const rows = h("tbody");
  const addRow = (name, value, isKey) => rows.append(attributeRow(name, value, isKey));
  for (const name of keyNames) addRow(name, start[name], !isNew);
  for (const name of Object.keys(start).sort()) if (!keyNames.includes(name)) addRow(name, start[name], false);
  const json = h("textarea.item-json", { rows: 18, spellcheck: "false", hidden: true });
  const problem = h("p.error-text");
  const form = h("div.form", {}, h("table.attributes", {}, rows),
    h("button.plain", { type: "button", onclick: () => addRow("", null, false) }, "Add attribute"));
  let mode = "form";
  const readForm = () => Object.fromEntries([...rows.children].map((row) => row.read()));
  const toggle = h("button.plain.json-toggle", { type: "button", onclick: () => {
    try {
      if (mode === "form") {
        json.value = JSON.stringify(readForm(), null, 2);
        form.hidden = true; json.hidden = false; mode = "json"; toggle.textContent = "Form";
      } else {
        const edited = JSON.parse(json.value);
        rows.replaceChildren();
        for (const name of keyNames) addRow(name, edited[name], !isNew);
        for (const name of Object.keys(edited).sort()) if (!keyNames.includes(name)) addRow(name, edited[name], false);
        form.hidden = false; json.hidden = true; mode = "form"; toggle.textContent = "DynamoDB JSON";
      }
      problem.textContent = "";
    } catch (error) { problem.textContent = error.message; }
  } }, "DynamoDB JSON");
  const save = async () => {
    try {
      const edited = mode === "form" ? readForm() : JSON.parse(json.value);
      await dynamo("PutItem", { TableName: table.TableName, Item: edited });
      dialog.close();
      say("Saved.");
      await saved();
    } catch (error) { problem.textContent = error.message; }
  };
  const remove = async () => {
    if (!confirm("Delete this item?")) return;
    try {
      const key = Object.fromEntries(keyNames.map((name) => [name, item[name]]));
      await dynamo("DeleteItem", { TableName: table.TableName, Key: key });
      dialog.close();
      say("Deleted.");
      await saved();
    } catch (error) { problem.textContent = error.message; }
  };
  dialog.replaceChildren(
    h("h2", {}, isNew ? `New item in ${table.TableName}` : `Item of ${table.TableName}`),
    form, json, problem,
    h("div.row", {},
      h("button.save", { type: "button", onclick: save }, "Save"),
      toggle,
      isNew ? null : h("button.danger.delete", { type: "button", onclick: remove }, "Delete"),
      h("button.plain", { type: "button", onclick: () => dialog.close() }, "Cancel")));
  dialog.showModal();
}

// ---------- query and scan ----------

const SORT_CONDITIONS = ["=", "<", "<=", ">", ">=", "between", "begins_with"];

function jsonOrEmpty(text, what) {
  if (!text.trim()) return undefined;
  try { return JSON.parse(text); } catch (error) { throw new Error(`${what}: ${error.message}`); }
}

// The Query or Scan request the builder's fields describe.
function buildRequest(form, description) {
  const request = { TableName: description.TableName, ReturnConsumedCapacity: "TOTAL" };
  if (form.index.value) request.IndexName = form.index.value;
  const names = jsonOrEmpty(form.names.value, "ExpressionAttributeNames") || {};
  const values = jsonOrEmpty(form.values.value, "ExpressionAttributeValues") || {};
  if (form.operation.value === "Query") {
    const [hash, range] = keyNamesOf(description, form.index.value);
    names["#K0"] = hash;
    values[":k0"] = { [attributeType(description, hash)]: form.partition.value };
    let condition = "#K0 = :k0";
    const operator = form.sortOperator.value;
    if (range && operator) {
      const type = attributeType(description, range);
      names["#K1"] = range;
      values[":k1"] = { [type]: form.sortValue.value };
      if (operator === "between") {
        values[":k2"] = { [type]: form.sortValue2.value };
        condition += " AND #K1 BETWEEN :k1 AND :k2";
      } else if (operator === "begins_with") {
        condition += " AND begins_with(#K1, :k1)";
      } else {
        condition += ` AND #K1 ${operator} :k1`;
      }
    }
    request.KeyConditionExpression = condition;
    if (!form.forward.checked) request.ScanIndexForward = false;
  }
  if (form.filter.value.trim()) request.FilterExpression = form.filter.value.trim();
  if (form.projection.value.trim()) request.ProjectionExpression = form.projection.value.trim();
  if (Object.keys(names).length) request.ExpressionAttributeNames = names;
  if (Object.keys(values).length) request.ExpressionAttributeValues = values;
  if (form.limit.value) request.Limit = Number(form.limit.value);
  if (form.consistent.checked) request.ConsistentRead = true;
  return request;
}

async function queryView() {
  const names = await listTables();
  const form = {
    table: h("select", {}, names.map((name) => h("option", {}, name))),
    index: h("select"),
    operation: h("select", {}, h("option", {}, "Query"), h("option", {}, "Scan")),
    partition: h("input", { spellcheck: "false" }),
    sortOperator: h("select", {}, h("option", { value: "" }, "(any)"), SORT_CONDITIONS.map((c) => h("option", {}, c))),
    sortValue: h("input", { spellcheck: "false" }),
    sortValue2: h("input", { spellcheck: "false", placeholder: "and" }),
    filter: h("input", { size: 50, spellcheck: "false", placeholder: "e.g. #s = :open" }),
    projection: h("input", { size: 40, spellcheck: "false" }),
    names: h("textarea", { rows: 2, spellcheck: "false", placeholder: '{"#s": "status"}' }),
    values: h("textarea", { rows: 2, spellcheck: "false", placeholder: '{":open": {"S": "OPEN"}}' }),
    limit: h("input", { type: "number", min: 1, value: 50, style: "width:80px" }),
    forward: h("input", { type: "checkbox", checked: true }),
    consistent: h("input", { type: "checkbox" }),
  };
  const keyLabels = { partition: h("span"), sort: h("span") };
  const output = h("div.results");
  let description;
  const describe = async () => {
    if (!form.table.value) return;
    ({ Table: description } = await dynamo("DescribeTable", { TableName: form.table.value }));
    const indexes = [...(description.GlobalSecondaryIndexes || []), ...(description.LocalSecondaryIndexes || [])];
    form.index.replaceChildren(h("option", { value: "" }, "(table)"),
      indexes.map((index) => h("option", {}, index.IndexName)));
    relabel();
  };
  const relabel = () => {
    const [hash, range] = keyNamesOf(description, form.index.value);
    keyLabels.partition.textContent = `${hash} =`;
    keyLabels.sort.textContent = range || "(no sort key)";
    form.sortOperator.disabled = !range;
  };
  form.table.addEventListener("change", () => attempt(describe));
  form.index.addEventListener("change", relabel);
  const showSecondValue = () => { form.sortValue2.hidden = form.sortOperator.value !== "between"; };
  form.sortOperator.addEventListener("change", showSecondValue);
  showSecondValue();
  let request;
  const run = async (start) => {
    request = buildRequest(form, description);
    if (start) request.ExclusiveStartKey = start;
    const answer = await dynamo(form.operation.value, request);
    const capacity = answer.ConsumedCapacity ? answer.ConsumedCapacity.CapacityUnits : 0;
    output.replaceChildren(
      h("div.row.summary", {},
        h("span", { "data-count": answer.Count }, `Count ${answer.Count}`),
        h("span", { "data-scanned-count": answer.ScannedCount }, `ScannedCount ${answer.ScannedCount}`),
        h("span", {}, `${capacity} read units`),
        answer.LastEvaluatedKey ? h("button.plain", { onclick: () => attempt(() => run(answer.LastEvaluatedKey)) }, "Next page") : null),
      itemGrid(answer.Items, keyNamesOf(description, form.index.value),
        (item) => openEditor(description, item, () => run(start))),
      h("h3", {}, "The request"),
      h("pre.request", {}, `${form.operation.value} ${JSON.stringify(request, null, 2)}`));
  };
  show(h("h1", {}, "Query & Scan"),
    names.length ? null : h("p.muted", {}, `No tables in namespace ${state.namespace}.`),
    h("form.builder", { onsubmit: (event) => { event.preventDefault(); attempt(() => run()); } },
      h("div.row", {}, field("Table", form.table), field("Index", form.index), field("Operation", form.operation)),
      h("div.row.key-condition", {}, keyLabels.partition, form.partition, keyLabels.sort,
        form.sortOperator, form.sortValue, form.sortValue2),
      h("div.row", {}, field("Filter", form.filter), field("Projection", form.projection)),
      h("div.row", {}, field("Names", form.names), field("Values", form.values)),
      h("div.row", {}, field("Limit", form.limit), field("Ascending", form.forward),
        field("Consistent read", form.consistent), h("button.run", { type: "submit" }, "Run"))),
    output);
  await describe();
}

// ---------- the stream tail ----------

async function streamView() {
  const names = await listTables();
  const tableSelect = h("select", {}, names.map((name) => h("option", {}, name)));
  const from = h("select", {}, h("option", { value: "LATEST" }, "new records"),
    h("option", { value: "TRIM_HORIZON" }, "the oldest record kept"));
  const records = h("ul.records");
  const status = h("span.muted.tail-status");
  let tail = null;  // { iterators: Map shardId → iterator, stop }
  const stop = () => { if (tail) tail.stopped = true; tail = null; status.textContent = "stopped"; };
  const poll = async (current) => {
    if (current.stopped) return;
    const { StreamDescription: stream } = await streams("DescribeStream", { StreamArn: current.arn });
    for (const shard of stream.Shards) {
      if (current.iterators.has(shard.ShardId)) continue;
      const type = current.known ? "TRIM_HORIZON" : from.value;  // shards born while tailing: all
      const { ShardIterator } = await streams("GetShardIterator",
        { StreamArn: current.arn, ShardId: shard.ShardId, ShardIteratorType: type });
      current.iterators.set(shard.ShardId, ShardIterator);
    }
    current.known = true;
    for (const [shard, iterator] of current.iterators) {
      if (!iterator) continue;
      const answer = await streams("GetRecords", { ShardIterator: iterator, Limit: 100 });
      current.iterators.set(shard, answer.NextShardIterator || null);
      for (const record of answer.Records) records.prepend(recordView(record));
    }
    status.textContent = `tailing ${current.arn}`;
  };
  const start = async () => {
    stop();
    const { Table: table } = await dynamo("DescribeTable", { TableName: tableSelect.value });
    if (!table.LatestStreamArn || !(table.StreamSpecification || {}).StreamEnabled) {
      throw new Error(`${table.TableName} has no stream enabled (UpdateTable StreamSpecification)`);
    }
    records.replaceChildren();
    const current = { arn: table.LatestStreamArn, iterators: new Map(), known: false, stopped: false };
    tail = current;
    await poll(current);
    const tick = async () => {
      if (current.stopped) return;
      await attempt(() => poll(current));
      current.timer = setTimeout(tick, 1000);
    };
    current.timer = setTimeout(tick, 1000);
    state.timers.push({ clear: () => { current.stopped = true; clearTimeout(current.timer); } });
  };
  show(h("h1", {}, "Stream"),
    h("div.row", {}, field("Table", tableSelect), field("From", from),
      h("button.tail", { onclick: () => attempt(start) }, "Tail"),
      h("button.plain", { onclick: stop }, "Stop"), status),
    records);
}

function recordView(record) {
  const change = record.dynamodb;
  const image = (name) => change[name] ? h("div", {}, h("span.muted", {}, `${name}: `),
    h("div.nested", {}, Object.keys(change[name]).sort().map((attribute) =>
      h("div", {}, h("span.member-name", {}, `${attribute}: `), valueView(change[name][attribute]))))) : null;
  const when = new Date(change.ApproximateCreationDateTime * 1000).toISOString();
  return h("li.record", { "data-event": record.eventName },
    h("div", {}, h(`strong.event-${record.eventName}`, {}, record.eventName), " ",
      h("span.muted", {}, `${when} · ${change.SequenceNumber}`)),
    image("Keys"), image("NewImage"), image("OldImage"));
}

// ---------- the access-pattern report as charts ----------

// A horizontal bar chart; its bars carry their data (data-label, data-value) for tests and tools.
function barChart(name, title, entries, format = (value) => String(value), kind = "") {
  const largest = Math.max(0, ...entries.map((entry) => entry.value));
  return h("div.chart" + (kind ? `.${kind}` : ""), { "data-chart": name },
    h("h3", {}, title),
    entries.length ? entries.map((entry) => h("div.bar", { "data-label": entry.label, "data-value": entry.value },
      h("span.label", { title: entry.label }, entry.label),
      h("span.track", {}, h("span.fill", { style: `display:block;width:${largest ? (100 * entry.value / largest).toFixed(1) : 0}%` })),
      h("span.amount", {}, entry.note || format(entry.value)))) : h("p.muted", {}, "nothing yet"));
}

// Requests per second over the report's timeline, as SVG columns.
function timelineChart(timeline) {
  const svg = "http://www.w3.org/2000/svg";
  const chart = document.createElementNS(svg, "svg");
  const count = timeline.Requests.length;
  const largest = Math.max(1, ...timeline.Requests);
  chart.setAttribute("class", "timeline");
  chart.setAttribute("viewBox", `0 0 ${count} 100`);
  chart.setAttribute("preserveAspectRatio", "none");
  timeline.Requests.forEach((requests, index) => {
    if (!requests) return;
    const column = document.createElementNS(svg, "rect");
    const height = 100 * requests / largest;
    const second = timeline.EndEpochSecond - (count - 1 - index);
    column.setAttribute("class", "requests");
    column.setAttribute("x", index + 0.1);
    column.setAttribute("width", 0.8);
    column.setAttribute("y", 100 - height);
    column.setAttribute("height", height);
    column.setAttribute("data-second", second);
    column.setAttribute("data-value", requests);
    const tip = document.createElementNS(svg, "title");
    tip.textContent = `${new Date(second * 1000).toISOString()}: ${requests} requests`;
    column.append(tip);
    chart.append(column);
  });
  const total = timeline.Requests.reduce((sum, value) => sum + value, 0);
  return h("div.chart", { "data-chart": "timeline", "data-total": total },
    h("h3", {}, `Requests per second, last ${count} s (${total} in all)`), chart);
}

function keysChart(name, title, keys, kind) {
  return barChart(name, title, keys.map((key) => ({
    label: key.Key, value: key.Units, note: `${(100 * key.Share).toFixed(0)}% · ${key.Units} u`,
  })), undefined, kind);
}

function tableReportCard(table) {
  const sites = [table.Table, ...table.Indexes];
  const siteName = (site) => site.IndexName ? `${table.TableName}.${site.IndexName}` : table.TableName;
  const dollars = (value) => `$${value.toFixed(2)}`;
  const cost = table.EstimatedMonthlyCost;
  return h("section.card", { "data-table": table.TableName },
    h("h3", {}, table.TableName, " ",
      h("span.muted", {}, `${table.BillingMode} · ${table.ItemCount} items · ${formatBytes(table.TableSizeBytes)}` +
        (table.Table.ContributorInsights ? " · Contributor Insights on" : ""))),
    timelineChart(table.Timeline),
    barChart("operations", "Operations", Object.entries(table.Operations)
      .map(([label, value]) => ({ label, value })).sort((a, b) => b.value - a.value)),
    barChart("filter-efficiency", "Items read → returned", sites.filter((site) => site.ItemsRead)
      .map((site) => ({ label: siteName(site), value: site.ItemsRead,
                        note: `${site.ItemsRead} → ${site.ItemsReturned}` })), undefined, "reads"),
    keysChart("hot-partitions-by-reads", "Hottest partitions by reads", table.Table.HotPartitionsByReads, "reads"),
    keysChart("hot-partitions-by-writes", "Hottest partitions by writes", table.Table.HotPartitionsByWrites, "writes"),
    table.Table.HotPartitionsByThrottles.length
      ? barChart("hot-partitions-by-throttles", "Most throttled partitions", table.Table.HotPartitionsByThrottles
        .map((key) => ({ label: key.Key, value: key.Units, note: `${(100 * key.Share).toFixed(0)}% · ${key.Units} req` })),
        undefined, "writes") : null,
    barChart("cost", "Estimated monthly cost (USD)", [
      { label: "on demand", value: cost.OnDemand }, { label: "provisioned", value: cost.Provisioned },
      { label: "storage", value: cost.Storage }], dollars, "cost"));
}

async function reportView() {
  const holder = h("div");
  const auto = h("input", { type: "checkbox", checked: true });
  const draw = async () => {
    const report = await control("GET", "/ddbd/report");
    const space = report.Namespaces.find((candidate) => candidate.Name === state.namespace);
    if (!space) { holder.replaceChildren(h("p.muted", {}, `No tables in namespace ${state.namespace}.`)); return; }
    holder.replaceChildren(
      h("h2", {}, `Findings (${space.Findings.length})`),
      space.Findings.length ? h("ul.findings", {}, space.Findings.map((finding) =>
        h("li", { "data-code": finding.Code }, h("code", {}, finding.Code), " ",
          h("span.muted", {}, finding.IndexName ? `${finding.TableName}.${finding.IndexName}` : finding.TableName),
          h("div", {}, finding.Message)))) : h("p.muted", {}, "None: nothing DynamoDB would make expensive."),
      h("div.cards", {}, space.Tables.map(tableReportCard)));
  };
  show(h("h1", {}, "Access-pattern report"),
    h("div.row", {}, field("Refresh every 2 s", auto),
      h("a", { href: "/ddbd/report?format=text", target: "_blank" }, "as text")),
    holder);
  await draw();
  every(2000, () => { if (auto.checked) attempt(draw); });
}

// ---------- the control API: namespaces and snapshots, clock, faults ----------

async function namespacesView() {
  const [{ Namespaces: spaces }, { Snapshots: snapshots }] =
    await Promise.all([control("GET", "/ddbd/namespaces"), control("GET", "/ddbd/snapshots")]);
  const reload = () => attempt(namespacesView);
  const snapshotName = h("input", { placeholder: "snapshot name", spellcheck: "false" });
  const forkTo = h("input", { placeholder: "fork into namespace", spellcheck: "false" });
  const path = (space, name) => `/ddbd/namespaces/${encodeURIComponent(space)}/snapshots/${encodeURIComponent(name)}`;
  show(h("h1", {}, "Namespaces"),
    h("table.grid.namespaces", {}, h("thead", {}, h("tr", {}, ["Name", "Tables", "Items", "Snapshots", ""].map((n) => h("th", {}, n)))),
      h("tbody", {}, spaces.map((space) => h("tr", { "data-namespace": space.Name },
        h("td", {}, space.Name), h("td", {}, space.TableCount), h("td", {}, space.ItemCount),
        h("td", {}, space.SnapshotCount),
        h("td", {}, h("button.plain", { onclick: () => useNamespace(space.Name) }, "Use"), " ",
          h("button.danger", { onclick: () => confirm(`Drop namespace ${space.Name} and all its tables?`) &&
            attempt(async () => { await control("DELETE", `/ddbd/namespaces/${encodeURIComponent(space.Name)}`); reload(); }) }, "Drop")))))),
    h("h2", {}, "Snapshots"),
    h("div.row", {}, snapshotName,
      h("button.save-snapshot", { onclick: () => attempt(async () => {
        await control("PUT", path(state.namespace, snapshotName.value)); say("Saved."); reload();
      }) }, `Save ${state.namespace} as a snapshot`)),
    h("table.grid.snapshots", {}, h("thead", {}, h("tr", {}, ["Namespace", "Name", "Created", "Tables", "Items", ""].map((n) => h("th", {}, n)))),
      h("tbody", {}, snapshots.map((snapshot) => h("tr", { "data-snapshot": snapshot.Name },
        h("td", {}, snapshot.Namespace), h("td", {}, snapshot.Name),
        h("td", {}, new Date(snapshot.CreationDateTime * 1000).toISOString()),
        h("td", {}, snapshot.TableCount), h("td", {}, snapshot.ItemCount),
        h("td", {},
          h("button.plain", { onclick: () => attempt(async () => {
            await control("POST", `${path(snapshot.Namespace, snapshot.Name)}/restore`); say("Restored."); reload();
          }) }, "Restore"), " ",
          h("button.plain", { onclick: () => attempt(async () => {
            await control("POST", `${path(snapshot.Namespace, snapshot.Name)}/fork`, { To: forkTo.value }); say("Forked."); reload();
          }) }, "Fork"), " ",
          h("button.danger", { onclick: () => attempt(async () => {
            await control("DELETE", path(snapshot.Namespace, snapshot.Name)); reload();
          }) }, "Delete")))))),
    h("div.row", {}, forkTo, h("span.muted", {}, "(the namespace a Fork creates)")));
}

async function clockView() {
  const now = h("strong.now");
  const mode = h("span.mode");
  const draw = async () => {
    const clock = await control("GET", "/ddbd/clock");
    now.textContent = `${new Date(clock.Now * 1000).toISOString()} (${clock.Now})`;
    mode.textContent = clock.Mode;
  };
  const put = (body) => attempt(async () => { await control("PUT", "/ddbd/clock", body); await draw(); });
  const seconds = h("input", { type: "number", value: 60, style: "width:90px" });
  const when = h("input", { placeholder: "2030-01-01T00:00:00Z", spellcheck: "false" });
  show(h("h1", {}, "Clock"),
    h("p", {}, "Now: ", now, " · mode ", mode),
    h("div.row", {}, h("button", { onclick: () => put({ Run: false }) }, "Freeze"),
      h("button.plain", { onclick: () => put({ Run: true }) }, "Run")),
    h("div.row", {}, seconds, h("button", { onclick: () => put({ Advance: Number(seconds.value) }) }, "Advance seconds")),
    h("div.row", {}, when, h("button", { onclick: () => put({ Now: when.value }) }, "Set and freeze")),
    h("p.muted", {}, "One clock for every namespace: TTL, stream retention, timestamps, capacity refill."));
  await draw();
  every(1000, () => attempt(draw));
}

async function faultsView() {
  const { Rules: rules } = await control("GET", "/ddbd/faults");
  const editable = rules.map(({ Matched, Fired, ...rule }) => rule);
  const text = h("textarea.rules", { rows: 14, spellcheck: "false", value: JSON.stringify(editable, null, 2) });
  show(h("h1", {}, "Fault rules"),
    rules.length ? h("table.grid", {}, h("thead", {}, h("tr", {}, ["Operation", "Table", "Effect", "Matched", "Fired"].map((n) => h("th", {}, n)))),
      h("tbody", {}, rules.map((rule) => h("tr", {}, h("td", {}, rule.Operation), h("td", {}, rule.Table || "*"),
        h("td", {}, rule.Error ? rule.Error.Type : rule.DelayMs ? `delay ${rule.DelayMs} ms` : rule.Unprocessed ? "unprocessed" : "transaction conflict"),
        h("td", {}, rule.Matched), h("td", {}, rule.Fired))))) : h("p.muted", {}, "No rules."),
    h("h2", {}, "Rules (JSON, as PUT /ddbd/faults takes them)"), text,
    h("div.row", {},
      h("button", { onclick: () => attempt(async () => {
        await control("PUT", "/ddbd/faults", { Rules: JSON.parse(text.value || "[]") }); say("Rules replaced."); faultsView();
      }) }, "Replace rules"),
      h("button.danger", { onclick: () => attempt(async () => { await control("DELETE", "/ddbd/faults"); faultsView(); }) }, "Clear")));
}

// The members of a trigger's answer that are not part of its definition.
const TRIGGER_STATE = ["Name", "State", "LastProcessingResult", "Position", "Statistics", "CreationDateTime"];

async function triggersView() {
  const { Triggers: triggers } = await control("GET", "/ddbd/triggers");
  const reload = () => attempt(triggersView);
  const name = h("input.trigger-name", { placeholder: "trigger name", spellcheck: "false" });
  const text = h("textarea.definition", { rows: 12, spellcheck: "false", value: JSON.stringify({
    Namespace: state.namespace, TableName: "", Url: "http://127.0.0.1:3000/",
    StartingPosition: "LATEST", BatchSize: 100 }, null, 2) });
  const edit = (trigger) => {
    name.value = trigger.Name;
    const definition = Object.fromEntries(Object.entries(trigger).filter(([key]) => !TRIGGER_STATE.includes(key)));
    text.value = JSON.stringify(definition, null, 2);
  };
  const path = (trigger) => `/ddbd/triggers/${encodeURIComponent(trigger)}`;
  show(h("h1", {}, "Stream triggers"),
    h("div.row", {}, h("button.plain", { onclick: reload }, "Refresh")),
    triggers.length ? h("table.grid.triggers", {},
      h("thead", {}, h("tr", {}, ["Name", "Table", "Target", "State", "Last result", "Batches", "Failed",
        "Retried", "Records", "Iterator age", "Last error", ""].map((n) => h("th", {}, n)))),
      h("tbody", {}, triggers.map((trigger) => {
        const s = trigger.Statistics;
        return h("tr", { "data-trigger": trigger.Name },
          h("td", {}, trigger.Name), h("td", {}, `${trigger.Namespace}/${trigger.TableName}`),
          h("td", {}, trigger.Url || trigger.Command), h("td", {}, trigger.State),
          h("td", {}, trigger.LastProcessingResult), h("td", {}, s.BatchesDelivered),
          h("td", {}, s.BatchesFailed), h("td", {}, s.BatchesRetried), h("td", {}, s.RecordsDelivered),
          h("td", {}, `${(s.IteratorAgeMilliseconds / 1000).toFixed(1)} s`), h("td", {}, s.LastError || ""),
          h("td", {}, h("button.plain", { onclick: () => edit(trigger) }, "Edit"), " ",
            h("button.danger", { onclick: () => confirm(`Delete trigger ${trigger.Name}?`) &&
              attempt(async () => { await control("DELETE", path(trigger.Name)); reload(); }) }, "Delete")));
      }))) : h("p.muted", {}, "No triggers."),
    h("h2", {}, "Definition (JSON, as PUT /ddbd/triggers/{name} takes it)"),
    h("div.row", {}, name), text,
    h("div.row", {}, h("button.put-trigger", { onclick: () => attempt(async () => {
      await control("PUT", path(name.value), JSON.parse(text.value || "{}")); say("Trigger saved."); reload();
    }) }, "Create or replace")),
    h("p.muted", {}, "Each batch of the table's stream goes to the URL (a POST) or the command (on standard input) as Lambda's event: see \"Local stream handlers\" in the README."));
}

// ---------- navigation ----------

const VIEWS = {
  tables: tablesView, query: queryView, stream: streamView, report: reportView,
  namespaces: namespacesView, clock: clockView, faults: faultsView, triggers: triggersView,
};

function useNamespace(name) {
  state.namespace = name || "default";
  localStorage.setItem("ddbd.namespace", state.namespace);
  document.getElementById("namespace").value = state.namespace;
  route();
}

async function route() {
  for (const timer of state.timers) timer.clear ? timer.clear() : clearInterval(timer);
  state.timers = [];
  const [name, ...rest] = location.hash.slice(1).split("/");
  const view = VIEWS[name] ? name : "tables";
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("current", link.dataset.view === view);
  }
  document.body.dataset.view = view;
  document.body.dataset.ready = "false";
  await attempt(() => VIEWS[view](...rest.map(decodeURIComponent)));
  document.body.dataset.ready = "true";
}

async function fillNamespaces() {
  const { Namespaces: spaces } = await control("GET", "/ddbd/namespaces");
  document.getElementById("namespace-list").replaceChildren(
    ...spaces.map((space) => h("option", { value: space.Name })));
}

window.addEventListener("hashchange", route);
window.addEventListener("DOMContentLoaded", () => {
  const input = document.getElementById("namespace");
  input.value = state.namespace;
  input.addEventListener("change", () => useNamespace(input.value.trim()));
  input.addEventListener("focus", () => attempt(fillNamespaces));
  route();
});
