// The rule-pack parser (TOML → analysis::RulePack, docs/packs.md): ParsePack over the input as
// a pack file. A pack that parses is then used as `summarize` uses it: kernel names are
// classified and its role rules run over a small fixed decode sequence; classes and roles
// must be in range of the pack's own tables.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "src/analysis/pack.h"
#include "src/packs/parsers.h"
#include "tests/fuzz/fuzz_support.h"

namespace decodeprof {

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = packs::ParsePack(text, "fuzz/pack.toml", "");
  if (!parsed.ok()) return 0;
  const analysis::RulePack& pack = **parsed;
  FUZZ_CHECK(!pack.class_names().empty());

  static const char* const kKernels[] = {
      "void gemv_kernel<float>(float const*, float*, int)",
      "flash_fwd_splitkv_kernel",
      "rms_norm_kernel",
      "[CUDA memcpy Host-to-Device]",
      "qmv_fast",
      "sampling_topk",
      "nccl_allreduce",
      "",
  };
  trace::StringPool names;
  trace::DispatchVector dispatches;
  std::vector<analysis::ClassId> classes;
  int64_t t = 1000;
  for (size_t i = 0; i < 24; ++i) {
    trace::Dispatch d;
    const char* name = kKernels[(i * 5 + i / 3) % std::size(kKernels)];
    d.name = names.Intern(name);
    d.kind = name[0] == '[' ? trace::DispatchKind::kMemcpy : trace::DispatchKind::kKernel;
    d.start = t;
    d.end = t + 100 + static_cast<int64_t>(i % 4) * 50;
    t = d.end + 10;
    d.grid = d.kind == trace::DispatchKind::kKernel ? static_cast<int64_t>(1 + (i % 5) * 64) : 0;
    d.line = static_cast<uint32_t>(i + 1);
    const analysis::ClassId c = pack.ClassOf(d, name);
    FUZZ_CHECK(c < pack.class_names().size());
    dispatches.push_back(d);
    classes.push_back(c);
  }
  analysis::SequenceView seq;
  seq.dispatches = dispatches;
  seq.names = &names;
  seq.classes = classes;
  const std::vector<analysis::RoleId> roles = pack.AssignRoles(seq);
  FUZZ_CHECK(roles.size() == dispatches.size());
  for (analysis::RoleId r : roles) {
    FUZZ_CHECK(r == analysis::kNoRole ||
               (r >= 0 && static_cast<size_t>(r) < pack.role_names().size()));
  }
  (void)pack.RoleWarnings(seq);
  return 0;
}

}  // namespace decodeprof
