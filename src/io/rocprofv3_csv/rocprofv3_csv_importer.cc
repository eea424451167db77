#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "src/base/parallel.h"
#include "src/base/parse.h"
#include "src/io/common/csv_reader.h"
#include "src/io/common/input_stream.h"
#include "src/io/common/py_compat.h"
#include "src/io/format_names.h"

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
  // The header as the seed prints it, cut as every quote of input is (base::InputPrefix): a
  // file that is no CSV (one 37 MB JSON line) shows its first 200 bytes.
  const std::string repr = PyListRepr(header);
  std::string shown = std::string(base::InputPrefix(repr));
  if (shown.size() < repr.size()) {
    shown += "... (" + std::to_string(header.size()) + " fields, " + std::to_string(repr.size()) +
             " characters)";
  }
  return base::DataError(where, "kernel trace has none of the columns " + PyTupleRepr(candidates) +
                                    "; header: " + shown);
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
          PyStrRepr(base::InputPrefix(value)) + base::CutNote(value));
}

// The columns the import reads, found in the header row.
struct Columns {
  size_t header_size = 0;
  Column name, start, end;
  std::vector<Column> grid;
  // Optional: device, queue and correlation (a row that lacks them gets 0).
  Column agent, queue, correlation;
  // Read columns whose name the header holds more than once (the last one is read).
  std::vector<std::string> duplicates;
  size_t needed = 0;  // the highest index read
};

// Reads the header row. nullopt: the input is empty.
StatusOr<std::optional<Columns>> ReadHeader(CsvReader& reader) {
  if (!reader.Next()) {
    DP_RETURN_IF_ERROR(reader.status());
    return std::optional<Columns>();
  }
  const std::vector<std::string> header(reader.fields().begin(), reader.fields().end());
  Columns c;
  c.header_size = header.size();
  c.name = FindColumn(header, {"Kernel_Name", "KernelName"});
  if (c.name.index == kNoColumn) {
    return MissingColumn(reader.where(), {"Kernel_Name", "KernelName"}, header);
  }
  c.start = FindColumn(header, {"Start_Timestamp", "BeginNs"});
  if (c.start.index == kNoColumn) {
    return MissingColumn(reader.where(), {"Start_Timestamp", "BeginNs"}, header);
  }
  c.end = FindColumn(header, {"End_Timestamp", "EndNs"});
  if (c.end.index == kNoColumn) {
    return MissingColumn(reader.where(), {"End_Timestamp", "EndNs"}, header);
  }
  for (const char* axis : {"Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"}) {
    Column column = FindColumn(header, {axis});
    if (column.index != kNoColumn) c.grid.push_back(std::move(column));
  }
  c.agent = FindColumn(header, {"Agent_Id"});
  c.queue = FindColumn(header, {"Queue_Id"});
  c.correlation = FindColumn(header, {"Correlation_Id"});
  for (const Column* column : {&c.name, &c.start, &c.end, &c.agent, &c.queue, &c.correlation}) {
    if (column->index != kNoColumn && std::count(header.begin(), header.end(), column->name) > 1) {
      c.duplicates.push_back(column->name);
    }
  }
  for (const Column& column : c.grid) {
    if (std::count(header.begin(), header.end(), column.name) > 1) {
      c.duplicates.push_back(column.name);
    }
  }
  c.needed = std::max({c.name.index, c.start.index, c.end.index});
  for (const Column& column : c.grid) c.needed = std::max(c.needed, column.index);
  return std::optional<Columns>(std::move(c));
}

