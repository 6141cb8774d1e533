// The sarif format: SARIF 2.1.0 in the subset GitHub code scanning reads. Every registered rule is in
// tool.driver.rules (id, name, short and full descriptions, help as text and Markdown), results point
// at repo-relative URIs under %SRCROOT% with 1-based regions counted in code points (columnKind says
// so), and files that could not be read become tool execution notifications rather than results.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "linter/engine/crosscheck.h"
#include "linter/engine/rule.h"
#include "linter/output/report.h"

namespace tl {
namespace {

using Json = nlohmann::ordered_json;

std::string_view Level(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "note";
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

class SarifReporter final : public Reporter {
 public:
  explicit SarifReporter(const OutputOptions& options)
      : options_(options), results_(Json::array()), notifications_(Json::array()) {}

  void AddFile(const SourceFile& source, const std::vector<Diagnostic>& diagnostics) override {
    for (const Diagnostic& diagnostic : diagnostics) {
      const Span span = ToSpan(source, diagnostic.range);
      Json result{{"ruleId", diagnostic.code}};
      const auto& rules = AllRules();
      for (size_t i = 0; i < rules.size(); ++i) {
        if (rules[i]->Meta().code == diagnostic.code) result["ruleIndex"] = i;
      }
      result["level"] = Level(diagnostic.severity);
      result["message"] = Json{{"text", diagnostic.message}};
      result["locations"] = Json::array(
          {Json{{"physicalLocation", Json{{"artifactLocation", ArtifactLocation(source.path())}, {"region", Region(span)}}}}});
      if (diagnostic.fix && diagnostic.fix->applicability != Applicability::kDisplayOnly) {
        Json replacements = Json::array();
        for (const Edit& edit : diagnostic.fix->edits) {
          replacements.push_back(Json{{"deletedRegion", Region(ToSpan(source, edit.range))},
                                      {"insertedContent", Json{{"text", edit.replacement}}}});
        }
        result["fixes"] = Json::array({Json{
            {"description", Json{{"text", diagnostic.fix->title}}},
            {"artifactChanges", Json::array({Json{{"artifactLocation", ArtifactLocation(source.path())},
                                                  {"replacements", std::move(replacements)}}})}}});
      }
      if (diagnostic.evidence) result["properties"] = Json{{"evidence", EvidenceToJson(*diagnostic.evidence)}};
      results_.push_back(std::move(result));
    }
  }

  // SARIF allows a result without a location; the trace is named in the message and properties.
  void AddTraceFinding(const TraceFinding& f) override {
    results_.push_back(Json{{"ruleId", f.code},
                            {"level", Level(f.severity)},
                            {"message", Json{{"text", fmt::format("{}: {} ({})", f.title, f.message, f.recommendation)}}},
                            {"properties", Json{{"trace", f.trace_path}, {"saved_ms_per_step", f.saved_ms_per_step}}}});
  }

  void AddError(std::string_view path, std::string_view message) override {
    notifications_.push_back(Json{
        {"level", "error"},
        {"message", Json{{"text", message}}},
        {"locations", Json::array({Json{{"physicalLocation", Json{{"artifactLocation", ArtifactLocation(path)}}}}})}});
  }

  void Finish() override {
    Json rules = Json::array();
    for (const Rule* rule : AllRules()) {
      const RuleMeta& meta = rule->Meta();
      rules.push_back(Json{{"id", meta.code},
                           {"name", meta.name},
                           {"shortDescription", Json{{"text", meta.summary}}},
                           {"fullDescription", Json{{"text", WhatItDoes(meta)}}},
                           {"help", Json{{"text", meta.docs}, {"markdown", meta.docs}}},
                           {"defaultConfiguration", Json{{"level", Level(meta.severity)}}},
                           {"properties", Json{{"tags", Json::array({"performance", meta.family})}}}});
    }
    Json driver{{"name", "torchlint"},
                {"version", options_.tool_version},
                {"semanticVersion", options_.tool_version},
                {"rules", std::move(rules)}};
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
  OutputOptions options_;
  Json results_;
  Json notifications_;
};

}  // namespace

std::unique_ptr<Reporter> MakeSarifReporter(const OutputOptions& options) {
  return std::make_unique<SarifReporter>(options);
}

}  // namespace tl
