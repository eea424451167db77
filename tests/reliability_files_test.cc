// Files that end or lie (docs/reliability.md "Broken files, pipes and limits"): SQLite traces
// cut short or with text where a number belongs, inputs without end (/dev/zero, a huge sparse
// file, FIFOs with and without a writer, pipes), and nesting without bound. Each gets an error
// naming the file (exit 65 for bad data, 66 for what cannot be read), promptly, and no output.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"
#include "src/io/rocpd/testing/rocpd_db_writer.h"
#include "src/native_format/native_writer.h"
#include "tests/cli_runner.h"
#include "tests/support/process_util.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
namespace nf = decodeprof::native_format;
namespace nsys = decodeprof::io::nsys_testing;
namespace rocpd = decodeprof::io::rocpd_testing;
using decodeprof::testing::CliPath;
using decodeprof::testing::Result;
using decodeprof::testing::RunBinary;
using decodeprof::testing::RunProgram;
using decodeprof::testing::Slurp;

namespace {

constexpr int kDataError = 65;
constexpr int kIoError = 66;

constexpr const char* kCsvHeader =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
    "\"End_Timestamp\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

constexpr const char* kLog =
    "[phase] warmup_start monotonic_ns=1 boottime_ns=90000\n"
    "[phase] measured_start monotonic_ns=2 boottime_ns=400000\n"
    "[phase] decode_start monotonic_ns=3 boottime_ns=600000\n"
    "[phase] measured_end monotonic_ns=4 boottime_ns=800000\n"
    "\n[Profile Results]\n  Prompt tokens:    4\n  Generated tokens: 2\n"
    "  Prefill:          0.1 ms (40000.0 tok/s)\n  Decode:           0.2 ms (10000.0 tok/s)\n";

struct Column {
  std::string table;
  std::string name;
};

class ReliabilityFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  }

  // rocprofv3 CSV: a few kernels on agent 1, inside the log's window.
  std::string Csv() {
    std::string text = kCsvHeader;
    for (int i = 0; i < 6; ++i) {
      const int64_t start = 500000 + i * 40000;
      text +=
          "\"KERNEL_DISPATCH\",\"Agent 1\",\"1\",\"void mlx::core::rocm::rms_norm_kernel<__half>()"
          "\",\"" +
          std::to_string(i + 1) + "\",\"" + std::to_string(start) + "\",\"" +
          std::to_string(start + 20000) + "\",\"256\",\"1\",\"1\"\n";
    }
    return text;
  }
  std::string Kineto() {
    std::string text = "{\"traceEvents\":[";
    for (int i = 0; i < 4; ++i) {
      text += std::string(i ? "," : "") +
              "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemv_kernel\",\"pid\":0,\"tid\":7,"
              "\"ts\":" +
              std::to_string(10 + i * 10) +
              ",\"dur\":5,\"args\":{\"device\":0,"
              "\"stream\":7,\"correlation\":" +
              std::to_string(i + 1) + "}}";
    }
    return text + "]}";
  }

  // A native trace with every table the importer reads holding rows.
  std::string Native(const std::string& name) {
    const std::string path = Path(name);
    auto writer = nf::NativeWriter::Create(path, "monotonic", "test");
    EXPECT_TRUE(writer.ok());
    nf::NativeWriter& w = **writer;
    nf::DeviceRow device;
    device.name = "NVIDIA H200";
    EXPECT_TRUE(w.AddDevice(device).ok());
    const auto kernel_name = *w.Intern("void gemv_kernel<float>(float const*)");
    const auto launch = *w.Intern("cudaLaunchKernel");
    const auto decode = *w.Intern("decodeprof:decode");
    const auto domain = *w.Intern("");
    for (int i = 0; i < 8; ++i) {
      nf::KernelRow k;
      k.name = k.mangled = kernel_name;
      k.start_ns = 1000 + i * 1000;
      k.end_ns = k.start_ns + 400;
      k.stream = 7;
      k.correlation = static_cast<uint32_t>(i + 1);
      k.grid[0] = 4;
      k.grid[1] = 2;
      k.grid[2] = 1;
      EXPECT_TRUE(w.AddKernel(k).ok());
      nf::ApiCallRow call;
      call.name = launch;
      call.start_ns = k.start_ns - 300;
      call.end_ns = k.start_ns - 100;
      call.thread = 11;
      call.correlation = k.correlation;
      EXPECT_TRUE(w.AddApiCall(call).ok());
    }
    nf::MemoryOpRow copy;
    copy.start_ns = 4500;
    copy.end_ns = 4600;
    copy.bytes = 64;
    copy.copy_kind = 1;
    copy.stream = 7;
    copy.correlation = 100;
    EXPECT_TRUE(w.AddMemoryOp(copy).ok());
    nf::RangeRow range;
    range.name = decode;
    range.domain = domain;
    range.start_ns = 500;
    range.end_ns = 9000;
    range.thread = 11;
    EXPECT_TRUE(w.AddRange(range).ok());
    nf::MarkRow mark;
    mark.name = decode;
    mark.domain = domain;
    mark.time_ns = 600;
    mark.thread = 11;
    EXPECT_TRUE(w.AddMark(mark).ok());
    EXPECT_TRUE(w.SetCounter("cupti_dropped_records", 0).ok());
    EXPECT_TRUE(w.Close().ok());
    return path;
  }

  std::string Nsys(const std::string& name) {
    nsys::NsysDb db;
    db.gpus.push_back({0, "NVIDIA H200"});
    for (int i = 0; i < 8; ++i) {
      nsys::Kernel k;
      k.start = 1000 + i * 1000;
      k.end = k.start + 400;
      k.correlation = static_cast<uint32_t>(i + 1);
      k.demangled = "void gemv_kernel<float>(float const*)";
      k.grid[0] = 4;
      db.kernels.push_back(k);
      nsys::ApiCall call;
      call.start = k.start - 300;
      call.end = k.start - 100;
      call.name = "cudaLaunchKernel_v7000";
      call.correlation = static_cast<uint32_t>(i + 1);
      db.api_calls.push_back(call);
    }
    nsys::MemoryOp copy;
    copy.start = 4500;
    copy.end = 4600;
    copy.correlation = 100;
    db.memory_ops.push_back(copy);
    nsys::NvtxEvent range;
    range.start = 500;
    range.end = 9000;
    range.text = "decodeprof:decode";
    range.registered = true;
    db.nvtx.push_back(range);
    const std::string path = Path(name);
    EXPECT_TRUE(nsys::WriteNsysDb(path, db).ok());
    return path;
  }

  std::string Rocpd(const std::string& name) {
    rocpd::RocpdDb db;
    for (int i = 0; i < 8; ++i) {
      rocpd::KernelDispatch k;
      k.start = 1000 + i * 1000;
      k.end = k.start + 400;
      k.display_name = "void mlx::core::rocm::rms_norm_kernel<__half, 1024>(__half const*)";
      k.kernel_name = "_ZN3mlx4core4rocm15rms_norm_kernelEv.kd";
      k.correlation = 2 * i + 1;
      db.kernels.push_back(k);
      db.regions.push_back(
          rocpd::HipCall(2 * i + 1, "hipLaunchKernel", k.start - 300, k.start - 200));
    }
    rocpd::MemoryCopy copy;
    copy.start = 4500;
    copy.end = 4600;
    db.copies.push_back(copy);
    db.regions.push_back(rocpd::ThreadRange(100, "decodeprof:decode", 500, 9000));
    rocpd::Sample sample;
    sample.timestamp = 600;
    sample.message = "decodeprof:decode";
    db.samples.push_back(sample);
    const std::string path = Path(name);
    EXPECT_TRUE(rocpd::WriteRocpdDb(path, db).ok());
    return path;
  }

  // One trace per SQLite format: {format, writer}.
  std::vector<std::pair<std::string, std::function<std::string(const std::string&)>>>
  SqliteFormats() {
    return {{"native", [this](const std::string& n) { return Native(n); }},
            {"nsys-sqlite", [this](const std::string& n) { return Nsys(n); }},
            {"rocpd", [this](const std::string& n) { return Rocpd(n); }}};
  }

  Result Summarize(const std::string& trace, std::vector<std::string> extra = {},
                   const std::string& out = "out") {
    std::vector<std::string> args = {"summarize", "--trace", trace, "--out-dir", Path(out),
                                     "--name",    "t",       "-q",  "--window",  "all"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunBinary(args, {}, dir_);
  }
  // The same under timeout(1): a run that hangs is killed after 60 s (exit 124).
  Result SummarizeBounded(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"60", CliPath(), "summarize"};
    all.insert(all.end(), args.begin(), args.end());
    all.insert(all.end(), {"--out-dir", Path("out"), "--name", "t", "-q", "--window", "all"});
    return RunProgram("timeout", all, dir_);
  }
  bool NoOutput(const std::string& out = "out") const {
    return !fs::exists(dir_ / out / "t_summary.json");
  }

  decodeprof::testing::TempDir temp_{"dp_relf_"};
  fs::path dir_;
};