// The number that ends an optional id field ("3", "Agent 3"), at most `max`; 0 when the column
// or the row's field is absent or holds none; nullopt when the number exceeds `max` (a
// device, queue or correlation id that does not fit is an error, never a wrapped number).
inline std::optional<uint64_t> TrailingNumber(const CsvReader& reader, const Column& column,
                                              uint64_t max) {
  if (column.index == kNoColumn || column.index >= reader.size()) return 0;
  const std::string_view text = base::Trim(reader[column.index]);
  size_t at = text.size();
  while (at > 0 && text[at - 1] >= '0' && text[at - 1] <= '9') --at;
  uint64_t value = 0;
  if (text.size() - at <= 19) {  // below 10^19: no wrap in 64 bits, one comparison at the end
    for (size_t i = at; i < text.size(); ++i)
      value = value * 10 + static_cast<uint64_t>(text[i] - '0');
    if (value > max) return std::nullopt;
    return value;
  }
  for (size_t i = at; i < text.size(); ++i) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// The error for an id field beyond its range.
inline base::Status IdOutOfRange(const CsvReader& reader, const Column& column, uint64_t max) {
  return base::DataError(base::AtLine(reader.where(), reader.line()),
                         column.name + " '" + base::Excerpt(reader[column.index]) +
                             "' is beyond its range (0 to " + std::to_string(max) + ")");
}

// The current record of `reader` as a dispatch into `sink`. False with *error set on bad data.
inline bool AddRow(const CsvReader& reader, const Columns& c, NameCache& name_cache,
                   trace::DispatchSink& sink, int64_t& rows, base::Status* error) {
  if (reader.size() == 0) return true;  // a blank line: csv.DictReader skips it
  if (reader.size() <= c.needed) {
    *error = base::DataError(base::AtLine(reader.where(), reader.line()),
                             "row has " + std::to_string(reader.size()) +
                                 " fields, the header has " + std::to_string(c.header_size));
    return false;
  }
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  if (!ParseInteger(reader[c.start.index], start_ns)) {
    *error = NotAnInteger(reader, c.start.name, reader[c.start.index]);
    return false;
  }
  if (!ParseInteger(reader[c.end.index], end_ns)) {
    *error = NotAnInteger(reader, c.end.name, reader[c.end.index]);
    return false;
  }
  if (end_ns < start_ns) {
    *error = base::DataError(
        base::AtLine(reader.where(), reader.line()),
        "end before start (" + std::to_string(end_ns) + " < " + std::to_string(start_ns) + ")");
    return false;
  }
  int64_t grid_size = c.grid.empty() ? 0 : 1;
  for (const Column& column : c.grid) {
    const std::string_view text = reader[column.index];
    int64_t value = 1;  // Python: int(value or 1)
    if (!text.empty()) {
      if (!ParseInteger(text, value)) {
        *error = NotAnInteger(reader, column.name, text);
        return false;
      }
      value = std::max<int64_t>(value, 1);
    }
    if (__builtin_mul_overflow(grid_size, value, &grid_size)) {
      *error = base::DataError(base::AtLine(reader.where(), reader.line()),
                               "grid size does not fit in 64 bits");
      return false;
    }
  }
  // An id with no number at its end ("many", "Agent") is an error, never 0; "" is absent.
  for (const Column* column : {&c.agent, &c.queue, &c.correlation}) {
    if (column->index == kNoColumn || column->index >= reader.size()) continue;
    const std::string_view text = base::Trim(reader[column->index]);
    if (!text.empty() && (text.back() < '0' || text.back() > '9')) {
      *error = base::DataError(base::AtLine(reader.where(), reader.line()),
                               column->name + " is not a number: '" + base::Excerpt(text) + "'");
      return false;
    }
  }
  trace::Dispatch d;
  d.start = start_ns;
  d.end = end_ns;
  d.grid = grid_size;
  d.name = name_cache.Intern(reader[c.name.index]);
  const std::optional<uint64_t> device = TrailingNumber(reader, c.agent, INT16_MAX);
  if (!device) {
    *error = IdOutOfRange(reader, c.agent, INT16_MAX);
    return false;
  }
  const std::optional<uint64_t> queue = TrailingNumber(reader, c.queue, UINT32_MAX);
  if (!queue) {
    *error = IdOutOfRange(reader, c.queue, UINT32_MAX);
    return false;
  }
  const std::optional<uint64_t> correlation = TrailingNumber(reader, c.correlation, UINT64_MAX);
  if (!correlation) {
    *error = IdOutOfRange(reader, c.correlation, UINT64_MAX);
    return false;
  }
  d.device = static_cast<int16_t>(*device);
  d.stream = static_cast<uint32_t>(*queue);
  d.correlation = *correlation;
  d.line =
      static_cast<uint32_t>(std::min<int64_t>(reader.line(), std::numeric_limits<uint32_t>::max()));
  sink.Add(d);
  ++rows;
  return true;
}

constexpr int64_t kNoStop = std::numeric_limits<int64_t>::max();

enum class RowsEnd { kEnd, kStop, kCancelled, kError };

// Imports the records that follow the reader's current one, up to the end of the input or
// (kStop) the first record that starts at or after `stop`, which is read but not imported.
// `cancel`, when given, is polled between rows (kCancelled).
RowsEnd ImportRows(CsvReader& reader, const Columns& c, NameCache& name_cache,
                   trace::DispatchSink& sink, int64_t stop, const std::stop_token* cancel,
                   int64_t& rows, base::Status* error) {
  while (reader.Next()) {
    if (reader.offset() >= stop) return RowsEnd::kStop;
    if (cancel != nullptr && cancel->stop_requested()) return RowsEnd::kCancelled;
    if (!AddRow(reader, c, name_cache, sink, rows, error)) return RowsEnd::kError;
  }
  if (!reader.status().ok()) {
    *error = reader.status();
    return RowsEnd::kError;
  }
  return RowsEnd::kEnd;
}

// Where the parts start: cuts[0] = 0 (the calling thread's part, from the header on), then the
// first line start after each k/K of the file, strictly increasing; {0} when the file is not
// worth splitting.
std::vector<int64_t> ChooseCuts(const std::string& path, const CsvSplitOptions& options,
                                unsigned cores, int64_t& bytes) {
  std::vector<int64_t> cuts = {0};
  // A compressed file is one stream: read on one thread (while another decompresses it).
  if (cores < 2 || FileCompression(path) != Compression::kNone) return cuts;
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > static_cast<uintmax_t>(std::numeric_limits<int64_t>::max() / 2) ||
      static_cast<int64_t>(size) < std::max<int64_t>(options.min_split_bytes, 2)) {
    return cuts;
  }
  bytes = static_cast<int64_t>(size);
  const int64_t parts = std::clamp<int64_t>(bytes / std::max<int64_t>(options.min_part_bytes, 1), 2,
                                            int64_t{4} * cores);
  // A line longer than this after a cut point: that cut is dropped.
  constexpr size_t kMaxScan = size_t{1} << 20;
  for (int64_t k = 1; k < parts; ++k) {
    const int64_t cut = CsvReader::NextLineStart(path, bytes / parts * k, kMaxScan);
    if (cut > cuts.back() && cut < bytes) cuts.push_back(cut);
  }
  return cuts;
}

