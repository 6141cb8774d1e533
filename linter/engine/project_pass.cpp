// The project pass: check every file once with its summary collected, index the summaries (and those
// of the project modules the files import), then check again only the files whose findings the
// project can change, and report every file in input order. One parse per file in the common case: a
// file is parsed a second time only when another file of the project gives it a device or a syncing
// helper.
#include <fmt/core.h>

#include <algorithm>
#include <deque>
#include <system_error>
#include <unordered_set>

#include "linter/core/fs.h"
#include "linter/engine/driver.h"
#include "linter/semantic/project.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

// Modules the project index follows beyond the checked files, at most (a guard against an import
// graph that pulls in a whole monorepo for one file).
constexpr size_t kMaxContextFiles = 2000;

std::string RelativeTo(const fs::path& path, const fs::path& root) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return path.generic_string();
  fs::path relative = absolute.lexically_relative(root);
  if (relative.empty() || relative.begin()->string() == "..") return path.filename().generic_string();
  return relative.generic_string();
}

// Files under `root` that an import of `summary` may name: `a.b` as `a/b.py` or `a/b/__init__.py`,
// from the root and from the importing file's folder (scripts import their neighbours).
void CandidateFiles(const semantic::FileSummary& summary, const fs::path& file_dir, const fs::path& root,
                    std::vector<fs::path>& out) {
  for (const semantic::ImportSummary& import : summary.imports) {
    std::string_view dotted = import.canonical;
    fs::path base = root;
    if (dotted.starts_with('.')) {
      size_t level = 0;
      while (level < dotted.size() && dotted[level] == '.') ++level;
      base = file_dir;
      for (size_t up = 1; up < level; ++up) base = base.parent_path();
      dotted.remove_prefix(level);
    }
    std::vector<fs::path> bases = {base};
    if (!import.canonical.starts_with('.') && file_dir != root) bases.push_back(file_dir);
    for (const fs::path& b : bases) {
      fs::path p = b;
      std::string_view rest = dotted;
      // Every prefix of the dotted name may be the module (`a.b.f` is `a/b.py`'s f).
      while (!rest.empty()) {
        const size_t dot = rest.find('.');
        p /= std::string(rest.substr(0, dot));
        out.push_back(fs::path(p).concat(".py"));
        out.push_back(p / "__init__.py");
        if (dot == std::string_view::npos) break;
        rest.remove_prefix(dot + 1);
      }
    }
  }
}

// The module name of a path under the root; when a folder on the way is not a package name (a root
// above `.venv/lib/python3.11/`), the longest tail of the path that is one.
std::string ModuleFor(std::string_view relative, bool* is_package) {
  for (std::string_view rest = relative;;) {
    std::string module = semantic::ModuleName(rest, is_package);
    if (!module.empty()) return module;
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return {};
    rest.remove_prefix(slash + 1);
  }
}

}  // namespace

