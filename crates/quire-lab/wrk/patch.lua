-- wrk script: guarded writes (PATCH /notes/{id}, replace_text of ~200 characters).
-- Run with as many threads as connections (-t N -c N): each thread then owns one connection
-- and one Note, so it always knows the Note's version (taken from each answer) and every
-- write is a real, accepted compare-and-swap, never a conflict.
-- Environment: QUIRE_NOTES (comma-separated Note IDs, one per thread), QUIRE_TOKEN.

local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
end

function init(args)
  local ids = {}
  for id in string.gmatch(os.getenv("QUIRE_NOTES") or "", "[^,]+") do
    table.insert(ids, id)
  end
  note = ids[index]
  token = os.getenv("QUIRE_TOKEN")
  version = 1
  n = 0
  conflicts = 0
  filler = string.rep("lorem ipsum dolor sit amet ", 7)
end

function request()
  n = n + 1
  local body = string.format(
    '{"expected_version":%d,"changes":[{"op":"replace_text","tab_id":"markdown","text":"edit %d %s"}]}',
    version, n, filler)
  return wrk.format("PATCH", "/notes/" .. note, {
    ["Authorization"] = "Bearer " .. token,
    ["Content-Type"] = "application/json",
  }, body)
end

function response(status, headers, body)
  if status == 200 then
    local v = string.match(body, '"version":(%d+)')
    if v then version = tonumber(v) end
  elseif status == 409 then
    conflicts = conflicts + 1
    local v = string.match(body, '"current_version":(%d+)')
    if v then version = tonumber(v) end
  end
end

function done(summary, latency, requests)
  io.write(string.format(
    "QUIRE requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
