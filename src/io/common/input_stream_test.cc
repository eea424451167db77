#include "src/io/common/input_stream.h"
#include "src/io/common/testing/compress.h"

#include <gtest/gtest.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "tests/support/temp_dir.h"

namespace decodeprof::io {
namespace {

using test_codecs::Gzip;
using test_codecs::Xz;
using test_codecs::Zstd;

// Several MB of text that does not compress to nothing, so that blocks and refills are many.
std::string Text() {
  std::string text;
  for (int i = 0; text.size() < (size_t{3} << 20); ++i) {
    text += "{\"name\": \"kernel_" + std::to_string(i % 977) +
            "\", \"ts\": " + std::to_string(i * 7919 % 100003) + "},\n";
  }
  return text;
}

// Everything a stream gives, read `chunk` bytes at a time.
std::string ReadAll(InputStream& in, size_t chunk) {
  std::string out;
  std::string buffer(chunk, '\0');
  for (size_t n; (n = in.Read(buffer.data(), chunk)) > 0;) out.append(buffer, 0, n);
  return out;
}

// a == b, or where they first differ (gtest's diff of MBs of text takes minutes).
::testing::AssertionResult Same(const std::string& a, const std::string& b) {
  if (a == b) return ::testing::AssertionSuccess();
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return ::testing::AssertionFailure()
         << "sizes " << a.size() << " and " << b.size() << ", first difference at byte " << i;
}

struct Codec {
  const char* name;
  Compression kind;
  std::string (*compress)(const std::string&);
};
const Codec kCodecs[] = {{"gzip", Compression::kGzip, Gzip},
                         {"zstd", Compression::kZstd, Zstd},
                         {"xz", Compression::kXz, Xz}};

TEST(InputStream, DecodesEachCodecAndRewinds) {
  const std::string text = Text();
  for (const Codec& codec : kCodecs) {
    SCOPED_TRACE(codec.name);
    const std::string packed = codec.compress(text);
    EXPECT_EQ(DetectCompression(packed), codec.kind);
    auto in = InputStream::FromMemory(packed, "t");
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    EXPECT_EQ((*in)->compression(), codec.kind);
    EXPECT_TRUE(Same(ReadAll(**in, 4093), text));
    EXPECT_TRUE((*in)->status().ok());
    EXPECT_EQ((*in)->position(), text.size());
    (*in)->Rewind();
    EXPECT_TRUE(Same(ReadAll(**in, size_t{3} << 20), text));
  }
}

TEST(InputStream, PlainFileAndConcatenatedMembers) {
  const std::string text = Text();
  const decodeprof::testing::TempDir temp("dp_input_");
  const std::string path = temp.Path("input");
  { std::ofstream(path, std::ios::binary) << text; }
  auto plain = InputStream::Open(path);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE((*plain)->compressed());
  EXPECT_EQ((*plain)->file_bytes(), text.size());
  EXPECT_TRUE(Same(ReadAll(**plain, 1 << 16), text));
  // gzip -d reads concatenated members as one content; zstd frames and xz streams alike.
  for (const Codec& codec : kCodecs) {
    SCOPED_TRACE(codec.name);
    {
      std::ofstream(path, std::ios::binary)
          << codec.compress("first part\n") << codec.compress(text);
    }
    auto in = InputStream::Open(path);
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    EXPECT_TRUE(Same(ReadAll(**in, 1 << 16), "first part\n" + text));
    EXPECT_TRUE((*in)->status().ok()) << (*in)->status().ToString();
    EXPECT_TRUE(
        Same(ReadWholeInput(path, size_t{1} << 30, "a log").value(), "first part\n" + text));
  }
}

// A file cut short: every byte before the cut that the codec could decode is delivered, then a
// kData error at the file's end, naming it.
TEST(InputStream, TruncatedIsADataErrorAtTheEnd) {
  const std::string text = Text();
  for (const Codec& codec : kCodecs) {
    SCOPED_TRACE(codec.name);
    const std::string packed = codec.compress(text);
    for (const size_t keep : {size_t{6}, packed.size() / 2, packed.size() - 1}) {
      const std::string cut = packed.substr(0, keep);
      auto in = InputStream::FromMemory(cut, "trace.json.gz");
      ASSERT_TRUE(in.ok());
      const std::string got = ReadAll(**in, 1 << 16);
      EXPECT_LE(got.size(), text.size());  // all of it when only the trailer is missing
      EXPECT_TRUE(Same(got, text.substr(0, got.size())));
      const base::Status& s = (*in)->status();
      EXPECT_EQ(s.kind(), base::ErrorKind::kData);
      EXPECT_EQ(s.where(), "trace.json.gz:byte " + std::to_string(keep));
      EXPECT_EQ(s.message(), "truncated " + std::string(codec.name) +
                                 " data: the file ends after " + std::to_string(got.size()) +
                                 " decompressed bytes");
    }
  }
}

// Damage in the middle: a kData error at a byte of the compressed file, no crash.
TEST(InputStream, CorruptIsADataErrorWithItsPosition) {
  const std::string text = Text();
  for (const Codec& codec : kCodecs) {
    SCOPED_TRACE(codec.name);
    std::string packed = codec.compress(text);
    for (size_t i = packed.size() / 3; i < packed.size() / 3 + 64; ++i) packed[i] ^= 0x5a;
    auto in = InputStream::FromMemory(packed, "t.zst");
    ASSERT_TRUE(in.ok());
    ReadAll(**in, 1 << 16);
    const base::Status& s = (*in)->status();
    ASSERT_EQ(s.kind(), base::ErrorKind::kData) << s.ToString();
    EXPECT_EQ(s.where().rfind("t.zst:byte ", 0), 0u) << s.where();
    EXPECT_NE(s.message().find(codec.name), std::string::npos) << s.message();
    const uint64_t at = std::stoull(s.where().substr(11));
    EXPECT_LE(at, packed.size());
  }
}

TEST(InputStream, TrailingGarbageAfterGzip) {
  const std::string packed = Gzip("abc") + "junk";
  auto in = InputStream::FromMemory(packed, "t");
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(ReadAll(**in, 100), "abc");
  EXPECT_EQ((*in)->status().where(), "t:byte " + std::to_string(packed.size() - 4));
  EXPECT_EQ((*in)->status().message(),
            "bytes that are not gzip data follow the gzip stream, after 3 decompressed bytes");
}

TEST(InputStream, RefusesCompressionsItDoesNotDecode) {
  for (const auto& [bytes, name] : {std::pair<std::string, std::string>{"BZh91AY&SY", "bzip2"},
                                    {std::string("PK\x03\x04rest", 8), "zip"},
                                    {std::string("\x04\x22\x4d\x18rest", 8), "lz4"}}) {
    auto in = InputStream::FromMemory(bytes, "t");
    ASSERT_FALSE(in.ok());
    EXPECT_EQ(in.status().kind(), base::ErrorKind::kData);
    EXPECT_EQ(in.status().message(),
              "the file is " + name + "-compressed, which decodeprof does not decompress");
  }
  EXPECT_EQ(DetectCompression("{\"traceEvents\""), Compression::kNone);
  EXPECT_EQ(DetectCompression(""), Compression::kNone);
  EXPECT_EQ(InputStream::Open("/nonexistent/x.gz").status().kind(), base::ErrorKind::kIo);
}

}  // namespace
}  // namespace decodeprof::io
