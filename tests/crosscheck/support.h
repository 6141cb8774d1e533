// Helpers for the cross-check tests: check a script (a file of the repository or of the shared traces,
// or a small script written in the test) and attach the evidence of a trace, then find one finding by
// code and line. The same engine calls the CLI makes, so the tests see what `check --trace` sees.
#pragma once

#include <doctest/doctest.h>
#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crosscheck/crosscheck.h"
#include "crosscheck/ranking.h"
#include "linter/core/source_file.h"
#include "linter/engine/check.h"
#include "tests/cli/cli_support.h"
#include "tests/support/paths.h"

namespace tl::test {

struct Checked {
  std::unique_ptr<SourceFile> file;
  std::vector<Diagnostic> diagnostics;
  CheckedScript script;

  const Diagnostic* Find(std::string_view code, int line) const {
    for (const auto& d : diagnostics) {
      if (d.code == code && static_cast<int>(file->lines().Locate(d.range.begin).line) == line) return &d;
    }
    return nullptr;
  }
  size_t Count(std::string_view code) const {
    size_t n = 0;
    for (const auto& d : diagnostics) n += d.code == code ? 1 : 0;
    return n;
  }
};

inline std::string Slurp(const std::filesystem::path& path) { return ReadText(path); }

// Checks `text` as the file `path` and attaches `cross_check`'s evidence. `torch` stands for
// --target-torch; without it the trace's version is used as `check --trace` does.
inline Checked CheckAgainst(const std::string& path, std::string text, const CrossCheck& cross_check,
                            std::optional<TorchVersion> torch = std::nullopt) {
  Checked out;
  out.file = std::make_unique<SourceFile>(path, std::move(text));
  CheckOptions options;
  options.collect_facts = true;
  if (torch) {
    options.rule_options.target_torch = *torch;
  } else if (auto v = cross_check.TraceTorch()) {
    options.rule_options.target_torch = *v;
  }
  FileReport report = CheckSource(*out.file, options);
  out.diagnostics = std::move(report.diagnostics);
  out.script = cross_check.Annotate(*out.file, report.facts, out.diagnostics);
  return out;
}

// A CUDA training loop with a per-step `.item()` (line 13) and `zero_grad(set_to_none=...)` (line 10),
// for the traces that have no source of their own.
inline std::string ItemScript(bool set_to_none) {
  return fmt::format(R"py(import torch


def train(model, loader, optimizer, loss_fn):
    model = model.cuda()
    total = 0.0
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        loss = loss_fn(model(x), y)
        optimizer.zero_grad(set_to_none={})
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total
)py",
                     set_to_none ? "True" : "False");
}

inline std::optional<CrossCheck> LoadTrace(const std::filesystem::path& path) {
  auto loaded = CrossCheck::Load(path.string());
  if (!loaded.ok()) {
    FAIL_CHECK(loaded.error().message);
    return std::nullopt;
  }
  return std::move(*loaded);
}

// The shared trace `relative` loaded for the cross-check; nullopt with a `skipped:` line where the shared
// traces are absent, and a failed check where the trace does not load.
inline std::optional<CrossCheck> SharedCrossCheck(const std::string& relative) {
  auto trace = SharedTrace(relative);
  if (!trace) return std::nullopt;
  return LoadTrace(*trace);
}

// The finding `code` at `line`, required to be there and to carry the trace's evidence.
inline const Diagnostic& FindWithEvidence(const Checked& checked, std::string_view code, int line) {
  const Diagnostic* d = checked.Find(code, line);
  INFO(code, " at line ", line);
  REQUIRE(d != nullptr);
  REQUIRE(d->evidence);
  return *d;
}

// Our own traces (tests/e2e/traces) and scripts (tests/e2e/scripts): their lines match.
inline std::filesystem::path E2eTrace(const std::string& name) { return SourceDir() / "tests/e2e/traces" / name; }
inline std::string E2eScriptPath(const std::string& name) { return "tests/e2e/scripts/" + name; }
inline std::string E2eScript(const std::string& name) { return Slurp(SourceDir() / E2eScriptPath(name)); }

}  // namespace tl::test