// The columns of every table of an SQLite file that hold integers (at least one row has one).
std::vector<Column> IntegerColumns(const std::string& path) {
  std::vector<Column> out;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::vector<std::string> tables;
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1", -1, &q,
                     nullptr);
  while (sqlite3_step(q) == SQLITE_ROW) {
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)));
  }
  sqlite3_finalize(q);
  for (const std::string& table : tables) {
    std::vector<std::string> columns;
    sqlite3_prepare_v2(db, ("SELECT name FROM pragma_table_info('" + table + "')").c_str(), -1, &q,
                       nullptr);
    while (sqlite3_step(q) == SQLITE_ROW) {
      columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)));
    }
    sqlite3_finalize(q);
    for (const std::string& column : columns) {
      const std::string sql =
          "SELECT count(*) FROM \"" + table + "\" WHERE typeof(\"" + column + "\") = 'integer'";
      sqlite3_prepare_v2(db, sql.c_str(), -1, &q, nullptr);
      if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 0) > 0) {
        out.push_back({table, column});
      }
      sqlite3_finalize(q);
    }
  }
  sqlite3_close(db);
  return out;
}

// Runs `sql` on the file; false when SQLite refuses it (a constraint).
bool Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return false;
  const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

// ---- SQLite files cut short -------------------------------------------------------------

