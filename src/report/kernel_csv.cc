#include "src/report/kernel_csv.h"

#include <string>
#include <vector>

#include "src/base/py_format.h"

namespace decodeprof::report {

namespace {

std::string Join(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace

std::string KernelCsvText(const analysis::Summary& summary) {
  std::string out =
      "kernel,class,roles,port_units,calls,calls_per_token,total_ns,avg_ns,share_pct\r\n";
  for (const analysis::KernelStat& k : summary.kernels) {
    out += base::CsvField(k.name);
    out += ',';
    out += base::CsvField(k.class_name);
    out += ',';
    out += base::CsvField(Join(k.roles, ';'));
    out += ',';
    out += base::CsvField(Join(k.unit_ids, ';'));
    out += ',';
    out += std::to_string(k.calls);
    out += ',';
    if (k.calls_per_token) out += base::PyRepr(*k.calls_per_token);
    out += ',';
    out += std::to_string(k.total_ns);
    out += ',';
    out += std::to_string(k.avg_ns);
    out += ',';
    if (k.share_exact) out += base::FormatFixed(*k.share_exact, 3);
    out += "\r\n";
  }
  return out;
}

}  // namespace decodeprof::report
