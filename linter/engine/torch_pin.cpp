#include "linter/engine/torch_pin.h"

#include <algorithm>
#include <cctype>
#include <vector>
#include <toml++/toml.h>

#include "linter/core/fs.h"

namespace tl {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

// PEP 503 normalisation is lower case with runs of -_. as one '-'; "torch" has none of those.
bool IsTorchName(std::string_view name) {
  if (name.size() != 5) return false;
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "torch";
}

}  // namespace

namespace {

// One clause of a specifier set: its operator and version ("~=1.12" -> "~=", 1.12, 2 components).
struct Clause {
  std::string_view op;
  TorchVersion version;
  int components = 0;     // how many numbers the version spells: "2" 1, "2.1" 2, "2.1.3" 3
  bool patch = false;     // a third number other than 0 ("2.1.3")
  bool wildcard = false;  // "2.*" or "2.1.*"
};

// Calls `visit` with every clause of a PEP 440 specifier set or a Poetry constraint that names a version.
template <typename Visit>
void ForEachClause(std::string_view specifiers, Visit visit) {
  size_t start = 0;
  while (start <= specifiers.size()) {
    size_t comma = specifiers.find(',', start);
    if (comma == std::string_view::npos) comma = specifiers.size();
    std::string_view clause = Trim(specifiers.substr(start, comma - start));
    start = comma + 1;
    if (clause.empty()) continue;
    std::string_view op;
    for (std::string_view candidate : {"===", "==", ">=", "~=", "!=", "<=", ">", "<", "^", "~"}) {
      if (clause.starts_with(candidate)) {
        op = candidate;
        break;
      }
    }
    // A bare version in a Poetry constraint means ==.
    const bool bare = op.empty() && !clause.empty() && std::isdigit(static_cast<unsigned char>(clause.front()));
    if (bare) op = "==";
    if (op.empty()) continue;
    std::string_view version_text = Trim(clause.substr(bare ? 0 : op.size()));
    if (version_text.starts_with('v')) version_text.remove_prefix(1);
    const std::string_view numeric = version_text.substr(0, version_text.find_first_of("+*-abrc"));
    Clause parsed;
    parsed.op = op;
    parsed.wildcard = version_text.find('*') != std::string_view::npos;
    std::string_view digits = numeric;
    while (!digits.empty() && !std::isdigit(static_cast<unsigned char>(digits.back()))) digits.remove_suffix(1);
    auto version = TorchVersion::Parse(digits);  // "2.1.*" and "2.*": the numeric prefix
    if (!version) continue;
    parsed.version = *version;
    parsed.components = 1 + static_cast<int>(std::count(digits.begin(), digits.end(), '.'));
    if (parsed.components >= 3) {
      const std::string_view third = digits.substr(digits.find('.', digits.find('.') + 1) + 1);
      parsed.patch = third.find_first_not_of("0.") != std::string_view::npos;
    }
    visit(parsed);
  }
}

// Any minor version of a major: the newest 1.x is {1, kAnyMinor}.
constexpr int kAnyMinor = 999;

}  // namespace

std::optional<TorchVersion> LowestAllowedVersion(std::string_view specifiers) {
  std::optional<TorchVersion> lowest;
  ForEachClause(specifiers, [&](const Clause& clause) {
    if (clause.op == "!=" || clause.op == "<" || clause.op == "<=") return;
    if (!lowest || *lowest < clause.version) lowest = clause.version;
  });
  return lowest;
}

std::optional<TorchVersion> HighestAllowedVersion(std::string_view specifiers) {
  std::optional<TorchVersion> highest;
  ForEachClause(specifiers, [&](const Clause& clause) {
    const TorchVersion v = clause.version;
    const TorchVersion any_minor{v.major, kAnyMinor};
    std::optional<TorchVersion> bound;
    if (clause.op == "==" || clause.op == "===") {
      bound = clause.wildcard && clause.components == 1 ? any_minor : v;
    } else if (clause.op == "<=") {
      bound = v;
    } else if (clause.op == "<") {
      if (clause.patch) {
        bound = v;  // <2.1.3 allows 2.1.0
      } else if (v.minor > 0) {
        bound = TorchVersion{v.major, v.minor - 1};
      } else if (v.major > 0) {
        bound = TorchVersion{v.major - 1, kAnyMinor};
      } else {
        bound = TorchVersion{0, 0};
      }
    } else if (clause.op == "~=") {
      bound = clause.components >= 3 ? v : any_minor;  // ~=1.12 is 1.*, ~=1.12.1 is 1.12.*
    } else if (clause.op == "^") {
      bound = v.major > 0 || clause.components == 1 ? any_minor : v;  // Poetry: ^0.4 is <0.5
    } else if (clause.op == "~") {
      bound = clause.components == 1 ? any_minor : v;  // Poetry: ~1.13 is <1.14
    }
    if (bound && (!highest || *bound < *highest)) highest = bound;
  });
  return highest;
}

