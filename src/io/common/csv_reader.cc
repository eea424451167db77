#include "src/io/common/csv_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "src/base/file_io.h"

namespace decodeprof::io {
namespace {

constexpr size_t kMinBufferSize = 64;

// The first byte in [p, end) equal to a, b or c, or `end`. Scans 16 bytes at a time where
// SSE2 exists (every x86-64), byte by byte elsewhere and for the last few bytes. Used for
// quoted fields (kernel names are long); unquoted fields are mostly short numbers, for which
// the byte loop below measured faster than any vector scan.
inline const char* FindAny(const char* p, const char* end, char a, char b, char c) {
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(a);
  const __m128i vb = _mm_set1_epi8(b);
  const __m128i vc = _mm_set1_epi8(c);
  while (end - p >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)),
                                     _mm_cmpeq_epi8(x, vc));
    const int mask = _mm_movemask_epi8(hit);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p != end && *p != a && *p != b && *p != c) ++p;
  return p;
}

// Bytes that end an unquoted field.
constexpr std::array<bool, 256> kEndsUnquoted = [] {
  std::array<bool, 256> table{};
  table[static_cast<unsigned char>(',')] = true;
  table[static_cast<unsigned char>('\n')] = true;
  table[static_cast<unsigned char>('\r')] = true;
  return table;
}();

// End of the unquoted field starting at p: the next ',', LF or CR, or `end`.
// `sentinel`: a byte that ends a field is stored at *end, so the loop needs no bounds check.
inline const char* FindUnquotedEnd(const char* p, const char* end, bool sentinel) {
  if (sentinel) {
    const auto ends = [](const char* q) { return kEndsUnquoted[static_cast<unsigned char>(*q)]; };
    for (;; p += 4) {
      if (ends(p)) return p;
      if (ends(p + 1)) return p + 1;
      if (ends(p + 2)) return p + 2;
      if (ends(p + 3)) return p + 3;
    }
  }
  while (p != end && !kEndsUnquoted[static_cast<unsigned char>(*p)]) ++p;
  return p;
}

#if defined(__SSE2__)
// Bit i set where p[i] == c, for the 64 bytes at p.
struct Block {
  explicit Block(const char* p) {
    for (int i = 0; i < 4; ++i)
      x[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + ptrdiff_t{16} * i));
  }
  // Whether any of the 64 bytes is c (cheaper than Mask(c) != 0).
  bool Any(char c) const {
    const __m128i v = _mm_set1_epi8(c);
    const __m128i hits =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x[0], v), _mm_cmpeq_epi8(x[1], v)),
                     _mm_or_si128(_mm_cmpeq_epi8(x[2], v), _mm_cmpeq_epi8(x[3], v)));
    return _mm_movemask_epi8(hits) != 0;
  }
  uint64_t Mask(char c) const {
    const __m128i v = _mm_set1_epi8(c);
    uint64_t m = 0;
    for (int i = 0; i < 4; ++i) {
      m |= uint64_t{static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x[i], v)))} << (16 * i);
    }
    return m;
  }
  __m128i x[4];
};
#endif

// Bit i = XOR of bits 0..i: with quote positions in, the bytes from an opening quote up to
// (not including) its closing quote.
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

inline const char* Find(const char* begin, const char* end, char c) {
  return static_cast<const char*>(std::memchr(begin, c, static_cast<size_t>(end - begin)));
}

}  // namespace

CsvReader::CsvReader(std::string where, const Options& options)
    : where_(std::move(where)), options_(options) {
  options_.buffer_size = std::max(options_.buffer_size, kMinBufferSize);
  fields_.resize(128);
}

CsvReader::~CsvReader() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

base::StatusOr<std::unique_ptr<CsvReader>> CsvReader::Open(const std::string& path) {
  return Open(path, Options());
}

base::StatusOr<std::unique_ptr<CsvReader>> CsvReader::Open(const std::string& path,
                                                           const Options& options) {
  if (FileCompression(path) != Compression::kNone) {
    if (options.start_offset != 0) {
      return base::IoError(path, "cannot seek in a compressed file (to byte " +
                                     std::to_string(options.start_offset) + ")");
    }
    DP_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, InputStream::Open(path));
    std::unique_ptr<CsvReader> reader = FromFd(-1, /*owns_fd=*/false, path, options);
    reader->stream_ = std::move(stream);
    return reader;
  }
  // A regular file only (a FIFO, pipe or device is refused at once: base::OpenInputFile).
  DP_ASSIGN_OR_RETURN(const int fd, base::OpenInputFile(path));
  if (options.start_offset != 0 &&
      (options.start_offset < 0 || ::lseek(fd, options.start_offset, SEEK_SET) < 0)) {
    ::close(fd);
    return base::IoError(path, "cannot seek to byte " + std::to_string(options.start_offset));
  }
  ::posix_fadvise(fd, options.start_offset, 0, POSIX_FADV_SEQUENTIAL);
  std::unique_ptr<CsvReader> reader = FromFd(fd, /*owns_fd=*/true, path, options);
  reader->data_offset_ = options.start_offset;
  return reader;
}

