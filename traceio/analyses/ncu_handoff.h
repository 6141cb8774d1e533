// The hand-off to Nsight Compute (the PyTorch profiler guide's appendix "何时需要 Nsight Compute (ncu)"):
// the profiler trace finds the hot kernels, but only ncu sees inside one. For the hottest kernels of the
// analysed steps this picks a class (GEMM, convolution, pointwise, reduction, Triton, other; collectives are
// listed but get no command, since ncu measures their busy-waiting on peers, not their cost) and builds the
// `ncu` command that profiles exactly one launch of that kernel: a `--kernel-name regex:` that matches its
// name as ncu spells it, the `--kernel-name-base` that regex is meant for, `--launch-skip N --launch-count 1`,
// and the `--section`s the class calls for. Data only; the report words it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

enum class KernelClass : uint8_t { kGemm, kConvolution, kElementwise, kReduction, kTriton, kCollective, kOther };
// "gemm", "convolution", "elementwise", "reduction", "triton", "collective", "other": the JSON's `class`.
std::string_view KernelClassName(KernelClass kind);
KernelClass ClassifyKernel(std::string_view name);

// ncu's `--kernel-name-base`: which spelling of a kernel's name `--kernel-name` is matched against.
enum class NameBase : uint8_t { kFunction, kDemangled, kMangled };
std::string_view NameBaseName(NameBase base);  // "function", "demangled", "mangled"

// A regex (kept to what ECMAScript, PCRE and RE2 all read: groups, `|`, `?`, `*`, `+`, bracket classes,
// `\w`/`\W`) and the base it is matched against.
//  - A mangled name (`_Z...`, as some nsys exports keep) and a plain one (`triton_poi_fused_add_0`,
//    `sm80_xmma_gemm_..._cublas`, C-linkage kernels whose function, demangled and mangled names are one)
//    match exactly: `^name$`, every regex metacharacter escaped.
//  - A demangled C++ name is spelled differently by each demangler: Kineto's (GNU) writes
//    `vectorized_elementwise_kernel<4, ..., std::array<char*, 2ul> >(int, ...)` and `{lambda(float)#1}`,
//    NVIDIA's (nsys, ncu) `<(int)4, ..., std::array<char *, (unsigned long)2>>(int, T2, T3)` and
//    `[lambda(float) (instance 1)]`. So the regex is the name's words and numbers up to the end of its
//    template arguments, in order, with only punctuation (`\W*`), integer casts and `instance` allowed
//    between them, and the parameter list (where the two differ most) left out. Where GNU and NVIDIA put
//    `const` on different sides of a type inside template arguments (`float const*`, `const float *`), the
//    pattern misses; PyTorch's kernels have no such arguments.
struct NcuNamePattern {
  NameBase base = NameBase::kDemangled;
  std::string regex;
};
NcuNamePattern NcuPatternFor(std::string_view trace_name);
// Whether `pattern` finds a match in `name` (ncu's `regex:` matches anywhere in the name; ours are
// anchored at the start). Names over 4096 bytes never match: std::regex recurses per character.
bool NcuPatternMatches(const NcuNamePattern& pattern, std::string_view name);

// `text` as one word for a POSIX shell: single quotes, an inner `'` written `'\''`.
std::string ShellQuote(std::string_view text);

// Where `--launch-skip` comes from. The trace covers only the profiled window, so how many launches came
// before it is not in it. A `ProfilerStep#N` range says N steps ran before it since the profiler started
// (the schedule's skip_first, wait and warm-up steps); with other steps (NVTX `train_step` ranges,
// `Optimizer.step`), we assume the schedule `torchlint instrument` writes, the PyTorch profiler guide's
// skip_first=10, wait=5, warmup=1: 16 steps. Either way ncu skips those steps' launches of the kernel, the
// warm-up (cudnn autotuning, compilation, allocator growth) that the trace itself left out, and profiles
// its first launch in the step the trace starts with. A trace without steps (one window over the whole
// capture) gives no per-step count to multiply: the skip is 0, and the report says to raise it.
enum class SkipBasis : uint8_t { kProfilerStepNumber, kAssumedSchedule, kNoSteps };
inline constexpr int64_t kAssumedStepsBeforeTrace = 16;

struct NcuKernel {
  std::string name;  // as the trace has it
  KernelClass kind = KernelClass::kOther;
  double share_of_kernel_time = 0.0;  // of all kernel time in the analysed steps
  int64_t launches = 0;               // this kernel's, in the analysed steps
  // Launches per analysed step of every kernel of the trace the pattern matches (ncu counts all of them
  // toward --launch-skip), and how many distinct names those are (1: the pattern picks out this kernel alone).
  double matched_launches_per_step = 0.0;
  size_t matched_names = 1;
  NcuNamePattern pattern;
  int64_t launch_skip = 0;
  std::vector<std::string_view> sections;  // ncu section identifiers; empty for collectives
  std::string command;                     // one shell line; empty for collectives
};

struct NcuHandoff {
  std::vector<NcuKernel> kernels;  // hottest first; collectives among them have no command
  int64_t steps_before = 0;        // steps whose launches --launch-skip skips
  SkipBasis basis = SkipBasis::kAssumedSchedule;
  bool empty() const { return kernels.empty(); }
};

// The program ncu runs in the commands: a stand-in for the user's own command line.
inline constexpr std::string_view kNcuApplication = "python train.py";
// The commands profile at most this many kernels, and none under this share of kernel time.
inline constexpr size_t kNcuMaxKernels = 5;
inline constexpr double kNcuMinShare = 0.01;

// Empty for a trace without kernels, and for a ROCm trace (HIP runtime or AMD devices): ncu profiles
// NVIDIA GPUs only.
NcuHandoff AnalyzeNcuHandoff(const Trace& trace, const Steps& steps, size_t max_kernels = kNcuMaxKernels);

}  // namespace tl::trace
