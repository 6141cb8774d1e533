#include "linter/core/process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <cstring>

namespace tl {

Result<ChildProcess> ChildProcess::Spawn(const std::vector<std::string>& argv) {
  if (argv.empty()) return Error{"no program to run"};
  int in[2];
  int out[2];
  if (::pipe(in) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  if (::pipe(out) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return Error{std::string("pipe: ") + std::strerror(errno)};
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));  // NOLINT: execv's signature
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return Error{std::string("fork: ") + std::strerror(errno)};
  if (pid == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDERR_FILENO);
    ::close(in[1]);
    ::close(out[0]);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ChildProcess child;
  child.pid_ = pid;
  child.in_ = in[1];
  child.out_ = out[0];
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(other.pid_), in_(other.in_), out_(other.out_) {
  other.pid_ = -1;
  other.in_ = -1;
  other.out_ = -1;
}

ChildProcess::~ChildProcess() {
  CloseInput();
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (out_ >= 0) ::close(out_);
}

void ChildProcess::CloseInput() {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

int ChildProcess::Wait() {
  CloseInput();
  if (pid_ <= 0) return -1;
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace tl
