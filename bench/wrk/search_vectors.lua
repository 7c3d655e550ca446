-- SearchVectors at TopK 10 with query vectors read from the file named by DDBD_BENCH_QUERIES
-- (one JSON SearchVector array per line), taken in turn.
package.path = package.path .. ";" .. debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua"
local common = require("common")
local headers = common.headers("SearchVectors")
local table_name = os.getenv("DDBD_BENCH_TABLE") or "bench_vectors"
local bodies = {}
for line in io.lines(os.getenv("DDBD_BENCH_QUERIES")) do
  bodies[#bodies + 1] = '{"TableName":"' .. table_name .. '","IndexName":"Embeddings",' ..
                        '"TopK":10,"SearchVector":' .. line .. '}'
end
local next_body = 0

request = function()
  next_body = next_body % #bodies + 1
  return wrk.format("POST", "/", headers, bodies[next_body])
end