// One part after the first, parsed by a helper thread from its cut up to the next one.
struct Part {
  int64_t begin = 0;
  int64_t end = kNoStop;  // the next cut (kNoStop for the last part)
  trace::DispatchSink* sink = nullptr;
  trace::StringPool names;  // its own: ids are mapped into the caller's pool afterwards
  int64_t rows = 0;
  // Parsed without error up to the first record at or after `end` (read, not imported: its
  // offset and its line counted from 1 at `begin`), or to the end of the file.
  bool ok = false;
  int64_t stop_offset = -1;
  int64_t stop_line = 0;
};

// Parts 1..K-1: the calling thread takes them from the front as it reaches them, helper
// threads from the back, so that all meet wherever the slower ones are.
class PartQueue {
 public:
  explicit PartQueue(size_t count) : back_(count) {}
  // The last part nobody has taken, for a helper.
  std::optional<size_t> TakeBack() {
    std::lock_guard<std::mutex> lock(mu_);
    if (back_ <= front_) return std::nullopt;
    return --back_;
  }
  // Returns part `k`, the last one taken, when its helper could not be started.
  void GiveBack(size_t k) {
    std::lock_guard<std::mutex> lock(mu_);
    if (k == back_) ++back_;
  }
  // Part `k` for the calling thread, unless a helper has it (then it has every later one).
  bool TakeFront(size_t k) {
    std::lock_guard<std::mutex> lock(mu_);
    if (k >= back_) return false;
    front_ = k + 1;
    return true;
  }