TEST_F(ReliabilityFilesTest, SqliteCutShortAtAnyPointIsADataError) {
  for (const auto& [format, write] : SqliteFormats()) {
    const std::string whole = write("whole.sqlite");
    const auto size = static_cast<int64_t>(fs::file_size(whole));
    ASSERT_GT(size, 3 * 4096) << format;
    for (const int64_t cut : {size - 1, size - 1000, size - 4096, size / 2 + 7, int64_t{4096},
                              int64_t{100}, int64_t{50}}) {
      const std::string path = Path("cut.sqlite");
      fs::copy_file(whole, path, fs::copy_options::overwrite_existing);
      fs::resize_file(path, static_cast<uintmax_t>(cut));
      for (const std::string& f : {std::string("auto"), format}) {
        const Result r = Summarize(path, {"--format", f});
        EXPECT_EQ(r.exit_code, kDataError)
            << format << " cut to " << cut << " bytes, --format " << f << ": " << r.err;
        EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
        EXPECT_TRUE(NoOutput()) << format << " cut to " << cut;
        // The run with the format named says how the file is broken.
        if (cut >= 4096 && f == format) {
          EXPECT_NE(r.err.find("cut short"), std::string::npos) << format << " " << cut << r.err;
        }
      }
    }
    // Never a journal, WAL or shared-memory file beside the input.
    for (const char* suffix : {"-journal", "-wal", "-shm"}) {
      EXPECT_FALSE(fs::exists(Path("cut.sqlite") + suffix)) << suffix;
      EXPECT_FALSE(fs::exists(whole + suffix)) << suffix;
    }
    fs::remove(whole);
  }
}

