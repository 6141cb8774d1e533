#include "linter/cli/watch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/core.h>

#include "linter/cli/options.h"
#include "linter/core/fs.h"
#include "linter/engine/discovery.h"

namespace tl::cli {
namespace {

namespace fs = std::filesystem;

// How long the folders must stay quiet before a burst of events (an editor's temporary file, write and
// rename; a `git checkout`) counts as one change.
constexpr int kQuietMs = 150;
// A burst that never goes quiet (a generator rewriting sources) still gets a pass this often.
constexpr std::chrono::seconds kLongestBurst{2};
constexpr uint32_t kFolderEvents = IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
                                   IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

// SIGINT reaches the loop through a pipe, so that poll() wakes up; the handler does only what a signal
// handler may.
int g_signal_pipe[2] = {-1, -1};
std::atomic<int> g_interrupts{0};
std::atomic<bool> g_in_pass{false};

void OnInterrupt(int /*signal*/) {
  const int count = g_interrupts.fetch_add(1) + 1;
  if (g_in_pass.load() && count > 1) ::_exit(130);  // a second Ctrl-C does not wait for the pass
  const char byte = 'i';
  [[maybe_unused]] const ssize_t written = ::write(g_signal_pipe[1], &byte, 1);
}

// The files whose content sets a check's configuration: the config and the torch pin.
bool IsConfigName(std::string_view name) {
  if (name == "pyproject.toml" || name == "torchlint.toml") return true;
  return name.starts_with("requirements") && name.ends_with(".txt");
}

// Whether a change to a file of this name can change a check's result.
bool TriggersCheck(std::string_view name) {
  if (name.starts_with(".#")) return false;  // an editor's lock file, not a source
  if (name.size() > 3 && (name.ends_with(".py") || name.ends_with(".pyi"))) return true;
  return IsConfigName(name);
}

// A folder discovery never enters, so neither does the watch.
bool SkippedFolder(const fs::path& path) {
  std::error_code ec;
  return IsSkippedFolderName(path.filename().string()) || fs::exists(path / "pyvenv.cfg", ec);
}

std::string Now() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char text[16];
  if (std::strftime(text, sizeof text, "%H:%M:%S", &local) == 0) return "--:--:--";
  return text;
}

// A path as the user would write it from here.
std::string ForUser(const fs::path& path) {
  std::error_code ec;
  const fs::path relative = path.lexically_relative(fs::current_path(ec));
  if (ec || relative.empty() || *relative.begin() == "..") return path.string();
  return relative.generic_string();
}

std::optional<size_t> ContentHash(const fs::path& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return std::nullopt;
  return std::hash<std::string>{}(*text);
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

enum class Wake { kChanged, kInterrupted, kFailed };

class Watcher {
 public:
  Watcher() : inotify_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}

  // Watches every path; an error message when one cannot be watched.
  std::string Watch(const std::vector<std::string>& paths) {
    if (inotify_.get() < 0) return fmt::format("--watch: cannot start inotify: {}", std::strerror(errno));
    for (const std::string& path : paths) {
      std::error_code ec;
      const fs::path absolute = fs::absolute(path, ec).lexically_normal();
      struct stat st {};
      if (ec || ::stat(absolute.c_str(), &st) != 0) {
        return fmt::format("{}: no such file or folder to watch; check the path", path);
      }
      const bool folder = S_ISDIR(st.st_mode);
      const fs::path key = absolute.has_filename() ? absolute : absolute.parent_path();  // "dir/" is "dir"
      roots_.push_back({key, folder, path});
      if (folder) {
        if (std::string error = AddTree(key, nullptr); !error.empty()) return error;
      } else {
        file_roots_.insert(key);
        if (std::string error = AddFolder(key.parent_path(), false); !error.empty()) return error;
      }
    }
    return {};
  }

  // Waits for a change that matters, then for the burst it belongs to to end. `changed` gets the paths.
  Wake Wait(std::vector<fs::path>& changed) {
    bool relevant = false;
    std::chrono::steady_clock::time_point burst_started;
    for (;;) {
      if (relevant && std::chrono::steady_clock::now() - burst_started > kLongestBurst) break;
      std::array<pollfd, 2> fds{{{inotify_.get(), POLLIN, 0}, {g_signal_pipe[0], POLLIN, 0}}};
      const int ready = ::poll(fds.data(), fds.size(), relevant ? kQuietMs : -1);
      if (g_interrupts.load() > 0) return Wake::kInterrupted;
      if (ready < 0) {
        if (errno == EINTR) continue;
        error_ = fmt::format("--watch: waiting for changes failed: {}", std::strerror(errno));
        return Wake::kFailed;
      }
      if (ready == 0) break;  // quiet: the burst is over
      if ((fds[0].revents & POLLIN) != 0 && ReadEvents(changed) && !relevant) {
        relevant = true;
        burst_started = std::chrono::steady_clock::now();
      }
      if (!error_.empty()) return Wake::kFailed;
    }
    for (const Root& root : roots_) {
      std::error_code ec;
      const bool there = root.folder ? fs::is_directory(root.path, ec) : fs::exists(root.path, ec);
      if (!there) {
        error_ = fmt::format("{}: the watched {} was deleted or moved; stopped watching", root.display,
                             root.folder ? "folder" : "file");
        return Wake::kFailed;
      }
    }
    return Wake::kChanged;
  }

  // A pass wrote these files: their events do not count while the content is what it wrote.
  void WrittenByPass(const std::vector<fs::path>& written) {
    for (const fs::path& path : written) {
      if (auto hash = ContentHash(path)) written_[path.lexically_normal()] = *hash;
    }
  }

  const std::string& error() const { return error_; }

 private:
  struct Root {
    fs::path path;  // absolute
    bool folder = false;
    std::string display;  // as given
  };
  struct Folder {
    fs::path path;
    bool recursive = false;  // inside a watched folder tree (else only the folder of a watched file)
  };

  std::string AddFolder(const fs::path& dir, bool recursive) {
    const int wd = ::inotify_add_watch(inotify_.get(), dir.c_str(), kFolderEvents);
    if (wd < 0) {
      if (errno == ENOSPC) {
        return fmt::format(
            "{}: the inotify watch limit is reached; raise fs.inotify.max_user_watches, or watch a smaller folder",
            ForUser(dir));
      }
      if (errno == ENOENT) return {};  // gone already; its parent's events say so
      return fmt::format("{}: cannot watch the folder: {}", ForUser(dir), std::strerror(errno));
    }
    Folder& folder = folders_[wd];
    folder.path = dir;
    folder.recursive = folder.recursive || recursive;
    return {};
  }

  // Watches `root` and the folders below it that discovery enters; `found` gets the files there that
  // trigger a check (for a folder created while watching, whose files may predate its watch).
  std::string AddTree(const fs::path& root, std::vector<fs::path>* found) {
    std::vector<fs::path> stack{root};
    std::set<std::pair<dev_t, ino_t>> seen;
    while (!stack.empty()) {
      const fs::path dir = std::move(stack.back());
      stack.pop_back();
      struct stat st {};
      if (::stat(dir.c_str(), &st) != 0 || !seen.insert({st.st_dev, st.st_ino}).second) continue;
      if (std::string error = AddFolder(dir, true); !error.empty()) return error;
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        const fs::path& path = it->path();
        if (it->is_directory(type_ec)) {
          if (!SkippedFolder(path)) stack.push_back(path);
        } else if (found != nullptr && TriggersCheck(path.filename().string())) {
          found->push_back(path);
        }
      }
    }
    return {};
  }

