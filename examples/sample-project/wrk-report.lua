-- wrk's summary as one JSON line on stdout, for refbench's [[cell.metric]]:
-- throughput (requests/s), p99 latency (ms), errors, the measured window (s)
-- and the number of requests.
done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    '{"throughput": %.3f, "p99_ms": %.4f, "errors": %d, "duration": %.3f, "requests": %d}\n',
    summary.requests / seconds, latency:percentile(99) / 1000,
    e.connect + e.read + e.write + e.status + e.timeout, seconds, summary.requests))
end