std::unique_ptr<CsvReader> CsvReader::FromFd(int fd, bool owns_fd, std::string where,
                                             const Options& options) {
  std::unique_ptr<CsvReader> reader(new CsvReader(std::move(where), options));
  reader->fd_ = fd;
  reader->owns_fd_ = owns_fd;
  reader->capacity_ = reader->options_.buffer_size;
  reader->owned_.reset(new char[reader->capacity_ + 1]);  // + the sentinel
  reader->owned_[0] = '\n';
  reader->sentinel_ = true;
  reader->data_ = reader->owned_.get();
  return reader;
}

int64_t CsvReader::NextLineStart(const std::string& path, int64_t offset, size_t max_scan) {
  if (offset < 0) return -1;
  const base::StatusOr<int> opened = base::OpenInputFile(path);
  if (!opened.ok()) return -1;
  const int fd = *opened;
  std::array<char, 4096> chunk;
  int64_t result = -1;
  for (size_t scanned = 0; scanned < max_scan && result < 0;) {
    const size_t want = std::min(chunk.size(), max_scan - scanned);
    const ssize_t n = ::pread(fd, chunk.data(), want, offset + static_cast<int64_t>(scanned));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (const char* lf = Find(chunk.data(), chunk.data() + n, '\n')) {
      result = offset + static_cast<int64_t>(scanned) + (lf - chunk.data()) + 1;
    }
    scanned += static_cast<size_t>(n);
  }
  ::close(fd);
  return result;
}

std::unique_ptr<CsvReader> CsvReader::FromString(std::string_view text, std::string where) {
  return FromString(text, std::move(where), Options());
}

std::unique_ptr<CsvReader> CsvReader::FromString(std::string_view text, std::string where,
                                                 const Options& options) {
  std::unique_ptr<CsvReader> reader(new CsvReader(std::move(where), options));
  reader->data_ = text.data();
  reader->capacity_ = text.size();
  reader->end_ = text.size();
  reader->eof_ = true;
  return reader;
}