TEST_F(ReliabilityFilesTest, SqliteWithADamagedPageIsADataError) {
  for (const auto& [format, write] : SqliteFormats()) {
    const std::string path = write("damaged.sqlite");
    const auto size = static_cast<int64_t>(fs::file_size(path));
    // Every page after the schema's overwritten in turn: a b-tree page of garbage.
    int refused = 0;
    for (int64_t page = 1; (page + 1) * 4096 <= size; ++page) {
      const std::string copy = Path("page.sqlite");
      fs::copy_file(path, copy, fs::copy_options::overwrite_existing);
      {
        std::fstream f(copy, std::ios::binary | std::ios::in | std::ios::out);
        f.seekp(page * 4096);
        const std::string garbage(4096, '\xab');
        f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
      }
      fs::remove_all(dir_ / "out");
      const Result r = Summarize(copy, {"--format", format});
      // A page no query visits (an index decodeprof does not use) may pass unnoticed; a
      // visited one is SQLITE_CORRUPT: exit 65, never a crash or a partial output.
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == kDataError) << format << r.err;
      if (r.exit_code == kDataError) {
        ++refused;
        EXPECT_TRUE(NoOutput());
        EXPECT_NE(r.err.find(copy), std::string::npos) << r.err;
      }
    }
    EXPECT_GT(refused, 0) << format;
  }
}

// ---- text where a number belongs, in every integer column of every table ----------------

TEST_F(ReliabilityFilesTest, TextInAnyIntegerColumnIsADataErrorOrUnused) {
  for (const auto& [format, write] : SqliteFormats()) {
    const std::string base = write("base.sqlite");
    const std::string trace = Path("t.sqlite");
    fs::copy_file(base, trace, fs::copy_options::overwrite_existing);
    const Result good = Summarize(trace, {"--format", format}, "good");
    ASSERT_EQ(good.exit_code, 0) << format << good.err;
    const std::string expected = Slurp(dir_ / "good" / "t_summary.json");
    int refused = 0;
    const std::vector<Column> columns = IntegerColumns(base);
    ASSERT_GT(columns.size(), 10u) << format;
    for (const Column& c : columns) {
      fs::copy_file(base, trace, fs::copy_options::overwrite_existing);
      // 'n' || value: text in every row, and still distinct where the column is unique.
      if (!Exec(trace, "UPDATE \"" + c.table + "\" SET \"" + c.name + "\" = 'n' || \"" + c.name +
                           "\" WHERE typeof(\"" + c.name + "\") = 'integer'")) {
        continue;  // a rowid alias: SQLite keeps it an integer
      }
      fs::remove_all(dir_ / "out");
      // The first column's run is checked for leaks; the others take the same paths.
      std::optional<decodeprof::testing::ChildLeakChecksOff> leaks_once;
      if (&c != &columns.front()) leaks_once.emplace();
      const Result r = Summarize(trace, {"--format", format});
      const std::string where = format + " " + c.table + "." + c.name;
      if (r.exit_code == 0) {
        // A column decodeprof does not read: the same summary.
        EXPECT_EQ(Slurp(dir_ / "out" / "t_summary.json"), expected) << where;
        continue;
      }
      ++refused;
      EXPECT_EQ(r.exit_code, kDataError) << where << ": " << r.err;
      EXPECT_NE(r.err.find(trace), std::string::npos) << where << ": " << r.err;
      EXPECT_TRUE(NoOutput()) << where;
      if (r.err.find("holds text") != std::string::npos) {
        EXPECT_NE(r.err.find("column " + c.name), std::string::npos) << where << ": " << r.err;
        EXPECT_NE(r.err.find(c.table.substr(0, 12)), std::string::npos) << where << ": " << r.err;
        EXPECT_NE(r.err.find(", row "), std::string::npos) << where << ": " << r.err;
      }
    }
    EXPECT_GE(refused, 8) << format;
  }
}

TEST_F(ReliabilityFilesTest, TextInADataLossCounterIsADataError) {
  const std::string path = Native("counter.sqlite");
  ASSERT_TRUE(Exec(path, "UPDATE counters SET value = 'many'"));
  const Result r = Summarize(path);
  EXPECT_EQ(r.exit_code, kDataError) << r.err;
  EXPECT_NE(r.err.find("table counters, row name = 'cupti_dropped_records': column value holds "
                       "text 'many'"),
            std::string::npos)
      << r.err;
}