  // Reads the queued events; true when one of them can change a check's result.
  bool ReadEvents(std::vector<fs::path>& changed) {
    alignas(inotify_event) char buffer[64 * 1024];
    bool relevant = false;
    for (;;) {
      const ssize_t got = ::read(inotify_.get(), buffer, sizeof buffer);
      if (got < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN) error_ = fmt::format("--watch: reading inotify events failed: {}", std::strerror(errno));
        return relevant;
      }
      if (got == 0) return relevant;
      for (ssize_t offset = 0; offset < got;) {
        const auto* event = reinterpret_cast<const inotify_event*>(buffer + offset);
        offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
        relevant = OnEvent(*event, changed) || relevant;
      }
    }
  }

  bool OnEvent(const inotify_event& event, std::vector<fs::path>& changed) {
    if ((event.mask & IN_Q_OVERFLOW) != 0) return true;  // events were lost: check again to be sure
    const auto folder = folders_.find(event.wd);
    if (folder == folders_.end()) return false;
    if ((event.mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) != 0) {
      // The folder is gone: Wait then tells whether it was a watched root.
      if ((event.mask & IN_IGNORED) != 0) folders_.erase(folder);
      return true;
    }
    if (event.len == 0) return false;
    const std::string name(event.name);  // NUL-padded
    const fs::path path = folder->second.path / name;
    if ((event.mask & IN_ISDIR) != 0) {
      if (!folder->second.recursive || SkippedFolder(path)) return false;
      if ((event.mask & (IN_CREATE | IN_MOVED_TO)) == 0) {
        changed.push_back(path);  // a folder deleted or moved away takes its sources with it
        return true;
      }
      std::vector<fs::path> found;
      if (std::string error = AddTree(path, &found); !error.empty()) error_ = error;
      changed.insert(changed.end(), found.begin(), found.end());
      return !found.empty();
    }
    // Beside a watched file, only that file and the configuration count.
    const bool matters = folder->second.recursive ? TriggersCheck(name)
                                                  : file_roots_.count(path) > 0 || IsConfigName(name);
    if (!matters) return false;
    if (auto it = written_.find(path); it != written_.end()) {
      if (ContentHash(path) == it->second) return false;  // what --fix wrote, not an edit
      written_.erase(it);
    }
    changed.push_back(path);
    return true;
  }

  FileDescriptor inotify_;
  std::vector<Root> roots_;
  std::set<fs::path> file_roots_;
  std::map<int, Folder> folders_;
  std::map<fs::path, size_t> written_;
  std::string error_;
};

