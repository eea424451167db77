#!/bin/sh
# A stand-in for rocprofv3 (seed spec 2.2), for the tests of `decodeprof profile`: checks the
# seed's flags, prints a glog line naming its output (as rocprofv3 does; the published log
# must not keep it), writes kernel_trace.csv (rocprofv3 1.3.5's format) and a stats file into
# -d DIR as <-o NAME>_*.csv, then runs the command after "--" and exits with its status.
[ "$1 $2 $3 $4 $5" = "--kernel-trace --hip-graph-trace --stats -f csv" ] || exit 90
[ "$6" = "-d" ] && [ "$8" = "-o" ] && [ "${10}" = "--" ] || exit 91
dir=$7; name=$9
shift 10
mkdir -p "$dir" || exit 92
echo "W1201 12:00:00.000000 4242 tool.cpp:42] rocprofv3 output: $dir/${name}_kernel_trace.csv" >&2
cp "$(dirname "$0")/kernel_trace.csv" "$dir/${name}_kernel_trace.csv" || exit 93
cat > "$dir/${name}_kernel_stats.csv" <<'CSV'
"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
"affine_qmv_fast_float16_t_gs_64_b_4_batch_0",10,500000,50000.0,66.88,50000,50000,0.0
CSV
"$@"
