#include "crosscheck/crosscheck.h"

#include <fmt/core.h>

#include <algorithm>

#include "crosscheck/evidence.h"
#include "crosscheck/messages.h"
#include "traceio/evidence.h"

namespace tl {

namespace {

// Which evidence is stronger when a folder holds several traces: what a trace saw beats what it could
// not see, and among confirmations the costliest one is the one to act on.
bool Stronger(const Evidence& a, const Evidence& b) {
  auto strength = [](Verdict v) {
    switch (v) {
      case Verdict::kConfirmed: return 4;
      case Verdict::kNegligible: return 3;
      case Verdict::kRefuted: return 2;
      case Verdict::kNotObserved: return 1;
      case Verdict::kUnverifiable: return 0;
    }
    return 0;
  };
  if (strength(a.verdict) != strength(b.verdict)) return strength(a.verdict) > strength(b.verdict);
  return a.saved_ms_per_step > b.saved_ms_per_step;
}

Priority PriorityOf(trace::Severity s) {
  return s == trace::Severity::kHigh     ? Priority::kHigh
         : s == trace::Severity::kMedium ? Priority::kMedium
                                         : Priority::kLow;
}

std::vector<TraceFigure> Figures(const std::vector<trace::EvidenceFigure>& figures) {
  std::vector<TraceFigure> out;
  out.reserve(figures.size());
  for (const auto& f : figures) out.push_back({f.metric, f.value, f.unit, f.healthy});
  return out;
}

// The files a snapshot's frames name, by their names alone, for the sentence that says it is another
// program's.
MessageArg FrameFiles(const trace::MemorySnapshot& snapshot) {
  std::vector<std::string> names;
  for (const std::string& file : snapshot.frame_files) {
    const size_t slash = file.find_last_of("/\\");
    names.push_back(slash == std::string::npos ? file : file.substr(slash + 1));
  }
  return ListFiles("files", names);
}

// A GPU conclusion from a trace cut before its end: the kernels may be in the missing tail.
bool GpuSideUnknown(const trace::RankTrace& rank, const trace::TraceEvidence& te) {
  return rank.read.stats.truncated && !te.capabilities().cuda;
}

}  // namespace

struct CrossCheck::State {
  std::unique_ptr<trace::TraceSet> set;
  std::vector<const trace::RankTrace*> ranks;                   // readable ones
  std::vector<std::unique_ptr<trace::TraceEvidence>> evidence;  // one per readable rank
  std::vector<TraceSignals> signals;                            // one per readable rank
  std::optional<trace::MemorySnapshot> memory;                  // --memory
};

CrossCheck::CrossCheck(std::unique_ptr<State> state) : state_(std::move(state)) {}
CrossCheck::CrossCheck(CrossCheck&&) noexcept = default;
CrossCheck& CrossCheck::operator=(CrossCheck&&) noexcept = default;
CrossCheck::~CrossCheck() = default;

Result<CrossCheck> CrossCheck::Load(const std::string& path, const trace::ReadOptions& read,
                                    const trace::AnalysisOptions& analysis) {
  auto state = std::make_unique<State>();
  state->set = std::make_unique<trace::TraceSet>(trace::LoadTraceSet(path, read, analysis));
  for (const auto& rank : state->set->ranks) {
    if (!rank.read.ok() || !rank.analysis) continue;
    state->ranks.push_back(&rank);
    state->evidence.push_back(std::make_unique<trace::TraceEvidence>(*rank.read.trace, *rank.analysis));
    state->signals.push_back(ReadSignals(*state->evidence.back()));
  }
  if (state->ranks.empty()) {
    std::string why;
    for (const auto& e : state->set->errors) why += (why.empty() ? "" : "; ") + e;
    // A file that could not be read is in `errors` and, read alone, among the ranks too: say it once.
    const auto& errors = state->set->errors;
    for (const auto& r : state->set->ranks) {
      if (!r.read.ok() && std::find(errors.begin(), errors.end(), r.read.error) == errors.end())
        why += (why.empty() ? "" : "; ") + r.read.error;
    }
    if (why.empty()) why = fmt::format("{}: no profiler trace there (*.json, *.json.gz)", path);
    return Error{fmt::format("--trace: {}", why)};
  }
  return CrossCheck(std::move(state));
}

const trace::TraceSet& CrossCheck::traces() const { return *state_->set; }

std::vector<std::string> CrossCheck::Warnings(Lang lang) const {
  std::vector<std::string> out = state_->set->errors;
  for (const auto* r : state_->ranks) {
    // The readers' warnings start with the file's name already.
    for (size_t i = 0; i < r->read.warnings.size(); ++i) {
      out.push_back(trace::WarningIn(r->read, i, lang == Lang::kChinese));
    }
  }
  return out;
}

void CrossCheck::SetMemorySnapshot(trace::MemorySnapshot snapshot) { state_->memory = std::move(snapshot); }

const trace::MemorySnapshot* CrossCheck::memory_snapshot() const { return state_->memory ? &*state_->memory : nullptr; }

const trace::RankTrace* CrossCheck::Focus() const {
  const auto& set = *state_->set;
  if (set.straggler && static_cast<size_t>(*set.straggler) < set.ranks.size()) {
    const auto& r = set.ranks[static_cast<size_t>(*set.straggler)];
    if (r.read.ok() && r.analysis) return &r;
  }
  return state_->ranks.empty() ? nullptr : state_->ranks.front();
}

std::vector<uint32_t> CrossCheck::FocusEvents(const Evidence& evidence) const {
  const trace::RankTrace* focus = Focus();
  for (size_t i = 0; i < state_->ranks.size(); ++i) {
    if (state_->ranks[i] == focus) return ClaimedEvents(evidence, static_cast<uint32_t>(i));
  }
  return {};
}

std::optional<TorchVersion> CrossCheck::TraceTorch() const {
  for (const auto* r : state_->ranks) {
    const auto& md = r->read.trace->metadata();
    if (!md.pytorch_version.empty()) {
      if (auto v = TorchVersion::Parse(md.pytorch_version)) return v;
    }
    // PyTorch 1.8 and 1.9 wrote `Operator`/`Runtime`/`Kernel` categories; 1.10 renamed them.
    if (md.format == trace::TraceFormat::kKinetoOld) return TorchVersion{1, 9};
  }
  return std::nullopt;
}

Sentence CrossCheck::TraceTorchReason() const {
  for (const auto* r : state_->ranks) {
    const auto& md = r->read.trace->metadata();
    if (!md.pytorch_version.empty() && TorchVersion::Parse(md.pytorch_version)) {
      return CrossCheckSentence("torch-from-version", {{"version", md.pytorch_version, {}}});
    }
    if (md.format == trace::TraceFormat::kKinetoOld) return CrossCheckSentence("torch-from-categories");
  }
  return {};
}

CheckedScript CrossCheck::Annotate(const SourceFile& file, const FileFacts& facts,
                                   std::vector<Diagnostic>& diagnostics) const {
  CheckedScript script{file.path(), facts.step_loop_line, false};
  const trace::RankTrace* focus = Focus();
  std::vector<Provenance> provenance;
  for (size_t i = 0; i < state_->ranks.size(); ++i) {
    provenance.push_back(DecideProvenance(state_->signals[i], file.path(), facts));
    if (state_->ranks[i] == focus) script.trace_is_its = provenance.back().usable();
  }
  // The snapshot speaks for this file unless its frames name only other files: another program's
  // allocator can neither confirm nor refute this file's code, as another program's trace cannot.
  const trace::MemorySnapshot* memory = memory_snapshot();
  const std::optional<bool> memory_is_its = memory != nullptr ? trace::RecordedFrom(*memory, file.path())
                                                              : std::optional<bool>(false);
  for (auto& d : diagnostics) {
    if (FindRule(d.code) == nullptr) continue;  // notices (parse-error) are about the file, not the code
    const RuleEvidence* rule = FindRuleEvidence(d.code);
    const bool asks_memory = rule != nullptr && memory != nullptr && rule->UsesMemorySnapshot();
    const int line = static_cast<int>(file.lines().Locate(d.range.begin).line);
    std::optional<Evidence> best;
    for (size_t i = 0; i < state_->ranks.size(); ++i) {
      const trace::TraceEvidence& te = *state_->evidence[i];
      const auto& steps = state_->ranks[i]->analysis->steps;
      Evidence e;
      if (rule == nullptr) {
        e = Unverifiable(CrossCheckSentence("no-evidence", {{"code", d.code, {}}}));
      } else if (!provenance[i].usable()) {
        // Another program's events cannot confirm or refute this file's code.
        e = Unverifiable(CrossCheckSentence("not-this-script", {SentenceArg("reason", provenance[i].reason)}));
      } else if (rule->NeedsGpu() && GpuSideUnknown(*state_->ranks[i], te)) {
        e = Unverifiable(CrossCheckSentence(
            "gpu-side-cut", {NumberArg("offset", static_cast<int64_t>(state_->ranks[i]->read.stats.truncated_at))}));
      } else {
        const Attribution at = Attribute(te, provenance[i], file.path(), line, d.scope, facts.functions);
        EvidenceQuery q{te,
                        file,
                        line,
                        d.scope.function,
                        d.scope.function_def_line,
                        at,
                        steps.mean_ms(),
                        steps.count(),
                        static_cast<uint32_t>(i)};
        if (asks_memory && memory_is_its != false) q.memory = memory;
        e = rule->Confirm(d, q);
        if (asks_memory && memory_is_its == false) {
          ExtendSummary(e, "snapshot-not-this-script", {{"path", file.path(), {}}, FrameFiles(*memory)});
        }
        e.step_ms = steps.mean_ms();
        // A verdict by op names says so, with why the trace is this script's.
        if (at.level == AttributionLevel::kStep && e.summary.find(at.how.en) == std::string::npos) {
          ExtendSummary(e, "attributed-by", {SentenceArg("how", at.how)});
        }
        ApplyMateriality(e);
      }
      if (state_->ranks.size() > 1) ExtendSummary(e, "of-trace", {{"path", state_->ranks[i]->path, {}}});
      if (!best || Stronger(e, *best)) best = std::move(e);
    }
    d.evidence = std::move(best);
  }
  return script;
}

std::vector<TraceFinding> CrossCheck::TraceOnly(std::span<const CheckedScript> scripts) const {
  const trace::RankTrace* focus = Focus();
  if (focus == nullptr) return {};
  return TraceOnlyFindings(*focus, scripts);
}

namespace {

// The finding's English fields and their references, from the cross-check's catalog.
void SetTitle(TraceFinding& f, const Sentence& s) {
  f.title = s.en;
  f.title_ref = s.ref;
}
void SetMessage(TraceFinding& f, const Sentence& s) {
  f.message = s.en;
  f.message_ref = s.ref;
}
void SetRecommendation(TraceFinding& f, const Sentence& s) {
  f.recommendation = s.en;
  f.recommendation_ref = s.ref;
}
// The PyTorch profiler guide's recommendation for `kind`, as traceio words it in both languages.
Sentence GuideRecommendation(trace::BottleneckKind kind) {
  return CrossCheckSentence("guide-recommendation",
                            {{"recommendation", trace::Recommendation(kind, trace::Language::kEnglish),
                              trace::Recommendation(kind, trace::Language::kChinese)}});
}

}  // namespace

std::vector<TraceFinding> TraceOnlyFindings(const trace::RankTrace& rank, std::span<const CheckedScript> scripts) {
  std::vector<TraceFinding> out;
  if (!rank.analysis || !rank.read.trace) return out;
  const trace::RankTrace* focus = &rank;
  const auto& a = *focus->analysis;
  const auto& tr = *focus->read.trace;
  const double step_ms = a.steps.mean_ms();
  const double steps = static_cast<double>(std::max<size_t>(1, a.steps.count()));
  auto severity_of = [](trace::Severity s) {
    return s == trace::Severity::kHigh     ? Severity::kError
           : s == trace::Severity::kMedium ? Severity::kWarning
                                           : Severity::kInfo;
  };
  // The fields a finding of one of the classifier's bottlenecks takes from it.
  auto from_bottleneck = [&](const trace::Bottleneck& b, std::string code, std::string_view title) {
    TraceFinding f;
    f.code = std::move(code);
    SetTitle(f, CrossCheckSentence(title));
    f.level = PriorityOf(b.severity);
    f.severity = severity_of(b.severity);
    f.figures = Figures(b.evidence);
    SetRecommendation(f, GuideRecommendation(b.kind));
    return f;
  };
  bool launch = false;
  for (const auto& b : a.bottlenecks) {
    if (b.kind == trace::BottleneckKind::kLaunch && !launch) {
      launch = true;
      TraceFinding f = from_bottleneck(b, "trace-launch-bound", "launch-title");
      SetMessage(f, CrossCheckSentence("launch-message",
                                       {ShareArg("short", a.kernels.short_share()), ShareArg("busy", a.busy.share),
                                        NumberArg("launches", a.launches.per_step, 0)}));
      // Model: CUDA Graphs / torch.compile win back about half of the GPU's idle time, less the idle time
      // the DataLoader and the blocking syncs already explain (their findings claim it).
      const double idle_ms = step_ms * (1.0 - a.busy.share);
      const double explained_ms = a.dataloader.share * step_ms + a.syncs.blocked_ms_per_step;
      f.saved_ms_per_step = 0.5 * std::max(0.0, idle_ms - explained_ms);
      f.cost_ms_per_step = std::max(0.0, idle_ms - explained_ms);
      f.summary = "Most kernels are shorter than 10 µs: the step is bound by kernel launches";
      out.push_back(std::move(f));
    } else if (b.kind == trace::BottleneckKind::kCommunication) {
      TraceFinding f = from_bottleneck(b, "trace-communication-bound", "communication-title");
      SetMessage(f, CrossCheckSentence("communication-message",
                                       {ShareArg("comm", a.comm.share()), ShareArg("overlap", a.comm.overlap())}));
      // Model: overlapping the exposed (non-overlapped) communication hides about half of it.
      f.cost_ms_per_step = static_cast<double>(a.comm.comm_ns) * (1.0 - a.comm.overlap()) / 1e6 / steps;
      f.saved_ms_per_step = 0.5 * f.cost_ms_per_step;
      f.summary = "Collective communication that does not overlap compute takes a large share of the step";
      out.push_back(std::move(f));
    }
  }
  if (a.busy.has_gpu && a.kernels.has_kernels() && a.busy.share < 0.5) {
    TraceFinding f;
    f.code = "trace-low-gpu-busy";
    SetTitle(f, CrossCheckSentence("low-busy-title"));
    f.level = Priority::kHigh;
    f.severity = Severity::kWarning;
    const std::string_view cause = a.dataloader.share > 0.10 ? "cause-dataloader"
                                   : a.syncs.per_step > 3    ? "cause-syncs"
                                   : a.comm.share() > 0.2    ? "cause-communication"
                                   : launch                  ? "cause-launch"
                                                             : "cause-host";
    SetMessage(f, CrossCheckSentence("low-busy-message", {ShareArg("busy", a.busy.share),
                                                          SentenceArg("cause", CrossCheckSentence(cause))}));
    f.figures.push_back({"gpu.busy_share", a.busy.share, "share", "> 0.80"});
    f.figures.push_back({"gpu.idle_ms_per_step", step_ms * (1.0 - a.busy.share), "ms", ""});
    SetRecommendation(f, CrossCheckSentence("low-busy-recommendation"));
    // A symptom, not a fix: its saving is counted by the finding that names the cause.
    f.saved_ms_per_step = 0.0;
    f.cost_ms_per_step = step_ms * (1.0 - a.busy.share);
    f.summary = "The GPU is idle for most of the step";
    out.push_back(std::move(f));
  }
  bool tensor_core_gpu = false;
  for (const auto& dev : tr.metadata().devices) tensor_core_gpu = tensor_core_gpu || dev.compute_major >= 7;
  if (a.kernels.has_kernels() && tensor_core_gpu && a.kernels.tensor_core_count == 0 && a.kernels.fp32_gemm_ns > 0) {
    TraceFinding f;
    f.code = "trace-no-tensor-cores";
    SetTitle(f, CrossCheckSentence("no-tensor-cores-title"));
    f.level = Priority::kMedium;
    f.severity = Severity::kWarning;
    const double gemm_ms = static_cast<double>(a.kernels.fp32_gemm_ns) / 1e6 / steps;
    std::string gpu = tr.metadata().devices.empty() ? std::string("GPU") : tr.metadata().devices.front().name;
    SetMessage(f, CrossCheckSentence("no-tensor-cores-message", {{"gpu", gpu, {}}, NumberArg("ms", gemm_ms, 2)}));
    f.figures.push_back({"gpu.tensor_core_share", 0.0, "share", "> 0.50"});
    f.figures.push_back({"gpu.fp32_gemm_ms_per_step", gemm_ms, "ms", ""});
    SetRecommendation(f, GuideRecommendation(trace::BottleneckKind::kCompute));
    // Model: AMP (bf16/fp16) on tensor cores halves the GEMM time at least.
    f.saved_ms_per_step = 0.5 * gemm_ms;
    f.cost_ms_per_step = gemm_ms;
    f.summary = "GEMM kernels ran without tensor cores on a GPU that has them";
    out.push_back(std::move(f));
  }
  const CheckedScript* located = nullptr;
  for (const auto& s : scripts) {
    if (s.trace_is_its && s.step_loop_line > 0) {
      located = &s;
      break;
    }
  }
  for (auto& f : out) {
    f.trace_path = focus->path;
    f.step_ms = step_ms;
    if (located != nullptr) {
      f.script = located->path;
      f.line = located->step_loop_line;
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TraceFinding& x, const TraceFinding& y) { return x.level > y.level; });
  return out;
}

}  // namespace tl
