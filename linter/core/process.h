// A child process with pipes to its stdin and from its stdout (its stderr goes to /dev/null): what the
// language server's tests and benchmark use to speak to `torchlint server`.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "linter/core/result.h"

namespace tl {

class ChildProcess {
 public:
  // Starts `argv[0]` with `argv`. An error when the pipes or the fork fail; an executable that cannot
  // be run exits with status 127.
  static Result<ChildProcess> Spawn(const std::vector<std::string>& argv);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ~ChildProcess();  // kills it when it still runs

  int in() const { return in_; }    // write end of its stdin
  int out() const { return out_; }  // read end of its stdout
  pid_t pid() const { return pid_; }
  void CloseInput();
  // Closes its stdin and waits: its exit status, or -1 when a signal ended it.
  int Wait();

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
};

}  // namespace tl
