-- GET /userinfo with the access token given after "--" (after the thread count).
init = function(args)
  wrk.headers["Authorization"] = "Bearer " .. args[2]
end
