-- The client-credentials grant, the client authenticated with HTTP Basic (credentials given after "--"), and an
-- optional tail for the body (`&resource=...&scope=...`: a token for an API).
init = function(args)
  wrk.method = "POST"
  wrk.body = "grant_type=client_credentials" .. (args[3] or "")
  wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
  wrk.headers["Authorization"] = "Basic " .. args[2]
end
