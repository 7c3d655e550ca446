-- GetItem of a random preloaded item.
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")
local headers = common.headers("GetItem")

request = function()
  local key = math.random(0, common.KEYS - 1)
  local body = '{"TableName":"bench","Key":{"pk":{"S":"user#' .. key .. '"}}}'
  return wrk.format("POST", "/", headers, body)
end
