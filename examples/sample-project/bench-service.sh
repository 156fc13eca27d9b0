#!/bin/sh
# The service benchmark of the sample project: starts ARM/bin/serve on
# loopback (pinned to SERVICE_CPUS), drives it with wrk for DURATION from
# CLIENT_CPUS, stops it, and prints wrk's summary as the last line of stdout
# (wrk-report.lua): {"throughput": …, "p99_ms": …, "errors": …, …}, with
# CONNECTIONS (default 1) open at once and wrk's 1 s request timeout.
# Usage: bench-service.sh ARM DURATION SERVICE_CPUS CLIENT_CPUS [CONNECTIONS]
#
# When both lists are the same (refbench did not pin: a small machine),
# serve and wrk share the last CPU of the list. With one connection they
# take turns anyway, and a turn that hands over to another, idle virtual
# CPU waits for it to wake up — on a small VM the largest source of p99
# noise (measured on 2 vCPUs: log-sd of p99 0.11 → 0.05).
set -eu
arm="$1" duration="$2" service_cpus="$3" client_cpus="$4" connections="${5:-1}"
if [ "$service_cpus" = "$client_cpus" ]; then
  last="${service_cpus##*[,-]}"
  service_cpus="$last" client_cpus="$last"
fi
dir="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$dir"' EXIT
taskset -c "$service_cpus" "$arm/bin/serve" "$dir/port" &
server=$!
tries=0
while [ ! -s "$dir/port" ]; do
  tries=$((tries + 1))
  [ "$tries" -le 100 ] || { echo "bench-service: bin/serve wrote no port in 5 s" >&2; exit 1; }
  kill -0 "$server" 2>/dev/null || { echo "bench-service: bin/serve exited" >&2; exit 1; }
  sleep 0.05
done
taskset -c "$client_cpus" wrk --threads 1 --connections "$connections" --duration "$duration" --timeout 1s \
  --script "$arm/wrk-report.lua" "http://127.0.0.1:$(cat "$dir/port")/" >"$dir/wrk.out"
tail -n 1 "$dir/wrk.out"
