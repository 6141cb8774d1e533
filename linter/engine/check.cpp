#include "linter/engine/check.h"

#include <fmt/core.h>
#include <tree_sitter/api.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "linter/engine/noqa.h"
#include "linter/semantic/model.h"
#include "linter/ts/ts.h"

namespace tl {
namespace {

// Parses the file with one parser per thread: creating one per file costs allocations the benchmark
// would see. ts::Parser skips a BOM (offsets stay file offsets) and refuses nesting it cannot survive.
// The tree is read and dropped, never edited: tree-sitter's own goes once the flat copy is made.
Result<ts::Tree> ParseFile(const SourceFile& file) {
  thread_local ts::Parser parser(ts::TreeUse::kReadOnce);
  return parser.Parse(file.text());
}

Diagnostic ParseErrorDiagnostic(const SourceFile& file, ts::Node node) {
  Diagnostic diagnostic;
  diagnostic.code = "parse-error";
  diagnostic.name = "parse-error";
  diagnostic.severity = Severity::kError;
  if (node.IsMissing()) {
    diagnostic.range = {node.StartByte(), node.StartByte()};
    diagnostic.message = fmt::format("Syntax error: expected `{}` here; the rest of the file was still checked",
                                     node.Type());
  } else {
    // Point at the first token of the ERROR node; an ERROR can swallow the rest of the file.
    ts::Node first = node;
    while (first.ChildCount() > 0) first = first.Child(0);
    diagnostic.range = first.Range();
    std::string_view token = first.Text(file.text());
    if (const size_t newline = token.find_first_of("\r\n"); newline != std::string_view::npos) {
      token = token.substr(0, newline);
    }
    if (token.size() > 40) token = token.substr(0, 40);
    diagnostic.message = token.empty()
                             ? std::string("Syntax error; the rest of the file was still checked")
                             : fmt::format("Syntax error at `{}`; the rest of the file was still checked", token);
  }
  return diagnostic;
}

using LineSuppression = NoqaDirective;

bool MatchesCodeOrPrefix(std::string_view code, const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) {
    if (pattern == "ALL" || code.starts_with(pattern)) return true;
  }
  return false;
}

// The enclosing function of a byte offset, and its def line as CPython reports it (co_firstlineno: the
// first decorator's line for a decorated function).
FindingScope ScopeOf(const SourceFile& file, const semantic::Model& model, uint32_t offset) {
  FindingScope out;
  const auto& scopes = model.Scopes();
  for (int s = model.ScopeAt(offset); s >= 0 && static_cast<size_t>(s) < scopes.size();
       s = scopes[static_cast<size_t>(s)].parent) {
    const semantic::Scope& scope = scopes[static_cast<size_t>(s)];
    if (scope.kind != semantic::ScopeKind::kFunction || scope.name.empty()) continue;
    out.function = std::string(scope.name);
    const ts::Node def = scope.decorated.IsNull() ? scope.node : scope.decorated;
    out.function_def_line = static_cast<int>(file.lines().Locate(def.StartByte()).line);
    break;
  }
  return out;
}

void AddUnique(std::vector<std::string>& list, std::string_view value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.emplace_back(value);
}

FileFacts CollectFacts(const SourceFile& file, const semantic::Model& model) {
  FileFacts facts;
  for (const auto& scope : model.Scopes()) {
    if (scope.kind == semantic::ScopeKind::kFunction && !scope.name.empty()) AddUnique(facts.functions, scope.name);
  }
  const std::vector<int> step_loops = model.StepLoops();
  if (!step_loops.empty()) {
    const semantic::Loop& first = model.Loops()[static_cast<size_t>(step_loops.front())];
    facts.step_loop_line = file.lines().Locate(first.node.StartByte()).line;
  }
  for (int index : step_loops) {
    const uint32_t bits = model.Loops()[static_cast<size_t>(index)].evidence;
    facts.loops_over_loader |= (bits & (semantic::kIteratesLoader | semantic::kNextBatch)) != 0;
    facts.calls_backward |= (bits & semantic::kBackward) != 0;
    facts.calls_optimizer_step |= (bits & semantic::kOptimizerStep) != 0;
  }
  for (const semantic::Site& site : model.Sites()) {
    if (site.kind != semantic::SiteKind::kCall) continue;
    if (site.per_step()) {
      if (site.name == "zero_grad") facts.calls_zero_grad = true;
      if (site.name == "item" && !site.Receiver().IsNull() &&
          model.TensorKindOf(site.Receiver(), site.scope) != semantic::TensorKind::kNotTensor) {
        facts.calls_item = true;
      }
    }
    if (site.name == "record_function" && !site.Arguments().IsNull() && site.Arguments().NamedChildCount() > 0) {
      const semantic::Value label = model.Resolve(site.Arguments().NamedChild(0), site.scope);
      if (label.kind == semantic::ValueKind::kString && !label.string_value.empty()) {
        AddUnique(facts.record_function_labels, label.string_value);
      }
    }
    if (!site.name.empty() && std::isupper(static_cast<unsigned char>(site.name.front())) != 0) {
      const std::string_view canonical = model.CalleeCanonical(site);
      if (canonical.starts_with("torch.optim.") && canonical.find(".lr_scheduler") == std::string::npos) {
        AddUnique(facts.optimizer_classes, site.name);
      }
    }
  }
  return facts;
}

}  // namespace

