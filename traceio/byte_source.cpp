#include "traceio/byte_source.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/core.h>

namespace tl::trace {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Raw bytes from a file or from memory, before any decompression.
class RawInput {
 public:
  virtual ~RawInput() = default;
  virtual SourceRead Read(char* dst, size_t capacity) = 0;
};

class FileInput final : public RawInput {
 public:
  explicit FileInput(FilePtr file) : file_(std::move(file)) {}
  SourceRead Read(char* dst, size_t capacity) override {
    SourceRead r;
    r.bytes = std::fread(dst, 1, capacity, file_.get());
    if (r.bytes == 0 && std::ferror(file_.get()) != 0) r.error = fmt::format("read error: {}", std::strerror(errno));
    return r;
  }

 private:
  FilePtr file_;
};

class StringInput final : public RawInput {
 public:
  explicit StringInput(std::string data) : data_(std::move(data)) {}
  SourceRead Read(char* dst, size_t capacity) override {
    size_t n = std::min(capacity, data_.size() - pos_);
    std::memcpy(dst, data_.data() + pos_, n);
    pos_ += n;
    return {n, {}};
  }

 private:
  std::string data_;
  size_t pos_ = 0;
};

class PlainSource final : public ByteSource {
 public:
  PlainSource(std::unique_ptr<RawInput> input, std::string prefix, uint64_t size)
      : input_(std::move(input)), prefix_(std::move(prefix)), size_(size) {}
  SourceRead Read(char* dst, size_t capacity) override {
    if (prefix_pos_ < prefix_.size()) {
      size_t n = std::min(capacity, prefix_.size() - prefix_pos_);
      std::memcpy(dst, prefix_.data() + prefix_pos_, n);
      prefix_pos_ += n;
      return {n, {}};
    }
    SourceRead r = input_->Read(dst, capacity);
    read_ += r.bytes;
    return r;
  }
  uint64_t StoredSize() const override { return size_; }
  uint64_t StoredRead() const override { return prefix_.size() + read_; }

 private:
  std::unique_ptr<RawInput> input_;
  std::string prefix_;  // the bytes read while sniffing the magic
  size_t prefix_pos_ = 0;
  uint64_t size_;
  uint64_t read_ = 0;
};

// Inflates gzip (and concatenated gzip members) with zlib's streaming API; only a 256 KiB window of
// compressed input is held at a time.
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<RawInput> input, std::string prefix, uint64_t size, SourceLimits limits)
      : input_(std::move(input)), in_(kInSize), limits_(limits), size_(size) {
    std::memcpy(in_.data(), prefix.data(), prefix.size());
    stream_.next_in = reinterpret_cast<Bytef*>(in_.data());
    stream_.avail_in = static_cast<uInt>(prefix.size());
    consumed_ = prefix.size();
    // 16 + MAX_WBITS: expect a gzip header.
    init_ok_ = inflateInit2(&stream_, 16 + MAX_WBITS) == Z_OK;
  }
  ~GzipSource() override {
    if (init_ok_) inflateEnd(&stream_);
  }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  bool compressed() const override { return true; }
  uint64_t StoredSize() const override { return size_; }
  uint64_t StoredRead() const override { return consumed_; }

  SourceRead Read(char* dst, size_t capacity) override {
    if (!init_ok_) return {0, "cannot initialise zlib"};
    if (finished_ || capacity == 0) return {};
    stream_.next_out = reinterpret_cast<Bytef*>(dst);
    stream_.avail_out = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
    const uInt want = stream_.avail_out;
    while (stream_.avail_out > 0) {
      if (stream_.avail_in == 0) {
        SourceRead raw = input_->Read(in_.data(), in_.size());
        if (!raw.error.empty()) return {0, raw.error};
        if (raw.bytes == 0) {
          // The compressed stream ended without its trailer: hand back what was inflated; the reader sees
          // a truncated JSON document and says so. Nothing inflated at all is no trace to read.
          finished_ = true;
          if (produced_ == 0 && want == stream_.avail_out && !member_done_) {
            return {0, fmt::format("truncated gzip data: the {} bytes hold no complete block", consumed_)};
          }
          break;
        }
        consumed_ += raw.bytes;
        stream_.next_in = reinterpret_cast<Bytef*>(in_.data());
        stream_.avail_in = static_cast<uInt>(raw.bytes);
      }
      int rc = inflate(&stream_, Z_NO_FLUSH);
      if (rc == Z_OK) member_done_ = false;
      if (rc == Z_STREAM_END) {
        member_done_ = true;
        // Another gzip member may follow (`cat a.gz b.gz`); garbage after the last one is ignored.
        if (inflateReset(&stream_) != Z_OK) return {0, "zlib reset failed"};
        continue;
      }
      if (rc == Z_BUF_ERROR && stream_.avail_in == 0) continue;  // needs more input
      if (rc != Z_OK) {
        if (member_done_ || produced_ > 0) {
          // Trailing garbage after a complete member, or a corrupt block: stop at what we have.
          finished_ = true;
          if (!member_done_)
            return {0, fmt::format("corrupt gzip data after {} decompressed bytes: {}", produced_,
                                   stream_.msg != nullptr ? stream_.msg : "inflate error")};
          break;
        }
        return {0, fmt::format("not valid gzip data: {}", stream_.msg != nullptr ? stream_.msg : "inflate error")};
      }
    }
    size_t n = want - stream_.avail_out;
    produced_ += n;
    if (produced_ > limits_.max_decompressed_bytes) {
      return {0,
              fmt::format("gzip input expands past the {} MiB cap (a gz bomb?); raise --max-decompressed-mb "
                          "if the trace is genuinely this large",
                          limits_.max_decompressed_bytes >> 20),
              true};
    }
    if (produced_ > limits_.ratio_check_after && consumed_ > 0 &&
        static_cast<double>(produced_) / static_cast<double>(consumed_) > limits_.max_ratio) {
      return {0,
              fmt::format("gzip input expands more than {:.0f}x ({} MiB from {} KiB), which no profiler trace does "
                          "(a gz bomb?)",
                          limits_.max_ratio, produced_ >> 20, consumed_ >> 10),
              true};
    }
    return {n, {}};
  }

 private:
  static constexpr size_t kInSize = 256 * 1024;
  std::unique_ptr<RawInput> input_;
  std::vector<char> in_;
  z_stream stream_{};
  SourceLimits limits_;
  uint64_t size_ = 0;
  uint64_t consumed_ = 0;
  uint64_t produced_ = 0;
  bool init_ok_ = false;
  bool finished_ = false;
  bool member_done_ = false;
};

