// Writes the two-rank tensor-parallel decode fixture (tp_trace_writer.h), one native trace
// per rank, named as `decodeprof record --follow-fork` names them:
//
//   decodeprof_gen_tp_trace OUT_STEM        → OUT_STEM.1000.sqlite (rank 0), .1001 (rank 1)
//
// then: decodeprof summarize --ranks OUT_STEM.*.sqlite --out-dir DIR; decodeprof report DIR
// (docs/multi-gpu.md).
#include <cstdio>
#include <string>

#include "tests/support/tp_trace_writer.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_STEM\n", argv[0]);
    return 2;
  }
  for (int32_t rank = 0; rank < 2; ++rank) {
    decodeprof::testing::TpTraceOptions options;
    options.rank = rank;
    const std::string path = std::string(argv[1]) + "." + std::to_string(1000 + rank) + ".sqlite";
    if (auto status = decodeprof::testing::WriteTpRankTrace(path, options); !status.ok()) {
      std::fprintf(stderr, "%s\n", status.ToString().c_str());
      return 1;
    }
    std::printf("%s\n", path.c_str());
  }
  return 0;
}
