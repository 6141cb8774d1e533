// The sarif format: SARIF 2.1.0 in the subset GitHub code scanning reads. Every registered rule is in
// tool.driver.rules (id, name, short and full descriptions, help as text and Markdown), results point
// at repo-relative URIs under %SRCROOT% with 1-based regions counted in code points (columnKind says
// so), and files that could not be read become tool execution notifications rather than results.
// GitHub rejects a result without a location or whose ruleId no descriptor has, so every result has
// both: trace-only findings and notices such as parse-error get descriptors of their own after the
// registered rules, and a trace-only finding points at the script's step loop, else at the trace file.
// tests/support/validate_sarif.py checks the output against the schema and these constraints.
#include <fmt/core.h>

#include <functional>
#include <map>

#include <nlohmann/json.hpp>

#include "linter/engine/rule.h"
#include "linter/output/evidence.h"
#include "linter/output/report.h"

namespace tl {
namespace {

using Json = nlohmann::ordered_json;

std::string_view Level(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "note";
  }
  return "warning";
}

// The first paragraph under "## What it does", which is what an alert's header should say.
std::string WhatItDoes(const RuleMeta& meta) {
  std::string_view docs = meta.docs;
  const size_t heading = docs.find("## What it does");
  if (heading == std::string_view::npos) return std::string(meta.summary);
  docs.remove_prefix(heading + std::string_view("## What it does").size());
  while (!docs.empty() && (docs.front() == '\n' || docs.front() == '\r' || docs.front() == ' ')) docs.remove_prefix(1);
  const size_t end = docs.find("\n\n");
  std::string paragraph(docs.substr(0, end));
  for (char& c : paragraph) {
    if (c == '\n') c = ' ';
  }
  return paragraph.empty() ? std::string(meta.summary) : paragraph;
}

Json Region(const Span& span) {
  return Json{{"startLine", span.line},
              {"startColumn", span.column},
              {"endLine", span.end_line},
              {"endColumn", span.end_column}};
}

Json ArtifactLocation(std::string_view path) {
  const std::string uri = PathToUri(path);
  Json location{{"uri", uri}};
  if (!uri.starts_with("file://")) location["uriBaseId"] = "%SRCROOT%";
  return location;
}

Json RuleDescriptor(const RuleMeta& meta) {
  return Json{{"id", meta.code},
              {"name", meta.name},
              {"shortDescription", Json{{"text", meta.summary}}},
              {"fullDescription", Json{{"text", WhatItDoes(meta)}}},
              {"help", Json{{"text", meta.docs}, {"markdown", meta.docs}}},
              {"defaultConfiguration", Json{{"level", Level(meta.severity)}}},
              {"properties", Json{{"tags", Json::array({"performance", meta.family})}}}};
}

Json TraceRuleDescriptor(const TraceFinding& f) {
  // `trace-launch-bound` is named `launch-bound`, as rules are named beside their codes.
  const std::string name = f.code.starts_with("trace-") ? f.code.substr(6) : f.code;
  std::string when = f.summary.empty() ? f.title : f.summary;
  while (when.ends_with('.')) when.pop_back();
  const std::string full = fmt::format(
      "{}. A finding of the profiler trace alone (`torchlint check --trace`): no line of code is to blame.", when);
  std::string help = full + "\n\n";
  if (!f.recommendation.empty()) help += f.recommendation + (f.recommendation.ends_with('.') ? "\n\n" : ".\n\n");
  help += fmt::format(
      "The time a fix saves per step is estimated by the model that docs/crosscheck.md states for `{}`.", f.code);
  return Json{{"id", f.code},
              {"name", name},
              {"shortDescription", Json{{"text", when}}},
              {"fullDescription", Json{{"text", full}}},
              {"help", Json{{"text", help}, {"markdown", help}}},
              {"defaultConfiguration", Json{{"level", Level(f.severity)}}},
              {"properties", Json{{"tags", Json::array({"performance", "trace"})}}}};
}

// A notice about the file itself (parse-error), which no registered rule describes.
Json NoticeDescriptor(const Diagnostic& diagnostic) {
  const std::string name = diagnostic.name.empty() ? diagnostic.code : diagnostic.name;
  const std::string text = diagnostic.code == "parse-error"
                               ? std::string("The file has a syntax error; torchlint still checked the rest of it")
                               : fmt::format("A notice about the file itself ({})", name);
  return Json{{"id", diagnostic.code},
              {"name", name},
              {"shortDescription", Json{{"text", text}}},
              {"fullDescription", Json{{"text", text}}},
              {"help", Json{{"text", text}, {"markdown", text}}},
              {"defaultConfiguration", Json{{"level", Level(diagnostic.severity)}}}};
}

class SarifReporter final : public Reporter {
 public:
  explicit SarifReporter(const OutputOptions& options)
      : options_(options), rules_(Json::array()), results_(Json::array()), notifications_(Json::array()) {
    for (const Rule* rule : AllRules()) {
      index_.emplace(rule->Meta().code, rules_.size());
      rules_.push_back(RuleDescriptor(rule->Meta()));
    }
  }

