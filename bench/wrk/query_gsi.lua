-- Query of a GSI partition holding 20 items ("grp" = 0..499 over 10,000 preloaded items).
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")
local headers = common.headers("Query")

request = function()
  local group = math.random(0, 499)
  local body = '{"TableName":"bench_gsi","IndexName":"ByGroup",' ..
               '"KeyConditionExpression":"grp = :g",' ..
               '"ExpressionAttributeValues":{":g":{"S":"g' .. group .. '"}}}'
  return wrk.format("POST", "/", headers, body)
end
