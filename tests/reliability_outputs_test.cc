// Patterns and outputs (docs/reliability.md, "Patterns and outputs"): user patterns are RE2
// (linear, budgeted, what RE2 cannot take is a usage error), outputs leave no temporary file
// when a signal ends the command, default names keep the whole stem and never replace the
// summary of another trace, outputs far larger than their input are refused before a byte is
// written, and error diagnostics stop export as they stop summarize.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "src/io/nsys_sqlite/testing/nsys_db_writer.h"
#include "tests/cli_runner.h"
#include "tests/support/process_util.h"
#include "tests/support/temp_dir.h"

namespace decodeprof {
namespace {

namespace fs = std::filesystem;
namespace nsys = io::nsys_testing;
using testing::Result;
using testing::RunBinary;
using testing::Slurp;

const fs::path kSource = DECODEPROF_SOURCE_DIR;
const fs::path kKinetoTrace = kSource / "tests/golden/summarize/kineto_decode/trace.json";

// Sets an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

class ReliabilityOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_.path();
    fs::create_directories(dir_ / "run");
  }

  Result Run(const std::vector<std::string>& args) { return RunBinary(args, {}, dir_ / "run"); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The files of `dir` whose names contain ".tmp.".
  static std::vector<std::string> Temporaries(const fs::path& dir) {
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (e.path().filename().string().find(".tmp.") != std::string::npos) {
        found.push_back(e.path().string());
      }
    }
    return found;
  }

  // An nsys export of `count` kernels named `name` (one StringIds row), 1 us apart. The writer
  // writes the first kernel and SQLite copies its row to the others, then sets their times and
  // gridIds and the session's end (ANALYSIS_DETAILS) to those of writing all `count`: the same
  // rows, without the writer's row-by-row inserts (150000 kernels) or a copy of the name per
  // kernel (1200 of 1 MiB), which took this sanitized process 20 s and 10 s.
  std::string WriteNsys(const std::string& file, int count, const std::string& name) {
    nsys::NsysDb db;
    db.gpus.push_back({0, "NVIDIA H200"});
    nsys::Kernel k;
    k.start = 1000;
    k.end = k.start + 400;
    k.demangled = name;
    db.kernels.push_back(std::move(k));
    const std::string path = Path(file);
    EXPECT_TRUE(nsys::WriteNsysDb(path, db).ok());
    if (count > 1) {
      const std::string more = std::to_string(count - 1);
      const std::string shift = std::to_string(int64_t{count - 1} * 1000);
      const base::Status copied = nsys::ExecSql(
          path,
          "BEGIN;"
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT k.* FROM CUPTI_ACTIVITY_KIND_KERNEL k, "
          "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
              more +
              ") SELECT i FROM n);"
              "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET \"start\" = rowid * 1000, "
              "\"end\" = rowid * 1000 + 400, gridId = rowid;"
              "UPDATE ANALYSIS_DETAILS SET duration = duration + " +
              shift + ", stopTime = stopTime + " + shift +
              ";"
              "COMMIT;");
      EXPECT_TRUE(copied.ok()) << copied.message();
    }
    return path;
  }

  // A Kineto trace with one kernel whose name is `name`.
  std::string WriteKinetoWithName(const std::string& file, const std::string& name) {
    std::ofstream out(Path(file));
    out << R"({"schemaVersion": 1, "traceEvents": [)"
        << R"({"ph": "X", "cat": "kernel", "name": ")" << name
        << R"(", "pid": 0, "tid": 7, "ts": 10.0, "dur": 2.0, "args": {"device": 0, )"
        << R"("stream": 7, "correlation": 1}}]})";
    return Path(file);
  }

  decodeprof::testing::TempDir temp_{"decodeprof-outputs-"};
  fs::path dir_;
};

// ---- Patterns ----

