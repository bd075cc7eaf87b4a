-- GET /userinfo with a DPoP-bound access token: arguments after "--" are the thread count, the token and the proofs' file.
init = function(args)
  load_proofs(tonumber(args[1]), args[3])
  wrk.headers["Authorization"] = "DPoP " .. args[2]
end

request = function()
  wrk.headers["DPoP"] = next_proof()
  return wrk.format("GET")
end
