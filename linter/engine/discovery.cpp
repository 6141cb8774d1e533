#include "linter/engine/discovery.h"

#include <sys/stat.h>
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <utility>

#include "linter/engine/path_pattern.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

using FileId = std::pair<dev_t, ino_t>;

constexpr std::array<std::string_view, 28> kSkippedFolders = {
    ".bzr",        ".direnv", ".eggs",    ".git",         ".git-rewrite",   ".hg",         ".ipynb_checkpoints",
    ".mypy_cache", ".nox",    ".pants.d", ".pyenv",       ".pytest_cache",  ".pytype",     ".ruff_cache",
    ".svn",        ".tox",    ".venv",    ".vscode",      "__pypackages__", "__pycache__", "_build",
    "buck-out",    "build",   "dist",     "node_modules", "site-packages",  "venv",        ".idea"};

// stat() follows links; the error says why a path cannot be used, in words a user can act on.
std::string DescribeStatError(const fs::path& path, int error) {
  struct stat link {};
  const bool is_link = ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  if (error == ELOOP) return "symbolic link loop; fix or remove the link";
  if (is_link && error == ENOENT) return "broken symbolic link; fix or remove the link";
  if (error == ENOENT) return "no such file or folder; check the path";
  if (error == EACCES) return "permission denied; check the file's permissions";
  return fmt::format("cannot access: {}", std::strerror(error));
}

bool EndsWithPy(std::string_view name) { return name.size() > 3 && name.ends_with(".py"); }