TEST_F(ReliabilityOutputsTest, ExpectRefusesWhatRe2CannotTakeSayingWhy) {
  const struct {
    const char* pattern;
    const char* why;
  } cases[] = {
      {"(gemv)\\1", "backreference"},   {"gemv(?=_f16)", "lookahead"},
      {"(?<=void )gemv", "lookbehind"}, {"(?>gemv)", "atomic group"},
      {"gemv++", "possessive"},         {"gemv{1001}", "up to 1000"},
      {"gemv(", "missing )"},
  };
  for (const auto& c : cases) {
    const Result r = Run({"kernels", kKinetoTrace.string(), "--expect", c.pattern});
    EXPECT_EQ(r.exit_code, 2) << c.pattern << "\n" << r.err;
    EXPECT_NE(r.err.find("not a valid RE2 pattern"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.why), std::string::npos) << c.pattern << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << "no census before a bad pattern";
  }
  // Too long: refused, and the message quotes only the start of it.
  const Result r = Run({"kernels", kKinetoTrace.string(), "--expect", std::string(20000, 'g')});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-byte limit"), std::string::npos) << r.err.substr(0, 500);
  EXPECT_LT(r.err.size(), 1500u);
}

// Patterns that make a backtracking engine take exponential time, on kernel names of 64 KiB
// (std::regex crashed on these): an answer in seconds.
TEST_F(ReliabilityOutputsTest, ExpectIsLinearOnHugeNamesAndPathologicalPatterns) {
  const std::string trace = WriteKinetoWithName("long.json", std::string(64 << 10, 'a'));
  for (const char* pattern : {"^(.*)*x$", "(a|aa)+$", "(a*)*b", "^(a+)+$"}) {
    const auto start = std::chrono::steady_clock::now();
    const Result r = Run({"kernels", trace, "--expect", pattern, "--output", Path("census.txt")});
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(secs, 20.0) << pattern;
    const bool should_match =
        std::string(pattern) == "(a|aa)+$" || std::string(pattern) == "^(a+)+$";
    EXPECT_EQ(r.exit_code, should_match ? 0 : 1) << pattern << "\n" << r.err;
  }
}

TEST_F(ReliabilityOutputsTest, PackPatternsAreRe2WithTheSameReasons) {
  const std::string pack = Path("pack.toml");
  std::ofstream(pack) << "[pack]\nname = \"p\"\n\n[[class]]\nname = \"gemv\"\n"
                         "patterns = [\"gemv(?!_f16)\"]\n";
  const Result r = Run({"kernels", kKinetoTrace.string(), "--pack", pack});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("lookahead"), std::string::npos) << r.err;
}

// ---- Temporary files and signals ----