void RunProjectChecks(std::vector<FileTask> tasks, const DriverOptions& options,
                      const std::function<void(FileOutcome&&)>& report) {
  // 1. Every file, with its summary.
  std::vector<std::shared_ptr<const CheckOptions>> originals;
  originals.reserve(tasks.size());
  std::vector<std::pair<const CheckOptions*, std::shared_ptr<const CheckOptions>>> with_summary;
  for (FileTask& task : tasks) {
    originals.push_back(task.options);
    auto it = std::find_if(with_summary.begin(), with_summary.end(),
                           [&](const auto& p) { return p.first == task.options.get(); });
    if (it == with_summary.end()) {
      auto copy = std::make_shared<CheckOptions>(*task.options);
      copy->collect_summary = true;
      with_summary.emplace_back(task.options.get(), std::move(copy));
      it = std::prev(with_summary.end());
    }
    task.options = it->second;
  }
  std::vector<FileOutcome> outcomes;
  outcomes.reserve(tasks.size());
  const std::vector<FileTask> kept = tasks;
  RunChecksAlone(std::move(tasks), options, [&](FileOutcome&& outcome) {
    // A file with nothing to report that the project cannot change gives its text back now: the pass
    // holds every outcome until the end, and the texts are most of that memory.
    const size_t i = outcomes.size();
    const semantic::FileSummary* s = outcome.summary ? &*outcome.summary : nullptr;
    if (outcome.source && outcome.diagnostics.empty() && !outcome.error && s != nullptr && !s->project_calls &&
        !(s->device_candidates && !s->own_cuda) && !originals[i]->collect_facts) {
      outcome.source.emplace(outcome.display_path, std::string());
    }
    outcomes.push_back(std::move(outcome));
  });

  // 2. The index: the checked files, then the project modules they import (transitively, bounded).
  std::error_code ec;
  const fs::path root = fs::absolute(options.project_root, ec).lexically_normal();
  semantic::ProjectIndex index;
  std::vector<std::string> modules(outcomes.size());
  std::unordered_set<std::string> seen;
  std::deque<std::pair<const semantic::FileSummary*, fs::path>> pending;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].summary) continue;
    const fs::path path = fs::absolute(kept[i].path, ec).lexically_normal();
    seen.insert(path.string());
    bool package = false;
    modules[i] = ModuleFor(RelativeTo(kept[i].path, root), &package);
    semantic::FileSummary summary = std::move(*outcomes[i].summary);
    outcomes[i].summary.reset();
    summary.module = modules[i];
    summary.is_package = package;
    index.Add(std::move(summary));
    if (const semantic::FileSummary* added = index.Find(modules[i]);
        added != nullptr && added->path == kept[i].display_path) {
      pending.emplace_back(added, path.parent_path());
    } else {
      modules[i].clear();  // a second file of the same module name: checked alone
    }
  }
  size_t context = 0;
  while (!pending.empty() && context < kMaxContextFiles) {
    auto [summary, dir] = std::move(pending.front());
    pending.pop_front();
    std::vector<fs::path> candidates;
    CandidateFiles(*summary, dir, root, candidates);
    for (const fs::path& candidate : candidates) {
      const fs::path path = candidate.lexically_normal();
      if (!seen.insert(path.string()).second || !fs::is_regular_file(path, ec)) continue;
      const std::string relative = RelativeTo(path, root);
      if (relative.starts_with("..")) continue;
      auto text = ReadFile(path, options.max_file_bytes);
      if (!text.ok() || text->find('\0') != std::string::npos) continue;
      const SourceFile source(relative, std::move(*text));
      auto found = SummarizeSource(source);
      if (!found) continue;
      bool package = false;
      found->module = ModuleFor(relative, &package);
      found->is_package = package;
      const std::string module = found->module;
      index.Add(std::move(*found));
      if (const semantic::FileSummary* added = index.Find(module); added != nullptr && added->path == relative) {
        pending.emplace_back(added, path.parent_path());
      }
      if (++context >= kMaxContextFiles) break;
    }
  }
  index.Finish();

  // 3. The files the project changes, checked again against it.
  for (size_t i = 0; i < outcomes.size(); ++i) {
    FileOutcome& outcome = outcomes[i];
    if (!outcome.source || modules[i].empty()) continue;
    const semantic::FileSummary* summary = index.Find(modules[i]);
    if (summary == nullptr) continue;
    const bool device = summary->device_candidates && index.InheritedCuda(*summary).has_value();
    if (!device && !summary->project_calls) continue;
    auto project_options = std::make_shared<CheckOptions>(*originals[i]);
    project_options->project = &index;
    project_options->module = modules[i];
    FileTask again = kept[i];
    again.text = std::string(outcome.source->text());
    again.options = project_options;
    FileOutcome checked = CheckOneFile(again, FixMode::kNone, options.max_fix_passes, options.max_file_bytes);
    if (checked.source && !checked.error) {
      outcome.diagnostics = std::move(checked.diagnostics);
      outcome.facts = std::move(checked.facts);
    }
  }
  for (FileOutcome& outcome : outcomes) report(std::move(outcome));
}

}  // namespace tl
