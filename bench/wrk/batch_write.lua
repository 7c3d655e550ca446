-- BatchWriteItem of 25 new items (~100 bytes each) per request; keys never repeat within a
-- thread, and each wrk thread has its own key prefix.
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")
local headers = common.headers("BatchWriteItem")
local counter = 0
local prefix = tostring(math.random(1, 1000000000))

request = function()
  local parts = {}
  for i = 1, 25 do
    counter = counter + 1
    parts[i] = '{"PutRequest":{"Item":{"pk":{"S":"load#' .. prefix .. '#' .. counter .. '"},' ..
               '"payload":{"S":"0123456789012345678901234567890123456789012345678901234567890123"},' ..
               '"n":{"N":"' .. counter .. '"}}}}'
  end
  local body = '{"RequestItems":{"bench":[' .. table.concat(parts, ",") .. ']}}'
  return wrk.format("POST", "/", headers, body)
end
