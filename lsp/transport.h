// The transport of `torchlint server`: JSON-RPC messages framed as LSP frames them (a `Content-Length`
// header, optionally a `Content-Type`, a blank line, then exactly that many bytes of body) over a pair
// of file descriptors. Reading is strict where the spec is and lenient where clients differ (header
// names in any case, `\n` alone as a line end). A frame that cannot be read is reported as a value
// and the reader goes on with the next frame when it can find one; only the end of input or a read
// error ends it. Writing is one frame per call, under a lock, so threads may write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <variant>

namespace tl::lsp {

// The largest body read, by default. Bigger frames are skipped (their bytes are read and dropped) and
// answered as an error: a 50 MB document must not take the server's memory with it.
inline constexpr size_t kDefaultMaxBody = 64u << 20;

struct Frame {
  std::string body;
};
// A frame the reader could not take: a header without Content-Length, a length that is not a number,
// a body over the limit. `message` is one line.
struct FrameError {
  std::string message;
};
struct EndOfInput {};

using ReadResult = std::variant<Frame, FrameError, EndOfInput>;

// Reads frames from a byte source. The source is a function so that tests and the fuzzer can feed
// bytes without a descriptor: it fills up to `size` bytes and returns how many (0 at the end, <0 on
// an error).
class FrameReader {
 public:
  using Source = std::ptrdiff_t (*)(void* context, char* buffer, size_t size);
  FrameReader(Source source, void* context, size_t max_body = kDefaultMaxBody);
  // A reader of a file descriptor (the server's stdin).
  static FrameReader ForFd(int fd, size_t max_body = kDefaultMaxBody);

  ReadResult Next();

 private:
  // Fills the buffer with at least one more byte; false at the end of input.
  bool Fill();
  // Reads one header line (without its terminator) into `line`; false at the end of input.
  bool ReadLine(std::string& line, bool& too_long);
  // Drops `count` body bytes.
  bool Skip(size_t count);

  Source source_ = nullptr;
  void* context_ = nullptr;
  int fd_ = -1;  // read directly when set (ForFd)
  size_t max_body_;
  std::string buffer_;
  size_t pos_ = 0;
};

// Writes frames to a file descriptor (the server's stdout). Thread-safe.
class FrameWriter {
 public:
  explicit FrameWriter(int fd) : fd_(fd) {}
  // False when the write failed (the client went away).
  bool Write(std::string_view body);

 private:
  int fd_;
  std::mutex mu_;
};

}  // namespace tl::lsp
