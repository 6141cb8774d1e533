// The project pass: check every file once with its summary collected, index the summaries (and those
// of the project modules the files import), then check again only the files whose findings the
// project can change, and report every file in input order. One parse per file in the common case: a
// file is parsed a second time only when another file of the project gives it a device or a syncing
// helper. With --fix or --diff, a file with a fix to make is also checked a second time, and fixed then
// (against the project when the project can change its findings), so that `check --fix` fixes what
// `check` reports.
#include <algorithm>
#include <limits>

#include "linter/core/fs.h"
#include "linter/core/parallel.h"
#include "linter/engine/driver.h"
#include "linter/engine/project_builder.h"

namespace tl {
namespace {

// `from m import *` of a module that is not a third party's (the index tells whether it is the project's).
bool StarImportsProject(const semantic::FileSummary& summary) {
  return std::any_of(summary.imports.begin(), summary.imports.end(),
                     [](const semantic::ImportSummary& import) { return import.local == "*"; });
}

// Whether the file imports a module of the index.
bool ImportsProject(const semantic::ProjectIndex& index, const semantic::FileSummary& summary) {
  return std::any_of(summary.imports.begin(), summary.imports.end(), [&](const semantic::ImportSummary& import) {
    const size_t dot = import.canonical.rfind('.');
    return index.Module(summary, import.canonical) != nullptr ||
           (dot != std::string::npos &&
            index.Module(summary, std::string_view(import.canonical).substr(0, dot)) != nullptr);
  });
}

// A function of the file synchronizes implicitly on every call: a step loop of another file may call it
// (ProjectIndex::StepEntries), and the file is then checked again to report those syncs where they are.
bool ImplicitSyncs(const semantic::FileSummary& summary) {
  return std::any_of(summary.functions.begin(), summary.functions.end(),
                     [](const semantic::FunctionSummary& f) { return f.implicit.syncs; });
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
      // Without a cache, a summary's hash is only asked of the files read again below: hashed then.
      copy->hash_summary = options.summary_cache != nullptr;
      with_summary.emplace_back(task.options.get(), std::move(copy));
      it = std::prev(with_summary.end());
    }
    task.options = it->second;
  }
  std::vector<FileOutcome> outcomes;
  outcomes.reserve(tasks.size());
  const std::vector<FileTask> kept = tasks;
  // With --fix or --diff, the first pass only looks: the fixes are made in the third, once the project is
  // known, so that a finding only the project shows is fixed too, and each file is written once.
  DriverOptions first = options;
  first.fix_mode = FixMode::kNone;
  // Files whose text was given back although the project may still give the fields they read of an
  // imported name (`from option import args`): read again from their path if it does, with the content
  // hash of their summary in the index.
  std::vector<char> reread(kept.size(), 0);
  RunChecksAlone(std::move(tasks), first, [&](FileOutcome&& outcome) {
    // A file with nothing to report that the project cannot change gives its text back now: the pass
    // holds every outcome until the end, and the texts are most of that memory.
    const size_t i = outcomes.size();
    const semantic::FileSummary* s = outcome.summary ? &*outcome.summary : nullptr;
    if (outcome.source && outcome.diagnostics.empty() && !outcome.error && s != nullptr && !s->project_calls &&
        !StarImportsProject(*s) && !s->parameter_reads && !s->builds_loaders && !s->remote_loaders &&
        !(s->device_candidates && !s->own_cuda) && (s->catalog_facts & semantic::kFactCandidates) == 0 &&
        !originals[i]->collect_facts) {
      // The project may still give it the fields it reads of an imported name, or call its functions
      // that sync. Most files that read fields of an imported name read a module's (`path.join` of
      // `from os import path`): kept, their texts were most of the pass's memory on a large tree.
      const bool project_may_read = !s->imported_reads.empty() || ImplicitSyncs(*s);
      if (!project_may_read || !kept[i].text) {  // a text the caller gave (no path to read again) is kept
        if (project_may_read) {
          reread[i] = 1;
          if (options.summary_cache == nullptr) {
            outcome.summary->content_hash = semantic::ContentHash(outcome.source->text());
          }
        }
        outcome.source.emplace(outcome.display_path, std::string());
      }
    }
    outcomes.push_back(std::move(outcome));
  });