bool RuleSelection::Enabled(std::string_view code, bool default_enabled) const {
  if (select.empty() ? !default_enabled : !MatchesCodeOrPrefix(code, select)) return false;
  return !MatchesCodeOrPrefix(code, ignore);
}

std::optional<semantic::FileSummary> SummarizeSource(const SourceFile& file,
                                                     std::span<const semantic::ImportSummary> star) {
  Result<ts::Tree> parsed = ParseFile(file);
  if (!parsed.ok()) return std::nullopt;
  return semantic::Model::Build(file, *parsed, star)->Summarize(file);
}

std::optional<semantic::FileSummary> SummarizeParsed(const SourceFile& file, const ts::Tree& tree,
                                                     std::span<const semantic::ImportSummary> star) {
  const LineSuppression file_noqa = FileSuppression(file, tree);
  if (file_noqa.present && file_noqa.all) return std::nullopt;
  return semantic::Model::Build(file, tree, star)->Summarize(file);
}

FileReport CheckSource(const SourceFile& file, const CheckOptions& options) {
  FileReport report;
  Result<ts::Tree> parsed = ParseFile(file);
  if (!parsed.ok()) {
    Diagnostic diagnostic;
    diagnostic.code = "parse-error";
    diagnostic.name = "parse-error";
    diagnostic.severity = Severity::kError;
    diagnostic.message = fmt::format("Cannot parse this file: {}; it was not analysed", parsed.error().message);
    report.diagnostics.push_back(std::move(diagnostic));
    report.parse_error = true;
    return report;
  }
  return CheckParsed(file, *parsed, options);
}

FileReport CheckParsed(const SourceFile& file, const ts::Tree& tree, const CheckOptions& options) {
  FileReport report;
  const LineSuppression file_noqa = FileSuppression(file, tree);
  std::vector<Diagnostic> found;
  if (!(file_noqa.present && file_noqa.all)) {
    // What the file's star imports of project modules bind (`torch` through `from utils import *`) is
    // known once the project is: the model is built with it, again when the project comes after.
    const auto star_of = [](const semantic::ProjectIndex* index, const std::string& module) {
      const semantic::FileSummary* self = index == nullptr ? nullptr : index->Find(module);
      return self == nullptr ? std::vector<semantic::ImportSummary>() : index->StarBindings(*self);
    };
    std::vector<semantic::ImportSummary> star;
    if (!options.project_for && options.project != nullptr) star = star_of(options.project, options.module);
    std::unique_ptr<semantic::Model> model = semantic::Model::Build(file, tree, star);
    ProjectView provided;
    if (options.project_for) {
      // The summary before the project is attached (what another file's index would hold of this one).
      std::optional<semantic::FileSummary> own;
      if (options.own_summary == nullptr) own = model->Summarize(file);
      provided = options.project_for(own ? *own : *options.own_summary);
      if (provided.index) {
        star = star_of(provided.index.get(), provided.module);
        if (semantic::ProjectIndex::BringsTorch(star)) {
          model = semantic::Model::Build(file, tree, star);
          if (own) own = model->Summarize(file);
          report.star = star;
        }
        model->AttachProject(provided.index.get(), provided.module);
      }
      if (options.collect_summary) report.summary = std::move(own);
    } else if (options.project != nullptr) {
      model->AttachProject(options.project, options.module);
    }
    const CheckContext context{file, tree, *model, options.rule_options};
    for (const Rule* rule : AllRules()) {
      if (!options.selection.Enabled(rule->Meta())) continue;
      if (file_noqa.Covers(rule->Meta().code)) continue;
      rule->Check(context, found);
    }
    for (Diagnostic& diagnostic : found) diagnostic.scope = ScopeOf(file, *model, diagnostic.range.begin);
    if (options.collect_facts) report.facts = CollectFacts(file, *model);
    if (options.collect_summary && !report.summary && !options.project_for) {
      report.summary = model->Summarize(file, options.hash_summary);
    }
  }

  // Suppressions: look each reported line up once (diagnostics are few; lines are many).
  std::sort(found.begin(), found.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.range.begin != b.range.begin ? a.range.begin < b.range.begin : a.code < b.code;
  });
  uint32_t cached_line = UINT32_MAX;
  LineSuppression line_noqa;
  for (Diagnostic& diagnostic : found) {
    const uint32_t line0 = file.lines().Locate(diagnostic.range.begin).line - 1;
    if (line0 != cached_line) {
      cached_line = line0;
      line_noqa = NoqaOnLine(file, tree, line0);
    }
    if (line_noqa.Covers(diagnostic.code)) continue;
    report.diagnostics.push_back(std::move(diagnostic));
  }

  // Syntax errors are reported, never suppressed (as in Ruff): a `# noqa` cannot make a file parse.
  if (const ts::Node error = ts::FirstSyntaxError(tree.Root())) {
    report.diagnostics.push_back(ParseErrorDiagnostic(file, error));
    report.parse_error = true;
  }
  std::stable_sort(report.diagnostics.begin(), report.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.range.begin != b.range.begin ? a.range.begin < b.range.begin : a.code < b.code;
  });
  return report;
}

}  // namespace tl