bool CsvReader::Refill() {
  if (pos_ > 0) {
    std::memmove(owned_.get(), owned_.get() + pos_, end_ - pos_);
    data_offset_ += static_cast<int64_t>(pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (end_ == capacity_) {  // one record fills the whole buffer: grow it
    if (capacity_ >= options_.max_record_bytes) {
      status_ = base::DataError(
          base::AtLine(where_, next_line_),
          "record is longer than " + std::to_string(options_.max_record_bytes) + " bytes",
          "a quote that is never closed makes the rest of the file one field");
      return false;
    }
    const size_t grown = std::min(capacity_ * 2, std::max(options_.max_record_bytes, capacity_));
    std::unique_ptr<char[]> buffer(new char[grown + 1]);
    std::memcpy(buffer.get(), owned_.get(), end_);
    owned_ = std::move(buffer);
    data_ = owned_.get();
    capacity_ = grown;
  }
  if (stream_ != nullptr) {
    const size_t n = stream_->Read(owned_.get() + end_, capacity_ - end_);
    if (n == 0 && !stream_->status().ok()) {
      status_ = stream_->status();
      return false;
    }
    end_ += n;
    eof_ = n == 0;
    owned_[end_] = '\n';
    return true;
  }
  for (;;) {
    const ssize_t n = ::read(fd_, owned_.get() + end_, capacity_ - end_);
    if (n > 0) {
      end_ += static_cast<size_t>(n);
      owned_[end_] = '\n';
      return true;
    }
    if (n == 0) {
      eof_ = true;
      owned_[end_] = '\n';
      return true;
    }
    if (errno != EINTR) {
      status_ = base::IoError(where_, std::string("cannot read: ") + std::strerror(errno));
      return false;
    }
  }
}

bool CsvReader::Next() {
  if (done_) return false;
  if (!started_) {
    started_ = true;
    while (end_ < 3 && !eof_) {
      if (!Refill()) {
        done_ = true;
        return false;
      }
    }
    if (options_.skip_utf8_bom && data_offset_ == 0 && end_ >= 3 &&
        std::memcmp(data_, "\xEF\xBB\xBF", 3) == 0) {
      pos_ = 3;
    }
  }
  for (;;) {
    Parse result = Parse::kNeedMore;
    if (pos_ < end_) {
      result = ParseRecord();
    } else if (eof_) {
      done_ = true;
      size_ = 0;
      return false;
    }
    if (result == Parse::kRecord) {
      for (const Fixup& f : fixups_) {
        fields_[f.index] = std::string_view(scratch_.data() + f.offset, f.size);
      }
      line_ = next_line_;
      offset_ = data_offset_ + static_cast<int64_t>(pos_);
      next_line_ += pending_lines_;
      pos_ = record_end_;
      return true;
    }
    if (result == Parse::kError || !Refill()) {
      done_ = true;
      size_ = 0;
      return false;
    }
  }
}

void CsvReader::AppendUnescaped(const char* begin, const char* end) {
  // Quoted content: every "" stands for one ".
  while (begin < end) {
    const char* q = Find(begin, end, '"');
    if (q == nullptr) {
      scratch_.append(begin, end);
      return;
    }
    scratch_.append(begin, q + 1);
    begin = q + 2;
  }
}

CsvReader::Parse CsvReader::Terminate(const char* p) {
  // `p` is at LF or CR.
  const char* const end = data_ + end_;
  if (*p == '\r') {
    if (p + 1 == end && !eof_) return Parse::kNeedMore;  // CRLF may be split
    p += (p + 1 < end && p[1] == '\n') ? 2 : 1;
  } else {
    ++p;
  }
  ++pending_lines_;
  record_end_ = static_cast<size_t>(p - data_);
  return Parse::kRecord;
}

// The common case, 64 bytes at a time: a record that ends with LF and holds no CR, no line
// break inside quotes and no quote other than those that open a field at its start and close it
// just before its ',' or LF (so no "" and no text after a closing quote). Anything else, or a
// record that reaches into the last 64 bytes of the data, returns false and is left to the byte
// loop, which knows every rule; for these records both give the same fields.
bool CsvReader::ParsePlainRecord(const char* p, const char* end) {
#if defined(__SSE2__)
  uint64_t inside_carry = 0;  // all ones while a quoted field goes on from the previous block
  uint64_t prev_ends = 1;     // bit 0: the byte before the block ended a field (or none is)
  const char* field = p;
  for (; end - p > 64; p += 64) {
    const Block block(p);
    // Only the bytes up to the first LF matter (the rest belong to the next record).
    const uint64_t lf = block.Mask('\n');
    const uint64_t last = lf & (0 - lf);
    const uint64_t upto = last != 0 ? last | (last - 1) : ~uint64_t{0};
    if (block.Any('\r') && (block.Mask('\r') & upto) != 0) return false;
    const uint64_t quotes = block.Mask('"') & upto;
    const uint64_t inside = quotes != 0 ? PrefixXor(quotes) ^ inside_carry : inside_carry;
    if ((last & inside) != 0) return false;  // a line break inside quotes
    const uint64_t ends = ((block.Mask(',') & upto) | last) & ~inside;
    const uint64_t opening = quotes & inside;
    const uint64_t closing = quotes & ~inside;
    if ((opening & ~((ends << 1) | prev_ends)) != 0) return false;
    if (((closing << 1) & ~ends) != 0) return false;
    if ((closing >> 63) != 0 && p[64] != ',' && p[64] != '\n') return false;
    if (size_ + 64 > fields_.size()) fields_.resize(2 * (size_ + 64));  // room for the block
    std::string_view* out = fields_.data() + size_;
    for (uint64_t bits = ends; bits != 0; bits &= bits - 1) {
      const char* const stop = p + __builtin_ctzll(bits);
      const size_t quoted = *field == '"' ? 1 : 0;
      *out++ = std::string_view(field + quoted, static_cast<size_t>(stop - field) - 2 * quoted);
      field = stop + 1;
    }
    size_ = static_cast<size_t>(out - fields_.data());
    if (last != 0) {
      pending_lines_ = 1;
      record_end_ = static_cast<size_t>(field - data_);
      return true;
    }
    inside_carry = 0 - (inside >> 63);
    prev_ends = ends >> 63;
  }
#else
  (void)p;
  (void)end;
#endif
  return false;
}

CsvReader::Parse CsvReader::ParseRecord() {
  size_ = 0;
  fixups_.clear();
  scratch_.clear();
  pending_lines_ = 0;
  const char* const end = data_ + end_;
  const char* p = data_ + pos_;
  if (*p == '\n' || *p == '\r') return Terminate(p);  // an empty line: no fields
  if (ParsePlainRecord(p, end)) return Parse::kRecord;
  size_ = 0;

  for (;;) {         // one field per iteration
    if (p == end) {  // the data ends right after a ','
      if (!eof_) return Parse::kNeedMore;
      AddField({});
      record_end_ = end_;
      return Parse::kRecord;
    }
    if (*p != '"') {
      const char* const q = FindUnquotedEnd(p, end, sentinel_);
      if (q == end && !eof_) return Parse::kNeedMore;
      AddField(std::string_view(p, static_cast<size_t>(q - p)));
      if (q == end) {
        record_end_ = end_;
        return Parse::kRecord;
      }
      if (*q == ',') {
        p = q + 1;
        continue;
      }
      return Terminate(q);
    }

    // Quoted: find the closing quote, counting the line breaks on the way.
    const char* const content = p + 1;
    const int64_t quote_line = next_line_ + pending_lines_;
    const char* close = nullptr;
    bool escaped = false;
    for (const char* q = content;;) {
      const char* r = FindAny(q, end, '"', '\n', '\r');
      if (r == end) {
        if (!eof_) return Parse::kNeedMore;
        status_ = base::DataError(base::AtLine(where_, quote_line),
                                  "quoted field is not closed before the end of the file");
        return Parse::kError;
      }
      if (r + 1 == end && !eof_) return Parse::kNeedMore;  // a "" or CRLF may be split
      if (*r != '"') {
        if (*r == '\n' || r + 1 == end || r[1] != '\n') ++pending_lines_;  // CRLF counts at LF
        q = r + 1;
        continue;
      }
      if (r + 1 != end && r[1] == '"') {
        escaped = true;
        q = r + 2;
        continue;
      }
      close = r;
      break;
    }
    p = close + 1;
    if (p != end && *p != ',' && *p != '\n' && *p != '\r') {
      const Parse result = ParseJunkAfterQuote(p, content, close, escaped);
      if (result != Parse::kRecord) return result;
    } else if (escaped) {
      const size_t offset = scratch_.size();
      AppendUnescaped(content, close);
      fixups_.push_back({size_, offset, scratch_.size() - offset});
      AddField({});
    } else {
      AddField(std::string_view(content, static_cast<size_t>(close - content)));
    }
    if (p == end) {
      record_end_ = end_;
      return Parse::kRecord;
    }
    if (*p == ',') {
      ++p;
      continue;
    }
    return Terminate(p);
  }
}

// Python's non-strict reader appends whatever follows a closing quote, up to the next
// separator, to the field ("ab"c → abc); such a field is built in scratch_.
CsvReader::Parse CsvReader::ParseJunkAfterQuote(const char*& p, const char* content,
                                                const char* close, bool escaped) {
  const char* const end = data_ + end_;
  const char* const q = FindUnquotedEnd(p, end, sentinel_);
  if (q == end && !eof_) return Parse::kNeedMore;
  const size_t offset = scratch_.size();
  if (escaped) {
    AppendUnescaped(content, close);
  } else {
    scratch_.append(content, close);
  }
  scratch_.append(p, q);
  fixups_.push_back({size_, offset, scratch_.size() - offset});
  AddField({});
  p = q;
  return Parse::kRecord;
}

ExpectedRows::ExpectedRows(const std::string& path) : per_byte_(1.0 / 64) {
  constexpr size_t kSample = size_t{1} << 20;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  std::vector<char> head;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    head.resize(kSample);
    const ssize_t n = ::read(fd, head.data(), head.size());
    head.resize(n > 0 ? static_cast<size_t>(n) : 0);
  }
  ::close(fd);
  const auto lines = static_cast<size_t>(std::count(head.begin(), head.end(), '\n'));
  if (lines >= 64) {
    per_byte_ = std::max(static_cast<double>(lines) / static_cast<double>(head.size()), 1.0 / 1024);
  }
}

size_t ExpectedRows::In(uintmax_t bytes) const {
  return static_cast<size_t>(std::min<uintmax_t>(
      static_cast<uintmax_t>(static_cast<double>(bytes) * per_byte_ * 1.1) + 4096,
      uintmax_t{1} << 26));
}

}  // namespace decodeprof::io
