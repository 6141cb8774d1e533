// The report: how findings leave torchlint. One Reporter per run, fed one file at a time in input order
// (so text and GitHub output stream while the check runs, and JSON and SARIF are built from compact
// records, never from the sources). Formats follow Ruff's conventions: `text` (path:line:col: CODE
// message, the source line with an underline and the fix title), `concise` (the first line of each
// finding alone), `json` (an array of findings),
// `sarif` (SARIF 2.1.0 as GitHub code scanning reads it) and `github` (Actions annotation lines).
// Lines and columns are 1-based and count code points; byte offsets never leave the engine.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/source_file.h"

namespace tl {

// TraceFinding (linter/core/diagnostic.h): a bottleneck of the trace that no line is blamed for.

enum class OutputFormat { kText, kConcise, kJson, kSarif, kGithub };

std::optional<OutputFormat> ParseOutputFormat(std::string_view name);

struct OutputOptions {
  std::FILE* out = stdout;
  bool color = false;        // ANSI colour (text only); the caller decides from --color, NO_COLOR and isatty
  std::string tool_version;  // "0.1.0", for SARIF
  // The language of the findings' sentences in text and github output (`check --lang`). JSON and SARIF
  // are machine formats and stay English whatever it says.
  Lang lang = Lang::kEnglish;
  // The fixes this run can apply (kUnsafe with --unsafe-fixes): concise marks their findings `[*]`.
  Applicability fix_level = Applicability::kSafe;
  bool show_fixes = false;  // --show-fixes: concise output appends each finding's fix title
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  // The findings of one analysed file; `source` is the text their ranges refer to.
  virtual void AddFile(const SourceFile& source, const std::vector<Diagnostic>& diagnostics) = 0;
  // A file that could not be analysed; `message` is one line that starts with the path.
  virtual void AddError(std::string_view path, std::string_view message) = 0;
  // A finding of the profiler trace alone (`check --trace`), after the files' findings. It has no source
  // location; formats show it against the trace file.
  virtual void AddTraceFinding(const TraceFinding& /*finding*/) {}
  // Writes whatever was buffered (JSON, SARIF). Called once.
  virtual void Finish() = 0;
};

std::unique_ptr<Reporter> MakeReporter(OutputFormat format, const OutputOptions& options);

// `--statistics`: counts per code instead of the findings, as Ruff prints them at Finish:
// `COUNT\tCODE\t[*] name`, most frequent first (`[*]` when a fix at `options.fix_level` exists).
std::unique_ptr<Reporter> MakeStatisticsReporter(const OutputOptions& options);

// `--silent`: a reporter that prints nothing.
std::unique_ptr<Reporter> MakeNullReporter();

struct ReportSummary {
  size_t findings = 0;  // diagnostics reported (after fixes)
  size_t fixable = 0;   // of them, with a safe fix
  size_t fixed = 0;     // fixes applied by --fix, or that --diff would apply
  bool diff_mode = false;
  bool fix_mode = false;
  size_t hidden_fixes = 0;  // findings with an unsafe fix that --unsafe-fixes would enable
};

// "Found 3 errors (2 fixable with --fix).", "Found 4 errors (3 fixed, 1 remaining).",
// "Would fix 2 errors.", "All checks passed!"; with hidden fixes, Ruff's sentence follows:
// "Found 3 errors (1 fixable with --fix). 2 hidden fixes can be enabled with the `--unsafe-fixes` option."
std::string FormatSummary(const ReportSummary& summary, Lang lang = Lang::kEnglish);  // "发现 3 个问题。"

// `--show-fixes` after --fix: Ruff's "Fixed N errors:" block, per file and code, in the order given.
struct FixedFile {
  std::string path;
  std::vector<std::pair<std::string, std::string>> fixes;  // code and rule name of each fix applied
};
// Empty when nothing was fixed; else "Fixed 3 errors:\n- train.py:\n    2 × TL202 (name)\n..." .
std::string FormatFixed(const std::vector<FixedFile>& files);

// Helpers shared by the formats and the LSP server's neighbours.
struct Span {
  uint32_t line;
  uint32_t column;
  uint32_t end_line;
  uint32_t end_column;
};
Span ToSpan(const SourceFile& source, TextRange range);

// A related location resolved for output: its file (the finding's own when the location has no path)
// and its 1-based start.
struct RelatedSpan {
  std::string path;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
};
std::vector<RelatedSpan> RelatedSpans(const SourceFile& source, const Diagnostic& diagnostic,
                                      Lang lang = Lang::kEnglish);

// Renders one finding in the text format (without the trailing blank line), for tests and the LSP's logs.
std::string RenderText(const SourceFile& source, const Diagnostic& diagnostic, bool color, Lang lang = Lang::kEnglish);

// A relative URI for SARIF: '/' separators, percent-encoded, no leading "./". Absolute paths become
// file:// URIs.
std::string PathToUri(std::string_view path);

}  // namespace tl