TEST_F(ReliabilityFilesTest, TextWhereANumberBelongsInTextFormatsIsADataError) {
  // rocprofv3 CSV: every numeric column.
  const std::string csv = Csv();
  for (const std::string column : {"Agent_Id", "Queue_Id", "Correlation_Id", "Start_Timestamp",
                                   "End_Timestamp", "Grid_Size_X"}) {
    // Column index in the header, then the 3rd row's field replaced.
    std::vector<std::string> lines;
    for (size_t at = 0; at < csv.size();) {
      const size_t nl = csv.find('\n', at);
      lines.push_back(csv.substr(at, nl - at));
      at = nl + 1;
    }
    const size_t index = [&] {
      size_t i = 0;
      for (size_t at = 0; at < lines[0].size(); ++i) {
        const size_t comma = lines[0].find(',', at);
        if (lines[0].substr(at, comma - at) == "\"" + column + "\"") return i;
        if (comma == std::string::npos) break;
        at = comma + 1;
      }
      return size_t{99};
    }();
    ASSERT_LT(index, 10u) << column;
    std::string& row = lines[3];
    size_t start = 0;
    for (size_t i = 0; i < index; ++i) start = row.find(',', start) + 1;
    const size_t end = row.find(',', start);
    row.replace(start, end - start, "\"many\"");
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    const std::string path = Write("t.csv", text);
    const Result r = Summarize(path);
    EXPECT_EQ(r.exit_code, kDataError) << column << ": " << r.err;
    EXPECT_NE(r.err.find(path + ":4"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(column), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
  }
  // Kineto: the integer args of a dispatch.
  for (const std::string arg : {"device", "stream", "correlation"}) {
    for (const std::string value : {"\"many\"", "1.5", "true", "[1]"}) {
      std::string text = Kineto();
      const std::string from = "\"" + arg + "\":";
      const size_t at = text.find(from) + from.size();
      text.replace(at, text.find_first_of(",}", at) - at, value);
      const std::string path = Write("t.json", text);
      const Result r = Summarize(path);
      EXPECT_EQ(r.exit_code, kDataError) << arg << "=" << value << ": " << r.err;
      EXPECT_NE(r.err.find("args." + arg + " is not an integer"), std::string::npos) << r.err;
      EXPECT_TRUE(NoOutput());
    }
  }
  // A launch call's stream as roctracer writes it ("0x0") is no dispatch's: read.
  std::string text = Kineto();
  text.insert(text.size() - 2,
              ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipLaunchKernel\",\"pid\":0,"
              "\"tid\":7,\"ts\":8,\"dur\":1,\"args\":{\"stream\":\"0x0\",\"correlation\":1}}");
  const Result r = Summarize(Write("t.json", text));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// ---- inputs without end: devices, huge files, directories --------------------------------

// Every option whose file is read whole, with the file it is given.
std::vector<std::pair<std::string, std::vector<std::string>>> WholeReads(
    const std::string& trace, const std::string& file, const std::string& model_dir) {
  return {{"--log", {"--trace", trace, "--log", file}},
          {"--plain-log", {"--trace", trace, "--plain-log", file}},
          {"--pack", {"--trace", trace, "--pack", file}},
          {"--units", {"--trace", trace, "--units", file}},
          {"--model-dir", {"--trace", trace, "--model-dir", model_dir}}};
}

TEST_F(ReliabilityFilesTest, DevicesHugeFilesAndDirectoriesAsWholeReadsAreRefused) {
  const std::string trace = Write("t.csv", Csv());
  const std::string sparse = Path("huge.toml");
  { std::ofstream(sparse) << ""; }
  fs::resize_file(sparse, uintmax_t{3} << 30);  // sparse: 3 GiB of nothing on disk
  const std::string dev_dir = Path("dev_model");
  const std::string huge_dir = Path("huge_model");
  fs::create_directories(dev_dir);
  fs::create_directories(huge_dir);
  fs::create_directories(Path("dir_model/config.json"));
  fs::create_symlink("/dev/zero", fs::path(dev_dir) / "config.json");
  fs::create_symlink(sparse, fs::path(huge_dir) / "config.json");
  struct Case {
    std::string file, model_dir, expect;
    int exit_code;
  };
  for (const Case& c : {Case{"/dev/zero", dev_dir, "is a character device", kIoError},
                        Case{sparse, huge_dir, "larger than", kDataError},
                        Case{Path("dir_model"), Path("dir_model"), "is a directory", kIoError}}) {
    for (const auto& [option, args] : WholeReads(trace, c.file, c.model_dir)) {
      const auto begin = std::chrono::steady_clock::now();
      std::vector<std::string> all = args;
      const Result r = SummarizeBounded(all);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      EXPECT_EQ(r.exit_code, c.exit_code) << option << " " << c.file << ": " << r.err;
      EXPECT_NE(r.err.find(c.expect), std::string::npos) << option << ": " << r.err;
      EXPECT_LT(seconds, 20.0) << option << " " << c.file;
      EXPECT_TRUE(NoOutput()) << option;
    }
  }
}

TEST_F(ReliabilityFilesTest, DevicesAndHugeFilesAsSummariesAreRefused) {
  const std::string sparse = Path("huge_summary.json");
  { std::ofstream(sparse) << ""; }
  fs::resize_file(sparse, uintmax_t{3} << 30);
  for (const std::string& file : {std::string("/dev/zero"), sparse}) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"report", file}, std::vector<std::string>{"diff", file, file}}) {
      std::vector<std::string> all = {"60", CliPath()};
      all.insert(all.end(), args.begin(), args.end());
      const Result r = RunProgram("timeout", all, dir_);
      // /dev/zero is not a summary path at all (exit 2), the huge file is too large (65).
      EXPECT_TRUE(r.exit_code == kDataError || r.exit_code == kIoError || r.exit_code == 2)
          << args[0] << " " << file << ": " << r.exit_code << " " << r.err;
      if (file == sparse) {
        EXPECT_NE(r.err.find("larger than 256 MiB"), std::string::npos) << r.err;
      }
      EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
      EXPECT_EQ(r.out, "") << args[0];
    }
  }
}

