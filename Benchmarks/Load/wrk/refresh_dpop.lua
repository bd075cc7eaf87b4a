-- The refresh-token grant with a DPoP proof on each request (the tokens become bound to the pool's key at their first
-- rotation). Arguments after "--": the thread count, the proofs' file, the client id, then the tokens; the families
-- are shared out as refresh.lua does.
local tokens = {}
local client_id = "bench-app"

init = function(args)
  local threads = tonumber(args[1])
  load_proofs(threads, args[2])
  client_id = args[3]
  for i = 4, #args do
    if (i - 4) % threads == thread_index then tokens[#tokens + 1] = args[i] end
  end
end

request = function()
  local token = table.remove(tokens, 1) or "exhausted"
  return wrk.format("POST", nil, { ["Content-Type"] = "application/x-www-form-urlencoded", ["DPoP"] = next_proof() },
    "grant_type=refresh_token&client_id=" .. client_id .. "&refresh_token=" .. token)
end

response = function(status, headers, body)
  local token = body:match('"refresh_token"%s*:%s*"([^"]+)"')
  if token then tokens[#tokens + 1] = token end
end
