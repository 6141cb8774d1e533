// The json format: one array of findings, keys in a fixed order so the output diffs cleanly.
// Field names follow Ruff where Ruff has one (`fix.applicability`, `edits[].location.row`).
#include <nlohmann/json.hpp>

#include "linter/output/evidence.h"
#include "linter/output/report.h"

namespace tl {
namespace {

using Json = nlohmann::ordered_json;

Json Location(uint32_t line, uint32_t column) { return Json{{"row", line}, {"column", column}}; }

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(const OutputOptions& options) : options_(options), findings_(Json::array()) {}

  void AddFile(const SourceFile& source, const std::vector<Diagnostic>& diagnostics) override {
    for (const Diagnostic& diagnostic : diagnostics) {
      const Span span = ToSpan(source, diagnostic.range);
      Json fix = nullptr;
      if (diagnostic.fix) {
        Json edits = Json::array();
        for (const Edit& edit : diagnostic.fix->edits) {
          const Span at = ToSpan(source, edit.range);
          edits.push_back(Json{{"content", edit.replacement},
                               {"location", Location(at.line, at.column)},
                               {"end_location", Location(at.end_line, at.end_column)}});
        }
        fix = Json{{"applicability", ToString(diagnostic.fix->applicability)},
                   {"title", diagnostic.fix->title},
                   {"edits", std::move(edits)}};
      }
      Json finding{{"code", diagnostic.code},       {"name", diagnostic.name},
                   {"message", diagnostic.message}, {"severity", ToString(diagnostic.severity)},
                   {"file", source.path()},         {"line", span.line},
                   {"column", span.column},         {"end_line", span.end_line},
                   {"end_column", span.end_column}, {"fix", std::move(fix)}};
      if (diagnostic.evidence) finding["evidence"] = EvidenceToJson(*diagnostic.evidence);
      if (!diagnostic.related.empty()) {
        Json related = Json::array();
        for (const RelatedSpan& r : RelatedSpans(source, diagnostic)) {
          related.push_back(Json{{"file", r.path}, {"line", r.line}, {"column", r.column}, {"message", r.message}});
        }
        finding["related"] = std::move(related);
      }
      findings_.push_back(std::move(finding));
    }
  }

  void AddError(std::string_view path, std::string_view message) override {
    findings_.push_back(Json{{"code", "io-error"},
                             {"name", "io-error"},
                             {"message", message},
                             {"severity", "error"},
                             {"file", path},
                             {"line", 1},
                             {"column", 1},
                             {"end_line", 1},
                             {"end_column", 1},
                             {"fix", nullptr}});
  }

  // No code to blame, so no column: `file` and `line` are the checked script's step loop when the
  // cross-check knows it, else `file` is the trace and `line` is null. The trace is always in `evidence`.
  void AddTraceFinding(const TraceFinding& f) override {
    Json evidence{{"verdict", ToString(Verdict::kConfirmed)},
                  {"cost_ms_per_step", f.cost_ms_per_step},
                  {"share_of_step", f.step_ms > 0 ? f.cost_ms_per_step / f.step_ms : 0.0},
                  {"saved_ms_per_step", f.saved_ms_per_step},
                  {"step_ms", f.step_ms},
                  {"summary", f.message},
                  {"recommendation", f.recommendation},
                  {"trace", f.trace_path}};
    const bool at_script = !f.script.empty();
    findings_.push_back(Json{{"code", f.code},
                             {"name", f.title},
                             {"message", f.message},
                             {"severity", ToString(f.severity)},
                             {"file", at_script ? f.script : f.trace_path},
                             {"line", at_script && f.line > 0 ? Json(f.line) : Json(nullptr)},
                             {"column", nullptr},
                             {"end_line", nullptr},
                             {"end_column", nullptr},
                             {"fix", nullptr},
                             {"evidence", std::move(evidence)}});
  }

  void Finish() override {
    // Invalid UTF-8 in a message (a quoted identifier from a Latin-1 file) is replaced, not thrown on.
    const std::string text = findings_.dump(2, ' ', false, Json::error_handler_t::replace);
    std::fwrite(text.data(), 1, text.size(), options_.out);
    std::fputc('\n', options_.out);
    std::fflush(options_.out);
  }

 private:
  OutputOptions options_;
  Json findings_;
};

}  // namespace

std::unique_ptr<Reporter> MakeJsonReporter(const OutputOptions& options) {
  return std::make_unique<JsonReporter>(options);
}

}  // namespace tl
