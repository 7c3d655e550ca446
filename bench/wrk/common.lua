-- Shared by the wrk scripts: DynamoDB request headers. The signature is not verified by the
-- servers under test, so a fixed Authorization header is enough.
local M = {}

-- With DDBD_BENCH_NAMESPACE set, requests name that ddbd namespace (X-Ddbd-Namespace).
function M.headers(operation)
  local headers = {
    ["Content-Type"] = "application/x-amz-json-1.0",
    ["X-Amz-Target"] = "DynamoDB_20120810." .. operation,
    ["X-Amz-Date"] = "20260101T000000Z",
    ["Authorization"] = "AWS4-HMAC-SHA256 Credential=BENCH/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
  }
  local namespace = os.getenv("DDBD_BENCH_NAMESPACE")
  if namespace then headers["X-Ddbd-Namespace"] = namespace end
  return headers
end

-- wrk's request function for `operations[op]`, a pair {DynamoDB operation, body function}.
function M.request_for(operations, op)
  local chosen = operations[op]
  local headers = M.headers(chosen[1])
  local body = chosen[2]
  return function()
    return wrk.format("POST", "/", headers, body())
  end
end

-- Keys of the preloaded items: pk "user#<n>" for n in [0, KEYS).
M.KEYS = 10000

return M
