-- wrk script of tools/bench: one request per line of a file, JSON summary on stdout.
--
-- wrk -s load.lua URL -- METHOD PATH FILE MODE NTHREADS [CLOSE]
--   FILE: one line per request. A form body for POST, a bearer token for GET.
--   MODE: "unique"  each line is sent once (codes, tokens to revoke); a thread that runs out
--                   stops and the run is reported as exhausted;
--         "cycle"   lines are sent again and again (refresh tokens, bearer tokens).
--   NTHREADS: wrk's -t, to deal the lines to the threads.
--   CLOSE: "close" adds Connection: close (a new connection per request).
-- Lines are dealt to the threads round-robin, so no two threads send the same line.

local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

local lines = {}
local nlines = 0
local pos = 0
local method, path, mode, close
non2xx = 0
exhausted = 0

function init(args)
  method, path, mode, close = args[1], args[2], args[4], args[6] == "close"
  local nthreads = tonumber(args[5]) or 1
  local me = tonumber(wrk.thread:get("id")) or 1
  local i = 0
  for line in io.lines(args[3]) do
    if i % nthreads == me - 1 then
      nlines = nlines + 1
      lines[nlines] = line
    end
    i = i + 1
  end
end

function request()
  pos = pos + 1
  if pos > nlines then
    if mode == "unique" then
      exhausted = 1
      wrk.thread:stop()
      pos = nlines
    else
      pos = 1
    end
  end
  local line = lines[pos]
  local headers = {}
  if close then
    headers["Connection"] = "close"
  end
  if method == "POST" then
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    return wrk.format("POST", path, headers, line)
  end
  if line ~= nil and line ~= "" then
    headers["Authorization"] = "Bearer " .. line
  end
  return wrk.format("GET", path, headers, nil)
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local bad, ran_out = 0, 0
  for _, thread in ipairs(threads) do
    bad = bad + (thread:get("non2xx") or 0)
    ran_out = ran_out + (thread:get("exhausted") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH-JSON {"requests": %d, "duration_us": %d, "bytes": %d, "non2xx": %d,'
      .. ' "socket_errors": %d, "timeouts": %d, "exhausted": %d,'
      .. ' "p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d}\n',
    summary.requests, summary.duration, summary.bytes, bad,
    e.connect + e.read + e.write, e.timeout, ran_out,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
