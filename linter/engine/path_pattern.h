// Path patterns in .gitignore syntax, used for three things that users expect to read the same way:
// `.gitignore` files met during discovery, the config's `exclude` list and its `per-file-ignores` keys.
// Supported: comments and blank lines, `!` negation, a trailing `/` for folders only, anchoring (a
// pattern with a slash before its end matches from its base folder, one without matches at any depth),
// `*`, `?`, `[a-z]`/`[!a-z]` classes, backslash escapes, and `**` as a whole segment (`**/x`, `x/**`,
// `a/**/b`). Not supported: git's core.ignoreCase and `.git/info/exclude`.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tl {

class PathPattern {
 public:
  // One line of a .gitignore (or one exclude entry). nullopt for blank lines and comments.
  static std::optional<PathPattern> Parse(std::string_view line);

  // `relative` is '/'-separated and relative to the pattern's base folder, without a leading slash.
  // A folder-only pattern never matches a file; the caller checks the parents of a path itself.
  bool Matches(std::string_view relative, bool is_dir) const;

  bool negated() const { return negated_; }
  bool dir_only() const { return dir_only_; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;                   // as written, for messages
  std::vector<std::string> segments_;  // "**" stands for any number of folders
  bool anchored_ = false;
  bool negated_ = false;
  bool dir_only_ = false;
};

// Matches one '/'-free segment against a glob segment (`*`, `?`, classes, escapes). Iterative.
bool GlobSegmentMatches(std::string_view glob, std::string_view text);

enum class IgnoreDecision { kNone, kIgnored, kIncluded };

// The patterns of one .gitignore (or one exclude list) and the folder they are relative to.
class IgnoreFile {
 public:
  IgnoreFile(std::filesystem::path base, std::vector<PathPattern> patterns)
      : base_(std::move(base)), patterns_(std::move(patterns)) {}
  static std::optional<IgnoreFile> Load(const std::filesystem::path& gitignore);
  static IgnoreFile FromText(std::filesystem::path base, std::string_view text);

  // The last pattern that matches decides; kNone when none matches or `path` is outside base.
  // `path` must be absolute (or relative in the same way base is).
  IgnoreDecision Decide(const std::filesystem::path& path, bool is_dir) const;
  // True when `path` or one of its parent folders up to base is ignored.
  bool IgnoresPathOrParent(const std::filesystem::path& path, bool is_dir) const;

  const std::filesystem::path& base() const { return base_; }
  bool empty() const { return patterns_.empty(); }

 private:
  std::filesystem::path base_;
  std::vector<PathPattern> patterns_;
};

// `path` relative to `base` with '/' separators, or nullopt when path is not inside base.
std::optional<std::string> RelativeInside(const std::filesystem::path& path, const std::filesystem::path& base);

// A chain of .gitignore files from the outermost folder in: deeper files override outer ones.
struct IgnoreChain {
  std::shared_ptr<const IgnoreChain> parent;
  std::shared_ptr<const IgnoreFile> file;

  static bool Ignored(const std::shared_ptr<const IgnoreChain>& chain, const std::filesystem::path& path, bool is_dir);
};

}  // namespace tl
