// Compressed traces through the registry and the importers (src/io/common/input_stream.h),
// and the refusals of the files decodeprof knows and does not read (unreadable_formats.h).
#include <gtest/gtest.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "src/io/bench_log/bench_log.h"
#include "src/io/common/file_probe.h"
#include "src/io/common/testing/compress.h"
#include "src/io/importer_registry.h"
#include "src/io/kineto_json/kineto_json_importer.h"
#include "src/io/rocprofv3_csv/rocprofv3_csv_importer.h"
#include "src/io/unreadable_formats.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

using test_codecs::Gzip;
using test_codecs::Xz;
using test_codecs::Zstd;

namespace fs = std::filesystem;

struct Collect : trace::DispatchSink {
  trace::DispatchVector all;
  void Add(const trace::Dispatch& d) override { all.push_back(d); }
};

class CompressedInputTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_.path(); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  decodeprof::testing::TempDir temp_{"dp_compressed_"};
  fs::path dir_;
};

// A Kineto trace of `n` kernels.
std::string KinetoTrace(int n) {
  std::string text = "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1000000, \"traceEvents\": [";
  for (int i = 0; i < n; ++i) {
    if (i > 0) text += ",\n";
    text += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k" + std::to_string(i % 13) +
            "\", \"ts\": " + std::to_string(10 * i) + ".5, \"dur\": 3, \"args\": {\"device\": 0}}";
  }
  return text + "]}";
}

std::vector<std::pair<std::string, std::string>> Kernels(const std::string& path) {
  trace::StringPool names;
  Collect sink;
  const auto imported = ImportKinetoJson(path, names, sink);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  std::vector<std::pair<std::string, std::string>> out;
  for (const trace::Dispatch& d : sink.all) {
    out.emplace_back(std::string(names.Get(d.name)), std::to_string(d.start));
  }
  return out;
}

// Whatever the name says, the magic bytes decide; every codec gives what the plain file gives.
TEST_F(CompressedInputTest, KinetoTraceReadCompressedAsPlain) {
  const std::string text = KinetoTrace(60000);  // several MB: many blocks and windows
  const std::string plain = Write("plain.json", text);
  const auto want = Kernels(plain);
  ASSERT_EQ(want.size(), 60000u);
  for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"t.json.gz", Gzip(text)},
                                    {"t.json.zst", Zstd(text)},
                                    {"t.json.xz", Xz(text)},
                                    {"gzip_without_suffix.json", Gzip(text)}}) {
    SCOPED_TRACE(name);
    const std::string path = Write(name, bytes);
    auto importer = ResolveImporter(path, "auto");
    ASSERT_TRUE(importer.ok()) << importer.status().ToString();
    EXPECT_EQ((*importer)->name(), "kineto-json");
    EXPECT_TRUE(Kernels(path) == want);
  }
}

// Cut or damaged: kData naming the file and the byte of the compressed file, no partial
// success. A JSON error in a compressed file counts decompressed bytes.
TEST_F(CompressedInputTest, TruncatedOrCorruptKinetoTraceIsADataError) {
  const std::string text = KinetoTrace(20000);
  const std::string packed = Gzip(text);
  trace::StringPool names;
  Collect sink;
  const std::string cut = Write("cut.json.gz", packed.substr(0, packed.size() / 2));
  const auto truncated = ImportKinetoJson(cut, names, sink);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.status().exit_code(), 65);
  EXPECT_EQ(truncated.status().where(), cut + ":byte " + std::to_string(packed.size() / 2));
  EXPECT_EQ(truncated.status().message().rfind("truncated gzip data: the file ends after ", 0), 0u)
      << truncated.status().message();

  std::string damaged = packed;
  for (size_t i = damaged.size() / 2; i < damaged.size() / 2 + 32; ++i) damaged[i] = '\x55';
  const std::string bad = Write("bad.json.gz", damaged);
  const auto corrupt = ImportKinetoJson(bad, names, sink);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_EQ(corrupt.status().exit_code(), 65);
  EXPECT_EQ(corrupt.status().where().rfind(bad + ":byte ", 0), 0u) << corrupt.status().ToString();
  EXPECT_NE(corrupt.status().message().find("gzip data"), std::string::npos);

  const std::string broken_json = Write("broken.json.zst", Zstd("{\"traceEvents\": [{]}"));
  const auto json = ImportKinetoJson(broken_json, names, sink);
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().where(), broken_json + ":byte 18");
  EXPECT_EQ(json.status().message().rfind("malformed JSON", 0), 0u);

  // Damage in the first 64 KB: the probe of --format auto says so itself.
  const auto probed = ResolveImporter(Write("head.json.gz", packed.substr(0, 30)), "auto");
  ASSERT_FALSE(probed.ok());
  EXPECT_EQ(probed.status().exit_code(), 65);
  EXPECT_NE(probed.status().message().find("truncated gzip data"), std::string::npos);
}

