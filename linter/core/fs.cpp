#include "linter/core/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <fmt/core.h>

namespace tl {
namespace {

// Closes a file descriptor on scope exit.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

std::string Errno() { return std::strerror(errno); }

Result<std::string> ReadAll(int fd, const std::string& what, uint64_t max_bytes) {
  std::string data;
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Error{fmt::format("{}: is a directory", what)};
    if (S_ISREG(st.st_mode)) {
      if (static_cast<uint64_t>(st.st_size) > max_bytes) {
        return Error{fmt::format("{}: file is {} bytes, over the {} byte limit", what, st.st_size, max_bytes)};
      }
      data.reserve(static_cast<size_t>(st.st_size));
    }
  }
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{fmt::format("{}: cannot read: {}", what, Errno())};
    }
    if (n == 0) break;
    if (data.size() + static_cast<size_t>(n) > max_bytes) {
      return Error{fmt::format("{}: input is over the {} byte limit", what, max_bytes)};
    }
    data.append(buffer, static_cast<size_t>(n));
  }
  return data;
}

}  // namespace

Result<std::string> ReadFile(const std::filesystem::path& path, uint64_t max_bytes) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return Error{fmt::format("{}: cannot open: {}", path.string(), Errno())};
  return ReadAll(fd.get(), path.string(), max_bytes);
}

Result<std::string> ReadStdin(uint64_t max_bytes) { return ReadAll(STDIN_FILENO, "<stdin>", max_bytes); }

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  std::filesystem::path target = path;
  if (std::filesystem::is_symlink(path, ec)) {
    target = std::filesystem::canonical(path, ec);
    if (ec) return Error{fmt::format("{}: cannot resolve link: {}", path.string(), ec.message())};
  }
  mode_t mode = 0644;
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) mode = st.st_mode & 07777;

  std::random_device random;
  const auto temp = target.parent_path() /
                    fmt::format(".{}.torchlint-{:08x}.tmp", target.filename().string(), random());
  FileDescriptor fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (fd.get() < 0) return Error{fmt::format("{}: cannot create a temporary file: {}", target.string(), Errno())};
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = Errno();
      ::unlink(temp.c_str());
      return Error{fmt::format("{}: cannot write: {}; the file is unchanged", target.string(), why)};
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd.get()) != 0 || ::fchmod(fd.get(), mode) != 0 || ::close(fd.release()) != 0) {
    const std::string why = Errno();
    ::unlink(temp.c_str());
    return Error{fmt::format("{}: cannot write: {}; the file is unchanged", target.string(), why)};
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const std::string why = Errno();
    ::unlink(temp.c_str());
    return Error{fmt::format("{}: cannot replace: {}; the file is unchanged", target.string(), why)};
  }
  return Ok{};
}

}  // namespace tl
