// `check --watch` for real: the binary runs in the background with its output going to a file, the test
// edits the watched folder and waits (polling the file, up to 10 s each) for each new pass, then stops it
// with SIGINT. Also the flags --watch refuses, and a watched folder that is deleted.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "cli_support.h"

using tl::test::CliDir;
using tl::test::ReadText;
using tl::test::RunTorchlint;
using tl::test::TempFolder;

namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr std::string_view kClean = "x = 1\n";
// A script with findings (and safe fixes).
std::string Finding() { return ReadText(CliDir() / "inputs" / "demo" / "train.py"); }
constexpr std::string_view kWatching = "Watching for file changes.";
constexpr auto kPatience = std::chrono::seconds(10);

// torchlint running in the background, stdout and stderr into one file.
class Background {
 public:
  Background(const std::vector<std::string>& args, const fs::path& cwd, const fs::path& output) : output_(output) {
    std::vector<std::string> argv{tl::test::TorchlintExe().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      const int out = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int in = ::open("/dev/null", O_RDONLY);
      if (out < 0 || in < 0 || ::chdir(cwd.c_str()) != 0) ::_exit(127);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(out, 2);
      std::vector<char*> raw;
      raw.reserve(argv.size() + 1);
      for (std::string& arg : argv) raw.push_back(arg.data());
      raw.push_back(nullptr);
      ::execv(raw[0], raw.data());
      ::_exit(127);
    }
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  ~Background() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }

  std::string Output() const { return ReadText(output_); }

  // Polls the output until `count` pass-end lines are there; false after the patience runs out.
  bool WaitForPasses(size_t count) const {
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    while (std::chrono::steady_clock::now() < deadline) {
      if (Count(Output(), kWatching) >= count) return true;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return false;
  }

  // Sends `signal` and waits for the exit status; -1 when it did not exit within the patience.
  int Stop(int signal) {
    ::kill(pid_, signal);
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
    return -1;
  }

  // Waits for the process to exit by itself.
  int Exit() { return Stop(0); }

  static size_t Count(const std::string& text, std::string_view what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
  }

 private:
  fs::path output_;
  pid_t pid_ = -1;
};

// The output of pass `n` (1-based): what follows the (n-1)th pass-end line, up to the nth.
std::string Pass(const std::string& output, size_t n) {
  size_t begin = 0;
  for (size_t i = 1; i < n; ++i) begin = output.find(kWatching, begin) + kWatching.size();
  const size_t end = output.find(kWatching, begin);
  return output.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

}  // namespace

TEST_CASE("check --watch checks again after each change, new subfolders included, and exits 0 on SIGINT") {
  TempFolder project;
  TempFolder io;
  project.Write("pkg/train.py", kClean);
  Background watch({"check", "--watch", "--output-format", "concise", "pkg"}, project.path(), io.path() / "out");
  REQUIRE_MESSAGE(watch.WaitForPasses(1), watch.Output());
  CHECK(Pass(watch.Output(), 1).find("train.py:") == std::string::npos);

  project.Write("pkg/train.py", Finding());  // a finding appears
  REQUIRE_MESSAGE(watch.WaitForPasses(2), watch.Output());
  const std::string second = Pass(watch.Output(), 2);
  CHECK(second.find("File change detected: pkg/train.py; checking again.") != std::string::npos);
  CHECK(second.find("pkg/train.py:") != std::string::npos);

  project.Write("pkg/notes.txt", "not a source\n");  // no pass for this
  project.Write("pkg/train.py", kClean);             // the finding goes
  REQUIRE_MESSAGE(watch.WaitForPasses(3), watch.Output());
  const std::string third = Pass(watch.Output(), 3);
  CHECK(third.find("pkg/train.py:") == std::string::npos);
  CHECK(third.find("notes.txt") == std::string::npos);

  project.Write("pkg/models/deep/net.py", Finding());  // a file in a new subfolder
  REQUIRE_MESSAGE(watch.WaitForPasses(4), watch.Output());
  CHECK(Pass(watch.Output(), 4).find("pkg/models/deep/net.py:") != std::string::npos);

  // An editor's save: a temporary file written, then renamed over the source.
  project.Write("pkg/models/deep/.net.py.swp", kClean);
  fs::rename(project.path() / "pkg/models/deep/.net.py.swp", project.path() / "pkg/models/deep/net.py");
  REQUIRE_MESSAGE(watch.WaitForPasses(5), watch.Output());
  CHECK(Pass(watch.Output(), 5).find("pkg/models/deep/net.py:") == std::string::npos);

  CHECK(watch.Stop(SIGINT) == 0);
  CHECK(Background::Count(watch.Output(), kWatching) == 5);
}

TEST_CASE("check --watch --fix does not check again because of its own writes") {
  TempFolder project;
  TempFolder io;
  const std::string script = Finding();
  const fs::path file = project.Write("train.py", script);
  Background watch({"check", "--watch", "--fix", "."}, project.path(), io.path() / "out");
  REQUIRE_MESSAGE(watch.WaitForPasses(1), watch.Output());
  if (ReadText(file) == script) {
    MESSAGE("skipped: no rule offers a safe fix on the demo script");
    CHECK(watch.Stop(SIGINT) == 0);
    return;
  }
  // Had the fix's write counted, its pass would come first and name train.py.
  project.Write("other.py", kClean);
  REQUIRE_MESSAGE(watch.WaitForPasses(2), watch.Output());
  const std::string output = watch.Output();
  CHECK(Background::Count(output, "File change detected") == 1);
  CHECK(output.find("File change detected: other.py; checking again.") != std::string::npos);
  CHECK(watch.Stop(SIGINT) == 0);
}

TEST_CASE("check --watch ends with exit 2 and one line when the watched folder is deleted") {
  TempFolder project;
  TempFolder io;
  project.Write("pkg/train.py", kClean);
  Background watch({"check", "--watch", "pkg"}, project.path(), io.path() / "out");
  REQUIRE_MESSAGE(watch.WaitForPasses(1), watch.Output());
  fs::remove_all(project.path() / "pkg");
  CHECK(watch.Exit() == 2);
  const std::string output = watch.Output();
  CHECK(output.find("error: pkg: the watched folder was deleted or moved; stopped watching\n") != std::string::npos);
}

TEST_CASE("check --watch refuses stdin, --diff and --annotate, and a missing path, as usage errors") {
  TempFolder project;
  project.Write("train.py", kClean);
  const auto from_stdin = RunTorchlint({"check", "--watch", "-"}, project.path(), kClean);
  CHECK(from_stdin.exit_code == 2);
  CHECK(from_stdin.err ==
        "error: --watch cannot be combined with - (stdin): it checks files on disk again as they change\n");
  const auto diff = RunTorchlint({"check", "--watch", "--diff", "train.py"}, project.path());
  CHECK(diff.exit_code == 2);
  CHECK(diff.err == "error: --watch cannot be combined with --diff: it checks files on disk again as they change\n");
  const auto annotate = RunTorchlint({"check", "--watch", "--trace", "t.json", "--annotate", "o.json", "train.py"},
                                     project.path());
  CHECK(annotate.exit_code == 2);
  CHECK(annotate.err ==
        "error: --watch cannot be combined with --annotate: it checks files on disk again as they change\n");
  const auto missing = RunTorchlint({"check", "--watch", "nowhere"}, project.path());
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "error: nowhere: no such file or folder to watch; check the path\n");
  CHECK(missing.out.empty());
}