// ---- FIFOs and pipes ----------------------------------------------------------------------

TEST_F(ReliabilityFilesTest, FifoWithoutWriterIsRefusedAtOnce) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string trace = Write("t.csv", Csv());
  std::vector<std::vector<std::string>> runs = {{"--trace", fifo},
                                                {"--trace", trace, "--log", fifo},
                                                {"--trace", trace, "--plain-log", fifo},
                                                {"--trace", trace, "--pack", fifo}};
  for (const std::string format :
       {"kineto-json", "rocprofv3-csv", "native", "nsys-sqlite", "rocpd"}) {
    runs.push_back({"--trace", fifo, "--format", format});
  }
  for (const std::vector<std::string>& args : runs) {
    const auto begin = std::chrono::steady_clock::now();
    const Result r = SummarizeBounded(args);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    EXPECT_EQ(r.exit_code, kIoError) << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(fifo + ": is a FIFO or pipe, not a regular file"), std::string::npos)
        << r.err;
    EXPECT_LT(seconds, 20.0);
    EXPECT_TRUE(NoOutput());
  }
}

TEST_F(ReliabilityFilesTest, FifoWithAWriterIsRefusedAndTheWriterNotLeftHanging) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string csv = Write("t.csv", Csv());
  const std::string json = Write("t.json", Kineto());
  const std::string log = Write("b.log", kLog);
  struct Case {
    std::string source;
    std::vector<std::string> args;
  };
  for (const Case& c : {Case{csv, {"--trace", fifo}}, Case{json, {"--trace", fifo}},
                        Case{csv, {"--trace", fifo, "--format", "rocprofv3-csv"}},
                        Case{json, {"--trace", fifo, "--format", "kineto-json"}},
                        Case{log, {"--trace", csv, "--log", fifo}}}) {
    // The writer: a child that copies the source into the FIFO (it blocks until a reader).
    const pid_t writer = ::fork();
    ASSERT_GE(writer, 0);
    if (writer == 0) {
      ::signal(SIGPIPE, SIG_DFL);
      ::execlp("sh", "sh", "-c", "cat \"$0\" > \"$1\"", c.source.c_str(), fifo.c_str(), nullptr);
      ::_exit(127);
    }
    ::usleep(100 * 1000);
    const Result r = SummarizeBounded(c.args);
    EXPECT_EQ(r.exit_code, kIoError) << c.source << ": " << r.err;
    EXPECT_NE(r.err.find("is a FIFO or pipe"), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
    // The writer ends (SIGPIPE) or is still waiting for a reader: open one to release it.
    const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
    int status = 0;
    for (int i = 0; i < 100 && ::waitpid(writer, &status, WNOHANG) == 0; ++i) ::usleep(50 * 1000);
    if (::waitpid(writer, &status, WNOHANG) == 0) {
      ::kill(writer, SIGKILL);
      ::waitpid(writer, &status, 0);
    }
  }
}