// SIGTERM (and SIGINT, SIGHUP) while export writes a large timeline: no `<out>.tmp.<pid>` is
// left, no output appears, and the process ends by the signal.
TEST_F(ReliabilityOutputsTest, ASignalDuringExportLeavesNoTemporaryFile) {
  const std::string trace = WriteNsys("big.sqlite", 150000, "void gemv_kernel<float>(float*)");
  for (const int signo : {SIGTERM, SIGINT, SIGHUP}) {
    const fs::path out_dir = dir_ / ("out" + std::to_string(signo));
    fs::create_directories(out_dir);
    const std::string out = (out_dir / "e.json").string();
    // An export that ends before the signal (a release build writes this timeline in a
    // fraction of a second: its temporary output may come and go between two looks, or go just
    // before the signal) tested nothing: it runs again, a few times at most, and the signal
    // must land in one of them. Only a whole, successful export may beat the signal.
    int status = 0;
    bool signaled = false;
    for (int attempt = 0; attempt < 8 && !signaled; ++attempt) {
      fs::remove(out);
      decodeprof::testing::Spawn spawn;  // stdin, stdout and stderr on /dev/null
      spawn.argv = {
          decodeprof::testing::CliPath(), "export", "--trace", trace, "--chrome-trace", out};
      const pid_t pid = decodeprof::testing::StartProcess(spawn).pid();
      // Wait until the temporary output exists (the export is writing), then signal.
      bool writing = false;
      bool exited = false;
      for (int i = 0; i < 60000 && !writing; ++i) {
        writing = !Temporaries(out_dir).empty();
        if (!writing) {
          if (::waitpid(pid, &status, WNOHANG) == pid) {
            exited = true;
            break;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      }
      if (!exited) {
        ASSERT_TRUE(writing) << "no temporary output appeared";
        ::kill(pid, signo);
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        signaled = WIFSIGNALED(status);
      }
      if (!signaled) {
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
            << "exit " << WEXITSTATUS(status);
        EXPECT_TRUE(fs::exists(out));
      }
    }
    ASSERT_TRUE(signaled) << "the export ended before the signal in 8 runs";
    EXPECT_EQ(WTERMSIG(status), signo);
    EXPECT_TRUE(Temporaries(out_dir).empty()) << Temporaries(out_dir).front();
    EXPECT_FALSE(fs::exists(out));
  }
}

// ---- Default names ----

// Names that differ only after a dot get their own summaries; the trace extension and a
// compression suffix go, every other dot stays.
TEST_F(ReliabilityOutputsTest, DefaultNamesKeepTheWholeStem) {
  const std::string text = Slurp(kKinetoTrace);
  const struct {
    const char* file;
    const char* name;
  } cases[] = {
      {"Llama-3.1-8B.json", "Llama-3.1-8B"},
      {"Llama-3.2-1B.json", "Llama-3.2-1B"},
      {"Qwen2.5-7B.pt.trace.json", "Qwen2.5-7B"},
      {"v1.2.trace.json", "v1.2"},
  };
  for (const auto& c : cases) {
    std::ofstream(Path(c.file)) << text;
    const Result r = Run({"summarize", "--trace", Path(c.file), "--out-dir", Path("out")});
    ASSERT_EQ(r.exit_code, 0) << c.file << "\n" << r.err;
    const fs::path summary = dir_ / "out" / (std::string(c.name) + "_summary.json");
    ASSERT_TRUE(fs::exists(summary)) << summary;
    EXPECT_NE(Slurp(summary).find("\"trace_file\": \"" + std::string(c.file) + "\""),
              std::string::npos);
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "out"), fs::directory_iterator()), 8);
}

