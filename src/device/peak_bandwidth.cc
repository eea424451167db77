#include "src/device/peak_bandwidth.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "src/base/file_io.h"
#include "src/base/parse.h"
#include "src/base/py_format.h"
#include "src/packs/device_table.h"

namespace decodeprof::device {
namespace {

constexpr double kMinGbps = 1;
constexpr double kMaxGbps = 100000;
constexpr size_t kMaxJsonBytes = 1 << 20;

bool InRange(double gbps) { return std::isfinite(gbps) && gbps >= kMinGbps && gbps <= kMaxGbps; }

// A figure as a person writes it: "4800", "1638.4".
std::string GbpsText(double gbps) { return fmt::format("{:g}", gbps); }

PeakBandwidth FromEntry(const packs::DeviceEntry& entry, const std::string& device_name) {
  PeakBandwidth peak;
  peak.gbps = entry.gbps;
  peak.source = "table";
  peak.detail =
      fmt::format("table: {}, {} GB/s ({})", entry.name, GbpsText(entry.gbps), entry.source);
  peak.device_name = device_name;
  return peak;
}

struct Measurement {
  double gbps = 0;
  std::string device_name;
  std::string method;
};

// The JSON `decodeprof bandwidth -o FILE` writes.
base::StatusOr<Measurement> ReadMeasurement(const std::string& path) {
  DP_ASSIGN_OR_RETURN(const std::string text,
                      base::ReadFile(path, kMaxJsonBytes, "a bandwidth measurement (JSON)"));
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const auto bad = [&](const std::string& why) {
    return base::DataError(path, why,
                           "--peak-bandwidth takes GB/s or the JSON `decodeprof bandwidth -o` "
                           "writes");
  };
  if (doc.is_discarded()) return bad("not JSON");
  if (!doc.is_object()) return bad("not a JSON object");
  const auto gbps = doc.find(kMetaPeakGbps);
  if (gbps == doc.end()) return bad(fmt::format("no \"{}\"", kMetaPeakGbps));
  if (!gbps->is_number() || !InRange(gbps->get<double>())) {
    return bad(fmt::format(
        "\"{}\" must be a number from 1 to 100000, got {}", kMetaPeakGbps,
        base::Excerpt(gbps->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))));
  }
  Measurement m;
  m.gbps = gbps->get<double>();
  for (const auto& [key, out] :
       {std::pair<const char*, std::string*>{"device_name", &m.device_name},
        {"method", &m.method}}) {
    const auto it = doc.find(key);
    if (it == doc.end()) continue;
    if (!it->is_string()) return bad(fmt::format("\"{}\" must be a string", key));
    *out = it->get<std::string>();
  }
  return m;
}

// --peak-bandwidth FILE.
base::StatusOr<PeakBandwidth> FromJsonFile(const std::string& path) {
  DP_ASSIGN_OR_RETURN(const Measurement m, ReadMeasurement(path));
  PeakBandwidth peak;
  peak.gbps = m.gbps;
  peak.source = "measured";
  peak.detail = fmt::format("measured: {}{} ({})", m.method.empty() ? "a measurement" : m.method,
                            m.device_name.empty() ? "" : " on " + m.device_name, path);
  peak.device_name = m.device_name;
  return peak;
}

// Text strtod reads whole (nan, inf, 1e309, 0x10 too): meant as a number, not a file.
bool LooksNumeric(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  static_cast<void>(std::strtod(text.c_str(), &end));
  return end == text.c_str() + text.size();
}

base::StatusOr<PeakBandwidth> FromOption(const std::string& option) {
  const std::optional<double> gbps = base::ParseDouble(option);
  if (gbps || LooksNumeric(option)) {
    if (!gbps || !InRange(*gbps)) {
      return base::UsageError(
          fmt::format("--peak-bandwidth: must be a number of GB/s from 1 to 100000 or a JSON "
                      "file written by `decodeprof bandwidth`, got '{}'",
                      base::Excerpt(option)));
    }
    PeakBandwidth peak;
    peak.gbps = *gbps;
    peak.source = "option";
    peak.detail = "--peak-bandwidth " + option;
    return peak;
  }
  // Not a number: the path of a measurement (missing or unreadable: kIo naming it).
  return FromJsonFile(option);
}

base::StatusOr<std::optional<PeakBandwidth>> FromMeta(
    const std::map<std::string, std::string>& meta) {
  const auto it = meta.find(kMetaPeakGbps);
  if (it == meta.end()) return std::optional<PeakBandwidth>();
  const std::optional<double> gbps = base::ParseDouble(it->second);
  if (!gbps || !InRange(*gbps)) {
    return base::DataError(std::string("meta ") + kMetaPeakGbps,
                           fmt::format("must be a number of GB/s from 1 to 100000, got '{}'",
                                       base::Excerpt(it->second)));
  }
  const auto value = [&](const char* key) {
    const auto found = meta.find(key);
    return found == meta.end() ? std::string() : found->second;
  };
  PeakBandwidth peak;
  peak.gbps = *gbps;
  peak.source = "measured";
  peak.device_name = value(kMetaPeakDevice);
  const std::string method = value(kMetaPeakMethod);
  peak.detail = fmt::format("measured: {}{} (by record)", method.empty() ? "a measurement" : method,
                            peak.device_name.empty() ? "" : " on " + peak.device_name);
  return std::optional<PeakBandwidth>(std::move(peak));
}

}  // namespace

