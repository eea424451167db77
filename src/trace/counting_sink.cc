#include <string>

#include "src/trace/trace.h"

namespace decodeprof::trace {

void CountingSink::Check(const Dispatch& d) {
  if (d.end == d.start && d.start >= 0) {
    if (zero_length_++ == 0) first_zero_line_ = d.line;
    return;
  }
  if (bad_) return;
  if (d.start < 0) {
    bad_ = BadDispatch{d.line, "starts at a negative time (" + std::to_string(d.start) + " ns)"};
  } else {
    bad_ = BadDispatch{d.line, "runs " + std::to_string(d.end - d.start) +
                                   " ns, longer than a day: its end (" + std::to_string(d.end) +
                                   " ns) cannot be right"};
  }
}

void CountingSink::AddCountsTo(ImportedTrace& t) const {
  for (const auto& [device, n] : per_device_) t.dispatches_per_device[device] += n;
  t.kernels += kernels_;
  t.memory_ops += memory_ops_;
  t.diagnostics.Add(Diag::kZeroDurationDispatches, zero_length_,
                    {"", std::string(position_word_) + " " + std::to_string(first_zero_line_), ""});
  if (bad_ && (!t.bad_dispatch || bad_->line < t.bad_dispatch->line)) t.bad_dispatch = bad_;
}

}  // namespace decodeprof::trace
