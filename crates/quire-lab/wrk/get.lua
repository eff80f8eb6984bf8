-- wrk script: GET /notes/{id} of a small Note, with the bearer token.
-- Environment: QUIRE_NOTES (the first ID is used), QUIRE_TOKEN.

function init(args)
  note = string.match(os.getenv("QUIRE_NOTES") or "", "[^,]+")
  token = os.getenv("QUIRE_TOKEN")
end

function request()
  return wrk.format("GET", "/notes/" .. note, { ["Authorization"] = "Bearer " .. token })
end

function done(summary, latency, requests)
  io.write(string.format(
    "QUIRE requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