base::StatusOr<std::vector<std::pair<std::string, std::string>>> MeasurementMeta(
    const std::string& json_path) {
  DP_ASSIGN_OR_RETURN(const Measurement m, ReadMeasurement(json_path));
  return std::vector<std::pair<std::string, std::string>>{{kMetaPeakGbps, base::PyRepr(m.gbps)},
                                                          {kMetaPeakMethod, m.method},
                                                          {kMetaPeakDevice, m.device_name}};
}

std::optional<PeakBandwidth> PeakFromTable(const std::string& device_name) {
  const auto& table = packs::BuiltinDeviceTable();
  if (!table.ok()) return std::nullopt;
  const packs::DeviceEntry* entry = packs::FindDevice(*table, device_name);
  if (entry == nullptr) return std::nullopt;
  return FromEntry(*entry, device_name);
}

base::StatusOr<std::optional<PeakBandwidth>> ResolvePeak(
    const std::string& option, const std::map<std::string, std::string>& meta,
    const std::vector<std::string>& device_names) {
  if (!option.empty()) {
    DP_ASSIGN_OR_RETURN(PeakBandwidth peak, FromOption(option));
    return std::optional<PeakBandwidth>(std::move(peak));
  }
  DP_ASSIGN_OR_RETURN(std::optional<PeakBandwidth> measured, FromMeta(meta));
  if (measured) return measured;
  const auto& table = packs::BuiltinDeviceTable();
  if (!table.ok()) return table.status();
  const packs::DeviceEntry* first = nullptr;
  std::string first_name;
  std::vector<std::string> others;
  for (const std::string& name : device_names) {
    const packs::DeviceEntry* entry = packs::FindDevice(*table, name);
    if (entry == nullptr) continue;
    if (first == nullptr) {
      first = entry;
      first_name = name;
    } else if (entry != first) {
      others.push_back(fmt::format("{} ({} GB/s)", name, GbpsText(entry->gbps)));
    }
  }
  if (first == nullptr) return std::optional<PeakBandwidth>();
  PeakBandwidth peak = FromEntry(*first, first_name);
  if (!others.empty()) {
    peak.detail += fmt::format("; the trace also names {}: the first device's figure is used",
                               fmt::join(others, ", "));
  }
  return std::optional<PeakBandwidth>(std::move(peak));
}

}  // namespace decodeprof::device
