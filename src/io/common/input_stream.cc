#include "src/io/common/input_stream.h"

#include <fcntl.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "src/base/file_io.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace decodeprof::io {

namespace {

bool StartsWith(std::string_view head, std::string_view magic) {
  return head.size() >= magic.size() && head.substr(0, magic.size()) == magic;
}

constexpr size_t kInBuffer = size_t{256} << 10;   // compressed bytes read at a time
constexpr size_t kFirstBlock = size_t{64} << 10;  // the first block: enough for a probe

}  // namespace

Compression DetectCompression(std::string_view head) {
  using std::string_view_literals::operator""sv;
  if (StartsWith(head, "\x1f\x8b"sv)) return Compression::kGzip;
  if (StartsWith(head, "\x28\xb5\x2f\xfd"sv)) return Compression::kZstd;
  if (StartsWith(head,
                 "\xfd"
                 "7zXZ\0"sv))
    return Compression::kXz;
  if (StartsWith(head, "BZh"sv) && head.size() >= 4 && head[3] >= '1' && head[3] <= '9') {
    return Compression::kBzip2;
  }
  if (StartsWith(head, "PK\x03\x04"sv)) return Compression::kZip;
  if (StartsWith(head, "\x04\x22\x4d\x18"sv)) return Compression::kLz4;
  return Compression::kNone;
}

std::string_view CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone:
      return "";
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
    case Compression::kXz:
      return "xz";
    case Compression::kBzip2:
      return "bzip2";
    case Compression::kZip:
      return "zip";
    case Compression::kLz4:
      return "lz4";
  }
  return "";
}

bool CanDecompress(Compression c) {
  return c == Compression::kNone || c == Compression::kGzip || c == Compression::kZstd ||
         c == Compression::kXz;
}

// The raw bytes: a file descriptor or memory.
class InputStream::Source {
 public:
  explicit Source(int fd) : fd_(fd) {}
  explicit Source(std::string_view bytes) : bytes_(bytes) {}
  ~Source() {
    if (fd_ >= 0) ::close(fd_);
  }
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  // Up to n bytes; 0 at the end; -1 on a read error (errno).
  ssize_t Read(char* out, size_t n) {
    if (fd_ < 0) {
      n = std::min(n, bytes_.size() - pos_);
      std::memcpy(out, bytes_.data() + pos_, n);
      pos_ += n;
      return static_cast<ssize_t>(n);
    }
    for (;;) {
      const ssize_t got = ::read(fd_, out, n);
      if (got >= 0 || errno != EINTR) return got;
    }
  }
  bool Rewind() {
    pos_ = 0;
    return fd_ < 0 || ::lseek(fd_, 0, SEEK_SET) == 0;
  }

 private:
  int fd_ = -1;
  std::string_view bytes_;
  size_t pos_ = 0;
};

// A codec over a Source: Fill decodes up to n content bytes, fewer only at the end or on an
// error (status()).
class InputStream::Decoder {
 public:
  Decoder(Source& source, const std::string& name, Compression c)
      : source_(source), name_(name), kind_(c), in_(new char[kInBuffer]) {}
  virtual ~Decoder() = default;
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  virtual size_t Fill(char* out, size_t n) = 0;
  const base::Status& status() const { return status_; }

 protected:
  // Reads more compressed bytes after the `keep` unconsumed ones at `next`; returns the
  // number now available from in_. False on a read error (status_ set).
  bool Refill(const uint8_t*& next, size_t& avail) {
    if (eof_) return true;
    if (avail > 0 && next != reinterpret_cast<const uint8_t*>(in_.get())) {
      std::memmove(in_.get(), next, avail);
    }
    const ssize_t got = source_.Read(in_.get() + avail, kInBuffer - avail);
    if (got < 0) {
      status_ = base::IoError(name_, std::string("cannot read: ") + std::strerror(errno));
      return false;
    }
    if (got == 0) eof_ = true;
    read_ += static_cast<uint64_t>(got);
    avail += static_cast<size_t>(got);
    next = reinterpret_cast<const uint8_t*>(in_.get());
    return true;
  }
  // The offset in the file of the next unconsumed compressed byte.
  uint64_t Offset(size_t avail) const { return read_ - avail; }
  // Sets the error; the decoder then returns what it produced before it.
  void Fail(uint64_t offset, const std::string& what) {
    status_ = base::DataError(name_ + ":byte " + std::to_string(offset), what);
  }
  std::string After() const { return "after " + std::to_string(produced_) + " decompressed bytes"; }
  void Corrupt(size_t avail, const std::string& detail) {
    Fail(Offset(avail),
         "corrupt " + std::string(CompressionName(kind_)) + " data (" + detail + "), " + After());
  }
  void Truncated() {
    Fail(read_,
         "truncated " + std::string(CompressionName(kind_)) + " data: the file ends " + After());
  }

