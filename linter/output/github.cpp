// The github format: GitHub Actions workflow commands, one per finding, which the Actions runner turns
// into annotations on the pull request's diff. Values are escaped as the runner expects: `%`, CR and LF
// everywhere, and also `:` and `,` inside properties.
#include <fmt/core.h>

#include "linter/engine/rule.h"  // LocalizedMessage
#include "linter/output/evidence.h"
#include "linter/output/report.h"

namespace tl {
namespace {

std::string EscapeData(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out += c;
    }
  }
  return out;
}

std::string EscapeProperty(std::string_view text) {
  std::string out;
  for (char c : EscapeData(text)) {
    if (c == ':') {
      out += "%3A";
    } else if (c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view Command(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "notice";
  }
  return "warning";
}

// An annotation has one location: the related ones follow the message as `(note: path:line)`.
std::string Message(const SourceFile& source, const Diagnostic& diagnostic, Lang lang) {
  std::string out = LocalizedMessage(diagnostic, lang);
  if (diagnostic.evidence) {
    out += fmt::format(" [{} — {}]", EvidenceHeadline(*diagnostic.evidence, lang),
                       LocalizedSummary(*diagnostic.evidence, lang));
  }
  for (const RelatedSpan& r : RelatedSpans(source, diagnostic, lang)) {
    out += fmt::format(" ({}: {}:{})", r.message, r.path, r.line);
  }
  return out;
}

class GithubReporter final : public Reporter {
 public:
  explicit GithubReporter(const OutputOptions& options) : options_(options) {}

  void AddFile(const SourceFile& source, const std::vector<Diagnostic>& diagnostics) override {
    for (const Diagnostic& diagnostic : diagnostics) {
      const Span span = ToSpan(source, diagnostic.range);
      const std::string title = diagnostic.name.empty() || diagnostic.name == diagnostic.code
                                    ? diagnostic.code
                                    : fmt::format("{} ({})", diagnostic.code, diagnostic.name);
      fmt::print(options_.out, "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
                 Command(diagnostic.severity), EscapeProperty(source.path()), span.line, span.column, span.end_line,
                 span.end_column, EscapeProperty(title), EscapeData(Message(source, diagnostic, options_.lang)));
    }
  }

  void AddError(std::string_view path, std::string_view message) override {
    fmt::print(options_.out, "::error file={},title=io-error::{}\n", EscapeProperty(path), EscapeData(message));
  }

  // Annotated on the checked script's step loop when the cross-check knows it, else on the trace file,
  // which GitHub lists with the run's annotations when it is not part of the diff.
  void AddTraceFinding(const TraceFinding& f) override {
    std::string where = fmt::format("file={}", EscapeProperty(f.script.empty() ? f.trace_path : f.script));
    if (!f.script.empty() && f.line > 0) where += fmt::format(",line={}", f.line);
    const Lang lang = options_.lang;
    std::string message = fmt::format(fmt::runtime(lang == Lang::kChinese ? "{}：{} [{}]（{}）" : "{}: {} [{}] ({})"),
                                      LocalizedTitle(f, lang), LocalizedMessage(f, lang), TraceHeadline(f, lang),
                                      LocalizedRecommendation(f, lang));
    if (!f.script.empty()) message += fmt::format(" [{}]", f.trace_path);
    fmt::print(options_.out, "::notice {},title={}::{}\n", where, EscapeProperty(f.code), EscapeData(message));
  }

  void Finish() override { std::fflush(options_.out); }

 private:
  OutputOptions options_;
};

}  // namespace

std::unique_ptr<Reporter> MakeGithubReporter(const OutputOptions& options) {
  return std::make_unique<GithubReporter>(options);
}

}  // namespace tl
