-- A plain GET of the URL wrk was given (discovery, JWKS).
wrk.method = "GET"
