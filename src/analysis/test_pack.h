// Minimal Pack, UnitTable and summary inputs for analysis tests: a class per name prefix, roles
// from a fixed per-name table, units from a fixed list. The real rule kinds are tested with rules
// the pack loader builds (decodeprof_analysis_pack_rule_tests).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/pack.h"
#include "src/analysis/summary.h"
#include "src/analysis/units.h"

namespace decodeprof::analysis::testing {

class FakePack : public Pack {
 public:
  // `classes`: class names in order (without "other"); a kernel belongs to the first class
  // whose name it contains. `role_of_name`: kernel name → role name.
  FakePack(std::vector<std::string> classes, std::vector<std::string> roles,
           std::map<std::string, std::string> role_of_name)
      : classes_(std::move(classes)),
        roles_(std::move(roles)),
        role_of_name_(std::move(role_of_name)) {
    classes_.push_back("other");
  }
  const std::string& name() const override { return name_; }
  const std::vector<std::string>& class_names() const override { return classes_; }
  ClassId Classify(std::string_view kernel) const override {
    for (size_t i = 0; i + 1 < classes_.size(); ++i) {
      if (kernel.find(classes_[i]) != std::string_view::npos) return static_cast<ClassId>(i);
    }
    return other_class();
  }
  const std::vector<std::string>& role_names() const override { return roles_; }
  std::vector<RoleId> AssignRoles(const SequenceView& seq) const override {
    std::vector<RoleId> out;
    for (size_t i = 0; i < SizeOf(seq); ++i) {
      const auto it = role_of_name_.find(std::string(seq.names->Get(NameAt(seq, i))));
      out.push_back(it == role_of_name_.end() ? kNoRole : *FindRole(it->second));
    }
    return out;
  }

 private:
  std::string name_ = "fake";
  std::vector<std::string> classes_;
  std::vector<std::string> roles_;
  std::map<std::string, std::string> role_of_name_;
};

class FakeUnits : public UnitTable {
 public:
  FakeUnits(std::vector<Unit> units, std::vector<UnitReach> reach)
      : units_(std::move(units)), reach_(std::move(reach)) {}
  const std::vector<Unit>& units() const override { return units_; }
  UnitReach Reach(size_t index, const ModelConfig&, bool) const override { return reach_[index]; }

 private:
  std::vector<Unit> units_;
  std::vector<UnitReach> reach_;
};

// The summary's inputs over `window` with these names, pack and units, named "t".
inline SummaryInputs InputsOf(const DecodeWindow& window, const trace::StringPool& names,
                              const Pack& pack, const UnitTable& units) {
  SummaryInputs in;
  in.name = "t";
  in.window = &window;
  in.names = &names;
  in.pack = &pack;
  in.units = &units;
  return in;
}

// Kernel names of an MLX decode on ROCm as rocprofv3 spells them, one per class the built-in
// mlx-rocm pack's rules test (the qmv at 1 is the widest-grid head's class).
inline const std::vector<std::string>& MlxRocmDecodeKernels() {
  static const auto* names = new std::vector<std::string>{
      "void mlx::core::rocm::rms_norm_kernel<__half, 256, 4>(__half const*)",
      "void mlx::core::rocm::qmv_wide_kernel<__half, __half, 64, 4>(__half const*)",
      "void mlx::core::rocm::rope_single_1d<__half, false, true>(x)",
      "void mlx::core::rocm::copy_gg_byval<__half, __half, long>(x)",
      "void mlx::core::rocm::kernel_sdpav_1pass<__half, false, 128>(x)",
      "void mlx::core::rocm::binary_vv<mlx::core::rocm::Add, __half, __half, unsigned int, 4>(x)",
      "void mlx::core::rocm::gather_qmv_wide_kernel<hip_bfloat16, hip_bfloat16, 64>(x)",
      "void mlx::core::rocm::binary_g<mlx::core::rocm::Multiply, float, float, long, 1>(x)",
      "void mlx::core::(anonymous namespace)::depthwise_conv1d_kernel<hip_bfloat16>(x)",
      "void mlx::core::rocm::arange_kernel<unsigned int>(unsigned int*)",
      "void mlx::core::rocm::arg_reduce_final<__half, mlx::core::rocm::ArgMax<__half>, 256>(x)",
  };
  return *names;
}

}  // namespace decodeprof::analysis::testing
