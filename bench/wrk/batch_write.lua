-- BatchWriteItem of 25 new items per request; keys never repeat within a thread, and each
-- wrk thread has its own key prefix (DDBD_BENCH_PREFIX when set: wrk seeds its random numbers
-- alike in every run, so a caller that runs it repeatedly on one table passes a new prefix). Items are ~100 bytes, or DDBD_BENCH_ITEM_BYTES (a
-- payload string of about that size); with DDBD_BENCH_EXPIRES each also has an `expires`
-- number of that value (epoch seconds, for Time to Live).
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")
local headers = common.headers("BatchWriteItem")
local counter = 0
local prefix = (os.getenv("DDBD_BENCH_PREFIX") or "") .. tostring(math.random(1, 1000000000))
local payload_bytes = tonumber(os.getenv("DDBD_BENCH_ITEM_BYTES") or "64")
local payload = string.rep("0123456789abcdef", math.ceil(payload_bytes / 16)):sub(1, payload_bytes)
local expires = os.getenv("DDBD_BENCH_EXPIRES")
local extra = expires and (',"expires":{"N":"' .. expires .. '"}') or ""

request = function()
  local parts = {}
  for i = 1, 25 do
    counter = counter + 1
    parts[i] = '{"PutRequest":{"Item":{"pk":{"S":"load#' .. prefix .. '#' .. counter .. '"},' ..
               '"payload":{"S":"' .. payload .. '"},' ..
               '"n":{"N":"' .. counter .. '"}' .. extra .. '}}}'
  end
  local body = '{"RequestItems":{"bench":[' .. table.concat(parts, ",") .. ']}}'
  return wrk.format("POST", "/", headers, body)
end
