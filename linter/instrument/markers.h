// The marker scheme that makes instrumentation reversible. Every line the instrumenter inserts ends with
// the comment `# torchlint: instrument`, and nothing else of the original is touched except that the lines
// of a wrapped region get one indentation unit in front. The line that opens a wrapped region says so and
// names the unit (`# torchlint: instrument indent=4` or `indent=tab`); the first inserted line after the
// region closes it (`# torchlint: instrument dedent`; one line may close several regions and open one:
// `dedent dedent indent=4`). Removal therefore needs nothing but the text: drop
// the marked lines and strip the units the open regions added, skipping blank lines and lines that begin
// inside a string literal, exactly as insertion skipped them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/result.h"

namespace tl::instrument {

inline constexpr std::string_view kMarker = "# torchlint: instrument";
inline constexpr std::string_view kDedent = "dedent";

// The suffix that opens a region indented by `unit` ("indent=4", "indent=tab").
std::string IndentSuffix(std::string_view unit);

// What a marker line asks of removal.
struct MarkerLine {
  int dedents = 0;                    // regions closed here (innermost first), before any opens
  std::optional<std::string> indent;  // the unit a region opened here adds
};

// Parses a line's content (no terminator): the marker when the line ends with one, else nullopt.
std::optional<MarkerLine> ParseMarkerLine(std::string_view line);

// Whether any line of `text` carries the marker.
bool HasMarkers(std::string_view text);

// The edits that take every marked insertion out of `text`, restoring the original byte for byte. An
// error names the line when the marked structure was edited by hand so that it no longer matches.
Result<std::vector<Edit>> PlanRemoval(std::string_view text);

}  // namespace tl::instrument
