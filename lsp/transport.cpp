#include "lsp/transport.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <optional>

namespace tl::lsp {
namespace {

constexpr size_t kMaxHeaderLine = 4096;  // a header line longer than this is not a header
constexpr size_t kChunk = 64 * 1024;

std::ptrdiff_t ReadFd(int fd, char* buffer, size_t size) {
  for (;;) {
    const ssize_t n = ::read(fd, buffer, size);
    if (n < 0 && errno == EINTR) continue;
    return n;
  }
}

bool IEqualsAscii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    const char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

FrameReader::FrameReader(Source source, void* context, size_t max_body)
    : source_(source), context_(context), max_body_(max_body) {}

FrameReader FrameReader::ForFd(int fd, size_t max_body) {
  FrameReader reader(nullptr, nullptr, max_body);
  reader.fd_ = fd;
  return reader;
}

bool FrameReader::Fill() {
  if (pos_ > 0 && pos_ == buffer_.size()) {
    buffer_.clear();
    pos_ = 0;
  } else if (pos_ > kChunk) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  const size_t old = buffer_.size();
  buffer_.resize(old + kChunk);
  const std::ptrdiff_t n = fd_ >= 0 ? ReadFd(fd_, buffer_.data() + old, kChunk)
                                    : source_(context_, buffer_.data() + old, kChunk);
  buffer_.resize(old + static_cast<size_t>(n > 0 ? n : 0));
  return n > 0;
}

bool FrameReader::ReadLine(std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  for (;;) {
    const size_t newline = buffer_.find('\n', pos_);
    const size_t end = newline == std::string::npos ? buffer_.size() : newline;
    if (!too_long) {
      line.append(buffer_, pos_, end - pos_);
      if (line.size() > kMaxHeaderLine) {
        too_long = true;
        line.clear();
      }
    }
    if (newline != std::string::npos) {
      pos_ = newline + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return true;
    }
    pos_ = buffer_.size();
    if (!Fill()) return false;
  }
}

bool FrameReader::Skip(size_t count) {
  while (count > 0) {
    if (pos_ == buffer_.size() && !Fill()) return false;
    const size_t take = std::min(count, buffer_.size() - pos_);
    pos_ += take;
    count -= take;
  }
  return true;
}

ReadResult FrameReader::Next() {
  std::string line;
  bool too_long = false;
  std::optional<size_t> length;
  std::string problem;
  bool any_header = false;
  // Headers, up to the blank line. Blank lines before any header are skipped (some clients send a
  // stray line end after a body).
  for (;;) {
    if (!ReadLine(line, too_long)) return EndOfInput{};
    if (too_long) {
      problem = "a header line over 4096 bytes";
      any_header = true;
      continue;
    }
    if (line.empty()) {
      if (!any_header) continue;
      break;
    }
    any_header = true;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      problem = "a header line without a colon";
      continue;
    }
    const std::string_view name = Trim(std::string_view(line).substr(0, colon));
    const std::string_view value = Trim(std::string_view(line).substr(colon + 1));
    if (IEqualsAscii(name, "Content-Length")) {
      size_t n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
        problem = "a Content-Length that is not a number";
      } else {
        length = n;
      }
    }
  }
  if (!length) {
    return FrameError{problem.empty() ? std::string("a frame without a Content-Length header") : problem};
  }
  if (*length > max_body_) {
    if (!Skip(*length)) return EndOfInput{};
    return FrameError{"a message of " + std::to_string(*length) + " bytes, over the limit of " +
                      std::to_string(max_body_) + " bytes"};
  }
  Frame frame;
  frame.body.reserve(*length);
  while (frame.body.size() < *length) {
    if (pos_ == buffer_.size() && !Fill()) return EndOfInput{};
    const size_t take = std::min(*length - frame.body.size(), buffer_.size() - pos_);
    frame.body.append(buffer_, pos_, take);
    pos_ += take;
  }
  if (!problem.empty()) return FrameError{problem};
  return frame;
}

bool FrameWriter::Write(std::string_view body) {
  const std::string header = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  const std::lock_guard lock(mu_);
  for (std::string_view part : {std::string_view(header), body}) {
    while (!part.empty()) {
      const ssize_t n = ::write(fd_, part.data(), part.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      part.remove_prefix(static_cast<size_t>(n));
    }
  }
  return true;
}

}  // namespace tl::lsp
