-- The refresh-token grant with rotation. Arguments after "--": the number of threads, the client id, then the
-- tokens. Each thread owns its share of the token families,
-- sends one family's current token, and keeps the new token from the answer for that family's next turn.
-- A family is never used twice at once (that would be reuse, and revoke it): a connection holds one family
-- from request to answer, and each thread has one family more than connections (wrk calls the first thread's
-- request() once before the run, to check it, and never sends that one).
local threads_set_up = 0
local tokens = {}
local client_id = "bench-app"

-- Runs in the main state; `thread_index` becomes a global of that thread's own state.
setup = function(thread)
  thread:set("thread_index", threads_set_up)
  threads_set_up = threads_set_up + 1
end

init = function(args)
  local threads = tonumber(args[1])
  client_id = args[2]
  for i = 3, #args do
    if (i - 3) % threads == thread_index then tokens[#tokens + 1] = args[i] end
  end
end

request = function()
  local token = table.remove(tokens, 1) or "exhausted"
  return wrk.format("POST", nil, { ["Content-Type"] = "application/x-www-form-urlencoded" },
    "grant_type=refresh_token&client_id=" .. client_id .. "&refresh_token=" .. token)
end

response = function(status, headers, body)
  local token = body:match('"refresh_token"%s*:%s*"([^"]+)"')
  if token then tokens[#tokens + 1] = token end
end