 private:
  std::mutex mu_;
  size_t front_ = 1;  // part 0 is the calling thread's
  size_t back_;
};

// A helper: imports part `k`, then whichever the queue gives it.
void ImportParts(const std::stop_token& cancel, const std::string& path,
                 const CsvReader::Options& base, const Columns& columns, PartQueue& queue,
                 std::vector<Part>& parts, std::optional<size_t> k) {
  for (; k && !cancel.stop_requested(); k = queue.TakeBack()) {
    Part& part = parts[*k];
    CsvReader::Options options = base;
    options.start_offset = part.begin;
    auto reader = CsvReader::Open(path, options);
    if (!reader.ok()) continue;  // not ok: the calling thread reads on through it
    NameCache name_cache(part.names);
    base::Status error;
    switch (ImportRows(**reader, columns, name_cache, *part.sink, part.end, &cancel, part.rows,
                       &error)) {
      case RowsEnd::kStop:
        part.stop_offset = (*reader)->offset();
        part.stop_line = (*reader)->line();
        part.ok = true;
        break;
      case RowsEnd::kEnd:
        part.ok = true;
        break;
      case RowsEnd::kCancelled:
      case RowsEnd::kError:
        break;
    }
    part.sink->Done();
  }
}

}  // namespace

void CsvLaterPart::Rebase(trace::Dispatch& d) const {
  d.name = name_map[d.name];
  d.line = static_cast<uint32_t>(
      std::min<int64_t>(int64_t{d.line} + line_offset, std::numeric_limits<uint32_t>::max()));
}

StatusOr<CsvImportStats> ImportRocprofv3Csv(CsvReader& reader, trace::StringPool& names,
                                            trace::DispatchSink& sink) {
  CsvImportStats stats;
  DP_ASSIGN_OR_RETURN(const std::optional<Columns> columns, ReadHeader(reader));
  if (!columns) return stats;  // empty file
  stats.has_grid_columns = !columns->grid.empty();
  stats.duplicate_columns = columns->duplicates;
  NameCache name_cache(names);
  base::Status error;
  if (ImportRows(reader, *columns, name_cache, sink, kNoStop, nullptr, stats.rows, &error) ==
      RowsEnd::kError) {
    return error;
  }
  return stats;
}

StatusOr<CsvImportStats> ImportRocprofv3Csv(const std::string& path, trace::StringPool& names,
                                            trace::DispatchSink& sink,
                                            const CsvReader::Options& options) {
  DP_ASSIGN_OR_RETURN(std::unique_ptr<CsvReader> reader, CsvReader::Open(path, options));
  return ImportRocprofv3Csv(*reader, names, sink);
}

StatusOr<CsvImportStats> ImportRocprofv3Csv(const std::string& path, trace::StringPool& names,
                                            trace::DispatchSink& sink) {
  return ImportRocprofv3Csv(path, names, sink, CsvReader::Options());
}

