-- The client-credentials grant, the client authenticated with HTTP Basic (credentials given after "--").
init = function(args)
  wrk.method = "POST"
  wrk.body = "grant_type=client_credentials"
  wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
  wrk.headers["Authorization"] = "Basic " .. args[2]
end