// A second trace whose default (or given) name is that of an existing summary of another trace
// is refused, and the first summary stays as it was; the same trace again replaces its own.
TEST_F(ReliabilityOutputsTest, ASummaryOfAnotherTraceIsNeverReplaced) {
  const std::string text = Slurp(kKinetoTrace);
  std::ofstream(Path("run.json")) << text;
  std::ofstream(Path("run.json.zst"));  // stands for the compressed copy: never read
  ASSERT_EQ(Run({"summarize", "--trace", Path("run.json"), "--out-dir", Path("out")}).exit_code, 0);
  const std::string first = Slurp(dir_ / "out" / "run_summary.json");
  fs::create_directories(dir_ / "other");
  std::ofstream(dir_ / "other" / "run.pt.trace.json") << text;
  Result r = Run({"summarize", "--trace", (dir_ / "other" / "run.pt.trace.json").string(),
                  "--out-dir", Path("out")});
  EXPECT_EQ(r.exit_code, 66) << r.err;
  EXPECT_NE(r.err.find("refusing to replace the summary of another trace (run.json)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--name"), std::string::npos);
  EXPECT_EQ(Slurp(dir_ / "out" / "run_summary.json"), first);
  // An explicit --name that lands on it is refused too.
  std::ofstream(Path("b.json")) << text;
  r = Run({"summarize", "--trace", Path("b.json"), "--name", "run", "--out-dir", Path("out")});
  EXPECT_EQ(r.exit_code, 66) << r.err;
  // The same trace again: its own summary is replaced.
  r = Run({"summarize", "--trace", Path("run.json"), "--out-dir", Path("out")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Named apart, the other trace is summarized.
  r = Run({"summarize", "--trace", (dir_ / "other" / "run.pt.trace.json").string(), "--name",
           "run-other", "--out-dir", Path("out")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// ---- Output size ----

// 1200 kernels named by one 1 MiB string: a 1.2 MB trace whose timeline would be 2.4 GB.
// Refused before anything is written, with the hint.
TEST_F(ReliabilityOutputsTest, AnOutputFarLargerThanItsInputIsRefused) {
  const std::string trace = WriteNsys("names.sqlite", 1200, "void k" + std::string(1 << 20, 'x'));
  ASSERT_LT(fs::file_size(trace), uint64_t{16} << 20);
  const Result r = Run({"export", "--trace", trace, "--chrome-trace", Path("e.json")});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("refusing to write an output of about"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("DECODEPROF_MAX_OUTPUT_BYTES"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(Path("e.json")));
  EXPECT_TRUE(Temporaries(dir_).empty());
  // Standard output too.
  const Result to_stdout = Run({"export", "--trace", trace, "--chrome-trace", "-"});
  EXPECT_EQ(to_stdout.exit_code, 65);
  EXPECT_TRUE(to_stdout.out.empty());
}

// The per-dispatch CSV of summarize under a small limit: refused, and no other output of the
// run is left behind either.
TEST_F(ReliabilityOutputsTest, APerDispatchCsvOverTheLimitIsRefusedWithNoOutput) {
  const ScopedEnv limit("DECODEPROF_MAX_OUTPUT_BYTES", "300");
  const Result r = Run({"summarize", "--trace", kKinetoTrace.string(), "--name", "k", "--out-dir",
                        Path("out"), "--emit-dispatches"});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("--emit-dispatches"), std::string::npos) << r.err;
  EXPECT_TRUE(!fs::exists(Path("out")) || fs::is_empty(Path("out")));
  // Without the per-dispatch rows the run is small enough.
  const Result ok =
      Run({"summarize", "--trace", kKinetoTrace.string(), "--name", "k", "--out-dir", Path("out")});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// ---- Errors honoured by every command ----

// 200 kernels that all run at once on one GPU (more than the 128 a GPU can run): the error
// dispatches_overlap_impossible. Export writes nothing and exits 65, as summarize does.
TEST_F(ReliabilityOutputsTest, ExportStopsOnErrorDiagnosticsLikeSummarize) {
  std::string events;
  for (int i = 0; i < 200; ++i) {
    events += std::string(i ? "," : "") +
              R"({"ph": "X", "cat": "kernel", "name": "gemv", "pid": 0, "tid": 7, "ts": 10.0, )"
              R"("dur": 50.0, "args": {"device": 0, "stream": 7, "correlation": )" +
              std::to_string(i + 1) + "}}";
  }
  const std::string trace = Path("overlap.json");
  std::ofstream(trace) << R"({"schemaVersion": 1, "traceEvents": [)" << events << "]}";
  const Result e = Run({"export", "--trace", trace, "--chrome-trace", Path("e.json")});
  EXPECT_EQ(e.exit_code, 65) << e.err;
  EXPECT_NE(e.err.find("dispatches_overlap_impossible"), std::string::npos) << e.err;
  EXPECT_FALSE(fs::exists(Path("e.json")));
  // Summarize refuses the trace too (this one has no decode loop to find either).
  const Result s = Run({"summarize", "--trace", trace, "--out-dir", Path("out")});
  EXPECT_EQ(s.exit_code, 65) << s.err;
  EXPECT_TRUE(Temporaries(dir_).empty());
  // 20 at once is a warning only: the timeline is written.
  events.clear();
  for (int i = 0; i < 20; ++i) {
    events += std::string(i ? "," : "") +
              R"({"ph": "X", "cat": "kernel", "name": "gemv", "pid": 0, "tid": 7, "ts": 10.0, )"
              R"("dur": 50.0, "args": {"device": 0, "stream": 7, "correlation": )" +
              std::to_string(i + 1) + "}}";
  }
  std::ofstream(trace) << R"({"schemaVersion": 1, "traceEvents": [)" << events << "]}";
  const Result w = Run({"export", "--trace", trace, "--chrome-trace", Path("e.json")});
  EXPECT_EQ(w.exit_code, 0) << w.err;
  EXPECT_TRUE(fs::exists(Path("e.json")));
}

}  // namespace
}  // namespace decodeprof
