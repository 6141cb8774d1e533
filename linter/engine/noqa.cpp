#include "linter/engine/noqa.h"

#include <fmt/core.h>
#include <tree_sitter/api.h>

#include <cctype>
#include <map>
#include <set>

#include "linter/core/fix.h"
#include "linter/ts/ts.h"

namespace tl {
namespace {

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  return s;
}

// Reads the code list after `noqa:`: codes separated by commas and/or blanks, each `[A-Z]+[0-9]+`.
// Parsing stops at the first word that is not a code, so `# noqa: TL101 because slow` works.
void ParseCodeList(std::string_view rest, std::vector<std::string_view>& codes) {
  size_t i = 0;
  for (;;) {
    while (i < rest.size() && (IsBlank(rest[i]) || rest[i] == ',')) ++i;
    size_t end = i;
    while (end < rest.size() && std::isupper(static_cast<unsigned char>(rest[end]))) ++end;
    const size_t letters = end;
    while (end < rest.size() && std::isdigit(static_cast<unsigned char>(rest[end]))) ++end;
    if (letters == i || end == letters) return;
    codes.push_back(rest.substr(i, end - i));
    i = end;
  }
}

// Whether byte `offset` starts a comment token (and not a `#` inside a string).
bool IsCommentAt(const ts::Tree& tree, uint32_t offset) {
  const ts::Node node = tree.Root().DescendantForByteRange(offset, offset + 1);
  return node.Is("comment") && node.StartByte() == offset;
}

// Whether `offset` lies strictly inside a string literal (a line that ends there continues the string).
bool InsideString(const ts::Tree& tree, uint32_t offset) {
  for (ts::Node node = tree.Root().DescendantForByteRange(offset, offset); !node.IsNull(); node = node.Parent()) {
    if (node.Is("string") && node.StartByte() < offset && offset < node.EndByte()) return true;
  }
  return false;
}

// The byte offset (in the line) of the comment that ends the line, or npos.
size_t CommentStart(const ts::Tree& tree, std::string_view line, uint32_t line_start) {
  for (size_t pos = line.find('#'); pos != std::string_view::npos; pos = line.find('#', pos + 1)) {
    if (IsCommentAt(tree, line_start + static_cast<uint32_t>(pos))) return pos;
  }
  return std::string_view::npos;
}

// Whether `code` reads back as a `# noqa` code (`[A-Z]+[0-9]+`): `parse-error` notices do not.
bool IsNoqaCode(std::string_view code) {
  std::vector<std::string_view> codes;
  ParseCodeList(code, codes);
  return codes.size() == 1 && codes.front().size() == code.size();
}

std::string JoinCodes(const std::vector<std::string>& codes) {
  std::string out;
  for (const std::string& code : codes) out += (out.empty() ? "" : ", ") + code;
  return out;
}

}  // namespace

NoqaDirective ParseNoqa(std::string_view comment) {
  NoqaDirective out;
  std::string_view s = TrimLeft(comment.substr(1));
  if (s.size() < 4 || !IEquals(s.substr(0, 4), "noqa")) return out;
  s.remove_prefix(4);
  if (!s.empty() && s.front() == ':') {
    out.present = true;
    ParseCodeList(s.substr(1), out.codes);
    out.all = out.codes.empty();
    return out;
  }
  if (s.empty() || IsBlank(s.front()) || s.front() == '#') {
    out.present = true;
    out.all = true;
  }
  return out;
}

NoqaDirective NoqaOnLine(const SourceFile& file, const ts::Tree& tree, uint32_t line0) {
  const std::string_view line = file.lines().LineText(line0);
  const uint32_t start = file.lines().LineStart(line0);
  size_t pos = 0;
  while ((pos = line.find('#', pos)) != std::string_view::npos) {
    if (IsCommentAt(tree, start + static_cast<uint32_t>(pos))) {
      // Ruff also accepts `# type: ignore # noqa`, so look through every `#` of the comment.
      std::string_view comment = line.substr(pos);
      for (size_t hash = 0; hash != std::string_view::npos; hash = comment.find('#', hash + 1)) {
        NoqaDirective suppression = ParseNoqa(comment.substr(hash));
        if (suppression.present) return suppression;
      }
      return {};
    }
    ++pos;
  }
  return {};
}