StatusOr<CsvPartsImport> ImportRocprofv3CsvInParts(const std::string& path,
                                                   trace::StringPool& names,
                                                   trace::DispatchSink& first,
                                                   const PartSinkFactory& new_part,
                                                   const CsvSplitOptions& options) {
  CsvPartsImport out;
  DP_ASSIGN_OR_RETURN(std::unique_ptr<CsvReader> reader, CsvReader::Open(path, options.reader));
  DP_ASSIGN_OR_RETURN(const std::optional<Columns> columns, ReadHeader(*reader));
  if (!columns) return out;  // empty file
  out.stats.has_grid_columns = !columns->grid.empty();
  out.stats.duplicate_columns = columns->duplicates;
  NameCache name_cache(names);
  base::Status error;

  // A parse bound by the CPU, each part into a room of its own (base::ParseThreads).
  const unsigned cores = options.cores != 0 ? options.cores : base::ParseThreads();
  int64_t bytes = 0;
  const std::vector<int64_t> cuts = ChooseCuts(path, options, cores, bytes);
  std::vector<Part> parts(cuts.size());
  for (size_t k = 1; k < cuts.size(); ++k) {
    parts[k].begin = cuts[k];
    if (k + 1 < cuts.size()) parts[k].end = cuts[k + 1];
    parts[k].sink = new_part(k - 1, (k + 1 < cuts.size() ? cuts[k + 1] : bytes) - cuts[k]);
  }
  // Helpers run while this thread reads from the front, each starting with a part from the
  // back; every way out of this function stops and joins them (std::jthread).
  PartQueue queue(cuts.size());
  std::vector<std::jthread> helpers;
  for (size_t i = 1; i < std::min<size_t>(cores, cuts.size()); ++i) {
    const std::optional<size_t> k = queue.TakeBack();
    try {
      helpers.emplace_back(ImportParts, path, std::cref(options.reader), std::cref(*columns),
                           std::ref(queue), std::ref(parts), k);
    } catch (const std::system_error&) {
      if (k) queue.GiveBack(*k);
      break;  // fewer threads (maybe none): this thread takes what they do not
    }
  }

  size_t next = 1;  // the part whose cut this thread is heading for
  bool alone = false;
  for (;;) {
    const int64_t stop = !alone && next < cuts.size() ? cuts[next] : kNoStop;
    switch (
        ImportRows(*reader, *columns, name_cache, first, stop, nullptr, out.stats.rows, &error)) {
      case RowsEnd::kError:
        return error;
      case RowsEnd::kEnd:
      case RowsEnd::kCancelled:
        return out;  // the whole file went to `first`
      case RowsEnd::kStop:
        break;
    }
    // The current record starts at or after cuts[next]: take the parts it reaches, or meet the
    // helpers, who then hold every part from `next` on.
    bool meet = false;
    while (next < cuts.size() && reader->offset() >= cuts[next]) {
      if (!queue.TakeFront(next)) {
        meet = true;
        break;
      }
      ++next;
    }
    if (meet) {
      for (std::jthread& helper : helpers) helper.join();
      // Usable when this thread's record starts exactly at the cut and each part ended exactly
      // at the next one's (no quoted field spans a cut) without error.
      bool usable = reader->offset() == cuts[next];
      for (size_t k = next; usable && k < cuts.size(); ++k) {
        usable = parts[k].ok && (k + 1 == cuts.size() || parts[k].stop_offset == cuts[k + 1]);
      }
      if (usable) {
        int64_t line_offset = reader->line() - 1;
        for (size_t k = next; k < cuts.size(); ++k) {
          CsvLaterPart& later = out.later.emplace_back();
          later.index = k - 1;
          later.split = cuts[k];
          later.line_offset = line_offset;
          later.name_map.reserve(parts[k].names.size());
          for (size_t id = 0; id < parts[k].names.size(); ++id) {
            later.name_map.push_back(
                names.Intern(parts[k].names.Get(static_cast<trace::StringId>(id))));
          }
          out.stats.rows += parts[k].rows;
          line_offset += parts[k].stop_line - 1;
        }
        return out;
      }
      // A quoted field spans a cut, or a part met an error: carry on from here alone.
      alone = true;
    }
    if (!AddRow(*reader, *columns, name_cache, first, out.stats.rows, &error)) return error;
  }
}