  Source& source_;
  const std::string& name_;
  Compression kind_;
  std::unique_ptr<char[]> in_;
  bool eof_ = false;
  uint64_t read_ = 0;      // compressed bytes read from the source
  uint64_t produced_ = 0;  // content bytes decoded
  base::Status status_;
};

namespace {

class GzipDecoder final : public InputStream::Decoder {
 public:
  GzipDecoder(InputStream::Source& source, const std::string& name)
      : Decoder(source, name, Compression::kGzip) {
    // 15 + 32: a gzip or zlib header, told apart by zlib.
    if (inflateInit2(&z_, 15 + 32) != Z_OK) status_ = base::InternalError(name, "inflateInit2");
  }
  ~GzipDecoder() override { inflateEnd(&z_); }

  size_t Fill(char* out, size_t n) override {
    if (!status_.ok() || done_) return 0;
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(n);
    while (z_.avail_out > 0) {
      if (z_.avail_in < 2 && !eof_ && !Refill()) break;
      if (member_end_) {
        if (z_.avail_in == 0) {  // the last member ended with the file
          done_ = true;
          break;
        }
        if (z_.avail_in < 2 || z_.next_in[0] != 0x1f || z_.next_in[1] != 0x8b) {
          Fail(Offset(z_.avail_in),
               "bytes that are not gzip data follow the gzip stream, " + After());
          break;
        }
        inflateReset(&z_);
        member_end_ = false;
      }
      const uInt before = z_.avail_out;
      const int r = inflate(&z_, Z_NO_FLUSH);
      produced_ += before - z_.avail_out;
      if (r == Z_STREAM_END) {
        member_end_ = true;
        continue;
      }
      if (r == Z_OK) continue;
      if (r == Z_BUF_ERROR) {  // no progress: more input is needed
        if (eof_ && z_.avail_in == 0) {
          Truncated();
          break;
        }
        if (!Refill()) break;
        continue;
      }
      Corrupt(z_.avail_in, z_.msg != nullptr ? z_.msg : "inflate error " + std::to_string(r));
      break;
    }
    return n - z_.avail_out;
  }

 private:
  bool Refill() {
    const uint8_t* next = z_.next_in;
    size_t avail = z_.avail_in;
    if (!Decoder::Refill(next, avail)) return false;
    z_.next_in = const_cast<Bytef*>(next);
    z_.avail_in = static_cast<uInt>(avail);
    return true;
  }
  z_stream z_{};
  bool member_end_ = false;
  bool done_ = false;
};

class ZstdDecoder final : public InputStream::Decoder {
 public:
  ZstdDecoder(InputStream::Source& source, const std::string& name)
      : Decoder(source, name, Compression::kZstd), ds_(ZSTD_createDStream()) {
    if (ds_ == nullptr) status_ = base::InternalError(name, "ZSTD_createDStream");
  }
  ~ZstdDecoder() override { ZSTD_freeDStream(ds_); }

  size_t Fill(char* out, size_t n) override {
    if (!status_.ok()) return 0;
    ZSTD_outBuffer ob{out, n, 0};
    while (ob.pos < ob.size) {
      if (avail_ == 0 && !eof_ && !Refill(next_, avail_)) break;
      if (avail_ == 0 && eof_ && last_ == 0) break;  // every frame ended with the file
      ZSTD_inBuffer ib{next_, avail_, 0};
      const size_t before = ob.pos;
      last_ = ZSTD_decompressStream(ds_, &ob, &ib);
      next_ += ib.pos;
      avail_ -= ib.pos;
      produced_ += ob.pos - before;
      if (ZSTD_isError(last_)) {
        Corrupt(avail_, ZSTD_getErrorName(last_));
        break;
      }
      if (eof_ && avail_ == 0 && ob.pos == before && last_ != 0) {
        Truncated();
        break;
      }
    }
    return ob.pos;
  }

