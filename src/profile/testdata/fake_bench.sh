#!/bin/sh
# A stand-in for a decode bench (the seed's mlxcel-bench-decode, seed spec 2.3), for the
# tests of `decodeprof profile`. It prints its arguments, the four [phase] marks on stderr
# when phase marks are enabled (timestamps matching kernel_trace.csv), and the results block.
# Knobs (environment):
#   FAKE_BENCH_PIDFILE=F   write its pid to F first
#   FAKE_BENCH_SLEEP=S     sleep S seconds (in the profiled run only when FAKE_BENCH_SLEEP_MARKED=1)
#   FAKE_BENCH_EXIT=N      exit N (in the profiled run only when FAKE_BENCH_EXIT_MARKED=1)
#   FAKE_BENCH_NO_MARKS=1  print no [phase] lines even when enabled
#   FAKE_BENCH_NATIVE=F    copy F to $DECODEPROF_RECORD_OUTPUT (stands in for the CUPTI recorder)
marked=0
[ "${DECODEPROF_PHASE_MARKS:-}" = 1 ] && [ "${MLXCEL_BENCH_PHASE_MARKS:-}" = 1 ] && marked=1
[ -n "${FAKE_BENCH_PIDFILE:-}" ] && echo $$ > "$FAKE_BENCH_PIDFILE"
echo "args: $*"
if [ -n "${FAKE_BENCH_SLEEP:-}" ] && { [ "${FAKE_BENCH_SLEEP_MARKED:-0}" = 0 ] || [ $marked = 1 ]; }; then
  sleep "$FAKE_BENCH_SLEEP"
fi
if [ -n "${FAKE_BENCH_EXIT:-}" ] && { [ "${FAKE_BENCH_EXIT_MARKED:-0}" = 0 ] || [ $marked = 1 ]; }; then
  echo "fake bench: failing with $FAKE_BENCH_EXIT" >&2
  exit "$FAKE_BENCH_EXIT"
fi
if [ $marked = 1 ] && [ "${FAKE_BENCH_NO_MARKS:-0}" != 1 ]; then
  echo "[phase] warmup_start monotonic_ns=100000 boottime_ns=1000000" >&2
  echo "[phase] measured_start monotonic_ns=1100000 boottime_ns=2000000" >&2
  echo "[phase] decode_start monotonic_ns=1600000 boottime_ns=2500000" >&2
  echo "[phase] measured_end monotonic_ns=2100000 boottime_ns=3000000" >&2
fi
if [ -n "${FAKE_BENCH_NATIVE:-}" ] && [ -n "${DECODEPROF_RECORD_OUTPUT:-}" ]; then
  cp "$FAKE_BENCH_NATIVE" "$DECODEPROF_RECORD_OUTPUT" || exit 99
fi
echo "[Profile Results]"
echo "  Prompt tokens:    512"
echo "  Generated tokens: 4"
if [ $marked = 1 ]; then
  echo "  Prefill:          0.4 ms (1280000.0 tok/s)"
  echo "  Decode:           0.5 ms (8000.0 tok/s)"
else
  echo "  Prefill:          0.3 ms (1706666.67 tok/s)"
  echo "  Decode:           0.4 ms (10000.0 tok/s)"
fi
exit 0