// File-wide suppression: a comment line `# torchlint: noqa` (everything) or
// `# torchlint: noqa: TL101, TL2xx...` (those codes).
NoqaDirective FileSuppression(const SourceFile& file, const ts::Tree& tree) {
  NoqaDirective out;
  constexpr std::string_view kMarker = "torchlint:";
  const std::string_view text = file.text();
  size_t pos = 0;
  while ((pos = text.find(kMarker, pos)) != std::string_view::npos) {
    // Walk back over blanks to the '#'.
    size_t hash = pos;
    while (hash > 0 && IsBlank(text[hash - 1])) --hash;
    if (hash > 0 && text[hash - 1] == '#' && IsCommentAt(tree, static_cast<uint32_t>(hash - 1))) {
      std::string_view rest = TrimLeft(text.substr(pos + kMarker.size()));
      if (rest.size() >= 4 && IEquals(rest.substr(0, 4), "noqa")) {
        rest.remove_prefix(4);
        if (!rest.empty() && rest.front() == ':') {
          const size_t line_end = rest.find_first_of("\r\n");
          std::vector<std::string_view> codes;
          ParseCodeList(rest.substr(1, line_end == std::string_view::npos ? line_end : line_end - 1), codes);
          if (codes.empty()) {
            out.all = true;
          }
          out.codes.insert(out.codes.end(), codes.begin(), codes.end());
          out.present = true;
        } else if (rest.empty() || IsBlank(rest.front()) || rest.front() == '\n' || rest.front() == '\r') {
          out.present = true;
          out.all = true;
        }
      }
    }
    pos += kMarker.size();
  }
  return out;
}

Result<AddNoqaResult> AddNoqa(const SourceFile& file, const std::vector<Diagnostic>& diagnostics) {
  std::map<uint32_t, std::set<std::string>> codes_by_line;
  for (const Diagnostic& diagnostic : diagnostics) {
    if (!IsNoqaCode(diagnostic.code)) continue;
    codes_by_line[file.lines().Locate(diagnostic.range.begin).line - 1].insert(diagnostic.code);
  }
  AddNoqaResult out;
  if (codes_by_line.empty()) {
    out.text = std::string(file.text());
    return out;
  }
  ts::Parser parser;
  auto tree = parser.Parse(file.text());
  if (!tree.ok()) return tree.error();

  std::vector<Edit> edits;
  for (const auto& [line0, wanted] : codes_by_line) {
    const std::string_view line = file.lines().LineText(line0);
    const uint32_t start = file.lines().LineStart(line0);
    const auto end = static_cast<uint32_t>(start + line.size());
    const size_t comment = CommentStart(*tree, line, start);
    const std::string where = fmt::format("{}:{}", file.path(), line0 + 1);
    if (InsideString(*tree, end)) {
      out.warnings.push_back(fmt::format(
          "{}: the line ends inside a multi-line string, where no comment can go; no `# noqa` added", where));
      continue;
    }
    if (comment == std::string_view::npos && line.ends_with('\\')) {
      out.warnings.push_back(
          fmt::format("{}: the line continues with a backslash, where no comment can go; no `# noqa` added", where));
      continue;
    }
    if (comment != std::string_view::npos) {
      // Extend an existing `# noqa: X` (anywhere in the comment, as NoqaOnLine reads it).
      const std::string_view text = line.substr(comment);
      NoqaDirective directive;
      for (size_t hash = 0; hash != std::string_view::npos && !directive.present; hash = text.find('#', hash + 1)) {
        directive = ParseNoqa(text.substr(hash));
      }
      if (directive.present) {
        if (directive.all) continue;  // already suppresses everything
        std::vector<std::string> merged(directive.codes.begin(), directive.codes.end());
        for (const std::string& code : wanted) {
          if (std::find(merged.begin(), merged.end(), code) == merged.end()) merged.push_back(code);
        }
        if (merged.size() == directive.codes.size()) continue;
        const auto first = static_cast<uint32_t>(directive.codes.front().data() - file.text().data());
        const std::string_view last = directive.codes.back();
        const auto last_end = static_cast<uint32_t>(last.data() + last.size() - file.text().data());
        edits.push_back(Edit{{first, last_end}, JoinCodes(merged)});
        ++out.added;
        continue;
      }
    }
    uint32_t at = end;
    while (at > start && (file.text()[at - 1] == ' ' || file.text()[at - 1] == '\t')) --at;
    const std::vector<std::string> codes(wanted.begin(), wanted.end());
    edits.push_back(Edit{{at, end}, fmt::format("  # noqa: {}", JoinCodes(codes))});
    ++out.added;
  }

  auto applied = ApplyEdits(file.text(), std::move(edits));
  if (!applied.ok()) return applied.error();
  auto reparsed = parser.Parse(*applied);
  if (!reparsed.ok() || (reparsed->HasError() && !tree->HasError())) {
    return Error{
        fmt::format("{}: adding `# noqa` would make the file unparsable, so it was left unchanged; "
                    "please report this as a torchlint bug",
                    file.path())};
  }
  out.text = std::move(*applied);
  return out;
}

}  // namespace tl