TEST_F(CompressedInputTest, RocprofCsvAndBenchLogCompressed) {
  const std::string csv_path =
      std::string(DECODEPROF_SOURCE_DIR) + "/src/io/testdata/rocprofv3_1.3.5_kernel_trace.csv";
  std::ifstream in(csv_path, std::ios::binary);
  const std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(csv.empty());
  trace::StringPool names;
  Collect plain;
  ASSERT_TRUE(ImportRocprofv3Csv(csv_path, names, plain).ok());
  const std::string path = Write("kernel_trace.csv.xz", Xz(csv));
  auto importer = ResolveImporter(path, "auto");
  ASSERT_TRUE(importer.ok());
  EXPECT_EQ((*importer)->name(), "rocprofv3-csv");
  Collect packed;
  ASSERT_TRUE(ImportRocprofv3Csv(path, names, packed).ok());
  ASSERT_EQ(packed.all.size(), plain.all.size());
  for (size_t i = 0; i < plain.all.size(); ++i) {
    EXPECT_EQ(packed.all[i].name, plain.all[i].name);
    EXPECT_EQ(packed.all[i].start, plain.all[i].start);
    EXPECT_EQ(packed.all[i].line, plain.all[i].line);
  }
  // The several-thread import reads a compressed file on one thread, to the same rows.
  Collect first;
  CsvSplitOptions split;
  split.min_split_bytes = 1;
  split.min_part_bytes = 1;
  const auto parts = ImportRocprofv3CsvInParts(
      path, names, first, [](size_t, int64_t) -> trace::DispatchSink* { return nullptr; }, split);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_TRUE(parts->later.empty());
  EXPECT_EQ(first.all.size(), plain.all.size());

  const std::string log_path =
      std::string(DECODEPROF_SOURCE_DIR) + "/src/io/testdata/bench_decode.log";
  std::ifstream log_in(log_path, std::ios::binary);
  const std::string log((std::istreambuf_iterator<char>(log_in)), std::istreambuf_iterator<char>());
  const auto want = ParseBenchLog(log_path);
  const auto got = ParseBenchLog(Write("bench.log.gz", Gzip(log)));
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ(got->marks.size(), want->marks.size());
  EXPECT_FALSE(got->marks.empty());
}

// SQLite is read from a file: a compressed one is refused, saying to decompress it.
TEST_F(CompressedInputTest, CompressedSqliteIsRefused) {
  std::string sqlite("SQLite format 3\0", 16);
  sqlite.resize(4096, '\0');
  const std::string path = Write("trace.sqlite.gz", Gzip(sqlite));
  const auto r = ResolveImporter(path, "auto");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().exit_code(), 65);
  EXPECT_EQ(r.status().message(),
            "the file is gzip-compressed; an SQLite file (nsys, rocpd and native traces) is read "
            "only uncompressed");
  for (const char* format : {"nsys-sqlite", "rocpd", "native"}) {
    const Importer* importer = FindImporter(format);
    ASSERT_NE(importer, nullptr);
    trace::StringPool names;
    trace::NullSink sink;
    trace::TraceBuilder builder(names, sink);
    const base::Status s = importer->Import(path, builder);
    EXPECT_EQ(s.exit_code(), 65) << format << ": " << s.ToString();
    EXPECT_NE(s.message().find("gzip-compressed"), std::string::npos) << format;
  }
}

