-- PutItem of a ~150-byte item with a random key (half of them replace an existing item), into
-- the table named by DDBD_BENCH_TABLE (default "bench"). Replacements write the same item
-- again unless DDBD_BENCH_CHANGE is set: then every item carries a new "seq" value, so each
-- replacement changes an attribute that ALL-projected indexes hold.
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")
local headers = common.headers("PutItem")
local table_name = os.getenv("DDBD_BENCH_TABLE") or "bench"
local change = os.getenv("DDBD_BENCH_CHANGE") ~= nil
local seq = 0

request = function()
  local key = math.random(0, 2 * common.KEYS - 1)
  seq = seq + 1
  local changing = change and (',"seq":{"N":"' .. seq .. '"}') or ""
  local body = '{"TableName":"' .. table_name .. '","Item":{"pk":{"S":"user#' .. key .. '"},' ..
               '"name":{"S":"Some Body"},"email":{"S":"somebody@example.com"},' ..
               '"age":{"N":"' .. (key % 90) .. '"},"active":{"BOOL":true},' ..
               '"tags":{"SS":["a","b","c"]}' .. changing .. '}}'
  return wrk.format("POST", "/", headers, body)
end
