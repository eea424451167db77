#include "src/report/dispatch_csv.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/base/file_io.h"
#include "src/base/py_format.h"
#include "src/base/spill.h"

namespace decodeprof::report {

base::Status WriteDispatchCsv(const std::string& path, const analysis::DecodeWindow& window,
                              const trace::StringPool& names,
                              const analysis::Attribution& attribution, const analysis::Pack& pack,
                              const analysis::UnitTable& units,
                              const std::vector<std::string>& inputs) {
  // Per role and per class: the ids of the units that would replace it.
  const auto& role_names = pack.role_names();
  const auto& class_names = pack.class_names();
  std::vector<std::vector<std::string>> role_ids(role_names.size());
  std::vector<std::vector<std::string>> class_ids(class_names.size());
  for (const analysis::Unit& unit : units.units()) {
    for (analysis::RoleId fr : unit.fallback_roles) {
      role_ids[static_cast<size_t>(fr)].push_back(unit.id);
    }
    for (analysis::ClassId c : unit.classes) class_ids[c].push_back(unit.id);
  }
  // The sorted, ;-joined ids of the units holding role `r` (kNoRole = none) or class `c`,
  // memoized per (role, class) pair in a dense table.
  std::vector<std::optional<std::string>> cell_of((role_names.size() + 1) * class_names.size());
  const auto units_cell = [&](analysis::RoleId r, analysis::ClassId c) -> const std::string& {
    std::optional<std::string>& cell = cell_of[static_cast<size_t>(r + 1) * class_names.size() + c];
    if (!cell) {
      cell.emplace();
      std::vector<std::string> ids = class_ids[c];
      if (r != analysis::kNoRole) {
        const auto& more = role_ids[static_cast<size_t>(r)];
        ids.insert(ids.end(), more.begin(), more.end());
      }
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      for (size_t i = 0; i < ids.size(); ++i) *cell += (i ? ";" : "") + ids[i];
    }
    return *cell;
  };
  std::vector<std::string> quoted_names(names.size());
  std::vector<bool> quoted(names.size());

  // Refused before anything is written when the names make it huge (a 1 MB kernel name on
  // every row): about 120 bytes a row besides the name.
  uint64_t estimate = 64;
  base::spill::ReleaseBehind<trace::Dispatch> measured(window.dispatches.data(), 0);
  for (size_t i = 0; i < window.dispatches.size(); ++i) {
    measured.Passed(i);
    estimate += names.Get(window.dispatches[i].name).size() + 120;
  }
  DP_RETURN_IF_ERROR(base::CheckOutputSize(
      path, estimate, inputs,
      "leave out --emit-dispatches (the per-kernel table holds each name once), or cut the "
      "window"));
  base::AtomicFileWriter writer(path, inputs);
  DP_RETURN_IF_ERROR(writer.Open());
  writer.Write("index,kernel,start_ns,end_ns,class,role,units\r\n");
  std::string row;
  // Where the window is in files (base/spill.h), the rows written go from the process.
  base::spill::ReleaseBehind<trace::Dispatch> written(window.dispatches.data(), 0);
  for (size_t i = 0; i < window.dispatches.size(); ++i) {
    written.Passed(i);
    const trace::Dispatch& d = window.dispatches[i];
    if (!quoted[d.name]) {
      quoted_names[d.name] = base::CsvField(names.Get(d.name));
      quoted[d.name] = true;
    }
    const analysis::RoleId r = attribution.roles[i];
    row.clear();
    row += std::to_string(i);
    row += ',';
    row += quoted_names[d.name];
    row += ',';
    row += std::to_string(d.start);
    row += ',';
    row += std::to_string(d.end);
    row += ',';
    row += class_names[attribution.classes[i]];
    row += ',';
    if (r != analysis::kNoRole) row += role_names[static_cast<size_t>(r)];
    row += ',';
    row += units_cell(r, attribution.classes[i]);
    row += "\r\n";
    writer.Write(row);
  }
  return writer.Commit();
}

}  // namespace decodeprof::report
