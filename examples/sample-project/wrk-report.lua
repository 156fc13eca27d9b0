-- wrk's summary as one JSON line on stdout, for refbench's [[cell.metric]]:
-- throughput (requests/s), p99 latency (ms), errors, timeouts, the measured
-- window (s) and the number of requests.
--
-- wrk leaves a request that times out (bench-service.sh: after 1 s) out of
-- its latencies, so when 1 % of the requests or more timed out, the true
-- p99 is at least the timeout: then p99_ms is the timeout, 1000 — the
-- ceiling sweep.toml censors at — never the lower figure of the requests
-- that were lucky.
timeout_ms = 1000
done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  local p99 = latency:percentile(99) / 1000
  if e.timeout > 0 and e.timeout >= 0.01 * (summary.requests + e.timeout) then
    p99 = timeout_ms
  end
  io.write(string.format(
    '{"throughput": %.3f, "p99_ms": %.4f, "errors": %d, "timeouts": %d, "duration": %.3f, "requests": %d}\n',
    summary.requests / seconds, p99, e.connect + e.read + e.write + e.status + e.timeout, e.timeout, seconds,
    summary.requests))
end