// Each refusal in one line (and a hint), quoting nothing of the file.
void ExpectRefusal(const base::StatusOr<const Importer*>& r, const std::string& says) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().exit_code(), 65);
  EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  EXPECT_LE(r.status().message().size() + r.status().hint().size(), 400u);
}

TEST_F(CompressedInputTest, KnownUnreadableFormatsAreNamed) {
  std::string rocprof = "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":908,\"command\":[\"";
  rocprof += std::string(100000, 'x') + "\"]}}]}";
  ExpectRefusal(ResolveImporter(Write("908_results.json", rocprof), "auto"),
                "rocprofv3's JSON output (--output-format json)");
  ExpectRefusal(ResolveImporter(Write("908_results.json.gz", Gzip(rocprof)), "auto"),
                "rocprofv3's JSON output");

  const std::string et =
      "{\n  \"schema\": \"1.1.1-chakra.0.0.4\", \"pid\": 1, \"time\": \"2024\", \"start_ts\": 5,\n"
      "  \"nodes\": [{\"name\": \"[pytorch|profiler|execution_trace|process]\", \"id\": 1}]}";
  ExpectRefusal(ResolveImporter(Write("et.json", et), "auto"), "a PyTorch execution trace");

  ExpectRefusal(ResolveImporter(Write("other.json", "[1, 2, 3]"), "auto"),
                "a JSON file that is no Chrome/Kineto trace");

  // Trace { repeated TracePacket packet = 1; }: records 0x0a <length> <bytes>.
  std::string pftrace;
  for (int i = 0; i < 5; ++i) {
    const std::string packet = std::string("\x08\x01\x10", 3) + static_cast<char>(i) + "clock";
    pftrace += '\x0a';
    pftrace += static_cast<char>(packet.size());
    pftrace += packet;
  }
  ExpectRefusal(ResolveImporter(Write("trace.pftrace", pftrace), "auto"),
                "a Perfetto protobuf trace (.pftrace)");
  EXPECT_TRUE(LooksLikePerfettoProtobuf(pftrace));
  EXPECT_FALSE(LooksLikePerfettoProtobuf("\nKernel_Name,Start\n"));
  EXPECT_FALSE(LooksLikePerfettoProtobuf("\n\nKernel_Name,Start_Timestamp\n"));

  ExpectRefusal(ResolveImporter(Write("t.json.bz2", "BZh91AY&SY rest"), "auto"),
                "the file is bzip2-compressed");

  // A real rocprofv3 CSV is still read, a Kineto trace too.
  EXPECT_EQ(ResolveImporter(Write("k.json", KinetoTrace(2)), "auto").value()->name(),
            "kineto-json");
}

// No error quotes more than 200 bytes of input: a one-line 1 MB "CSV" header.
TEST_F(CompressedInputTest, QuotedInputIsCut) {
  const std::string path = Write("wide.csv", "a," + std::string(1 << 20, 'h') + "\n1,2\n");
  trace::StringPool names;
  Collect sink;
  const auto r = ImportRocprofv3Csv(path, names, sink);
  ASSERT_FALSE(r.ok());
  EXPECT_LE(r.status().message().size(), 200u + 120u) << r.status().message().substr(0, 400);
  EXPECT_NE(r.status().message().find("characters)"), std::string::npos);
  EXPECT_EQ(base::Excerpt(std::string(300, 'a')), std::string(200, 'a') + "... (300 bytes)");
  EXPECT_EQ(base::Excerpt("a\nb"), "a\\x0ab");
  // A cut never splits a UTF-8 character: 'é' is 2 bytes, 199 + 2 > 200.
  EXPECT_EQ(base::InputPrefix(std::string(199, 'a') + "\xc3\xa9"), std::string(199, 'a'));
}

}  // namespace
}  // namespace decodeprof::io