void Announce(std::string_view what) { fmt::print(stderr, "[{}] {}\n", Now(), what); }

std::string DescribeChange(const std::vector<fs::path>& changed) {
  std::set<std::string> names;
  for (const fs::path& path : changed) names.insert(ForUser(path));
  if (names.empty()) return "File change detected; checking again.";
  if (names.size() == 1) return fmt::format("File change detected: {}; checking again.", *names.begin());
  return fmt::format("File change detected: {} and {} more; checking again.", *names.begin(), names.size() - 1);
}

// Installs the SIGINT handler for the watch's lifetime and restores the previous one after.
class InterruptGuard {
 public:
  InterruptGuard() {
    if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    installed_ = ::sigaction(SIGINT, &action, &previous_) == 0;
  }
  ~InterruptGuard() {
    if (installed_) ::sigaction(SIGINT, &previous_, nullptr);
    for (int& fd : g_signal_pipe) {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  bool installed() const { return installed_; }

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

}  // namespace

int WatchAndCheck(const std::vector<std::string>& paths, const CheckPass& pass) {
  InterruptGuard interrupts;
  if (!interrupts.installed())
    return UsageError(fmt::format("--watch: cannot handle SIGINT: {}", std::strerror(errno)));
  Watcher watcher;
  // Watched before the first pass, so that nothing saved during it is missed.
  if (std::string error = watcher.Watch(paths.empty() ? std::vector<std::string>{"."} : paths); !error.empty()) {
    return UsageError(error);
  }
  Announce("Starting check in watch mode.");
  for (;;) {
    std::vector<fs::path> written;
    g_in_pass.store(true);
    pass(written);
    g_in_pass.store(false);
    std::fflush(stdout);
    watcher.WrittenByPass(written);
    if (g_interrupts.load() > 0) return 0;
    Announce("Watching for file changes.");
    std::vector<fs::path> changed;
    switch (watcher.Wait(changed)) {
      case Wake::kInterrupted: return 0;
      case Wake::kFailed: return UsageError(watcher.error());
      case Wake::kChanged: Announce(DescribeChange(changed)); break;
    }
  }
}

}  // namespace tl::cli