 private:
  ZSTD_DStream* ds_;
  const uint8_t* next_ = nullptr;
  size_t avail_ = 0;
  size_t last_ = 1;  // 0: the last frame is complete
};

std::string LzmaMessage(lzma_ret r) {
  switch (r) {
    case LZMA_FORMAT_ERROR:
      return "not in the .xz format";
    case LZMA_OPTIONS_ERROR:
      return "unsupported compression options";
    case LZMA_DATA_ERROR:
      return "the compressed data is corrupt";
    case LZMA_MEM_ERROR:
    case LZMA_MEMLIMIT_ERROR:
      return "out of memory";
    default:
      return "lzma error " + std::to_string(static_cast<int>(r));
  }
}

class XzDecoder final : public InputStream::Decoder {
 public:
  XzDecoder(InputStream::Source& source, const std::string& name)
      : Decoder(source, name, Compression::kXz) {
    if (lzma_stream_decoder(&s_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
      status_ = base::InternalError(name, "lzma_stream_decoder");
    }
  }
  ~XzDecoder() override { lzma_end(&s_); }

  size_t Fill(char* out, size_t n) override {
    if (!status_.ok() || done_) return 0;
    s_.next_out = reinterpret_cast<uint8_t*>(out);
    s_.avail_out = n;
    while (s_.avail_out > 0) {
      if (s_.avail_in == 0 && !eof_) {
        const uint8_t* next = s_.next_in;
        size_t avail = s_.avail_in;
        if (!Refill(next, avail)) break;
        s_.next_in = next;
        s_.avail_in = avail;
      }
      const size_t before = s_.avail_out;
      const lzma_ret r = lzma_code(&s_, eof_ && s_.avail_in == 0 ? LZMA_FINISH : LZMA_RUN);
      produced_ += before - s_.avail_out;
      if (r == LZMA_STREAM_END) {
        done_ = true;
        break;
      }
      if (r == LZMA_OK) continue;
      if (r == LZMA_BUF_ERROR) {
        Truncated();
      } else {
        Corrupt(s_.avail_in, LzmaMessage(r));
      }
      break;
    }
    return n - s_.avail_out;
  }

 private:
  lzma_stream s_ = LZMA_STREAM_INIT;
  bool done_ = false;
};

}  // namespace

// Decodes ahead of the reader on a thread of its own: blocks of up to kBlock bytes, at most
// kBlocks decoded and not yet read.
class InputStream::ReadAhead {
 public:
  ReadAhead(Source& source, const std::string& name, Compression c) {
    switch (c) {
      case Compression::kGzip:
        decoder_ = std::make_unique<GzipDecoder>(source, name);
        break;
      case Compression::kZstd:
        decoder_ = std::make_unique<ZstdDecoder>(source, name);
        break;
      default:
        decoder_ = std::make_unique<XzDecoder>(source, name);
        break;
    }
    thread_ = std::thread([this] { Produce(); });
  }
  ~ReadAhead() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Up to n bytes; 0 at the end or on an error (*status set).
  size_t Read(char* out, size_t n, base::Status* status) {
    size_t done = 0;
    while (done < n) {
      if (pos_ == current_.size()) {
        if (last_) break;
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !ready_.empty(); });
        if (!current_.empty() || current_.capacity() > 0) free_.push_back(std::move(current_));
        Block block = std::move(ready_.front());
        ready_.pop_front();
        lock.unlock();
        cv_.notify_all();
        current_ = std::move(block.bytes);
        pos_ = 0;
        if (block.last) {
          last_ = true;
          end_status_ = std::move(block.status);
        }
        continue;
      }
      const size_t take = std::min(n - done, current_.size() - pos_);
      std::memcpy(out + done, current_.data() + pos_, take);
      pos_ += take;
      done += take;
    }
    if (done < n && last_ && !end_status_.ok()) *status = end_status_;
    return done;
  }

 private:
  struct Block {
    std::vector<char> bytes;
    bool last = false;
    base::Status status;
  };
  void Produce() {
    size_t size = kFirstBlock;
    for (;;) {
      std::vector<char> bytes;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || ready_.size() < kBlocks; });
        if (stop_) return;
        if (!free_.empty()) {
          bytes = std::move(free_.back());
          free_.pop_back();
        }
      }
      bytes.resize(size);
      const size_t got = decoder_->Fill(bytes.data(), size);
      bytes.resize(got);
      Block block{std::move(bytes), got < size, decoder_->status()};
      const bool last = block.last;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ready_.push_back(std::move(block));
      }
      cv_.notify_all();
      if (last) return;
      size = kBlock;
    }
  }

  std::unique_ptr<Decoder> decoder_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Block> ready_;
  std::vector<std::vector<char>> free_;
  bool stop_ = false;
  // The reader's side.
  std::vector<char> current_;
  size_t pos_ = 0;
  bool last_ = false;
  base::Status end_status_;
  std::thread thread_;
};

