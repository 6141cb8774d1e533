#include "linter/engine/crosscheck.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>

#include "linter/semantic/model.h"
#include "linter/ts/ts.h"

namespace tl {

namespace {


int VerdictRank(const std::optional<Evidence>& evidence) {
  if (!evidence) return 4;
  switch (evidence->verdict) {
    case Verdict::kConfirmed: return 0;
    case Verdict::kUnverifiable: return 1;
    case Verdict::kNotObserved: return 2;
    case Verdict::kRefuted: return 3;
  }
  return 4;
}

int SeverityRank(Severity severity) {
  switch (severity) {
    case Severity::kError: return 0;
    case Severity::kWarning: return 1;
    case Severity::kInfo: return 2;
  }
  return 3;
}

// Which evidence is stronger when a folder holds several traces: what a trace saw beats what it could
// not see, and among confirmations the costliest one is the one to act on.
bool Stronger(const Evidence& a, const Evidence& b) {
  auto strength = [](Verdict v) {
    switch (v) {
      case Verdict::kConfirmed: return 3;
      case Verdict::kRefuted: return 2;
      case Verdict::kNotObserved: return 1;
      case Verdict::kUnverifiable: return 0;
    }
    return 0;
  };
  if (strength(a.verdict) != strength(b.verdict)) return strength(a.verdict) > strength(b.verdict);
  return a.saved_ms_per_step > b.saved_ms_per_step;
}

// The enclosing function of a byte offset, and its def line as CPython reports it (co_firstlineno: the
// first decorator's line for a decorated function).
struct Enclosing {
  std::string name;
  int def_line = 0;
};

Enclosing EnclosingFunction(const SourceFile& file, const semantic::Model& model, uint32_t offset) {
  Enclosing out;
  const auto& scopes = model.Scopes();
  for (int s = model.ScopeAt(offset); s >= 0 && static_cast<size_t>(s) < scopes.size(); s = scopes[static_cast<size_t>(s)].parent) {
    const semantic::Scope& scope = scopes[static_cast<size_t>(s)];
    if (scope.kind != semantic::ScopeKind::kFunction || scope.name.empty()) continue;
    out.name = std::string(scope.name);
    ts::Node def = scope.node;
    ts::Node parent = def.Parent();
    if (!parent.IsNull() && parent.Is("decorated_definition")) def = parent;
    out.def_line = static_cast<int>(file.lines().Locate(def.StartByte()).line);
    break;
  }
  return out;
}


}  // namespace

std::string_view ToString(AttributionLevel level) {
  switch (level) {
    case AttributionLevel::kLine: return "line";
    case AttributionLevel::kFunction: return "function";
    case AttributionLevel::kStep: return "step";
  }
  return "step";
}

std::string FormatShare(double share) { return fmt::format("{:.1f}%", share * 100); }

std::string MissingOption(std::string_view option) {
  return fmt::format("profile with {} to let the trace show it", option);
}

Evidence Unverifiable(std::string summary) {
  Evidence e;
  e.verdict = Verdict::kUnverifiable;
  e.summary = std::move(summary);
  return e;
}

Evidence EvidenceFromCost(Verdict verdict, const trace::Cost& cost, double saved_ms_per_step, std::string summary) {
  Evidence e;
  e.verdict = verdict;
  e.cost_ms_per_step = cost.ms_per_step;
  e.share_of_step = cost.share_of_step;
  e.per_step_count = cost.count_per_step;
  e.saved_ms_per_step = verdict == Verdict::kConfirmed ? std::max(0.0, saved_ms_per_step) : 0.0;
  e.summary = std::move(summary);
  for (const auto& ex : cost.examples) {
    e.events.push_back(fmt::format("{} @{:.3f} ms ({:.3f} ms)", ex.name, ex.start_ms, ex.dur_ms));
  }
  return e;
}

std::string EvidenceHeadline(const Evidence& evidence) {
  switch (evidence.verdict) {
    case Verdict::kConfirmed:
      return fmt::format("confirmed: {:.1f} ms/step ({:.0f}%)", evidence.cost_ms_per_step, evidence.share_of_step * 100);
    case Verdict::kRefuted: return "refuted";
    case Verdict::kNotObserved: return "not-observed";
    case Verdict::kUnverifiable: return "unverifiable";
  }
  return "unverifiable";
}

bool RanksBefore(const RankedFinding& a, const RankedFinding& b) {
  const double sa = a.diagnostic.evidence ? a.diagnostic.evidence->saved_ms_per_step : 0.0;
  const double sb = b.diagnostic.evidence ? b.diagnostic.evidence->saved_ms_per_step : 0.0;
  if (sa != sb) return sa > sb;
  const int va = VerdictRank(a.diagnostic.evidence), vb = VerdictRank(b.diagnostic.evidence);
  if (va != vb) return va < vb;
  const int ea = SeverityRank(a.diagnostic.severity), eb = SeverityRank(b.diagnostic.severity);
  if (ea != eb) return ea < eb;
  const std::string_view pa = a.file != nullptr ? std::string_view(a.file->path()) : std::string_view();
  const std::string_view pb = b.file != nullptr ? std::string_view(b.file->path()) : std::string_view();
  if (pa != pb) return pa < pb;
  return a.diagnostic.range.begin < b.diagnostic.range.begin;
}

void RankFindings(std::vector<RankedFinding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), RanksBefore);
}

