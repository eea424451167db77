// `decodeprof record --backend rocprofv3`: runs the command under rocprofv3 with the seed's
// flags (seed spec 2.2) and converts its kernel trace into a native file.
//
//   <rocprofv3> --kernel-trace --hip-graph-trace --stats -f csv -d <FILE>.rocprofv3 -o trace
//               -- CMD...
//
// rocprofv3 is $ROCPROFV3, else `rocprofv3` on PATH, else /opt/rocm/bin/rocprofv3. Its output
// directory <FILE>.rocprofv3/ is kept (trace_kernel_trace.csv, trace_kernel_stats.csv, ...).
// The native file gets every row of the kernel trace as a kernel (grid_x = the seed's grid
// product, grid_y = grid_z = 1; all three 0 when the CSV has no grid column), meta
// clock_domain "unknown" (rocprofv3 stamps CLOCK_BOOTTIME or CLOCK_MONOTONIC depending on
// its version; the phase marks decide, seed spec 2.4) and recorder "rocprofv3 (converted)".
#pragma once

#include <string>

#include "src/base/status.h"
#include "src/record/launcher.h"

namespace decodeprof::record {

// The rocprofv3 executable. Error (kConfig): none is executable —
// "rocprofv3 not found (set ROCPROFV3)".
base::StatusOr<std::string> FindRocprofv3(const GetEnvFn& getenv);

// Converts a rocprofv3 kernel-trace CSV into a native file at `output` (replaced).
// Errors: those of io::ImportRocprofv3Csv and of the writer.
base::StatusOr<int64_t> ConvertRocprofv3Csv(const std::string& csv, const std::string& output);

// Runs the command under rocprofv3 and converts its kernel trace to options.output.
// Returns the command's result (errors: rocprofv3 not found, a refused -o
// (CheckRecordOutput, before the command starts), cannot run); `*conversion` receives the
// outcome of the conversion: kIo naming the CSV rocprofv3 should have written when there is
// none, CheckRecordOutput's error when -o changed meanwhile, or the importer's/writer's error.
base::StatusOr<CommandResult> RecordWithRocprofv3(const RecordOptions& options,
                                                  const GetEnvFn& getenv, base::Status* conversion);

}  // namespace decodeprof::record
