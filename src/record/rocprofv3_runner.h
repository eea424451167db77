// `decodeprof record --backend rocprofv3`: runs the command under rocprofv3 with the seed's
// flags (seed spec 2.2) and converts what it wrote into a native file.
//
// rocprofv3 is $ROCPROFV3, else `rocprofv3` on PATH, else /opt/rocm/bin/rocprofv3. Its output
// format is rocpd where rocprofv3 has it, else CSV (Rocprofv3OutputFor):
//
//   rocpd: <rocprofv3> --kernel-trace --hip-graph-trace --marker-trace --stats -f rocpd
//              -d <FILE>.rocprofv3 -o trace -- CMD...
//   csv:   <rocprofv3> --kernel-trace --hip-graph-trace --stats -f csv
//              -d <FILE>.rocprofv3 -o trace -- CMD...
//
// --marker-trace (roctx) is added with rocpd, whose database holds the ranges, so that the
// decodeprof:* ranges of the engine reach the trace; HIP API and memory-copy tracing stay off
// as in the seed (they add overhead and, for copies, dispatches the seed never counted). Its
// output directory <FILE>.rocprofv3/ is kept (trace_results.db, or trace_kernel_trace.csv,
// trace_kernel_stats.csv, ...).
//   From rocpd (trace_results.db, read by the rocpd importer): kernels (name, device, queue as
// stream, grid_x = the grid product, correlation), memory copies and launch calls where the
// database has them, roctx ranges and marks (as ranges), the GPUs; meta clock_domain
// "boottime" (rocprofiler-sdk's clock) and recorder "rocprofv3 (converted from rocpd)".
// Correlation ids are renumbered densely from 1 (the native file holds 32 bits).
//   From CSV: every row of the kernel trace as a kernel (grid_x = the seed's grid product,
// grid_y = grid_z = 1; all three 0 when the CSV has no grid column), meta clock_domain
// "unknown" (rocprofv3 stamps CLOCK_BOOTTIME or CLOCK_MONOTONIC depending on its version; the
// phase marks decide, seed spec 2.4) and recorder "rocprofv3 (converted)".
#pragma once

#include <string>
#include <vector>

#include "src/base/status.h"
#include "src/record/launcher.h"

namespace decodeprof::record {

// The rocprofv3 executable. Error (kConfig): none is executable —
// "rocprofv3 not found (set ROCPROFV3)".
base::StatusOr<std::string> FindRocprofv3(const GetEnvFn& getenv);

enum class Rocprofv3Output { kCsv, kRocpd };

// The output format to ask `rocprofv3` for: $DECODEPROF_ROCPROFV3_FORMAT when set ("csv" or
// "rocpd"; anything else is a kConfig error), else rocpd when `rocprofv3 --help` names it
// (its -f/--output-format choices list rocpd from rocprofiler-sdk 1.0, ROCm 7.0, on), else
// csv (an older rocprofv3, or a --help that failed or took over 30 s).
base::StatusOr<Rocprofv3Output> Rocprofv3OutputFor(const std::string& rocprofv3,
                                                   const GetEnvFn& getenv);

// rocprofv3's command line for `format` (above), writing into `dir`, running `command`.
std::vector<std::string> Rocprofv3Command(const std::string& rocprofv3, Rocprofv3Output format,
                                          const std::string& dir,
                                          const std::vector<std::string>& command);

// Converts a rocpd database into a native file at `output` (replaced); returns the
// dispatches written. Errors: those of io::ImportRocpd and of the writer.
base::StatusOr<int64_t> ConvertRocpd(const std::string& db, const std::string& output);

// Converts a rocprofv3 kernel-trace CSV into a native file at `output` (replaced).
// Errors: those of io::ImportRocprofv3Csv and of the writer.
base::StatusOr<int64_t> ConvertRocprofv3Csv(const std::string& csv, const std::string& output);

// Runs the command under rocprofv3 and converts its trace to options.output: the rocpd
// database when rocprofv3 was asked for rocpd and wrote one, else its kernel-trace CSV.
// Returns the command's result (errors: rocprofv3 not found, a bad
// DECODEPROF_ROCPROFV3_FORMAT, a refused -o (CheckRecordOutput, before the command starts),
// cannot run); `*conversion` receives the outcome of the conversion: kIo naming the file
// rocprofv3 should have written when there is none, CheckRecordOutput's error when -o changed
// meanwhile, or the importer's/writer's error.
base::StatusOr<CommandResult> RecordWithRocprofv3(const RecordOptions& options,
                                                  const GetEnvFn& getenv, base::Status* conversion);

}  // namespace decodeprof::record
