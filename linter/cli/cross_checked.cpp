#include "linter/cli/cross_checked.h"

#include <cstdio>

#include <fmt/core.h>

#include "linter/cli/trace_reads.h"
#include "linter/core/fs.h"
#include "linter/engine/discovery.h"
#include "linter/engine/rule.h"

namespace tl::cli {

std::optional<std::string> ResolveTargetTorch(const std::string& target_torch, const CrossCheck& cc,
                                              CheckOptions& options, Lang lang) {
  if (!target_torch.empty()) {
    auto v = TorchVersion::Parse(target_torch);
    if (!v) return fmt::format("--target-torch: `{}` is not a version; use major.minor such as 2.1", target_torch);
    options.rule_options.target_torch = *v;
  } else if (auto v = cc.TraceTorch()) {
    options.rule_options.target_torch = *v;
    PrintTraceTorchNote(cc, *v, lang);
  } else {
    options.rule_options.target_torch_inferred = true;
  }
  return std::nullopt;
}

std::optional<CrossChecked> CheckAgainstTrace(const std::vector<std::string>& paths, const CrossCheck& cc,
                                              CheckOptions options, const CrossCheck* second,
                                              const std::vector<std::string>& second_paths) {
  DiscoveryResult found = DiscoverFiles(paths, DiscoveryOptions{});
  for (const auto& error : found.errors) fmt::print(stderr, "error: {}\n", error.message);
  if (found.files.empty() && !found.errors.empty()) return std::nullopt;
  if (!second_paths.empty() && second_paths.size() != found.files.size()) {
    fmt::print(stderr, "error: --after-script names {} file(s) for {} checked file(s); give one for each\n",
               second_paths.size(), found.files.size());
    return std::nullopt;
  }

  CrossChecked out;
  options.collect_facts = true;
  for (size_t n = 0; n < found.files.size(); ++n) {
    const auto& file = found.files[n];
    auto text = ReadFile(file.path);
    if (!text.ok()) {
      fmt::print(stderr, "error: {}\n", text.error().message);
      continue;
    }
    auto source = std::make_unique<SourceFile>(file.display_path, std::move(*text));
    FileReport report = CheckSource(*source, options);
    std::vector<Diagnostic> again;
    if (second != nullptr) {
      again = report.diagnostics;
      if (second_paths.empty()) {
        second->Annotate(*source, report.facts, again);
      } else {
        const SourceFile renamed(second_paths[n], std::string(source->text()));
        second->Annotate(renamed, report.facts, again);
      }
    }
    out.scripts.push_back(cc.Annotate(*source, report.facts, report.diagnostics));
    for (size_t i = 0; i < report.diagnostics.size(); ++i) {
      Diagnostic& d = report.diagnostics[i];
      if (FindRule(d.code) == nullptr) continue;  // parse-error notices are not findings to rank
      if (second != nullptr) out.second.push_back(again[i].evidence);
      out.findings.push_back({source.get(), std::move(d)});
    }
    out.sources.push_back(std::move(source));
  }
  return out;
}

}  // namespace tl::cli
