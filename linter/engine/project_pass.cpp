// The project pass: check every file once with its summary collected, index the summaries (and those
// of the project modules the files import), then check again only the files whose findings the
// project can change, and report every file in input order. One parse per file in the common case: a
// file is parsed a second time only when another file of the project gives it a device or a syncing
// helper.
#include <algorithm>
#include <limits>

#include "linter/core/parallel.h"
#include "linter/engine/driver.h"
#include "linter/engine/project_builder.h"

namespace tl {

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
        !s->parameter_reads && !(s->device_candidates && !s->own_cuda) &&
        (s->catalog_facts & semantic::kFactCandidates) == 0 && !originals[i]->collect_facts) {
      outcome.source.emplace(outcome.display_path, std::string());
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
  BuiltIndex built = BuildProjectIndex(std::move(seeds), index_options);
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
    if (device || catalog || values || summary->project_calls) again.push_back(i);
  }
  ParallelFor(again.size(), jobs, [&](size_t k) {
    const size_t i = again[k];
    FileOutcome& outcome = outcomes[i];
    auto project_options = std::make_shared<CheckOptions>(*originals[i]);
    project_options->project = &index;
    project_options->module = modules[i];
    FileTask task = kept[i];
    task.text = std::string(outcome.source->text());
    task.options = project_options;
    FileOutcome checked = CheckOneFile(task, FixMode::kNone, options.max_fix_passes, options.max_file_bytes);
    if (checked.source && !checked.error) {
      outcome.diagnostics = std::move(checked.diagnostics);
      outcome.facts = std::move(checked.facts);
    }
  });
  for (FileOutcome& outcome : outcomes) report(std::move(outcome));
}

}  // namespace tl
