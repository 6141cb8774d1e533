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

std::optional<TorchVersion> LowestAllowedVersion(std::string_view specifiers) {
  std::optional<TorchVersion> lowest;
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
    if (op.empty() && !clause.empty() && std::isdigit(static_cast<unsigned char>(clause.front()))) op = "==";
    if (op.empty() || op == "!=" || op == "<" || op == "<=") continue;
    std::string_view version_text = Trim(clause.substr(op == "==" && !clause.starts_with("==") ? 0 : op.size()));
    if (version_text.starts_with('v')) version_text.remove_prefix(1);
    auto version = TorchVersion::Parse(version_text.substr(0, version_text.find_first_of("+*-abrc")));
    if (!version) {
      // "2.1.*" and "2.*": keep the numeric prefix.
      std::string_view numeric = version_text;
      while (!numeric.empty() && !std::isdigit(static_cast<unsigned char>(numeric.back()))) numeric.remove_suffix(1);
      version = TorchVersion::Parse(numeric);
    }
    if (!version) continue;
    if (!lowest || *lowest < *version) lowest = version;
  }
  return lowest;
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
  return TorchPin{*version, {}, std::string(Trim(line))};
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
          pin = TorchPin{*version, {}, "torch = \"" + *constraint + "\""};
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