std::optional<FailOn> ParseFailOn(std::string_view text) {
  if (text == "any") return FailOn::kAny;
  if (text == "confirmed") return FailOn::kConfirmed;
  if (text == "none") return FailOn::kNone;
  return std::nullopt;
}

bool CountsForExit(const Diagnostic& diagnostic, FailOn fail_on) {
  switch (fail_on) {
    case FailOn::kAny: return true;
    case FailOn::kNone: return false;
    case FailOn::kConfirmed: return diagnostic.evidence && diagnostic.evidence->verdict == Verdict::kConfirmed;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Loading and attribution.

struct CrossCheck::State {
  std::unique_ptr<trace::TraceSet> set;
  std::vector<const trace::RankTrace*> ranks;                  // readable ones
  std::vector<std::unique_ptr<trace::TraceEvidence>> evidence;  // one per readable rank
};

CrossCheck::CrossCheck(std::unique_ptr<State> state) : state_(std::move(state)) {}
CrossCheck::CrossCheck(CrossCheck&&) noexcept = default;
CrossCheck& CrossCheck::operator=(CrossCheck&&) noexcept = default;
CrossCheck::~CrossCheck() = default;

Result<CrossCheck> CrossCheck::Load(const std::string& path) {
  auto state = std::make_unique<State>();
  state->set = std::make_unique<trace::TraceSet>(trace::LoadTraceSet(path));
  for (const auto& rank : state->set->ranks) {
    if (!rank.read.ok() || !rank.analysis) continue;
    state->ranks.push_back(&rank);
    state->evidence.push_back(std::make_unique<trace::TraceEvidence>(*rank.read.trace, *rank.analysis));
  }
  if (state->ranks.empty()) {
    std::string why;
    for (const auto& e : state->set->errors) why += (why.empty() ? "" : "; ") + e;
    for (const auto& r : state->set->ranks) {
      if (!r.read.ok()) why += (why.empty() ? "" : "; ") + r.read.error;
    }
    if (why.empty()) why = fmt::format("{}: no profiler trace there (*.json, *.json.gz)", path);
    return Error{fmt::format("--trace: {}", why)};
  }
  return CrossCheck(std::move(state));
}

const trace::TraceSet& CrossCheck::traces() const { return *state_->set; }

std::vector<std::string> CrossCheck::Warnings() const {
  std::vector<std::string> out = state_->set->errors;
  for (const auto* r : state_->ranks) {
    for (const auto& w : r->read.warnings) out.push_back(fmt::format("{}: {}", r->path, w));
  }
  return out;
}

const trace::RankTrace* CrossCheck::Focus() const {
  const auto& set = *state_->set;
  if (set.straggler && static_cast<size_t>(*set.straggler) < set.ranks.size()) {
    const auto& r = set.ranks[static_cast<size_t>(*set.straggler)];
    if (r.read.ok() && r.analysis) return &r;
  }
  return state_->ranks.empty() ? nullptr : state_->ranks.front();
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

std::string CrossCheck::TraceTorchReason() const {
  for (const auto* r : state_->ranks) {
    const auto& md = r->read.trace->metadata();
    if (!md.pytorch_version.empty() && TorchVersion::Parse(md.pytorch_version)) {
      return fmt::format("the trace's pytorch version {}", md.pytorch_version);
    }
    if (md.format == trace::TraceFormat::kKinetoOld) {
      return "the trace's PyTorch 1.8-1.9 category names (`Operator`, `Runtime`, `Kernel`)";
    }
  }
  return "";
}

namespace {

// Traceio matches a path by any shared trailing components; when frames of two files with the same name
// (a/train.py and b/train.py) called from that line, keep those whose CallFrom path shares the longest
// suffix with the finding's path.
void KeepBestPathMatch(const trace::Trace& tr, std::string_view file, trace::SourceMatch& m) {
  auto score = [&](const trace::CodeSpan& span) {
    const trace::PythonFrame* py = tr.python(span.event);
    if (py == nullptr || py->call_from == 0) return 0;
    return trace::PathMatchScore(trace::ParseCallFrom(tr.strings().Get(py->call_from)).file, file);
  };
  int best = 0;
  for (const auto& span : m.spans) best = std::max(best, score(span));
  if (best == 0) return;
  std::erase_if(m.spans, [&](const trace::CodeSpan& span) { return score(span) < best; });
}

// `file_functions`: every function of the file, to tell "the trace never saw this function" (some other
// function of the file has frames) from "the trace has no frames of this file at all".
Attribution Attribute(const trace::TraceEvidence& te, std::string_view file, int line, const Enclosing& fn,
                      const std::vector<std::string_view>& file_functions) {
  Attribution at;
  const auto& caps = te.capabilities();
  if (!caps.stacks()) {
    at.how = "op names (the trace has no Python stacks; profile with with_stack=True to tie events to lines)";
    return at;
  }
  trace::SourceMatch m = te.Locate(file, line);
  if (m.method == trace::MatchMethod::kCallFrom) KeepBestPathMatch(te.trace(), file, m);
  if (m.found()) {
    at.level = AttributionLevel::kLine;
    at.ran_in_steps = te.RanInSteps(m);
    at.not_observed = !at.ran_in_steps;
    at.how = fmt::format("{} {}:{}", trace::MatchMethodName(m.method), file.substr(file.find_last_of("/\\") + 1), line);
    at.where = std::move(m);
    return at;
  }
  if (!fn.name.empty()) {
    // Frames already on the stack when tracing started carry the executing line, not the def line, so a
    // name-only match is the fallback.
    trace::SourceMatch f = te.LocateFunction(file, fn.name, fn.def_line);
    if (!f.found()) f = te.LocateFunction(file, fn.name, 0);
    if (f.found()) {
      at.level = AttributionLevel::kFunction;
      at.ran_in_steps = te.RanInSteps(f);
      at.not_observed = !at.ran_in_steps;
      at.how = fmt::format("frames of `{}`", fn.name);
      at.where = std::move(f);
      return at;
    }
    // Python frames of this file are in the trace, but none of this function: it did not run while the
    // profiler traced.
    for (std::string_view other : file_functions) {
      if (other == fn.name) continue;
      if (te.LocateFunction(file, other, 0).found()) {
        at.not_observed = true;
        at.how = fmt::format("frames of `{}` (other functions of the file have frames)", fn.name);
        return at;
      }
    }
  }
  at.how = fmt::format("op names (line {} was not found among the trace's Python frames)", line);
  return at;
}

}  // namespace

Evidence NotObserved(const EvidenceQuery& q, std::string_view what) {
  Evidence e;
  e.verdict = Verdict::kNotObserved;
  e.summary = fmt::format("{} did not run inside the {} profiled step{} (looked up by {})", what, q.steps,
                          q.steps == 1 ? "" : "s", q.at.how);
  return e;
}

std::string WhereText(const EvidenceQuery& q) {
  switch (q.at.level) {
    case AttributionLevel::kLine: return fmt::format("under line {} ({})", q.line, q.at.how);
    case AttributionLevel::kFunction: return fmt::format("under `{}` ({})", q.function, q.at.how);
    case AttributionLevel::kStep: return "in the profiled steps";
  }
  return "";
}

// ---------------------------------------------------------------------------------------------------
// Evidence for each finding, from its rule's Confirm; trace-only findings.

void CrossCheck::Annotate(const SourceFile& file, std::vector<Diagnostic>& diagnostics) const {
  bool any = false;
  for (const auto& d : diagnostics) any = any || FindRule(d.code) != nullptr;
  if (!any) return;
  // The enclosing function comes from the semantic model; a second parse costs far less than reading
  // the trace, and only `--trace` runs pay it.
  ts::Parser parser;
  auto tree = parser.Parse(file.text());
  std::unique_ptr<semantic::Model> model;
  if (tree.ok()) model = semantic::Model::Build(file, *tree);
  std::vector<std::string_view> functions;
  if (model) {
    for (const auto& scope : model->Scopes()) {
      if (scope.kind == semantic::ScopeKind::kFunction && !scope.name.empty()) functions.push_back(scope.name);
    }
  }

  for (auto& d : diagnostics) {
    const Rule* rule = FindRule(d.code);
    if (rule == nullptr) continue;
    const int line = static_cast<int>(file.lines().Locate(d.range.begin).line);
    const Enclosing fn = model ? EnclosingFunction(file, *model, d.range.begin) : Enclosing{};
    std::optional<Evidence> best;
    for (size_t i = 0; i < state_->ranks.size(); ++i) {
      const trace::TraceEvidence& te = *state_->evidence[i];
      const Attribution at = Attribute(te, file.path(), line, fn, functions);
      const auto& steps = state_->ranks[i]->analysis->steps;
      EvidenceQuery q{te, file, line, fn.name, fn.def_line, at, steps.mean_ms(), steps.count()};
      Evidence e = rule->Confirm(d, q);
      if (state_->ranks.size() > 1) e.summary += fmt::format(" [{}]", state_->ranks[i]->path);
      if (!best || Stronger(e, *best)) best = std::move(e);
    }
    d.evidence = std::move(best);
  }
}

std::vector<TraceFinding> CrossCheck::TraceOnly(trace::Language language) const {
  std::vector<TraceFinding> out;
  const trace::RankTrace* focus = Focus();
  if (focus == nullptr) return out;
  const auto& a = *focus->analysis;
  const auto& tr = *focus->read.trace;
  const bool zh = language == trace::Language::kChinese;
  const double step_ms = a.steps.mean_ms();
  const double steps = static_cast<double>(std::max<size_t>(1, a.steps.count()));
  auto severity_of = [](trace::Severity s) {
    return s == trace::Severity::kHigh ? Severity::kError : s == trace::Severity::kMedium ? Severity::kWarning : Severity::kInfo;
  };
  bool launch = false;
  for (const auto& b : a.bottlenecks) {
    if (b.kind == trace::BottleneckKind::kLaunch && !launch) {
      launch = true;
      TraceFinding f;
      f.code = "trace-launch-bound";
      f.title = zh ? "启动开销瓶颈（Launch-bound）" : "Launch-bound";
      f.level = b.severity;
      f.severity = severity_of(b.severity);
      f.figures = b.evidence;
      f.message = fmt::format(fmt::runtime(zh ? "{} 的 kernel 短于 10 µs，GPU 活跃 {}，每个 step 启动 {:.0f} 次"
                                 : "{} of kernels run under 10 µs, the GPU is busy {} of the step, {:.0f} launches per step"),
                              FormatShare(a.kernels.short_share()), FormatShare(a.busy.share), a.launches.per_step);
      f.recommendation = trace::Recommendation(b.kind, language);
      // Model: CUDA Graphs / torch.compile win back about half of the GPU's idle time, less the idle time
      // the DataLoader and the blocking syncs already explain (their findings claim it).
      const double idle_ms = step_ms * (1.0 - a.busy.share);
      const double explained_ms = a.dataloader.share * step_ms + a.syncs.blocked_ms_per_step;
      f.saved_ms_per_step = 0.5 * std::max(0.0, idle_ms - explained_ms);
      out.push_back(std::move(f));
    } else if (b.kind == trace::BottleneckKind::kCommunication) {
      TraceFinding f;
      f.code = "trace-communication-bound";
      f.title = zh ? "通信瓶颈（Communication-bound）" : "Communication-bound";
      f.level = b.severity;
      f.severity = severity_of(b.severity);
      f.figures = b.evidence;
      f.message = fmt::format(fmt::runtime(zh ? "通信 kernel 占 kernel 时间的 {}，其中 {} 与计算重叠"
                                 : "Collective kernels take {} of kernel time, {} of it overlapped with compute"),
                              FormatShare(a.comm.share()), FormatShare(a.comm.overlap()));
      f.recommendation = trace::Recommendation(b.kind, language);
      // Model: overlapping the exposed (non-overlapped) communication hides about half of it.
      f.saved_ms_per_step = 0.5 * static_cast<double>(a.comm.comm_ns) * (1.0 - a.comm.overlap()) / 1e6 / steps;
      out.push_back(std::move(f));
    }
  }
  if (a.busy.has_gpu && a.kernels.has_kernels() && a.busy.share < 0.5) {
    TraceFinding f;
    f.code = "trace-low-gpu-busy";
    f.title = zh ? "GPU 利用率低" : "Low GPU busy";
    f.level = trace::Severity::kHigh;
    f.severity = Severity::kWarning;
    std::string cause = a.dataloader.share > 0.10  ? (zh ? "DataLoader" : "the DataLoader")
                        : a.syncs.per_step > 3     ? (zh ? "CPU-GPU 同步" : "CPU-GPU syncs")
                        : a.comm.share() > 0.2     ? (zh ? "通信等待" : "communication")
                        : launch                   ? (zh ? "kernel 启动开销" : "kernel launch overhead")
                                                   : (zh ? "主机端（CPU）" : "the host (CPU)");
    f.message = fmt::format(fmt::runtime(zh ? "GPU 仅在 step 的 {} 时间内活跃（健康值 > 80%，< 50% 说明存在严重瓶颈）；主要空闲原因：{}"
                               : "The GPU is busy only {} of the step (healthy above 80%, below 50% is a serious "
                                 "bottleneck); the main idle cause is {}"),
                            FormatShare(a.busy.share), cause);
    f.figures.push_back({"gpu.busy_share", a.busy.share, "share", "> 0.80"});
    f.figures.push_back({"gpu.idle_ms_per_step", step_ms * (1.0 - a.busy.share), "ms", ""});
    f.recommendation = zh ? "先解决上面的主要空闲原因；若 GPU 仍然空闲，增大 batch size（注意收敛性）"
                          : "Fix the main idle cause first; if the GPU still idles, increase the batch size (mind "
                            "convergence)";
    // A symptom, not a fix: its saving is counted by the finding that names the cause.
    f.saved_ms_per_step = 0.0;
    out.push_back(std::move(f));
  }
  bool tensor_core_gpu = false;
  for (const auto& dev : tr.metadata().devices) tensor_core_gpu = tensor_core_gpu || dev.compute_major >= 7;
  if (a.kernels.has_kernels() && tensor_core_gpu && a.kernels.tensor_core_count == 0 && a.kernels.fp32_gemm_ns > 0) {
    TraceFinding f;
    f.code = "trace-no-tensor-cores";
    f.title = zh ? "未使用 Tensor Core" : "No tensor cores";
    f.level = trace::Severity::kMedium;
    f.severity = Severity::kWarning;
    const double gemm_ms = static_cast<double>(a.kernels.fp32_gemm_ns) / 1e6 / steps;
    std::string gpu = tr.metadata().devices.empty() ? std::string("GPU") : tr.metadata().devices.front().name;
    f.message = fmt::format(fmt::runtime(zh ? "{} 有 Tensor Core，但没有任何 kernel 使用它；FP32 GEMM 每个 step 用时 {:.2f} ms"
                               : "The {} has tensor cores and no kernel used them; fp32 GEMM kernels take {:.2f} ms/step"),
                            gpu, gemm_ms);
    f.figures.push_back({"gpu.tensor_core_share", 0.0, "share", "> 0.50"});
    f.figures.push_back({"gpu.fp32_gemm_ms_per_step", gemm_ms, "ms", ""});
    f.recommendation = trace::Recommendation(trace::BottleneckKind::kCompute, language);
    // Model: AMP (bf16/fp16) on tensor cores halves the GEMM time at least.
    f.saved_ms_per_step = 0.5 * gemm_ms;
    out.push_back(std::move(f));
  }
  for (auto& f : out) f.trace_path = focus->path;
  std::stable_sort(out.begin(), out.end(), [](const TraceFinding& x, const TraceFinding& y) { return x.level > y.level; });
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The report.

nlohmann::ordered_json EvidenceToJson(const Evidence& e) {
  nlohmann::ordered_json j;
  j["verdict"] = std::string(ToString(e.verdict));
  j["cost_ms_per_step"] = e.cost_ms_per_step;
  j["share_of_step"] = e.share_of_step;
  j["per_step_count"] = e.per_step_count;
  j["saved_ms_per_step"] = e.saved_ms_per_step;
  j["summary"] = e.summary;
  j["events"] = e.events;
  return j;
}

namespace {

struct Texts {
  bool zh;
  const char* operator()(const char* en, const char* zh_text) const { return zh ? zh_text : en; }
};

std::string Location(const RankedFinding& f) {
  if (f.file == nullptr) return "";
  return fmt::format("{}:{}", f.file->path(), f.file->lines().Locate(f.diagnostic.range.begin).line);
}

std::string SourceLine(const RankedFinding& f) {
  if (f.file == nullptr) return "";
  const uint32_t line0 = f.file->lines().Locate(f.diagnostic.range.begin).line - 1;
  std::string_view text = f.file->lines().LineText(line0);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.remove_suffix(1);
  return std::string(text);
}

// 高 / 中 / 低 by the saving's share of the step: a tenth of the step is worth doing first.
std::string Priority(double saved_ms, double step_ms, const Texts& t) {
  const double share = step_ms > 0 ? saved_ms / step_ms : 0.0;
  if (share >= 0.10) return t("high", "高");
  if (share >= 0.02) return t("medium", "中");
  return t("low", "低");
}

std::string VerdictText(Verdict v, const Texts& t) {
  switch (v) {
    case Verdict::kConfirmed: return t("confirmed", "已证实");
    case Verdict::kRefuted: return t("refuted", "已排除");
    case Verdict::kNotObserved: return t("not-observed", "未观测到");
    case Verdict::kUnverifiable: return t("unverifiable", "无法验证");
  }
  return "";
}

// Splits the rendered trace report at a level-2 heading; `rest` starts at the heading's line.
bool SplitAt(std::string_view text, std::string_view heading, std::string_view& before, std::string_view& rest) {
  const std::string marker = fmt::format("\n## {}\n", heading);
  const size_t at = text.find(marker);
  if (at == std::string_view::npos) return false;
  before = text.substr(0, at + 1);
  rest = text.substr(at + 1);
  return true;
}

// The numbered items of a section (the heading line dropped), with their numbers removed; lines that
// continue an item (indented code) stay attached to it.
std::vector<std::string> Items(std::string_view section) {
  std::vector<std::string> items;
  bool first = true;
  while (!section.empty()) {
    const size_t nl = section.find('\n');
    std::string_view line = section.substr(0, nl);
    section.remove_prefix(nl == std::string_view::npos ? section.size() : nl + 1);
    if (first) {
      first = false;
      continue;
    }
    size_t digits = 0;
    while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
    if (digits > 0 && line.substr(digits).starts_with(". ")) {
      items.emplace_back(line.substr(digits + 2));
    } else if (line.starts_with("- ")) {
      items.emplace_back(line.substr(2));
    } else if (!line.empty() && !items.empty()) {
      items.back() += "\n" + std::string(line);
    }
  }
  return items;
}

}  // namespace

std::string RenderCrossCheckReport(const CrossCheck& cc, const std::vector<RankedFinding>& findings,
                                   trace::Language language) {
  const Texts t{language == trace::Language::kChinese};
  const trace::RankTrace* focus = cc.Focus();
  if (focus == nullptr) return "";
  trace::ReportOptions options;
  options.format = trace::ReportFormat::kMarkdown;
  options.language = language;
  const std::string base = trace::RenderReport(*focus->read.trace, *focus->analysis, options);
  const double step_ms = focus->analysis->steps.mean_ms();
  const std::vector<TraceFinding> trace_only = cc.TraceOnly(language);

  std::string_view head = base, diagnosis, recommendations;
  std::string_view rest;
  const bool split = SplitAt(base, t("Bottleneck diagnosis", "瓶颈诊断"), head, rest) &&
                     SplitAt(rest, t("Recommendations (by priority)", "优化建议（按优先级）"), diagnosis, recommendations);
  if (!split) head = base;

  std::string out(head);
  // 瓶颈诊断: the trace's bottlenecks, then what the trace alone adds, then the confirmed findings.
  out += fmt::format("\n## {}\n", t("Bottleneck diagnosis", "瓶颈诊断"));
  int n = 0;
  std::vector<std::string> diag_items = split ? Items(diagnosis) : std::vector<std::string>{};
  for (const auto& item : diag_items) {
    if (item.find(t("no metric is outside", "所有指标均在健康范围内")) != std::string::npos) continue;
    out += fmt::format("{}. {}\n", ++n, item);
  }
  for (const auto& f : trace_only) {
    if (f.code != "trace-low-gpu-busy" && f.code != "trace-no-tensor-cores") continue;  // the others are above
    out += fmt::format("{}. **[{}]** {} — {}{}\n", ++n, f.severity == Severity::kError ? t("high", "高") : t("medium", "中"),
                       f.title, t("impact: ", "影响："), f.message);
  }
  for (const auto& f : findings) {
    if (!f.diagnostic.evidence || f.diagnostic.evidence->verdict != Verdict::kConfirmed) continue;
    const Evidence& e = *f.diagnostic.evidence;
    out += fmt::format("{}. **[{}]** {} `{}` ({}): {} — {}{}\n", ++n, Priority(e.cost_ms_per_step, step_ms, t),
                       f.diagnostic.code, f.diagnostic.name, Location(f), f.diagnostic.message, t("impact: ", "影响："),
                       e.summary);
  }
  if (n == 0) out += fmt::format("- {}\n", t("no metric is outside the healthy range and no finding was confirmed",
                                             "所有指标均在健康范围内，且没有被 trace 证实的代码问题"));

  // 优化建议: fixes of confirmed findings and the trace-only findings, by the time they would save.
  out += fmt::format("\n## {}\n", t("Recommendations (by priority)", "优化建议（按优先级）"));
  struct Rec {
    double saved;
    std::string text;
  };
  std::vector<Rec> recs;
  for (const auto& f : findings) {
    if (!f.diagnostic.evidence || f.diagnostic.evidence->verdict != Verdict::kConfirmed) continue;
    const Evidence& e = *f.diagnostic.evidence;
    std::string fix = f.diagnostic.fix ? f.diagnostic.fix->title : f.diagnostic.message;
    std::string text = fmt::format("**[{}]** {} ({} `{}`, {}) — {}{:.1f} ms/step ({:.1f}%)", Priority(e.saved_ms_per_step, step_ms, t),
                                   fix, f.diagnostic.code, f.diagnostic.name, Location(f), t("expected gain: about ", "预期收益：约 "),
                                   e.saved_ms_per_step, step_ms > 0 ? e.saved_ms_per_step / step_ms * 100 : 0.0);
    const std::string line = SourceLine(f);
    if (!line.empty()) text += fmt::format("\n   ```python\n   # {}\n   {}\n   ```", Location(f), line);
    recs.push_back({e.saved_ms_per_step, std::move(text)});
  }
  for (const auto& f : trace_only) {
    if (f.saved_ms_per_step <= 0) continue;
    recs.push_back({f.saved_ms_per_step,
                    fmt::format("**[{}]** {} ({}) — {}{:.1f} ms/step ({:.1f}%)", Priority(f.saved_ms_per_step, step_ms, t),
                                f.recommendation, f.title, t("expected gain: about ", "预期收益：约 "), f.saved_ms_per_step,
                                step_ms > 0 ? f.saved_ms_per_step / step_ms * 100 : 0.0)});
  }
  std::stable_sort(recs.begin(), recs.end(), [](const Rec& a, const Rec& b) { return a.saved > b.saved; });
  n = 0;
  for (const auto& r : recs) out += fmt::format("{}. {}\n", ++n, r.text);
  // Then the trace report's own recommendations, which carry no estimate, unless an item above already
  // says the same: a confirmed finding or a trace-only finding of that kind.
  auto confirmed = [&](std::string_view code) {
    return std::any_of(findings.begin(), findings.end(), [&](const RankedFinding& f) {
      return f.diagnostic.code == code && f.diagnostic.evidence && f.diagnostic.evidence->verdict == Verdict::kConfirmed;
    });
  };
  auto trace_only_has = [&](std::string_view code) {
    return std::any_of(trace_only.begin(), trace_only.end(),
                       [&](const TraceFinding& f) { return f.code == code && f.saved_ms_per_step > 0; });
  };
  auto covered = [&](const std::string& item) {
    auto says = [&](trace::BottleneckKind kind) { return item.find(trace::Recommendation(kind, language)) != std::string::npos; };
    if (says(trace::BottleneckKind::kData)) return confirmed("TL201");
    if (says(trace::BottleneckKind::kSync)) return confirmed("TL101");
    if (says(trace::BottleneckKind::kLaunch)) return trace_only_has("trace-launch-bound");
    if (says(trace::BottleneckKind::kCommunication)) return trace_only_has("trace-communication-bound");
    if (says(trace::BottleneckKind::kCompute)) return trace_only_has("trace-no-tensor-cores") || confirmed("TL401");
    if (item.find("pin_memory") != std::string::npos) return confirmed("TL202");
    if (item.find("set_to_none") != std::string::npos) return confirmed("TL301");
    if (item.find("GEMM") != std::string::npos) return confirmed("TL401");
    return false;
  };
  for (const auto& item : split ? Items(recommendations) : std::vector<std::string>{}) {
    if (item.find(t("nothing to change", "无需调整")) != std::string::npos || covered(item)) continue;
    out += fmt::format("{}. {}\n", ++n, item);
  }
  if (n == 0) out += fmt::format("- {}\n", t("nothing to change on this evidence", "根据当前 trace 无需调整"));

  // Every finding with its verdict, ranked.
  out += fmt::format("\n## {}\n", t("Findings in the code, ranked by the time their fix would save",
                                     "代码中的问题（按预计节省时间排序）"));
  if (findings.empty()) {
    out += fmt::format("- {}\n", t("torchlint check found nothing in the given scripts", "torchlint check 未在脚本中发现问题"));
  } else {
    out += t("| # | Rule | Where | Verdict | Cost/step | Share | Saved/step | Evidence |\n",
             "| 排名 | 规则 | 位置 | 结论 | 每 step 耗时 | 占比 | 预计节省 | trace 证据 |\n");
    out += "|---|---|---|---|---|---|---|---|\n";
    int rank = 0;
    for (const auto& f : findings) {
      const Evidence e = f.diagnostic.evidence.value_or(Evidence{});
      std::string summary = e.summary;
      for (auto& c : summary) {
        if (c == '|' || c == '\n') c = ' ';
      }
      out += fmt::format("| {} | {} `{}` | `{}` | {} | {:.2f} ms | {:.1f}% | {:.2f} ms | {} |\n", ++rank, f.diagnostic.code,
                         f.diagnostic.name, Location(f), VerdictText(e.verdict, t), e.cost_ms_per_step, e.share_of_step * 100,
                         e.saved_ms_per_step, summary);
    }
  }
  if (!trace_only.empty()) {
    out += fmt::format("\n## {}\n", t("Findings of the trace alone (no line to blame)", "仅由 trace 发现的问题（无法归到某行代码）"));
    for (const auto& f : trace_only) {
      out += fmt::format("- `{}` **{}**: {}. {}{}\n", f.code, f.title, f.message, t("Recommendation: ", "建议："), f.recommendation);
    }
  }
  return out;
}

nlohmann::ordered_json CrossCheckReportJson(const CrossCheck& cc, const std::vector<RankedFinding>& findings) {
  nlohmann::ordered_json j;
  const trace::RankTrace* focus = cc.Focus();
  j["trace"] = focus != nullptr ? nlohmann::ordered_json::parse(
                                      trace::JsonText(trace::AnalysisToJson(*focus->read.trace, *focus->analysis), -1))
                                : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  int rank = 0;
  for (const auto& f : findings) {
    nlohmann::ordered_json o;
    o["rank"] = ++rank;
    o["code"] = f.diagnostic.code;
    o["name"] = f.diagnostic.name;
    o["message"] = f.diagnostic.message;
    o["severity"] = std::string(ToString(f.diagnostic.severity));
    o["file"] = f.file != nullptr ? f.file->path() : std::string();
    o["line"] = f.file != nullptr ? f.file->lines().Locate(f.diagnostic.range.begin).line : 0;
    o["fix"] = f.diagnostic.fix ? nlohmann::ordered_json(f.diagnostic.fix->title) : nlohmann::ordered_json(nullptr);
    o["evidence"] = f.diagnostic.evidence ? EvidenceToJson(*f.diagnostic.evidence) : nlohmann::ordered_json(nullptr);
    list.push_back(std::move(o));
  }
  j["findings"] = std::move(list);
  nlohmann::ordered_json tf = nlohmann::ordered_json::array();
  for (const auto& f : cc.TraceOnly()) {
    nlohmann::ordered_json figures = nlohmann::ordered_json::array();
    for (const auto& fig : f.figures) figures.push_back({{"metric", fig.metric}, {"value", fig.value}, {"healthy", fig.healthy}});
    tf.push_back({{"code", f.code},
                  {"title", f.title},
                  {"severity", std::string(trace::SeverityName(f.level))},
                  {"message", f.message},
                  {"recommendation", f.recommendation},
                  {"saved_ms_per_step", f.saved_ms_per_step},
                  {"figures", figures},
                  {"trace", f.trace_path}});
  }
  j["trace_findings"] = std::move(tf);
  return j;
}

}  // namespace tl
