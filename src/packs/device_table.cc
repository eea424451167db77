#include "src/packs/device_table.h"

#include <fmt/format.h>

#include <cmath>

#include "src/base/pattern.h"
#include "src/packs/builtin_packs.h"
#include "src/packs/toml_fields.h"

namespace decodeprof::packs {
namespace {

using base::ConfigError;
using base::StatusOr;

constexpr double kMinGbps = 1;
constexpr double kMaxGbps = 100000;

StatusOr<DeviceEntry> ParseEntry(const TomlFields& f) {
  DP_RETURN_IF_ERROR(f.CheckKeys({"name", "match", "gbps", "source"}));
  DeviceEntry entry;
  entry.where = f.where();
  DP_ASSIGN_OR_RETURN(entry.name, f.RequiredString("name"));
  DP_ASSIGN_OR_RETURN(entry.match, f.RequiredString("match"));
  DP_ASSIGN_OR_RETURN(entry.source, f.RequiredString("source"));
  if (entry.name.empty()) return ConfigError(f.where("name"), f.what() + ": empty name");
  if (entry.source.empty()) {
    return ConfigError(f.where("source"), f.what() + ": empty source (name the datasheet)");
  }
  const toml::node* gbps = f.Get("gbps");
  if (gbps == nullptr) return ConfigError(f.where(), f.what() + ": missing key 'gbps'");
  if (gbps->is_integer()) {
    entry.gbps = static_cast<double>(gbps->as_integer()->get());
  } else if (gbps->is_floating_point()) {
    entry.gbps = gbps->as_floating_point()->get();
  } else {
    return ConfigError(f.where("gbps"), fmt::format("{}: 'gbps' must be a number, not {}", f.what(),
                                                    TomlTypeName(*gbps)));
  }
  if (!std::isfinite(entry.gbps) || entry.gbps < kMinGbps || entry.gbps > kMaxGbps) {
    return ConfigError(f.where("gbps"), fmt::format("{}: 'gbps' must be from {} to {}, got {}",
                                                    f.what(), kMinGbps, kMaxGbps, entry.gbps));
  }
  auto pattern = base::CompilePattern(entry.match, /*case_sensitive=*/false);
  if (!pattern.ok()) {
    return ConfigError(f.where("match"), f.what() + ": 'match': " + pattern.status().message(),
                       pattern.status().hint());
  }
  entry.pattern = std::shared_ptr<const re2::RE2>(std::move(*pattern));
  return entry;
}

}  // namespace

StatusOr<std::vector<DeviceEntry>> ParseDeviceTable(std::string_view text, std::string_view file) {
  DP_ASSIGN_OR_RETURN(toml::table document, ParseToml(text, file));
  const TomlFields top(document, file, "device table");
  DP_RETURN_IF_ERROR(top.CheckKeys({"devices", "device"}));
  if (const toml::node* header = top.Get("devices")) {
    if (!header->is_table()) {
      return ConfigError(top.where("devices"), "device table: 'devices' must be a table");
    }
    const TomlFields devices(*header->as_table(), file, "[devices]");
    DP_RETURN_IF_ERROR(devices.CheckKeys({"description"}));
    DP_RETURN_IF_ERROR(devices.OptionalString("description").status());
  }
  DP_ASSIGN_OR_RETURN(std::vector<const toml::table*> tables, top.TableList("device"));
  if (tables.empty()) return ConfigError(std::string(file), "device table: no [[device]] entry");
  std::vector<DeviceEntry> entries;
  for (size_t i = 0; i < tables.size(); ++i) {
    const TomlFields f(*tables[i], file, "[[device]] #" + std::to_string(i + 1));
    DP_ASSIGN_OR_RETURN(DeviceEntry entry, ParseEntry(f));
    entries.push_back(std::move(entry));
  }
  return entries;
}

const StatusOr<std::vector<DeviceEntry>>& BuiltinDeviceTable() {
  static const StatusOr<std::vector<DeviceEntry>> table =
      []() -> StatusOr<std::vector<DeviceEntry>> {
    const auto files = BuiltinDeviceFiles();
    if (files.empty()) return base::InternalError("", "no built-in device table");
    return ParseDeviceTable(files.front().text, files.front().path);
  }();
  return table;
}

const DeviceEntry* FindDevice(const std::vector<DeviceEntry>& table, std::string_view device_name) {
  for (const DeviceEntry& entry : table) {
    if (base::PatternFound(*entry.pattern, device_name)) return &entry;
  }
  return nullptr;
}

}  // namespace decodeprof::packs
