// The one edit applier. --fix, LSP code actions and the instrumenter all go through ApplyEdits /
// ApplyFixes, so the rules for ordering, overlap and conflicts are decided (and tested) in one place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/result.h"

namespace tl {

// Applies edits to `text`. The edits may come in any order; they are sorted by range. Two edits that
// overlap, or an edit outside the text, is an error and nothing is applied. Two insertions at the same
// offset are applied in the order given.
Result<std::string> ApplyEdits(std::string_view text, std::vector<Edit> edits);

struct FixOutcome {
  std::string text;
  size_t applied = 0;         // fixes applied
  size_t skipped = 0;         // fixes left out because they overlapped an earlier one or were invalid
  std::vector<size_t> taken;  // indices into `fixes` of the fixes applied, in order
};

// Applies whole fixes in the order given, skipping any fix whose edits overlap an edit already taken
// (a fix is all or nothing). Only fixes with applicability at or below `max_level` are considered
// (kSafe: safe only; kUnsafe: safe and unsafe; display-only fixes are never applied).
FixOutcome ApplyFixes(std::string_view text, const std::vector<const Fix*>& fixes,
                      Applicability max_level = Applicability::kSafe);

// A unified diff (as `diff -u` prints it, 3 lines of context) from `before` to `after`, with the
// headers `--- a/PATH` and `+++ b/PATH`. Empty when the texts are equal.
std::string UnifiedDiff(std::string_view path, std::string_view before, std::string_view after);

// The edits, line by line, that turn `before` into `after`: each run of changed lines is one edit of
// `before`'s bytes, so applying them with ApplyEdits gives `after` exactly. For an editor, which keeps
// the unchanged lines (and the cursor, and the undo history) where they were.
std::vector<Edit> LineEdits(std::string_view before, std::string_view after);

// Where the line holding `offset` starts, and its indent: what a fix that adds a line above or below a
// statement, or wraps it, must repeat. nullopt when code precedes `offset` on its line (`if c: x = 1`,
// `a = 1; x = 2`), where no line can be added for the statement alone.
struct LineIndent {
  uint32_t line_start = 0;
  std::string indent;
};
std::optional<LineIndent> IndentOf(std::string_view text, uint32_t offset);

}  // namespace tl
