#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "src/base/parse.h"
#include "src/io/common/py_compat.h"

namespace decodeprof::io {
namespace {

using base::StatusOr;

constexpr size_t kNoColumn = std::numeric_limits<size_t>::max();

struct Column {
  size_t index = kNoColumn;
  std::string name;  // the header spelling found
};

// The first candidate present in the header. A name that occurs twice refers to its last
// occurrence, as in the seed's csv.DictReader (the row dict keeps the last value).
Column FindColumn(const std::vector<std::string>& header,
                  const std::vector<std::string>& candidates) {
  for (const std::string& candidate : candidates) {
    for (size_t i = header.size(); i-- > 0;) {
      if (header[i] == candidate) return {i, candidate};
    }
  }
  return {};
}

base::Status MissingColumn(const std::string& where, const std::vector<std::string>& candidates,
                           const std::vector<std::string>& header) {
  return base::DataError(where, "kernel trace has none of the columns " + PyTupleRepr(candidates) +
                                    "; header: " + PyListRepr(header));
}

// Eight ASCII digits at p → their value, or false when one is not a digit (SWAR: the
// timestamps have 19 digits, and parsing them digit by digit dominated the import).
inline bool ParseEightDigits(const char* p, uint64_t& out) {
  uint64_t chunk;
  std::memcpy(&chunk, p, 8);
  if constexpr (std::endian::native != std::endian::little) chunk = __builtin_bswap64(chunk);
  const uint64_t high = chunk & 0xF0F0F0F0F0F0F0F0u;
  const uint64_t low_plus_6 = ((chunk + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4;
  if ((high | low_plus_6) != 0x3333333333333333u) return false;
  chunk -= 0x3030303030303030u;
  chunk = chunk * 10 + (chunk >> 8);  // pairs of digits
  chunk = (((chunk & 0x000000FF000000FFu) * 0x000F424000000064u) +
           (((chunk >> 16) & 0x000000FF000000FFu) * 0x0000271000000001u)) >>
          32;
  out = chunk;
  return true;
}

// Plain digits (what rocprofv3 writes) are parsed inline; anything else goes through the
// Python int() rules. (An out-parameter, not std::optional: returning optionals here cost
// store-forwarding stalls in the row loop.)
inline bool ParseInteger(std::string_view text, int64_t& out) {
  const size_t n = text.size();
  if (n != 0 && n <= 19) {  // 19 digits always fit in uint64
    const char* p = text.data();
    const size_t head = n % 8;
    uint64_t value = 0;
    bool ok = true;
    for (size_t i = 0; i < head; ++i) {
      const unsigned digit = static_cast<unsigned char>(p[i]) - static_cast<unsigned>('0');
      ok &= digit <= 9;
      value = value * 10 + digit;
    }
    for (size_t i = head; ok && i < n; i += 8) {
      uint64_t eight = 0;
      ok = ParseEightDigits(p + i, eight);
      value = value * 100000000u + eight;
    }
    if (ok && value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      out = static_cast<int64_t>(value);
      return true;
    }
  }
  const std::optional<int64_t> parsed = ParsePyInt(text);
  if (!parsed) return false;
  out = *parsed;
  return true;
}

// A direct-mapped cache in front of StringPool::Intern: a trace repeats a few hundred names
// millions of times, and hashing each whole name (~100 bytes) was a fifth of the import time.
// The slot comes from the length and three 8-byte samples; a hit is confirmed by comparing
// the whole name, a miss (or a collision) falls back to the pool and refills the slot.
class NameCache {
 public:
  explicit NameCache(trace::StringPool& pool) : pool_(pool) {}

  trace::StringId Intern(std::string_view name) {
    Slot& slot = slots_[SlotIndex(name)];
    if (slot.valid && slot.text == name) return slot.id;
    const trace::StringId id = pool_.Intern(name);
    slot = {pool_.Get(id), id, true};
    return id;
  }

 private:
  static constexpr int kBits = 10;
  struct Slot {
    std::string_view text;  // points into the pool (stable addresses)
    trace::StringId id = 0;
    bool valid = false;
  };

  static uint64_t Load8(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static size_t SlotIndex(std::string_view s) {
    uint64_t h = s.size() * 0x9E3779B97F4A7C15u;
    if (s.size() >= 8) {
      h ^= Load8(s.data()) * 0xC2B2AE3D27D4EB4Fu;
      h ^= Load8(s.data() + s.size() / 2 - 4) * 0x165667B19E3779F9u;
      h ^= Load8(s.data() + s.size() - 8) * 0x27D4EB2F165667C5u;
    } else {
      for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3u;
    }
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    return static_cast<size_t>(h >> (64 - kBits));
  }

  trace::StringPool& pool_;
  std::vector<Slot> slots_ = std::vector<Slot>(size_t{1} << kBits);
};

base::Status NotAnInteger(const CsvReader& reader, const std::string& column,
                          std::string_view value) {
  // An integer Python would take but int64 cannot hold gets its own message.
  std::string_view digits = base::Trim(value);
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
  const bool integer_syntax = digits.find_first_not_of("0123456789_") == std::string_view::npos &&
                              digits.find_first_of("0123456789") != std::string_view::npos;
  return base::DataError(
      base::AtLine(reader.where(), reader.line()),
      column + (integer_syntax ? " does not fit in 64 bits: " : " is not an integer: ") +
          PyStrRepr(value));
}

}  // namespace

StatusOr<CsvImportStats> ImportRocprofv3Csv(CsvReader& reader, trace::StringPool& names,
                                            DispatchSink& sink) {
  CsvImportStats stats;
  if (!reader.Next()) {
    DP_RETURN_IF_ERROR(reader.status());
    return stats;  // empty file
  }
  const std::vector<std::string> header(reader.fields().begin(), reader.fields().end());
  const Column name = FindColumn(header, {"Kernel_Name", "KernelName"});
  if (name.index == kNoColumn) {
    return MissingColumn(reader.where(), {"Kernel_Name", "KernelName"}, header);
  }
  const Column start = FindColumn(header, {"Start_Timestamp", "BeginNs"});
  if (start.index == kNoColumn) {
    return MissingColumn(reader.where(), {"Start_Timestamp", "BeginNs"}, header);
  }
  const Column end = FindColumn(header, {"End_Timestamp", "EndNs"});
  if (end.index == kNoColumn) {
    return MissingColumn(reader.where(), {"End_Timestamp", "EndNs"}, header);
  }
  std::vector<Column> grid;
  for (const char* axis : {"Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"}) {
    Column column = FindColumn(header, {axis});
    if (column.index != kNoColumn) grid.push_back(std::move(column));
  }
  stats.has_grid_columns = !grid.empty();
  size_t needed = std::max({name.index, start.index, end.index});
  for (const Column& column : grid) needed = std::max(needed, column.index);

  NameCache name_cache(names);
  trace::Dispatch d;
  while (reader.Next()) {
    if (reader.size() == 0) continue;  // a blank line: csv.DictReader skips it
    if (reader.size() <= needed) {
      return base::DataError(base::AtLine(reader.where(), reader.line()),
                             "row has " + std::to_string(reader.size()) +
                                 " fields, the header has " + std::to_string(header.size()));
    }
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    if (!ParseInteger(reader[start.index], start_ns)) {
      return NotAnInteger(reader, start.name, reader[start.index]);
    }
    if (!ParseInteger(reader[end.index], end_ns)) {
      return NotAnInteger(reader, end.name, reader[end.index]);
    }
    if (end_ns < start_ns) {
      return base::DataError(
          base::AtLine(reader.where(), reader.line()),
          "end before start (" + std::to_string(end_ns) + " < " + std::to_string(start_ns) + ")");
    }
    int64_t grid_size = grid.empty() ? 0 : 1;
    for (const Column& column : grid) {
      const std::string_view text = reader[column.index];
      int64_t value = 1;  // Python: int(value or 1)
      if (!text.empty()) {
        if (!ParseInteger(text, value)) return NotAnInteger(reader, column.name, text);
        value = std::max<int64_t>(value, 1);
      }
      if (__builtin_mul_overflow(grid_size, value, &grid_size)) {
        return base::DataError(base::AtLine(reader.where(), reader.line()),
                               "grid size does not fit in 64 bits");
      }
    }
    d.start = start_ns;
    d.end = end_ns;
    d.grid = grid_size;
    d.name = name_cache.Intern(reader[name.index]);
    d.line = static_cast<uint32_t>(
        std::min<int64_t>(reader.line(), std::numeric_limits<uint32_t>::max()));
    sink.Add(d);
    ++stats.rows;
  }
  DP_RETURN_IF_ERROR(reader.status());
  return stats;
}

StatusOr<CsvImportStats> ImportRocprofv3Csv(const std::string& path, trace::StringPool& names,
                                            DispatchSink& sink, const CsvReader::Options& options) {
  DP_ASSIGN_OR_RETURN(std::unique_ptr<CsvReader> reader, CsvReader::Open(path, options));
  return ImportRocprofv3Csv(*reader, names, sink);
}

StatusOr<CsvImportStats> ImportRocprofv3Csv(const std::string& path, trace::StringPool& names,
                                            DispatchSink& sink) {
  return ImportRocprofv3Csv(path, names, sink, CsvReader::Options());
}

}  // namespace decodeprof::io