std::unique_ptr<ByteSource> Wrap(std::unique_ptr<RawInput> input, uint64_t size, const SourceLimits& limits) {
  std::string prefix(2, '\0');
  size_t got = 0;
  while (got < 2) {
    SourceRead r = input->Read(prefix.data() + got, 2 - got);
    if (r.bytes == 0) break;
    got += r.bytes;
  }
  prefix.resize(got);
  if (got == 2 && static_cast<unsigned char>(prefix[0]) == 0x1f && static_cast<unsigned char>(prefix[1]) == 0x8b) {
    return std::make_unique<GzipSource>(std::move(input), std::move(prefix), size, limits);
  }
  return std::make_unique<PlainSource>(std::move(input), std::move(prefix), size);
}

}  // namespace

std::unique_ptr<ByteSource> OpenSource(const std::string& path, const SourceLimits& limits, std::string& error) {
  // Opening a named pipe would wait for a writer, forever; devices and sockets are no trace either.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    error = S_ISDIR(st.st_mode)
                ? fmt::format("{}: is a folder; pass the folder to `torchlint trace`, which reads each rank's file",
                              path)
                : fmt::format(
                      "{}: not a regular file (a pipe, socket or device); pass a trace file written by "
                      "torch.profiler",
                      path);
    return nullptr;
  }
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    error = fmt::format("{}: cannot open: {}", path, std::strerror(errno));
    return nullptr;
  }
  uint64_t size = 0;
  if (std::fseek(file.get(), 0, SEEK_END) == 0) {
    const auto end = std::ftell(file.get());  // long, as ftell returns it
    if (end > 0) size = static_cast<uint64_t>(end);
    std::fseek(file.get(), 0, SEEK_SET);
  }
  return Wrap(std::make_unique<FileInput>(std::move(file)), size, limits);
}

std::unique_ptr<ByteSource> MemorySource(std::string data, const SourceLimits& limits) {
  uint64_t size = data.size();
  return Wrap(std::make_unique<StringInput>(std::move(data)), size, limits);
}

}  // namespace tl::trace
