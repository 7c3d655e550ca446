-- PutItem of a ~150-byte item with a random key (half of them replace an existing item), into
-- the table named by DDBD_BENCH_TABLE (default "bench").
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")
local headers = common.headers("PutItem")
local table_name = os.getenv("DDBD_BENCH_TABLE") or "bench"

request = function()
  local key = math.random(0, 2 * common.KEYS - 1)
  local body = '{"TableName":"' .. table_name .. '","Item":{"pk":{"S":"user#' .. key .. '"},' ..
               '"name":{"S":"Some Body"},"email":{"S":"somebody@example.com"},' ..
               '"age":{"N":"' .. (key % 90) .. '"},"active":{"BOOL":true},' ..
               '"tags":{"SS":["a","b","c"]}}}'
  return wrk.format("POST", "/", headers, body)
end