  void AddFile(const SourceFile& source, const std::vector<Diagnostic>& diagnostics) override {
    for (const Diagnostic& diagnostic : diagnostics) {
      const Span span = ToSpan(source, diagnostic.range);
      Json result{{"ruleId", diagnostic.code}};
      result["ruleIndex"] = RuleIndex(diagnostic.code, [&] { return NoticeDescriptor(diagnostic); });
      result["level"] = Level(diagnostic.severity);
      // With a trace, the message says what the fix saves, as the text and github formats do.
      std::string message = diagnostic.message;
      if (diagnostic.evidence) {
        message += fmt::format(" [{} — {}]", EvidenceHeadline(*diagnostic.evidence), diagnostic.evidence->summary);
      }
      result["message"] = Json{{"text", std::move(message)}};
      result["locations"] = Json::array(
          {Json{{"physicalLocation",
                 Json{{"artifactLocation", ArtifactLocation(source.path())}, {"region", Region(span)}}}}});
      if (!diagnostic.related.empty()) {
        Json related = Json::array();
        int id = 0;
        for (const RelatedSpan& r : RelatedSpans(source, diagnostic)) {
          related.push_back(
              Json{{"id", id++},
                   {"message", Json{{"text", r.message}}},
                   {"physicalLocation", Json{{"artifactLocation", ArtifactLocation(r.path)},
                                             {"region", Json{{"startLine", r.line}, {"startColumn", r.column}}}}}});
        }
        result["relatedLocations"] = std::move(related);
      }
      if (diagnostic.fix && diagnostic.fix->applicability != Applicability::kDisplayOnly) {
        Json replacements = Json::array();
        for (const Edit& edit : diagnostic.fix->edits) {
          replacements.push_back(Json{{"deletedRegion", Region(ToSpan(source, edit.range))},
                                      {"insertedContent", Json{{"text", edit.replacement}}}});
        }
        result["fixes"] = Json::array(
            {Json{{"description", Json{{"text", diagnostic.fix->title}}},
                  {"artifactChanges", Json::array({Json{{"artifactLocation", ArtifactLocation(source.path())},
                                                        {"replacements", std::move(replacements)}}})}}});
      }
      if (diagnostic.evidence) result["properties"] = Json{{"evidence", EvidenceToJson(*diagnostic.evidence)}};
      results_.push_back(std::move(result));
    }
  }

  // At the checked script's step loop when the cross-check knows it, else at the trace file with no
  // region: SARIF allows a result without a location, GitHub code scanning does not.
  void AddTraceFinding(const TraceFinding& f) override {
    const bool at_script = !f.script.empty();
    Json physical{{"artifactLocation", ArtifactLocation(at_script ? f.script : f.trace_path)}};
    if (at_script && f.line > 0) physical["region"] = Json{{"startLine", f.line}};
    results_.push_back(Json{{"ruleId", f.code},
                            {"ruleIndex", RuleIndex(f.code, [&] { return TraceRuleDescriptor(f); })},
                            {"level", Level(f.severity)},
                            {"message", Json{{"text", fmt::format("{}: {} [{}] ({})", f.title, f.message,
                                                                  TraceHeadline(f), f.recommendation)}}},
                            {"locations", Json::array({Json{{"physicalLocation", std::move(physical)}}})},
                            {"properties", Json{{"trace", f.trace_path},
                                                {"cost_ms_per_step", f.cost_ms_per_step},
                                                {"share_of_step", f.step_ms > 0 ? f.cost_ms_per_step / f.step_ms : 0.0},
                                                {"saved_ms_per_step", f.saved_ms_per_step}}}});
  }

  void AddError(std::string_view path, std::string_view message) override {
    notifications_.push_back(Json{
        {"level", "error"},
        {"message", Json{{"text", message}}},
        {"locations", Json::array({Json{{"physicalLocation", Json{{"artifactLocation", ArtifactLocation(path)}}}}})}});
  }

  void Finish() override {
    Json driver{{"name", "torchlint"},
                {"version", options_.tool_version},
                {"semanticVersion", options_.tool_version},
                {"rules", std::move(rules_)}};
    Json run{{"tool", Json{{"driver", std::move(driver)}}},
             {"columnKind", "unicodeCodePoints"},
             {"results", std::move(results_)}};
    if (!notifications_.empty()) {
      run["invocations"] = Json::array(
          {Json{{"executionSuccessful", true}, {"toolExecutionNotifications", std::move(notifications_)}}});
    }
    Json log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
             {"version", "2.1.0"},
             {"runs", Json::array({std::move(run)})}};
    const std::string text = log.dump(2, ' ', false, Json::error_handler_t::replace);
    std::fwrite(text.data(), 1, text.size(), options_.out);
    std::fputc('\n', options_.out);
    std::fflush(options_.out);
  }

 private:
  // The index of `code` in tool.driver.rules; a code no registered rule has gets `describe()` appended.
  size_t RuleIndex(const std::string& code, const std::function<Json()>& describe) {
    const auto [it, added] = index_.try_emplace(code, rules_.size());
    if (added) rules_.push_back(describe());
    return it->second;
  }

  OutputOptions options_;
  Json rules_;
  std::map<std::string, size_t, std::less<>> index_;
  Json results_;
  Json notifications_;
};

}  // namespace

std::unique_ptr<Reporter> MakeSarifReporter(const OutputOptions& options) {
  return std::make_unique<SarifReporter>(options);
}

}  // namespace tl
