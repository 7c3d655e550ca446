-- The workloads of bench/items.py, on items that look like users' data: a string payload, a
-- number, a bool, a string set and a small map, DDBD_BENCH_ITEM_BYTES in all (DynamoDB's size).
--   DDBD_BENCH_OP = get        GetItem of a random preloaded item of table "items"
--                   put_new    PutItem of a never-used key
--                   add        UpdateItem ADD #c :one on a random preloaded item
--                   put_if     PutItem with attribute_not_exists(pk), never-used keys
--                   query      Query of a random partition of table "groups" (20 items of 200 B)
--                   batch      BatchWriteItem of 25 never-used items
-- DDBD_BENCH_KEYS preloaded keys "item#0".."item#<KEYS-1>" (bench/items.py writes them);
-- DDBD_BENCH_GROUPS partitions "group#<n>" in "groups". DDBD_BENCH_PREFIX makes the new keys of
-- one run distinct from another's (wrk seeds every thread's random numbers alike).
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")

local op = os.getenv("DDBD_BENCH_OP") or "get"
local item_bytes = tonumber(os.getenv("DDBD_BENCH_ITEM_BYTES") or "1024")
local keys = tonumber(os.getenv("DDBD_BENCH_KEYS") or "20000")
local groups = tonumber(os.getenv("DDBD_BENCH_GROUPS") or "1000")
local prefix = (os.getenv("DDBD_BENCH_PREFIX") or "") .. tostring(math.random(1, 1000000000))
local counter = 0

-- Everything but the payload takes about 110 bytes (names and values, DynamoDB's measure).
local payload = string.rep("abcdefghijklmnopqrstuvwxyz012345", math.ceil(item_bytes / 32))
payload = payload:sub(1, math.max(16, item_bytes - 110))

local function item(key)
  return '{"pk":{"S":"' .. key .. '"},"payload":{"S":"' .. payload .. '"},' ..
         '"count":{"N":"42"},"active":{"BOOL":true},' ..
         '"tags":{"SS":["red","green","blue"]},' ..
         '"meta":{"M":{"source":{"S":"bench"},"version":{"N":"3"}}}}'
end

local function new_key()
  counter = counter + 1
  return "new#" .. prefix .. "#" .. counter
end

local operations = {
  get = {"GetItem", function()
    return '{"TableName":"items","Key":{"pk":{"S":"item#' .. math.random(0, keys - 1) .. '"}}}'
  end},
  put_new = {"PutItem", function()
    return '{"TableName":"items","Item":' .. item(new_key()) .. '}'
  end},
  add = {"UpdateItem", function()
    return '{"TableName":"items","Key":{"pk":{"S":"item#' .. math.random(0, keys - 1) .. '"}},' ..
           '"UpdateExpression":"ADD #c :one","ExpressionAttributeNames":{"#c":"count"},' ..
           '"ExpressionAttributeValues":{":one":{"N":"1"}}}'
  end},
  put_if = {"PutItem", function()
    return '{"TableName":"items","Item":' .. item(new_key()) .. ',' ..
           '"ConditionExpression":"attribute_not_exists(pk)"}'
  end},
  query = {"Query", function()
    return '{"TableName":"groups","KeyConditionExpression":"pk = :p",' ..
           '"ExpressionAttributeValues":{":p":{"S":"group#' .. math.random(0, groups - 1) .. '"}}}'
  end},
  batch = {"BatchWriteItem", function()
    local parts = {}
    for i = 1, 25 do parts[i] = '{"PutRequest":{"Item":' .. item(new_key()) .. '}}' end
    return '{"RequestItems":{"items":[' .. table.concat(parts, ",") .. ']}}'
  end},
}

request = common.request_for(operations, op)