  // 2. The index: the checked files, then the project modules they import (transitively, bounded).
  std::vector<IndexSeed> seeds;
  std::vector<size_t> seeded;  // seed -> outcome
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].summary) continue;
    if (options.summary_cache != nullptr) options.summary_cache->Put(*outcomes[i].summary);
    seeds.push_back({std::move(*outcomes[i].summary), kept[i].path});
    outcomes[i].summary.reset();
    seeded.push_back(i);
  }
  ProjectIndexOptions index_options;
  index_options.root = options.project_root;
  index_options.jobs = EffectiveJobs(options.jobs, std::numeric_limits<size_t>::max());
  index_options.max_file_bytes = options.max_file_bytes;
  index_options.cache = options.summary_cache;
  // Files with `from m import *` of a module of the project learn what it binds (`torch`) only from the
  // index: their summaries are made again with it, and the index with them.
  // (Only a module that imports torch can bring it.)
  const bool stars = std::any_of(seeds.begin(), seeds.end(),
                                 [](const IndexSeed& seed) { return StarImportsProject(seed.summary); }) &&
                     std::any_of(seeds.begin(), seeds.end(), [](const IndexSeed& seed) {
                       return semantic::ProjectIndex::BringsTorch(seed.summary.imports);
                     });
  std::vector<IndexSeed> kept_seeds;
  if (stars) kept_seeds = seeds;
  BuiltIndex built = BuildProjectIndex(std::move(seeds), index_options);
  std::vector<char> starred(outcomes.size(), 0);
  if (stars) {
    bool changed = false;
    for (size_t k = 0; k < seeded.size(); ++k) {
      const size_t i = seeded[k];
      const semantic::FileSummary* summary = built.modules[k].empty() ? nullptr : built.index->Find(built.modules[k]);
      if (summary == nullptr || !outcomes[i].source || !StarImportsProject(*summary)) continue;
      const std::vector<semantic::ImportSummary> star = built.index->StarBindings(*summary);
      if (!semantic::ProjectIndex::BringsTorch(star)) continue;
      starred[i] = 1;
      if (auto again = SummarizeSource(*outcomes[i].source, star)) {
        again->path = kept_seeds[k].summary.path;
        kept_seeds[k].summary = std::move(*again);
        changed = true;
      }
    }
    if (changed) built = BuildProjectIndex(std::move(kept_seeds), index_options);
  }
  const semantic::ProjectIndex& index = *built.index;
  std::vector<std::string> modules(outcomes.size());
  for (size_t k = 0; k < seeded.size(); ++k) modules[seeded[k]] = std::move(built.modules[k]);
  const size_t jobs = index_options.jobs;

  // 3. The files the project changes, checked again against it, in parallel.
  std::vector<size_t> again;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].source || modules[i].empty()) continue;
    const semantic::FileSummary* summary = index.Find(modules[i]);
    if (summary == nullptr) continue;
    const bool device = summary->device_candidates && index.InheritedCuda(*summary).has_value();
    // Rules catalog: a fact of another file of the component (a torch.compile, a training loop, DDP's
    // no_sync, autocast, cudnn.benchmark, the model's convolutions) can change this file's findings.
    constexpr uint32_t kFacts = ~uint32_t{semantic::kFactCandidates};
    const bool differs = (index.ComponentFacts(*summary) & kFacts) != (summary->catalog_facts & kFacts);
    const bool catalog = (summary->catalog_facts & semantic::kFactCandidates) != 0 &&
                         (differs || (!summary->own_cuda && index.InheritedCuda(*summary).has_value()));
    // Values across files: another file calls a function of this one that reads what its parameters bring.
    const bool values = summary->parameter_reads && index.Called(*summary);
    // A file that builds loaders and imports a module of the project may hand them to its functions.
    const bool loaders = summary->builds_loaders && ImportsProject(index, *summary);
    const bool fields = index.ImportsFields(*summary);
    // A batch it copies may come from a pinned loader a function of another module returns.
    const bool factories = summary->remote_loaders && ImportsProject(index, *summary);
    // A step loop of another file calls a function of this one that syncs implicitly on every call.
    const bool entries = !index.StepEntries(*summary).empty();
    if (device || catalog || values || loaders || fields || factories || entries || summary->project_calls ||
        starred[i] != 0) {
      again.push_back(i);
    }
  }
  std::vector<char> with_project(outcomes.size(), 0);
  for (size_t i : again) with_project[i] = 1;
  if (options.fix_mode != FixMode::kNone) {
    // The files with a fix to make are fixed here too, with the project or without as above.
    again.clear();
    for (size_t i = 0; i < outcomes.size(); ++i) {
      const FileOutcome& outcome = outcomes[i];
      const bool fixable = std::any_of(outcome.diagnostics.begin(), outcome.diagnostics.end(),
                                       [](const Diagnostic& d) { return d.fix.has_value(); });
      if (outcome.source && !outcome.error && (with_project[i] != 0 || fixable)) again.push_back(i);
    }
  }
  ParallelFor(again.size(), jobs, [&](size_t k) {
    const size_t i = again[k];
    FileOutcome& outcome = outcomes[i];
    std::shared_ptr<const CheckOptions> check_options = originals[i];
    if (with_project[i] != 0) {
      auto project_options = std::make_shared<CheckOptions>(*originals[i]);
      project_options->project = &index;
      project_options->module = modules[i];
      check_options = std::move(project_options);
    }
    FileTask task = kept[i];
    if (reread[i] != 0) {
      // Given back in the first pass: its bytes again, unless they changed since (then the first pass's
      // result stands).
      Result<std::string> text = ReadFile(kept[i].path, options.max_file_bytes);
      const semantic::FileSummary* summary = index.Find(modules[i]);
      if (!text.ok() || summary == nullptr || semantic::ContentHash(*text) != summary->content_hash) return;
      task.text = std::move(*text);
    } else {
      task.text = std::string(outcome.source->text());
    }
    task.options = std::move(check_options);
    FileOutcome checked = CheckOneFile(task, options.fix_mode, options.max_fix_passes, options.max_file_bytes,
                                       options.fix_level);
    if (options.fix_mode != FixMode::kNone) {
      // What the fixes made, written or refused, and the findings of the text they left.
      if (checked.source) {
        outcome.diagnostics = std::move(checked.diagnostics);
        outcome.facts = std::move(checked.facts);
        outcome.source = std::move(checked.source);
        outcome.original = std::move(checked.original);
        outcome.fixes_applied = checked.fixes_applied;
        outcome.applied = std::move(checked.applied);
        outcome.written = checked.written;
      }
      if (checked.error) outcome.error = std::move(checked.error);
    } else if (checked.source && !checked.error) {
      outcome.diagnostics = std::move(checked.diagnostics);
      outcome.facts = std::move(checked.facts);
      if (reread[i] != 0) outcome.source = std::move(checked.source);  // what the findings' places refer to
    }
  });
  for (FileOutcome& outcome : outcomes) report(std::move(outcome));
}

}  // namespace tl
