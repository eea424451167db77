// InputStream: the bytes of a trace file as its importer reads them, decompressed on the fly
// when the file is gzip, zstd or xz-compressed (vLLM and SGLang write `*.pt.trace.json.gz`).
// Part of decodeprof_io_common; the codecs are Debian's zlib, libzstd and liblzma.
//
// The compression is told by the file's magic bytes, never by its name: gzip 1f 8b (a zlib
// stream is read too), zstd 28 b5 2f fd, xz fd 37 7a 58 5a 00. Concatenated gzip members,
// zstd frames and xz streams are read one after the other, as gzip -d, zstd -d and xz -d do.
// bzip2 ("BZh"), zip ("PK\3\4") and lz4 (04 22 4d 18) files are recognized and refused
// (Open's kData error names the compression), never read as text.
//
// Memory is bounded: a compressed file is decoded a block at a time by a read-ahead thread
// (kBlock bytes per block, at most kBlocks of them waiting), so that decompression overlaps
// with the importer's parse; nothing holds the whole file. An uncompressed file is read with
// read(2) straight into the caller's buffer.
//
// Errors (status(), after Read returned 0 — the bytes decoded before the damage are all
// delivered first):
//   kIo,   where = path: a failed read.
//   kData, where = "<path>:byte <N>", N = the 0-based offset in the compressed file:
//     "corrupt gzip data (<the codec's message>), after <M> decompressed bytes" — N = where
//       the codec stopped (zstd, xz alike);
//     "truncated gzip data: the file ends after <M> decompressed bytes" — N = the file's size;
//     "bytes that are not gzip data follow the gzip stream, after <M> decompressed bytes" —
//       N = where they start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "src/base/status.h"

namespace decodeprof::io {

enum class Compression : uint8_t { kNone, kGzip, kZstd, kXz, kBzip2, kZip, kLz4 };

// The compression that the first bytes of a file show (kNone for anything else).
Compression DetectCompression(std::string_view head);
// "gzip", "zstd", "xz", "bzip2", "zip", "lz4" ("" for kNone).
std::string_view CompressionName(Compression c);
// True for the compressions InputStream decodes (gzip, zstd, xz) and for kNone.
bool CanDecompress(Compression c);
// The compression of the file at `path` (kNone when it cannot be read).
Compression FileCompression(const std::string& path);

class InputStream {
 public:
  static constexpr size_t kBlock = size_t{1} << 20;
  static constexpr size_t kBlocks = 4;

  // Opens `path`. Errors: kIo (missing, unreadable, a directory); kData for a compression
  // that is recognized but not decoded (bzip2, zip, lz4), naming it.
  static base::StatusOr<std::unique_ptr<InputStream>> Open(const std::string& path);
  // The same over bytes in memory (which must outlive the stream); `name` stands for the path.
  static base::StatusOr<std::unique_ptr<InputStream>> FromMemory(std::string_view bytes,
                                                                 std::string name);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Up to `n` bytes of the (decompressed) content into `out`; fewer only at the end of the
  // input, 0 at its end or after an error (then status() says which).
  size_t Read(char* out, size_t n);
  const base::Status& status() const { return status_; }
  // Back to the first byte (a second pass over the content).
  void Rewind();

  Compression compression() const { return compression_; }
  bool compressed() const { return compression_ != Compression::kNone; }
  const std::string& name() const { return name_; }
  // The size of the file itself (compressed), 0 when unknown.
  uint64_t file_bytes() const { return file_bytes_; }
  // Content bytes Read has returned since the start (or the last Rewind).
  uint64_t position() const { return position_; }

  class Source;
  class Decoder;

 private:
  InputStream() = default;
  class ReadAhead;
  base::Status Start();

  std::string name_;
  Compression compression_ = Compression::kNone;
  uint64_t file_bytes_ = 0;
  uint64_t position_ = 0;
  base::Status status_;
  std::unique_ptr<Source> source_;
  std::unique_ptr<ReadAhead> ahead_;  // compressed input only
};

// The whole (decompressed) content of the file at `path`, for importers that read whole files
// (bench logs), at most `max_bytes` of it. Errors: those of InputStream; kData
// base::TooLargeError ("larger than <N> MiB: not <kind>") beyond `max_bytes`.
base::StatusOr<std::string> ReadWholeInput(const std::string& path, size_t max_bytes,
                                           std::string_view kind);

}  // namespace decodeprof::io