InputStream::~InputStream() = default;

base::Status InputStream::Start() {
  char head[8];
  size_t got = 0;
  while (got < sizeof head) {
    const ssize_t n = source_->Read(head + got, sizeof head - got);
    if (n < 0) return base::IoError(name_, std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  compression_ = DetectCompression(std::string_view(head, got));
  if (!CanDecompress(compression_)) {
    return base::DataError(name_,
                           "the file is " + std::string(CompressionName(compression_)) +
                               "-compressed, which decodeprof does not decompress",
                           "decodeprof reads traces uncompressed or compressed with gzip, zstd "
                           "or xz (docs/trace-formats.md)");
  }
  if (!source_->Rewind()) {
    return base::IoError(name_, std::string("cannot read: ") + std::strerror(errno));
  }
  if (compressed()) ahead_ = std::make_unique<ReadAhead>(*source_, name_, compression_);
  return base::OkStatus();
}

base::StatusOr<std::unique_ptr<InputStream>> InputStream::Open(const std::string& path) {
  // A regular file only (a FIFO, pipe or device is refused at once: base::OpenInputFile).
  DP_ASSIGN_OR_RETURN(const int fd, base::OpenInputFile(path));
  std::unique_ptr<InputStream> in(new InputStream());
  in->name_ = path;
  in->source_ = std::make_unique<Source>(fd);
  struct stat st {};
  if (::fstat(fd, &st) == 0) in->file_bytes_ = static_cast<uint64_t>(st.st_size);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  DP_RETURN_IF_ERROR(in->Start());
  return in;
}

base::StatusOr<std::unique_ptr<InputStream>> InputStream::FromMemory(std::string_view bytes,
                                                                     std::string name) {
  std::unique_ptr<InputStream> in(new InputStream());
  in->name_ = std::move(name);
  in->source_ = std::make_unique<Source>(bytes);
  in->file_bytes_ = bytes.size();
  DP_RETURN_IF_ERROR(in->Start());
  return in;
}

size_t InputStream::Read(char* out, size_t n) {
  if (!status_.ok() || n == 0) return 0;
  size_t got = 0;
  if (ahead_ != nullptr) {
    got = ahead_->Read(out, n, &status_);
  } else {
    while (got < n) {
      const ssize_t r = source_->Read(out + got, n - got);
      if (r < 0) {
        status_ = base::IoError(name_, std::string("cannot read: ") + std::strerror(errno));
        break;
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
  }
  position_ += got;
  return got;
}

void InputStream::Rewind() {
  ahead_.reset();  // stops its thread before the source moves
  position_ = 0;
  status_ = base::OkStatus();
  if (!source_->Rewind()) {
    status_ = base::IoError(name_, std::string("cannot read: ") + std::strerror(errno));
    return;
  }
  if (compressed()) ahead_ = std::make_unique<ReadAhead>(*source_, name_, compression_);
}

Compression FileCompression(const std::string& path) {
  const base::StatusOr<int> opened = base::OpenInputFile(path);
  if (!opened.ok()) return Compression::kNone;
  const int fd = *opened;
  char head[8];
  const ssize_t n = ::pread(fd, head, sizeof head, 0);
  ::close(fd);
  return n > 0 ? DetectCompression(std::string_view(head, static_cast<size_t>(n)))
               : Compression::kNone;
}

base::StatusOr<std::string> ReadWholeInput(const std::string& path, size_t max_bytes,
                                           std::string_view kind) {
  DP_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> in, InputStream::Open(path));
  if (in->file_bytes() > max_bytes && !in->compressed()) {
    return base::TooLargeError(path, max_bytes, kind);
  }
  std::string content;
  size_t size = 0;
  for (;;) {
    content.resize(size + (size_t{1} << 16));
    const size_t got = in->Read(content.data() + size, content.size() - size);
    size += got;
    if (got == 0) break;
    if (size > max_bytes) return base::TooLargeError(path, max_bytes, kind);  // decompressed
  }
  content.resize(size);
  DP_RETURN_IF_ERROR(in->status());
  return content;
}

}  // namespace decodeprof::io
