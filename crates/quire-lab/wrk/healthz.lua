-- wrk script: GET /healthz, the server's no-op route (no token, no store): one HTTP round trip
-- on a keep-alive connection, the network half of a write's physical limit.

function done(summary, latency, requests)
  io.write(string.format(
    "QUIRE requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
