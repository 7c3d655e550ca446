-- PutItem of items carrying a random vector of DDBD_BENCH_DIMS (default 128) numbers into the
-- vector benchmark's table, replacing items v0 … v9999 of the loaded data.
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")
local headers = common.headers("PutItem")
local table_name = os.getenv("DDBD_BENCH_TABLE") or "bench_vectors"
local dims = tonumber(os.getenv("DDBD_BENCH_DIMS") or "128")

request = function()
  local parts = {}
  for i = 1, dims do parts[i] = string.format('{"N":"%.5f"}', math.random() * 2 - 1) end
  local body = '{"TableName":"' .. table_name .. '","Item":{"id":{"S":"v' ..
               math.random(0, 9999) .. '"},"v":{"L":[' .. table.concat(parts, ",") .. ']}}}'
  return wrk.format("POST", "/", headers, body)
end