namespace {

class Rocprofv3CsvImporterImpl final : public Importer, public PartsImporter {
 public:
  std::string_view name() const override { return kRocprofv3CsvFormat; }
  std::string_view description() const override {
    return "rocprofv3 kernel trace CSV (<name>_kernel_trace.csv)";
  }
  std::string_view produced_by() const override {
    return "rocprofv3 --kernel-trace --output-format csv -- CMD";
  }
  std::string_view default_pack() const override { return "mlx-rocm"; }
  Recognition Recognize(const FileProbe& probe) const override {
    const std::string_view head = probe.head();
    if (probe.is_sqlite() || head.find('\0') != std::string_view::npos) return Recognition::kNo;
    const std::string_view first_line = head.substr(0, head.find('\n'));
    if (first_line.find("Kernel_Name") != std::string_view::npos ||
        first_line.find("KernelName") != std::string_view::npos) {
      return Recognition::kYes;
    }
    // Any other text: the importer says which column is missing.
    return Recognition::kMaybe;
  }
  base::Status Import(const std::string& path, trace::TraceBuilder& builder) const override {
    // Through a sink that counts in the builder, so that devices are counted as for any format.
    struct ToBuilder : trace::DispatchSink {
      trace::TraceBuilder* builder;
      void Add(const trace::Dispatch& d) override { builder->AddDispatch(d); }
    } sink;
    sink.builder = &builder;
    // A hint for a sink that keeps every dispatch (--window all, `kernels`): the rows the
    // file's first MiB holds a byte, a tenth more (ExpectedRows; more rows only make the sink
    // grow as it would without the hint). A room of a row in 64 bytes, as before, reserved 4.5
    // times a rocprofv3 file's rows against the memory budget. A compressed file's size says
    // nothing.
    std::error_code ec;
    const uintmax_t bytes = std::filesystem::file_size(path, ec);
    if (!ec && FileCompression(path) == Compression::kNone) {
      builder.Expect(ExpectedRows(path).In(bytes), 0);
    }
    DP_ASSIGN_OR_RETURN(const CsvImportStats stats,
                        ImportRocprofv3Csv(path, builder.names(), sink));
    Describe(stats, builder.trace());
    return base::OkStatus();
  }
  bool carries_ranges() const override { return false; }
  std::string_view position_word() const override { return "line"; }
  const PartsImporter* parts() const override { return this; }

  base::StatusOr<Result> ImportInParts(const std::string& path, trace::StringPool& names,
                                       trace::DispatchSink& first,
                                       const SinkFactory& new_part) const override {
    DP_ASSIGN_OR_RETURN(CsvPartsImport imported,
                        ImportRocprofv3CsvInParts(path, names, first, new_part, CsvSplitOptions()));
    Result out;
    out.trace.format = std::string(name());
    Describe(imported.stats, out.trace);
    for (CsvLaterPart& part : imported.later) {
      auto shared = std::make_shared<CsvLaterPart>(std::move(part));
      out.later.push_back({shared->index, [shared](trace::Dispatch& d) { shared->Rebase(d); }});
    }
    return out;
  }

 private:
  // rocprofv3 CSV timestamps are on the clock rocprofv3 chose: the bench log's marks pick it.
  static void Describe(const CsvImportStats& stats, trace::ImportedTrace& t) {
    t.clock = std::nullopt;
    t.has_grid = stats.has_grid_columns;
    for (const std::string& column : stats.duplicate_columns) {
      t.diagnostics.Add(trace::Message<trace::Msg::kColumnTwice>(column), 1, "", "line 1");
    }
  }
};

}  // namespace

const Importer& Rocprofv3CsvImporter() {
  static const Rocprofv3CsvImporterImpl importer;
  return importer;
}

}  // namespace decodeprof::io
