// The decompressing byte stream (io::InputStream over gzip, zstd and xz; input_stream.h), in
// memory. Two modes, by the first byte:
//   even  the rest is the file: whatever it decodes to, Rewind gives the same bytes and the
//         same error again, and an error names "fuzz:byte N" with N within the input;
//   odd   the rest is compressed here (codec from the second byte), cut at a length the third
//         byte chooses: the stream gives a prefix of the original, all of it only without
//         error, and a cut stream ends in a kData error.
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "src/io/common/input_stream.h"
#include "tests/fuzz/fuzz_support.h"

namespace decodeprof {
namespace {

constexpr size_t kMaxOut = size_t{64} << 20;  // a decompression bomb is read this far only

std::string Compress(int codec, std::string_view text) {
  std::string out;
  if (codec == 0) {
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    out.resize(deflateBound(&z, text.size()) + 32);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
  } else if (codec == 1) {
    out.resize(ZSTD_compressBound(text.size()));
    out.resize(ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 1));
  } else {
    out.resize(lzma_stream_buffer_bound(text.size()));
    size_t pos = 0;
    lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, nullptr,
                            reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                            reinterpret_cast<uint8_t*>(out.data()), &pos, out.size());
    out.resize(pos);
  }
  return out;
}

// Everything the stream gives (up to kMaxOut), in reads of `chunk` bytes.
std::string Drain(io::InputStream& in, size_t chunk) {
  std::string out, buffer(chunk, '\0');
  for (size_t n; out.size() < kMaxOut && (n = in.Read(buffer.data(), chunk)) > 0;) {
    out.append(buffer, 0, n);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 3, size - 3);
  if ((data[0] & 1) == 0) {
    const std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
    auto in = io::InputStream::FromMemory(file, "fuzz");
    if (!in.ok()) return 0;
    const std::string first = Drain(**in, 1 + data[0] * 37u);
    const base::Status error = (*in)->status();
    if (!error.ok() && error.where() != "fuzz") {
      FUZZ_CHECK(error.where().rfind("fuzz:byte ", 0) == 0);
      FUZZ_CHECK(std::stoull(error.where().substr(10)) <= file.size());
    }
    (*in)->Rewind();
    const std::string second = Drain(**in, 4096);
    if (first.size() < kMaxOut) {
      FUZZ_CHECK(first == second);
      FUZZ_CHECK((*in)->status().ok() == error.ok());
    }
    return 0;
  }
  const std::string packed = Compress(data[1] % 3, rest);
  const size_t keep = packed.size() * (data[2] + 1u) / 256u;
  const std::string cut = packed.substr(0, keep);
  auto in = io::InputStream::FromMemory(cut, "fuzz");
  FUZZ_CHECK(in.ok());
  if (!(*in)->compressed()) {
    FUZZ_CHECK(keep < 6);  // too short to show its magic bytes: read as it is
    return 0;
  }
  const std::string got = Drain(**in, 1 + data[1] * 13u);
  FUZZ_CHECK(got.size() <= rest.size());
  FUZZ_CHECK(rest.substr(0, got.size()) == got);
  if (keep == packed.size()) {
    FUZZ_CHECK((*in)->status().ok());
    FUZZ_CHECK(got.size() == rest.size());
  } else {
    FUZZ_CHECK((*in)->status().kind() == base::ErrorKind::kData);
  }
  return 0;
}

}  // namespace decodeprof
