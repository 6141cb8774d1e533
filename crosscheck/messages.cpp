#include "crosscheck/messages.h"

#include <fmt/core.h>

namespace tl {
namespace {

constexpr MessageText kMessages[] = {
    // Where the evidence was gathered (WhereText) and what did not run (NotObserved).
    {"where-line", "under line {line} ({how})", "在第 {line} 行之下（{how}）"},
    {"where-function", "under `{function}` ({how})", "在 `{function}` 之下（{how}）"},
    {"where-range", "in {how}", "在{how}中"},
    {"where-step", "in the profiled steps", "在分析的 step 中"},
    {"line", "Line {line}", "第 {line} 行"},
    {"not-observed", "{what} did not run inside the {steps} (looked up by {how})",
     "{what}没有在分析的 {steps} 内运行（查找方式：{how}）"},
    {"missing-option", "profile with {option} to let the trace show it", "用 {option} 采集，trace 才能显示它"},
    // How a finding was tied to the trace (Attribution::how).
    {"how-op-names", "op names ({reason}; with_stack=True ties events to lines)",
     "算子名（{reason}；with_stack=True 可把事件对应到代码行）"},
    {"how-match", "{method} {file}:{line}", "{method} {file}:{line}"},
    {"how-frames", "frames of `{function}`", "`{function}` 的 Python 帧"},
    {"how-frames-others", "frames of `{function}` (other functions of the file have frames)",
     "`{function}` 的 Python 帧（该文件的其他函数有帧）"},
    {"how-op-names-line", "op names (line {line} was not found among the trace's Python frames; {reason})",
     "算子名（trace 的 Python 帧中找不到第 {line} 行；{reason}）"},
    // Whether the trace is the script's (Provenance::reason).
    {"frames-name", "the trace's Python frames name `{file}`", "trace 的 Python 帧指向 `{file}`"},
    {"ranges-name", "the trace's source ranges name `{file}`", "trace 的源码区间指向 `{file}`"},
    {"other-script-ranges",
     "this trace was not recorded from {path}: its source ranges (instrument --template nvtx) name {files} and never "
     "this file",
     "这个 trace 不是由 {path} 录制的：它的源码区间（instrument --template nvtx）指向 {files}，从未指向这个文件"},
    {"how-range", "the range `{range}` that holds this line", "包含这一行的区间 `{range}`"},
    {"files-and-others", "{files} and {others}", "{files} 及另外 {others}"},
    {"other-script-no-files", "this trace was not recorded from {path}: its Python frames name no file",
     "这个 trace 不是由 {path} 录制的：它的 Python 帧没有指向任何文件"},
    {"other-script", "this trace was not recorded from {path}: its Python frames name {files} and never this file",
     "这个 trace 不是由 {path} 录制的：它的 Python 帧指向 {files}，从未指向这个文件"},
    {"untied-contradiction", "this trace was not recorded from {path}: it has no Python frames, and {contradiction}",
     "这个 trace 不是由 {path} 录制的：它没有 Python 帧，而且{contradiction}"},
    {"contradiction-optimizer", "its optimizer steps are `{trace}`, and the script builds `{script}`",
     "它的优化器 step 是 `{trace}`，而脚本创建的是 `{script}`"},
    {"contradiction-annotations", "its annotations are `{label}`, none of the script's record_function labels",
     "它的标注是 `{label}`，不是脚本中任何一个 record_function 标签"},
    {"untied-nothing",
     "the trace has no Python frames and the step loop of {path} shows nothing that op names could match; profile "
     "with with_stack=True to tie the trace to the script",
     "trace 没有 Python 帧，{path} 的 step 循环中也没有可按算子名匹配的内容；请用 with_stack=True 采集，"
     "把 trace 与脚本对应起来"},
    {"untied-few",
     "the trace has no Python frames and only {matched} of the {expected} ops the step loop of {path} makes are in "
     "it; profile with with_stack=True to tie the trace to the script",
     "trace 没有 Python 帧，{path} 的 step 循环产生的 {expected} 种算子中只有 {matched} 种出现在其中；"
     "请用 with_stack=True 采集，把 trace 与脚本对应起来"},
    {"tied-by-ops", "the trace has no Python frames; its steps show the script's {list} ({matched} of {expected})",
     "trace 没有 Python 帧；它的 step 中出现了脚本的 {list}（{expected} 项中的 {matched} 项）"},
    {"signal-dataloader", "the DataLoader loop", "DataLoader 循环"},
    // Where the target PyTorch version was read (CrossCheck::TraceTorchReason).
    {"torch-from-version", "the trace's pytorch version {version}", "trace 记录的 PyTorch 版本 {version}"},
    {"torch-from-categories", "the trace's PyTorch 1.8-1.9 category names (`Operator`, `Runtime`, `Kernel`)",
     "trace 中 PyTorch 1.8-1.9 的类别名（`Operator`、`Runtime`、`Kernel`）"},
    // A trace without CUDA activity (NoCudaActivity): `what` is the rule's, what it would have shown.
    {"no-cuda",
     "The trace has no CUDA activity, so it cannot show {what}; profile with activities=[ProfilerActivity.CPU, "
     "ProfilerActivity.CUDA]",
     "trace 中没有 CUDA 活动，因此无法显示{what}；请用 activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] 采集"},
    // What the cross-check says when no rule can speak.
    {"no-evidence", "{code} has no trace evidence defined", "{code} 没有定义 trace 证据"},
    {"not-this-script", "{reason}; its findings cannot be checked against it", "{reason}；无法用它核对这些问题"},
    {"snapshot-not-this-script",
     "{summary}; the memory snapshot was not recorded from {path} (its Python frames name {files}), so it is no "
     "evidence here",
     "{summary}；内存快照不是由 {path} 录制的（它的 Python 帧指向 {files}），因此不能作为这里的证据"},
    {"gpu-side-cut",
     "The trace is cut at byte {offset} before any GPU event was read; its kernels and copies may be in the missing "
     "tail, so the GPU side is unknown",
     "trace 在第 {offset} 字节处被截断，此前没有读到任何 GPU 事件；它的 kernel 和拷贝可能在缺失的尾部，"
     "因此 GPU 侧的情况未知"},
    // Clauses added to a rule's summary (ExtendSummary).
    {"attributed-by", "{summary} (attributed by {how})", "{summary}（归因方式：{how}）"},
    {"of-trace", "{summary} [{path}]", "{summary}（trace：{path}）"},
    {"negligible",
     "{summary}; negligible: {cost} ms/step is {share}% of the step, below the {threshold}% that a confirmed finding "
     "needs",
     "{summary}；影响可忽略：每 step {cost} ms，占 step 的 {share}%，低于确认问题所需的 {threshold}%"},
    {"with-shared", "{summary}; {shared_with}", "{summary}；{shared_with}"},
    {"scaled", "{summary}; the savings of all findings exceeded the step, so each is scaled by {scale}",
     "{summary}；所有问题的节省之和超过了 step 时间，因此每项都按 {scale} 缩放"},
    {"shared-with", "its events are also explained by {names}: this finding keeps {kept} of the {whole} ms/step",
     "它的事件也可由 {names} 解释：本问题只计每 step {whole} ms 中的 {kept} ms"},
    {"finding-at", "{code} at {path}:{line}", "{path}:{line} 处的 {code}"},
    {"and-others", "{first} and {others}", "{first}及另外 {others}"},
    // The trace-only findings.
    {"launch-title", "Launch-bound", "启动开销瓶颈（Launch-bound）"},
    {"launch-message",
     "{short} of kernels run under 10 µs, the GPU is busy {busy} of the step, {launches} launches per step",
     "{short} 的 kernel 短于 10 µs，GPU 活跃 {busy}，每个 step 启动 {launches} 次"},
    {"communication-title", "Communication-bound", "通信瓶颈（Communication-bound）"},
    {"communication-message", "Collective kernels take {comm} of kernel time, {overlap} of it overlapped with compute",
     "通信 kernel 占 kernel 时间的 {comm}，其中 {overlap} 与计算重叠"},
    {"low-busy-title", "Low GPU busy", "GPU 利用率低"},
    {"low-busy-message",
     "The GPU is busy only {busy} of the step (healthy above 80%, below 50% is a serious bottleneck); the main idle "
     "cause is {cause}",
     "GPU 仅在 step 的 {busy} 时间内活跃（健康值 > 80%，< 50% 说明存在严重瓶颈）；主要空闲原因：{cause}"},
    {"low-busy-recommendation",
     "Fix the main idle cause first; if the GPU still idles, increase the batch size (mind convergence)",
     "先解决上面的主要空闲原因；若 GPU 仍然空闲，增大 batch size（注意收敛性）"},
    {"cause-dataloader", "the DataLoader", "DataLoader"},
    {"cause-syncs", "CPU-GPU syncs", "CPU-GPU 同步"},
    {"cause-communication", "communication", "通信等待"},
    {"cause-launch", "kernel launch overhead", "kernel 启动开销"},
    {"cause-host", "the host (CPU)", "主机端（CPU）"},
    {"no-tensor-cores-title", "No tensor cores", "未使用 Tensor Core"},
    {"no-tensor-cores-message",
     "The {gpu} has tensor cores and no kernel used them; fp32 GEMM kernels take {ms} ms/step",
     "{gpu} 有 Tensor Core，但没有任何 kernel 使用它；FP32 GEMM kernel 每个 step 用时 {ms} ms"},
    // The PyTorch profiler guide's recommendation (traceio words it in both languages).
    {"guide-recommendation", "{recommendation}", "{recommendation}"},
};

}  // namespace

std::span<const MessageText> CrossCheckMessages() { return kMessages; }

Sentence CrossCheckSentence(std::string_view id, MessageArgs args) {
  return MakeSentence(kMessages, id, std::move(args));
}

MessageArg NumberArg(std::string name, double value, int decimals) {
  return {std::move(name), fmt::format("{:.{}f}", value, decimals), {}};
}

MessageArg NumberArg(std::string name, int64_t value) { return {std::move(name), std::to_string(value), {}}; }

MessageArg CountArg(std::string name, int64_t count, std::string_view one, std::string_view many,
                    std::string_view zh_unit) {
  return {std::move(name), fmt::format("{} {}", count, count == 1 ? one : many), fmt::format("{} {}", count, zh_unit)};
}

void SetSummary(Evidence& evidence, Sentence summary) {
  evidence.summary = std::move(summary.en);
  evidence.summary_ref = std::move(summary.ref);
}

void ExtendSummary(Evidence& evidence, std::string_view id, MessageArgs args) {
  args.push_back({"summary", evidence.summary, LocalizedSummary(evidence, Lang::kChinese)});
  SetSummary(evidence, CrossCheckSentence(id, std::move(args)));
}

}  // namespace tl
