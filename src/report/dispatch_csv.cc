#include "src/report/dispatch_csv.h"

#include <algorithm>
#include <string>
#include <vector>

#include "src/base/file_io.h"
#include "src/base/py_format.h"

namespace decodeprof::report {

base::Status WriteDispatchCsv(const std::string& path, const analysis::DecodeWindow& window,
                              const trace::StringPool& names,
                              const analysis::Attribution& attribution, const analysis::Pack& pack,
                              const analysis::UnitTable& units) {
  // Per role: its name and the ;-joined ids of the units that would replace it.
  const auto& role_names = pack.role_names();
  std::vector<std::string> role_units(role_names.size());
  for (size_t r = 0; r < role_names.size(); ++r) {
    std::vector<std::string> ids;
    for (const analysis::Unit& unit : units.units()) {
      for (analysis::RoleId fr : unit.fallback_roles) {
        if (static_cast<size_t>(fr) == r) ids.push_back(unit.id);
      }
    }
    std::sort(ids.begin(), ids.end());
    for (size_t i = 0; i < ids.size(); ++i) role_units[r] += (i ? ";" : "") + ids[i];
  }
  std::vector<std::string> quoted_names(names.size());
  std::vector<bool> quoted(names.size());

  base::AtomicFileWriter writer(path);
  DP_RETURN_IF_ERROR(writer.Open());
  writer.Write("index,kernel,start_ns,end_ns,class,role,units\r\n");
  std::string row;
  for (size_t i = 0; i < window.dispatches.size(); ++i) {
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
    row += pack.class_names()[attribution.classes[i]];
    row += ',';
    if (r != analysis::kNoRole) {
      row += role_names[static_cast<size_t>(r)];
      row += ',';
      row += role_units[static_cast<size_t>(r)];
    } else {
      row += ',';
    }
    row += "\r\n";
    writer.Write(row);
  }
  return writer.Commit();
}

}  // namespace decodeprof::report