TEST_F(ReliabilityFilesTest, PipesAreRefusedWithAClearMessage) {
  const std::string csv = Write("t.csv", Csv());
  const std::string log = Write("b.log", kLog);
  const std::string bin = CliPath();
  const std::string tail = " --out-dir " + Path("out") + " --name t -q --window all";
  for (const std::string& script :
       {bin + " summarize --trace <(cat " + csv + ")" + tail,
        bin + " summarize --trace <(cat " + csv + ") --format rocprofv3-csv" + tail,
        bin + " summarize --trace " + csv + " --log <(cat " + log + ")" + tail,
        "cat " + csv + " | " + bin + " summarize --trace /dev/stdin" + tail,
        "cat " + csv + " | " + bin + " kernels /dev/stdin",
        "cat " + csv + " | " + bin + " export --trace /dev/stdin --chrome-trace " +
            Path("e.json")}) {
    const Result r = RunProgram("timeout", {"60", "bash", "-c", script}, dir_);
    EXPECT_EQ(r.exit_code, kIoError) << script << ": " << r.err;
    EXPECT_NE(r.err.find("is a FIFO or pipe, not a regular file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("save the data to a file first"), std::string::npos) << r.err;
    EXPECT_TRUE(NoOutput());
    EXPECT_FALSE(fs::exists(Path("e.json")));
  }
}

// ---- nesting ------------------------------------------------------------------------------

TEST_F(ReliabilityFilesTest, DeepJsonNestingIsLinearAndBounded) {
  constexpr int kDepth = 200000;
  const std::string deep_array = std::string(kDepth, '[') + std::string(kDepth, ']');
  std::string deep_object;
  for (int i = 0; i < kDepth; ++i) deep_object += "{\"a\":";
  deep_object += "1" + std::string(kDepth, '}');
  // Kineto: deep args of a kernel are skipped in linear time; a deep trace root is refused.
  for (const std::string& deep : {deep_array, deep_object}) {
    const std::string trace =
        Write("t.json",
              "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
              "\"tid\":7,\"ts\":1,\"dur\":2,\"args\":{\"x\":" +
                  deep + "}}]}");
    const auto begin = std::chrono::steady_clock::now();
    const Result r = SummarizeBounded({"--trace", trace});
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(),
              20.0);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == kDataError) << r.err;
  }
  fs::remove_all(Path("out"));  // the runs above may have written t's summary
  const Result root = SummarizeBounded({"--trace", Write("root.json", deep_array)});
  EXPECT_EQ(root.exit_code, kDataError) << root.err;
  // A model config.json: refused beyond 64 levels.
  const std::string trace = Write("t.csv", Csv());
  fs::create_directories(Path("model"));
  Write("model/config.json", "{\"model_type\":\"llama\",\"x\":" + deep_object + "}");
  fs::remove_all(Path("out"));
  const Result config = SummarizeBounded({"--trace", trace, "--model-dir", Path("model")});
  EXPECT_EQ(config.exit_code, kDataError) << config.err;
  EXPECT_NE(config.err.find("config.json: JSON nests deeper than 64 levels"), std::string::npos)
      << config.err;
  // A summary file: refused beyond its nesting limit.
  const std::string summary = Write("deep_summary.json", "{\"x\":" + deep_array + "}");
  const Result report = RunProgram("timeout", {"60", CliPath(), "report", summary}, dir_);
  EXPECT_EQ(report.exit_code, kDataError) << report.err;
  EXPECT_NE(report.err.find("nests deeper"), std::string::npos) << report.err;
}

}  // namespace