std::string Display(const fs::path& path) {
  std::string text = path.lexically_normal().generic_string();
  if (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

// The .gitignore files that apply above `dir`: from the enclosing repository's root (the closest folder
// with a .git entry) down to dir's parent. Outside a repository there are none.
std::shared_ptr<const IgnoreChain> AncestorIgnores(const fs::path& dir) {
  std::vector<fs::path> ancestors;
  std::error_code ec;
  bool in_repo = false;
  for (fs::path current = dir.parent_path();; current = current.parent_path()) {
    ancestors.push_back(current);
    if (fs::exists(current / ".git", ec)) {
      in_repo = true;
      break;
    }
    if (current == current.parent_path() || current.empty()) break;
  }
  // The walked folder itself may be the root.
  if (fs::exists(dir / ".git", ec)) return nullptr;
  if (!in_repo) return nullptr;
  std::shared_ptr<const IgnoreChain> chain;
  for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it) {
    if (auto file = IgnoreFile::Load(*it / ".gitignore")) {
      chain = std::make_shared<const IgnoreChain>(
          IgnoreChain{chain, std::make_shared<const IgnoreFile>(std::move(*file))});
    }
  }
  return chain;
}

struct Frame {
  fs::path path;     // absolute
  fs::path display;  // as the user wrote it, joined
  std::shared_ptr<const IgnoreChain> ignores;
};

class Walker {
 public:
  Walker(const DiscoveryOptions& options, DiscoveryResult& result) : options_(options), result_(result) {}

  void AddArgument(const std::string& argument) {
    const fs::path display(argument);
    std::error_code ec;
    fs::path absolute = fs::absolute(display, ec).lexically_normal();
    if (ec) {
      result_.errors.push_back({argument, fmt::format("{}: cannot resolve the path: {}", argument, ec.message())});
      return;
    }
    if (absolute.has_filename() == false && absolute != absolute.root_path()) absolute = absolute.parent_path();
    struct stat st {};
    if (::stat(absolute.c_str(), &st) != 0) {
      result_.errors.push_back({argument, fmt::format("{}: {}", argument, DescribeStatError(absolute, errno))});
      return;
    }
    if (S_ISREG(st.st_mode)) {
      if (options_.force_exclude && Excluded(absolute, false)) return;
      AddFile(absolute, display, st);
      return;
    }
    if (!S_ISDIR(st.st_mode)) {
      result_.errors.push_back(
          {argument,
           fmt::format("{}: not a regular file or folder (a pipe, socket or device); pass Python source files",
                       argument)});
      return;
    }
    if (options_.force_exclude && Excluded(absolute, true)) return;
    const size_t first = result_.files.size();
    Walk(absolute, display, st);
    std::sort(result_.files.begin() + static_cast<std::ptrdiff_t>(first), result_.files.end(),
              [](const DiscoveredFile& a, const DiscoveredFile& b) { return a.path < b.path; });
  }

 private:
  bool Excluded(const fs::path& path, bool is_dir) const {
    return options_.excluded && options_.excluded(path, is_dir);
  }

  void AddFile(const fs::path& absolute, const fs::path& display, const struct stat& st) {
    if (!seen_files_.insert({st.st_dev, st.st_ino}).second) return;
    result_.files.push_back({Display(display), absolute});
  }

  void Walk(const fs::path& root, const fs::path& root_display, const struct stat& root_stat) {
    std::vector<Frame> stack;
    seen_dirs_.insert({root_stat.st_dev, root_stat.st_ino});
    stack.push_back({root, root_display, options_.respect_gitignore ? AncestorIgnores(root) : nullptr});
    while (!stack.empty()) {
      Frame frame = std::move(stack.back());
      stack.pop_back();
      std::shared_ptr<const IgnoreChain> ignores = frame.ignores;
      if (options_.respect_gitignore) {
        if (auto file = IgnoreFile::Load(frame.path / ".gitignore")) {
          ignores = std::make_shared<const IgnoreChain>(
              IgnoreChain{ignores, std::make_shared<const IgnoreFile>(std::move(*file))});
        }
      }
      std::error_code ec;
      fs::directory_iterator it(frame.path, ec);
      if (ec) {
        result_.errors.push_back(
            {Display(frame.display), fmt::format("{}: cannot read the folder: {}; check its permissions",
                                                 Display(frame.display), ec.message())});
        continue;
      }
      std::vector<std::string> names;
      for (fs::directory_iterator end; it != end; it.increment(ec)) {
        if (ec) break;
        names.push_back(it->path().filename().string());
      }
      std::sort(names.begin(), names.end());
      // Pushed in reverse so folders pop in name order (the final list is sorted anyway).
      std::vector<Frame> subfolders;
      for (const std::string& name : names) {
        const fs::path path = frame.path / name;
        const fs::path display = frame.display / name;
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) {
          // Dangling links and loops matter only where a Python file was meant.
          if (EndsWithPy(name)) {
            result_.errors.push_back(
                {Display(display), fmt::format("{}: {}", Display(display), DescribeStatError(path, errno))});
          }
          continue;
        }
        if (S_ISDIR(st.st_mode)) {
          if (IsSkippedFolderName(name)) continue;
          std::error_code venv_ec;
          if (fs::exists(path / "pyvenv.cfg", venv_ec)) continue;
          if (ignores && IgnoreChain::Ignored(ignores, path, true)) continue;
          if (Excluded(path, true)) continue;
          if (!seen_dirs_.insert({st.st_dev, st.st_ino}).second) continue;  // a symlink loop or a second way in
          subfolders.push_back({path, display, ignores});
        } else if (S_ISREG(st.st_mode) && EndsWithPy(name)) {
          if (ignores && IgnoreChain::Ignored(ignores, path, false)) continue;
          if (Excluded(path, false)) continue;
          AddFile(path, display, st);
        }
      }
      for (auto sub = subfolders.rbegin(); sub != subfolders.rend(); ++sub) stack.push_back(std::move(*sub));
    }
  }

  const DiscoveryOptions& options_;
  DiscoveryResult& result_;
  std::set<FileId> seen_dirs_;
  std::set<FileId> seen_files_;
};

}  // namespace

bool IsSkippedFolderName(std::string_view name) {
  return std::find(kSkippedFolders.begin(), kSkippedFolders.end(), name) != kSkippedFolders.end() ||
         name.ends_with(".egg-info");
}

DiscoveryResult DiscoverFiles(const std::vector<std::string>& arguments, const DiscoveryOptions& options) {
  DiscoveryResult result;
  Walker walker(options, result);
  for (const std::string& argument : arguments) walker.AddArgument(argument);
  return result;
}

}  // namespace tl
