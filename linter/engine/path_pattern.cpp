#include "linter/engine/path_pattern.h"

#include "linter/core/fs.h"

namespace tl {
namespace {

std::vector<std::string_view> SplitSegments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

// Matches a character class starting at glob[i] == '['. On success sets `next` past the ']' and
// `matched`. A '[' without a closing ']' is an ordinary character (returns false).
bool MatchClass(std::string_view glob, size_t i, char c, size_t& next, bool& matched) {
  size_t j = i + 1;
  bool negate = false;
  if (j < glob.size() && (glob[j] == '!' || glob[j] == '^')) {
    negate = true;
    ++j;
  }
  bool found = false;
  bool first = true;
  while (j < glob.size() && (glob[j] != ']' || first)) {
    first = false;
    char lo = glob[j];
    if (lo == '\\' && j + 1 < glob.size()) lo = glob[++j];
    char hi = lo;
    if (j + 2 < glob.size() && glob[j + 1] == '-' && glob[j + 2] != ']') {
      hi = glob[j + 2];
      if (hi == '\\' && j + 3 < glob.size()) {
        hi = glob[j + 3];
        ++j;
      }
      j += 2;
    }
    if (lo <= c && c <= hi) found = true;
    ++j;
  }
  if (j >= glob.size()) return false;
  next = j + 1;
  matched = found != negate;
  return true;
}

}  // namespace

bool GlobSegmentMatches(std::string_view glob, std::string_view text) {
  // Classic backtracking over the last '*': linear for patterns with one star, and never recursive.
  size_t g = 0;
  size_t t = 0;
  size_t star_g = std::string_view::npos;
  size_t star_t = 0;
  while (t < text.size()) {
    if (g < glob.size()) {
      const char p = glob[g];
      if (p == '*') {
        while (g < glob.size() && glob[g] == '*') ++g;
        star_g = g;
        star_t = t;
        continue;
      }
      if (p == '?') {
        ++g;
        ++t;
        continue;
      }
      if (p == '[') {
        size_t next = 0;
        bool matched = false;
        if (MatchClass(glob, g, text[t], next, matched)) {
          if (matched) {
            g = next;
            ++t;
            continue;
          }
        } else if (text[t] == '[') {
          ++g;
          ++t;
          continue;
        }
      } else if (p == '\\' && g + 1 < glob.size()) {
        if (glob[g + 1] == text[t]) {
          g += 2;
          ++t;
          continue;
        }
      } else if (p == text[t]) {
        ++g;
        ++t;
        continue;
      }
    }
    if (star_g == std::string_view::npos) return false;
    g = star_g;
    t = ++star_t;
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

std::optional<PathPattern> PathPattern::Parse(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // Trailing spaces are dropped unless escaped with a backslash.
  while (!line.empty() && line.back() == ' ' && !(line.size() >= 2 && line[line.size() - 2] == '\\')) {
    line.remove_suffix(1);
  }
  if (line.empty() || line.front() == '#') return std::nullopt;
  PathPattern pattern;
  pattern.text_ = std::string(line);
  if (line.front() == '!') {
    pattern.negated_ = true;
    line.remove_prefix(1);
  } else if (line.starts_with("\\!") || line.starts_with("\\#")) {
    line.remove_prefix(1);
  }
  if (!line.empty() && line.back() == '/') {
    pattern.dir_only_ = true;
    while (!line.empty() && line.back() == '/') line.remove_suffix(1);
  }
  if (line.empty()) return std::nullopt;
  // A slash at the start or in the middle anchors the pattern to its base folder.
  pattern.anchored_ = line.find('/') != std::string_view::npos;
  for (std::string_view segment : SplitSegments(line)) pattern.segments_.emplace_back(segment);
  if (pattern.segments_.empty()) return std::nullopt;
  // "**/foo" is the same as "foo" matched at any depth.
  if (pattern.segments_.size() > 1 && pattern.segments_.front() == "**") {
    size_t leading = 0;
    while (leading < pattern.segments_.size() && pattern.segments_[leading] == "**") ++leading;
    if (leading < pattern.segments_.size() && pattern.segments_.size() - leading == 1) {
      pattern.segments_.erase(pattern.segments_.begin(),
                              pattern.segments_.begin() + static_cast<std::ptrdiff_t>(leading));
      pattern.anchored_ = false;
    }
  }
  return pattern;
}

bool PathPattern::Matches(std::string_view relative, bool is_dir) const {
  if (dir_only_ && !is_dir) return false;
  const std::vector<std::string_view> path = SplitSegments(relative);
  if (path.empty()) return false;
  if (!anchored_) return segments_.size() == 1 && GlobSegmentMatches(segments_[0], path.back());

  // reachable[j]: the first i pattern segments can match the first j path segments.
  const size_t n = segments_.size();
  const size_t m = path.size();
  // std::string rather than std::vector<char>: GCC 12 at -O2 warns (falsely) of a null vector buffer.
  std::string reachable(m + 1, '\0');
  reachable[0] = 1;
  for (size_t i = 0; i < n; ++i) {
    std::string next(m + 1, '\0');
    if (segments_[i] == "**") {
      // A trailing "**" matches one or more segments (everything inside, not the folder itself).
      const bool trailing = i + 1 == n;
      bool any = false;
      for (size_t j = 0; j <= m; ++j) {
        if (any) next[j] = 1;
        if (reachable[j]) {
          any = true;
          if (!trailing) next[j] = 1;
        }
      }
    } else {
      for (size_t j = 0; j < m; ++j) {
        if (reachable[j] && GlobSegmentMatches(segments_[i], path[j])) next[j + 1] = 1;
      }
    }
    reachable.swap(next);
  }
  return reachable[m] != 0;
}

std::optional<std::string> RelativeInside(const std::filesystem::path& path, const std::filesystem::path& base) {
  auto p = path.begin();
  for (auto b = base.begin(); b != base.end(); ++b, ++p) {
    if (b->empty()) continue;  // a trailing separator in base
    if (p == path.end() || *p != *b) return std::nullopt;
  }
  std::string out;
  for (; p != path.end(); ++p) {
    if (p->empty()) continue;
    if (!out.empty()) out += '/';
    out += p->string();
  }
  return out;
}

IgnoreFile IgnoreFile::FromText(std::filesystem::path base, std::string_view text) {
  std::vector<PathPattern> patterns;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (auto pattern = PathPattern::Parse(text.substr(start, end - start))) patterns.push_back(std::move(*pattern));
    start = end + 1;
  }
  return IgnoreFile(std::move(base), std::move(patterns));
}

std::optional<IgnoreFile> IgnoreFile::Load(const std::filesystem::path& gitignore) {
  auto text = ReadFile(gitignore, 16u << 20);
  if (!text.ok()) return std::nullopt;
  IgnoreFile file = FromText(gitignore.parent_path(), *text);
  if (file.empty()) return std::nullopt;
  return file;
}

IgnoreDecision IgnoreFile::Decide(const std::filesystem::path& path, bool is_dir) const {
  const auto relative = RelativeInside(path, base_);
  if (!relative || relative->empty()) return IgnoreDecision::kNone;
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) {
    if (it->Matches(*relative, is_dir)) return it->negated() ? IgnoreDecision::kIncluded : IgnoreDecision::kIgnored;
  }
  return IgnoreDecision::kNone;
}

bool IgnoreFile::IgnoresPathOrParent(const std::filesystem::path& path, bool is_dir) const {
  const auto relative = RelativeInside(path, base_);
  if (!relative || relative->empty()) return false;
  // Check each parent folder from the top: an ignored folder hides everything below it.
  std::filesystem::path current = base_;
  std::string_view rest = *relative;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    current /= std::string(part);
    const bool last = slash == std::string_view::npos;
    if (Decide(current, last ? is_dir : true) == IgnoreDecision::kIgnored) return true;
    if (last) break;
    rest.remove_prefix(slash + 1);
  }
  return false;
}

bool IgnoreChain::Ignored(const std::shared_ptr<const IgnoreChain>& chain, const std::filesystem::path& path,
                          bool is_dir) {
  for (const IgnoreChain* link = chain.get(); link != nullptr; link = link->parent.get()) {
    switch (link->file->Decide(path, is_dir)) {
      case IgnoreDecision::kIgnored: return true;
      case IgnoreDecision::kIncluded: return false;
      case IgnoreDecision::kNone: break;
    }
  }
  return false;
}

}  // namespace tl
