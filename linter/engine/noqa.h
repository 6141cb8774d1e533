// `# noqa` comments, read and written in one place: the line and file-wide suppressions CheckSource
// applies (Ruff's syntax: `# noqa`, `# noqa: TL101, TL202`, `# torchlint: noqa[: CODES]`), and
// `check --add-noqa`, which writes `# noqa: CODE` on the line each finding starts on. Writing goes
// through the one edit applier; a line where Python allows no comment (inside a multi-line string, or
// ending in a backslash continuation) is left alone with a warning, and an existing `# noqa: X` on the
// line is extended rather than doubled, so running it twice changes nothing the second time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/result.h"
#include "linter/core/source_file.h"

namespace tl::ts {
class Tree;
}

namespace tl {

// A `# noqa` comment: all codes (bare) or a list of exact codes. The codes point into the text parsed.
struct NoqaDirective {
  bool present = false;
  bool all = false;
  std::vector<std::string_view> codes;
  bool Covers(std::string_view code) const {
    if (!present) return false;
    return all || std::find(codes.begin(), codes.end(), code) != codes.end();
  }
};

// Parses `comment` (starting at '#') as `# noqa` or `# noqa: CODES`. `#noqa` and any letter case of
// the keyword are accepted, as Ruff does; `# noqa:` with no code reads as a bare noqa.
NoqaDirective ParseNoqa(std::string_view comment);

// The `# noqa` on 0-based line `line0` (a `#` inside a string does not count; `# type: ignore # noqa`
// does).
NoqaDirective NoqaOnLine(const SourceFile& file, const ts::Tree& tree, uint32_t line0);

// File-wide: a comment `# torchlint: noqa` (everything) or `# torchlint: noqa: TL101, TL2...`.
NoqaDirective FileSuppression(const SourceFile& file, const ts::Tree& tree);

struct AddNoqaResult {
  std::string text;                   // the file with the directives added
  size_t added = 0;                   // lines given a new or extended `# noqa`
  std::vector<std::string> warnings;  // one line each: "train.py:12: ... ; left alone"
};

// `--add-noqa` for one file: `# noqa: CODES` on the line where each diagnostic starts (only findings
// with a rule code; syntax errors cannot be suppressed). An error when the result would not parse as
// well as the original did.
Result<AddNoqaResult> AddNoqa(const SourceFile& file, const std::vector<Diagnostic>& diagnostics);

}  // namespace tl
