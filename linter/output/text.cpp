// The text format: Ruff's "full" layout, which users already read fluently.
//
//   train.py:12:17: TL101 `.item()` waits for the GPU every step
//      |
//   12 |         total += loss.item()
//      |                  ^^^^^^^^^^^
//      = help: Accumulate on the device and read the value once per epoch
//
// Tabs are expanded and invalid UTF-8 shows as U+FFFD so the underline lines up under the text.
#include <fmt/core.h>

#include <algorithm>

#include "linter/engine/rule.h"  // LocalizedMessage
#include "linter/output/ansi.h"
#include "linter/output/evidence.h"
#include "linter/output/report.h"

namespace tl {
namespace {

using ansi::kBlue;
using ansi::kBold;
using ansi::kCyan;
using ansi::kRed;
using ansi::kReset;
constexpr uint32_t kTabWidth = 4;

// Length of the UTF-8 sequence starting at text[i], or 0 when it is invalid.
size_t SequenceLength(std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  size_t length = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    length = 2;
  } else if ((c & 0xF0) == 0xE0) {
    length = 3;
  } else if ((c & 0xF8) == 0xF0) {
    length = 4;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  }
  return length;
}

// The line as it will be printed, and the display column where each byte offset of it starts.
struct DisplayLine {
  std::string text;
  std::vector<uint32_t> column_at;  // size = bytes + 1
};

DisplayLine MakeDisplayLine(std::string_view line) {
  DisplayLine out;
  out.column_at.assign(line.size() + 1, 0);
  uint32_t column = 0;
  size_t i = 0;
  while (i < line.size()) {
    const size_t length = SequenceLength(line, i);
    for (size_t k = 0; k < std::max<size_t>(length, 1); ++k) out.column_at[i + k] = column;
    if (line[i] == '\t') {
      const uint32_t spaces = kTabWidth - column % kTabWidth;
      out.text.append(spaces, ' ');
      column += spaces;
    } else if (length == 0) {
      out.text += "\xEF\xBF\xBD";
      ++column;
    } else if (length == 1 && static_cast<unsigned char>(line[i]) < 0x20) {
      out.text += ' ';  // other control characters would move the cursor
      ++column;
    } else {
      out.text.append(line.substr(i, length));
      ++column;
    }
    i += std::max<size_t>(length, 1);
  }
  out.column_at[line.size()] = column;
  return out;
}

std::string Paint(std::string_view text, std::string_view style, bool color) {
  if (!color) return std::string(text);
  return fmt::format("{}{}{}", style, text, kReset);
}

class TextReporter final : public Reporter {
 public:
  explicit TextReporter(const OutputOptions& options) : options_(options) {}

  void AddFile(const SourceFile& source, const std::vector<Diagnostic>& diagnostics) override {
    for (const Diagnostic& diagnostic : diagnostics) {
      const std::string text = RenderText(source, diagnostic, options_.color, options_.lang);
      std::fwrite(text.data(), 1, text.size(), options_.out);
      std::fputc('\n', options_.out);
    }
  }

  // The command prints unreadable files on stderr; the text report has nothing to add.
  void AddError(std::string_view, std::string_view) override {}

  // Shown at the checked script's step loop when the cross-check knows it, else against the trace file.
  void AddTraceFinding(const TraceFinding& finding) override {
    std::string where = finding.script.empty() ? finding.trace_path : finding.script;
    if (!finding.script.empty() && finding.line > 0) where += fmt::format(":{}", finding.line);
    const char* help = options_.lang == Lang::kChinese ? "帮助" : "help";
    const Lang lang = options_.lang;
    const std::string text = fmt::format(
        fmt::runtime(lang == Lang::kChinese ? "{}: {} {}：{}\n  = {}: {}\n  = {}: {}\n\n"
                                            : "{}: {} {}: {}\n  = {}: {}\n  = {}: {}\n\n"),
        Paint(where, kBold, options_.color), Paint(finding.code, kRed, options_.color), LocalizedTitle(finding, lang),
        LocalizedMessage(finding, lang), Paint("trace", kCyan, options_.color), TraceHeadline(finding, lang),
        Paint(help, kCyan, options_.color), LocalizedRecommendation(finding, lang));
    std::fwrite(text.data(), 1, text.size(), options_.out);
  }

  void Finish() override { std::fflush(options_.out); }

 private:
  OutputOptions options_;
};

}  // namespace

std::string RenderText(const SourceFile& source, const Diagnostic& diagnostic, bool color, Lang lang) {
  const bool zh = lang == Lang::kChinese;
  const Span span = ToSpan(source, diagnostic.range);
  std::string out = fmt::format("{}:{}:{}: {} {}\n", Paint(source.path(), kBold, color), span.line, span.column,
                                Paint(diagnostic.code, kRed, color), LocalizedMessage(diagnostic, lang));
  const LineIndex& lines = source.lines();
  const uint32_t line0 = span.line - 1;
  if (line0 >= lines.LineCount()) return out;
  const std::string_view line_text = lines.LineText(line0);
  const uint32_t line_start = lines.LineStart(line0);
  const DisplayLine display = MakeDisplayLine(line_text);

  const uint32_t begin_byte = std::min<uint32_t>(diagnostic.range.begin - line_start, line_text.size());
  uint32_t end_byte = static_cast<uint32_t>(line_text.size());
  if (diagnostic.range.end >= line_start && diagnostic.range.end - line_start < line_text.size()) {
    end_byte = diagnostic.range.end - line_start;
  }
  const uint32_t begin_column = display.column_at[begin_byte];
  const uint32_t end_column = std::max(display.column_at[std::max(end_byte, begin_byte)], begin_column + 1);

  const std::string number = std::to_string(span.line);
  const std::string gutter(number.size(), ' ');
  out += Paint(fmt::format("{} |", gutter), kBlue, color) + "\n";
  out += Paint(fmt::format("{} |", number), kBlue, color) + " " + display.text + "\n";
  out += Paint(fmt::format("{} |", gutter), kBlue, color) + " " + std::string(begin_column, ' ') +
         Paint(std::string(end_column - begin_column, '^'), kRed, color) + "\n";
  for (const RelatedSpan& r : RelatedSpans(source, diagnostic, lang)) {
    out += Paint(fmt::format("{} = ", gutter), kBlue, color) + Paint(zh ? "注" : "note", kCyan, color) + ": " +
           fmt::format("{}:{}:{}: {}", r.path, r.line, r.column, r.message) + "\n";
  }
  if (diagnostic.fix) {
    std::string help = LocalizedFixTitle(diagnostic, lang);
    if (diagnostic.fix->applicability == Applicability::kUnsafe) help += zh ? "（不安全的修复）" : " (unsafe fix)";
    out += Paint(fmt::format("{} = ", gutter), kBlue, color) + Paint(zh ? "帮助" : "help", kCyan, color) + ": " + help +
           "\n";
  }
  if (diagnostic.evidence) {
    out += Paint(fmt::format("{} = ", gutter), kBlue, color) + Paint("trace", kCyan, color) + ": " +
           EvidenceHeadline(*diagnostic.evidence, lang) + " — " + LocalizedSummary(*diagnostic.evidence, lang) + "\n";
  }
  return out;
}

std::unique_ptr<Reporter> MakeTextReporter(const OutputOptions& options) {
  return std::make_unique<TextReporter>(options);
}

}  // namespace tl
