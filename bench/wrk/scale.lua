-- The reads of bench/scale.py on its table "scale": DDBD_BENCH_ITEMS items of 200 B, item n
-- at pk "g#<floor(n / 20)>", sk "<n % 20, two digits>" (20 items a partition).
--   DDBD_BENCH_OP = get     GetItem of a random stored item
--                   query   Query of a random partition (its 20 items)
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")

local op = os.getenv("DDBD_BENCH_OP") or "get"
local items = tonumber(os.getenv("DDBD_BENCH_ITEMS") or "10000")
local partitions = math.floor(items / 20)

local bodies = {
  get = {"GetItem", function()
    local n = math.random(0, items - 1)
    return string.format('{"TableName":"scale","Key":{"pk":{"S":"g#%d"},"sk":{"S":"%02d"}}}',
                         math.floor(n / 20), n % 20)
  end},
  query = {"Query", function()
    return '{"TableName":"scale","KeyConditionExpression":"pk = :p",' ..
           '"ExpressionAttributeValues":{":p":{"S":"g#' .. math.random(0, partitions - 1) ..
           '"}}}'
  end},
}

request = common.request_for(bodies, op)
