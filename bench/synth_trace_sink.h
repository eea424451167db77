// Internal to bench/synth_run.cc: the streaming rocprofv3 kernel-trace writer and the
// per-kernel statistics behind `--stats`.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/synth_kernels.h"
#include "bench/synth_models.h"
#include "src/base/status.h"

namespace decodeprof::bench {

// rocprofv3 1.3.5 kernel_trace.csv: string columns double-quoted, numbers bare, '\n' line
// ends (rocprofiler-sdk's csv_encoder quotes only string-typed values).
inline constexpr std::string_view kKernelTraceHeader =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
    "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
    "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
    "\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

// The fixed text of an op's row after the kernel name: `,<lds>,...,<grid z>\n`.
std::string RowTail(const KernelDef& kernel, const Op& op);

// Kernel_Id of the kernel at `index` of the table (unique, increasing with the index).
uint64_t KernelIdFor(uint32_t index);

class TraceSink {
 public:
  TraceSink(const KernelTable* table, uint64_t thread_id);
  ~TraceSink();
  TraceSink(const TraceSink&) = delete;
  TraceSink& operator=(const TraceSink&) = delete;

  // Creates `path` + ".tmp" and writes the header.
  base::Status Open(const std::string& path);
  // Appends one dispatch; `tail` is RowTail() of the op.
  void Write(const Op& op, const std::string& tail, uint64_t correlation_id, uint64_t start,
             uint64_t end);
  // Flushes, closes and renames the temporary file over `path`.
  base::Status Close();

  uint64_t bytes() const { return bytes_ + buffer_.size(); }
  uint64_t rows() const { return next_dispatch_id_ - 1; }

  // rocprofv3's `<name>_kernel_stats.csv` over every row written, sorted by total duration.
  std::string KernelStatsCsv() const;

 private:
  struct Stat {
    uint64_t calls = 0;
    uint64_t total = 0;
    uint64_t min = 0;
    uint64_t max = 0;
    double sum_sq = 0;
  };

  void Flush();

  const KernelTable* table_;
  std::string row_head_;                 // "KERNEL_DISPATCH","Agent 1",1,0,<tid>,
  std::vector<std::string> kernel_mid_;  // <kernel id>,"<name>",
  std::vector<Stat> stats_;
  std::string path_;
  std::string tmp_path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  uint64_t bytes_ = 0;
  uint64_t next_dispatch_id_ = 1;
  bool write_failed_ = false;
};

}  // namespace decodeprof::bench