std::optional<TorchPin> ParseTorchRequirement(std::string_view requirement) {
  std::string_view line = requirement;
  if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  if (size_t marker = line.find(';'); marker != std::string_view::npos) line = line.substr(0, marker);
  line = Trim(line);
  size_t name_end = 0;
  while (name_end < line.size() && IsNameChar(line[name_end])) ++name_end;
  if (!IsTorchName(line.substr(0, name_end))) return std::nullopt;
  std::string_view rest = Trim(line.substr(name_end));
  if (rest.starts_with('[')) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    rest = Trim(rest.substr(close + 1));
  }
  if (rest.starts_with('@')) return std::nullopt;  // a direct URL pins no version we can read
  if (rest.starts_with('(') && rest.ends_with(')')) rest = Trim(rest.substr(1, rest.size() - 2));
  auto version = LowestAllowedVersion(rest);
  if (!version) return std::nullopt;
  return TorchPin{*version, HighestAllowedVersion(rest), {}, std::string(Trim(line))};
}

void ApplyTorchPin(const TorchPin& pin, RuleOptions& options) {
  options.target_torch = pin.version;
  options.target_is_floor = true;
  options.newest_torch = pin.newest;
}

std::optional<TorchPin> FindTorchPinInText(std::string_view text, const std::filesystem::path& file) {
  std::optional<TorchPin> pin;
  if (file.filename() == "pyproject.toml") {
    toml::table document;
    try {
      document = toml::parse(text, file.string());
    } catch (const toml::parse_error&) {
      return std::nullopt;  // a broken pyproject pins nothing; the config loader reports the error
    }
    auto scan_array = [&](const toml::array* array) {
      if (array == nullptr || pin) return;
      for (const toml::node& item : *array) {
        if (const auto* value = item.as_string()) {
          if ((pin = ParseTorchRequirement(value->get()))) return;
        }
      }
    };
    scan_array(document["project"]["dependencies"].as_array());
    if (const toml::table* optional = document["project"]["optional-dependencies"].as_table()) {
      for (const auto& [group, deps] : *optional) scan_array(deps.as_array());
    }
    if (!pin) {
      const toml::node_view<toml::node> poetry = document["tool"]["poetry"]["dependencies"]["torch"];
      std::optional<std::string> constraint;
      if (const auto* value = poetry.as_string()) constraint = value->get();
      if (const auto* table = poetry.as_table()) {
        if (const auto* version = (*table)["version"].as_string()) constraint = version->get();
      }
      if (constraint) {
        if (auto version = LowestAllowedVersion(*constraint)) {
          pin = TorchPin{*version, HighestAllowedVersion(*constraint), {}, "torch = \"" + *constraint + "\""};
        }
      }
    }
  } else {
    size_t start = 0;
    while (!pin && start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = Trim(text.substr(start, end - start));
      start = end + 1;
      if (line.empty() || line.front() == '-' || line.front() == '#') continue;
      pin = ParseTorchRequirement(line);
    }
  }
  if (pin) pin->source = file;
  return pin;
}

std::optional<TorchPin> TorchPinResolver::SearchFolder(const std::filesystem::path& dir) const {
  std::vector<std::filesystem::path> candidates;
  std::error_code ec;
  if (std::filesystem::is_regular_file(dir / "pyproject.toml", ec)) candidates.push_back(dir / "pyproject.toml");
  std::vector<std::filesystem::path> requirements;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("requirements") && name.ends_with(".txt") && it->is_regular_file(ec)) {
      requirements.push_back(it->path());
    }
  }
  // requirements.txt first, then the others by name, so the answer does not depend on readdir order.
  std::sort(requirements.begin(), requirements.end(), [](const auto& a, const auto& b) {
    const bool a_plain = a.filename() == "requirements.txt";
    const bool b_plain = b.filename() == "requirements.txt";
    if (a_plain != b_plain) return a_plain;
    return a < b;
  });
  candidates.insert(candidates.end(), requirements.begin(), requirements.end());
  for (const auto& candidate : candidates) {
    auto text = ReadFile(candidate, 16u << 20);
    if (!text.ok()) continue;
    if (auto pin = FindTorchPinInText(*text, candidate)) return pin;
  }
  return std::nullopt;
}

std::optional<TorchPin> TorchPinResolver::ForDirectory(const std::filesystem::path& dir) {
  std::lock_guard lock(mutex_);
  std::vector<std::filesystem::path> visited;
  std::filesystem::path current = dir;
  std::optional<TorchPin> answer;
  for (;;) {
    if (auto it = cache_.find(current); it != cache_.end()) {
      answer = it->second;
      break;
    }
    visited.push_back(current);
    if ((answer = SearchFolder(current))) break;
    const std::filesystem::path parent = current.parent_path();
    if (parent == current || parent.empty()) break;
    current = parent;
  }
  for (const auto& folder : visited) cache_.emplace(folder, answer);
  return answer;
}

}  // namespace tl
