#include "traceio/analyses/ncu_handoff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>

#include <fmt/core.h>

#include "traceio/analyses/kernels.h"
#include "traceio/analyses/names.h"

namespace tl::trace {

namespace {

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

std::string EscapeRegex(std::string_view s) {
  static constexpr std::string_view kMeta = R"(\^$.|?*+()[]{})";
  std::string out;
  out.reserve(s.size() + 8);
  for (char c : s) {
    if (kMeta.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// What may stand between two words of a demangled name in either demangler's spelling: punctuation and
// spaces (`\W` is [^A-Za-z0-9_]).
constexpr std::string_view kBetween = "\\W*";
// At the start of a template argument NVIDIA writes a function's return type, `void at::native::f<...>(...)`.
constexpr std::string_view kArgumentBetween = "\\W*(void )?";
// Before a number NVIDIA writes its type as a cast, `(int)4`, `(unsigned long)2`, and a lambda's number as
// `(instance 1)` where GNU writes `#1`; the opening parenthesis is punctuation, matched by kBetween.
constexpr std::string_view kNumberPrefix = "([a-z ]+\\)|instance )?-?";
// After the last template argument: closing brackets and then the parameter list, with no opening
// parenthesis on the way, so that a longer argument list (`4, (int)4>>`) does not match a shorter one.
constexpr std::string_view kCloseTemplate = "[^\\w(]*>[^\\w(]*\\(";
constexpr std::string_view kCloseTemplateLast = "[^\\w(]*>[ >]*$";
constexpr std::string_view kOpenParams = "[^\\w(]*\\(";
// Beyond this many words the pattern stops (CUTLASS 3 names run to thousands of bytes) and matches the
// name's beginning only.
constexpr size_t kMaxTokens = 64;
constexpr size_t kMaxMatchedName = 4096;

constexpr std::array<std::string_view, 6> kCastTypes = {"long long",     "unsigned long", "unsigned int",
                                                        "unsigned char", "long",          "int"};

// The length of a cast `(type)` directly before a number at `at`, or 0.
size_t CastBeforeNumber(std::string_view name, size_t at) {
  if (name[at] != '(') return 0;
  const size_t close = name.find(')', at);
  if (close == std::string_view::npos || close + 1 >= name.size()) return 0;
  const std::string_view type = name.substr(at + 1, close - at - 1);
  const bool known = type == "bool" || type == "char" || type == "short" || type == "unsigned short" ||
                     std::find(kCastTypes.begin(), kCastTypes.end(), type) != kCastTypes.end();
  const char next = name[close + 1];
  if (!known || !(IsDigit(next) || (next == '-' && close + 2 < name.size() && IsDigit(name[close + 2])))) return 0;
  return close - at + 1;
}

std::string TokenRegex(std::string_view word) {
  if (IsDigit(word[0])) return fmt::format("{}{}[uUlL]*", kNumberPrefix, word);
  if (word == "true") return "(true|bool\\)1)";
  if (word == "false") return "(false|bool\\)0)";
  return EscapeRegex(word);
}

// A token of a demangled name: a word or number, an anonymous namespace (GNU `(anonymous namespace)`,
// NVIDIA `<unnamed>`), or the parameter list of a function or lambda inside template arguments, where
// NVIDIA writes template parameters (`T2`, `const T1 &`) that GNU spells out.
struct Token {
  enum Kind : uint8_t { kWord, kAnonymous, kParams } kind = kWord;
  std::string_view word;
  bool starts_argument = false;  // after `<` or `,`: where NVIDIA writes a function's return type
};

constexpr std::string_view kAnonymousRegex = "(anonymous namespace|unnamed)";
constexpr std::string_view kParamsRegex = "\\([^()]*(\\([^()]*\\)[^()]*)*\\)";

// The end of the parenthesised group that opens at `at`, or npos.
size_t GroupEnd(std::string_view name, size_t at) {
  int depth = 0;
  for (size_t i = at; i < name.size(); ++i) {
    if (name[i] == '(') ++depth;
    if (name[i] == ')' && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

NcuNamePattern DemangledPattern(std::string_view name) {
  std::vector<Token> tokens;
  int angle = 0;
  bool in_template = false;
  bool argument_start = false;
  std::string_view end;  // what closes the pattern: the template's end or the parameter list's start
  size_t i = 0;
  while (i < name.size() && end.empty() && tokens.size() < kMaxTokens) {
    const char c = name[i];
    const std::string_view rest = name.substr(i);
    if (IsWordChar(c)) {
      size_t j = i;
      while (j < name.size() && IsWordChar(name[j])) ++j;
      std::string_view word = name.substr(i, j - i);
      // A number's type suffix (2ul) is GNU's spelling of NVIDIA's cast; the number alone is the word.
      if (IsDigit(word[0])) {
        size_t k = 0;
        while (k < word.size() && IsDigit(word[k])) ++k;
        word = word.substr(0, k);
      }
      const bool followed_by_word = j + 1 < name.size() && name[j] == ' ' && IsWordChar(name[j + 1]);
      // `(instance 1)` is NVIDIA's `#1`; a `void ` opening a template argument is NVIDIA's return type of a
      // function GNU writes without one (kArgumentBetween allows it).
      if (word == "instance" && followed_by_word && IsDigit(name[j + 1])) {
        i = j;
        continue;
      }
      if (word == "void" && argument_start && followed_by_word) {
        i = j;
        continue;
      }
      tokens.push_back({Token::kWord, word, argument_start});
      argument_start = false;
      i = j;
      continue;
    }
    if (rest.starts_with("(anonymous namespace)") || rest.starts_with("<unnamed>")) {
      tokens.push_back({Token::kAnonymous, {}, argument_start});
      argument_start = false;
      i += rest[0] == '(' ? 21 : 9;
      continue;
    }
    if (c == '(') {
      if (const size_t cast = CastBeforeNumber(name, i); cast > 0) {
        i += cast;
        continue;
      }
      if (angle == 0) {
        end = kOpenParams;
        continue;
      }
      const size_t close = GroupEnd(name, i);
      if (close == std::string_view::npos) break;
      tokens.push_back({Token::kParams, {}, false});
      i = close;
      continue;
    }
    if (c == '<') {
      ++angle;
      in_template = true;
      argument_start = true;
    } else if (c == ',') {
      argument_start = true;
    } else if (c == '>' && angle > 0) {
      if (--angle == 0 && in_template) end = kCloseTemplate;
    }
    ++i;
  }
  // A template that closes where the name ends (no parameter list) closes the pattern there too.
  if (end == kCloseTemplate) {
    const size_t next = name.find_first_not_of(" >", i);
    if (next == std::string_view::npos || name[next] != '(') end = kCloseTemplateLast;
  }
  std::string regex = "^(void )?\\W*";
  const size_t first = !tokens.empty() && tokens[0].kind == Token::kWord && tokens[0].word == "void" ? 1 : 0;
  for (size_t t = first; t < tokens.size(); ++t) {
    if (t > first) regex += tokens[t].starts_argument ? kArgumentBetween : kBetween;
    switch (tokens[t].kind) {
      case Token::kWord: regex += TokenRegex(tokens[t].word); break;
      case Token::kAnonymous: regex += kAnonymousRegex; break;
      case Token::kParams: regex += kParamsRegex; break;
    }
  }
  if (tokens.size() < kMaxTokens) regex += end;
  return {NameBase::kDemangled, std::move(regex)};
}

bool IsPlainName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!IsWordChar(c) && c != '.' && c != '$') return false;
  }
  return true;
}

// The sections each class calls for, after the guide's table: what runs on tensor cores and what stalls
// them for matmuls and convolutions; the memory hierarchy for pointwise kernels; memory and warp stalls for
// reductions; occupancy, registers (LaunchStats), shared-memory bank conflicts (the memory tables) and
// source-level counters for kernels of one's own. Every command starts with the roofline, which answers
// the first question (compute- or memory-bound).
std::vector<std::string_view> SectionsFor(KernelClass kind) {
  std::vector<std::string_view> s = {"SpeedOfLight", "SpeedOfLight_RooflineChart"};
  switch (kind) {
    case KernelClass::kGemm:
    case KernelClass::kConvolution: s.insert(s.end(), {"ComputeWorkloadAnalysis", "WarpStateStats"}); break;
    case KernelClass::kElementwise:
      s.insert(s.end(), {"MemoryWorkloadAnalysis", "MemoryWorkloadAnalysis_Tables"});
      break;
    case KernelClass::kReduction: s.insert(s.end(), {"MemoryWorkloadAnalysis", "WarpStateStats"}); break;
    case KernelClass::kTriton:
      s.insert(s.end(),
               {"LaunchStats", "Occupancy", "MemoryWorkloadAnalysis_Tables", "WarpStateStats", "SourceCounters"});
      break;
    case KernelClass::kOther: s.insert(s.end(), {"LaunchStats", "Occupancy", "WarpStateStats"}); break;
    case KernelClass::kCollective: return {};
  }
  return s;
}

std::string CommandFor(const NcuKernel& k, size_t index) {
  std::string cmd = fmt::format("ncu --kernel-name-base {} --kernel-name {} --launch-skip {} --launch-count 1",
                                NameBaseName(k.pattern.base), ShellQuote("regex:" + k.pattern.regex), k.launch_skip);
  for (auto s : k.sections) cmd += fmt::format(" --section {}", s);
  cmd += fmt::format(" -o ncu_kernel{} {}", index, kNcuApplication);
  return cmd;
}

// Nsight Compute profiles NVIDIA GPUs only; AMD's counterpart (rocprof-compute) takes other options.
bool IsRocmTrace(const TraceMetadata& md) {
  if (!md.hip_runtime_version.empty()) return true;
  return std::any_of(md.devices.begin(), md.devices.end(), [](const DeviceProperties& d) {
    return Contains(d.name, "AMD") || Contains(d.name, "Instinct") || Contains(d.name, "Radeon");
  });
}

}  // namespace

std::string_view KernelClassName(KernelClass kind) {
  switch (kind) {
    case KernelClass::kGemm: return "gemm";
    case KernelClass::kConvolution: return "convolution";
    case KernelClass::kElementwise: return "elementwise";
    case KernelClass::kReduction: return "reduction";
    case KernelClass::kTriton: return "triton";
    case KernelClass::kCollective: return "collective";
    case KernelClass::kOther: return "other";
  }
  return "other";
}

std::string_view NameBaseName(NameBase base) {
  switch (base) {
    case NameBase::kFunction: return "function";
    case NameBase::kDemangled: return "demangled";
    case NameBase::kMangled: return "mangled";
  }
  return "demangled";
}

KernelClass ClassifyKernel(std::string_view name) {
  if (IsCommKernel(name)) return KernelClass::kCollective;
  // Inductor's kernels (triton_poi_, triton_red_, triton_per_, triton_tem_): code of one's own, tuned
  // through occupancy and registers rather than replaced by a library call.
  if (name.starts_with("triton_") || Contains(name, " triton_")) return KernelClass::kTriton;
  const std::string n = LowerAscii(name);
  const bool conv = Contains(n, "convolve") || Contains(n, "convolution") || Contains(n, "conv1d") ||
                    Contains(n, "conv2d") || Contains(n, "conv3d") || Contains(n, "conv1x1") || Contains(n, "fprop") ||
                    Contains(n, "dgrad") || Contains(n, "wgrad") || Contains(n, "winograd") ||
                    Contains(n, "implicit_gemm") || Contains(n, "_conv_") || Contains(n, "cudnn::");
  if (conv) return KernelClass::kConvolution;
  if (IsTensorCoreKernel(name) || IsFp32GemmKernel(name) || Contains(n, "gemm") || Contains(n, "gemv") ||
      Contains(n, "matmul") || Contains(n, "cublas") || Contains(n, "splitkreduce")) {
    return KernelClass::kGemm;
  }
  if (Contains(n, "reduce") || Contains(n, "softmax") || Contains(n, "norm") || Contains(n, "argmax") ||
      Contains(n, "cub::") || Contains(n, "scan") || Contains(n, "topk")) {
    return KernelClass::kReduction;
  }
  if (IsElementwiseKernel(name) || Contains(n, "copy") || Contains(n, "fill") || Contains(n, "index") ||
      Contains(n, "gather") || Contains(n, "scatter") || Contains(n, "cat_") || Contains(n, "embedding") ||
      Contains(n, "multi_tensor_apply")) {
    return KernelClass::kElementwise;
  }
  return KernelClass::kOther;
}

NcuNamePattern NcuPatternFor(std::string_view name) {
  if (name.starts_with("_Z") && IsPlainName(name)) return {NameBase::kMangled, "^" + EscapeRegex(name) + "$"};
  if (IsPlainName(name)) return {NameBase::kFunction, "^" + EscapeRegex(name) + "$"};
  return DemangledPattern(name);
}

namespace {

// The pattern compiled once for many names; nothing matches a pattern std::regex cannot compile.
class CompiledPattern {
 public:
  explicit CompiledPattern(const NcuNamePattern& pattern) {
    // libstdc++ compiles a regex recursively, term by term: a hostile name of megabytes must not reach it.
    if (pattern.regex.size() > 2 * kMaxMatchedName) return;
    try {
      re_.emplace(pattern.regex, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error&) {
    }
  }
  // libstdc++'s matcher recurses per character, so a hostile name of megabytes is not searched.
  bool Matches(std::string_view name) const {
    return re_ && name.size() <= kMaxMatchedName && std::regex_search(name.begin(), name.end(), *re_);
  }

 private:
  std::optional<std::regex> re_;
};

}  // namespace

bool NcuPatternMatches(const NcuNamePattern& pattern, std::string_view name) {
  return CompiledPattern(pattern).Matches(name);
}

std::string ShellQuote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

NcuHandoff AnalyzeNcuHandoff(const Trace& trace, const Steps& steps, size_t max_kernels) {
  NcuHandoff out;
  if (IsRocmTrace(trace.metadata())) return out;
  if (!steps.analysed.empty() && steps.source == StepSource::kProfilerStep) {
    out.basis = SkipBasis::kProfilerStepNumber;
    out.steps_before = std::max<int64_t>(0, steps.analysed.front().number);
  } else if (steps.source == StepSource::kWholeTrace) {
    out.basis = SkipBasis::kNoSteps;
    out.steps_before = 0;
  } else {
    out.basis = SkipBasis::kAssumedSchedule;
    out.steps_before = kAssumedStepsBeforeTrace;
  }
  // Every kernel name of the steps, hottest first: the picks come from the top, and the launches that
  // ncu counts toward --launch-skip from all of those a pick's pattern matches.
  const KernelSummary all = AnalyzeKernels(trace, steps, std::numeric_limits<size_t>::max());
  if (!all.has_kernels() || all.total_ns <= 0) return out;
  const double n_steps = static_cast<double>(std::max<size_t>(1, steps.count()));
  size_t picked = 0;
  for (const KernelStat& k : all.top) {
    if (picked == max_kernels) break;
    const double share = static_cast<double>(k.total_ns) / static_cast<double>(all.total_ns);
    if (share < kNcuMinShare) break;
    NcuKernel item;
    item.name = k.name;
    item.kind = ClassifyKernel(k.name);
    item.share_of_kernel_time = share;
    item.launches = k.count;
    if (item.kind != KernelClass::kCollective) {
      item.pattern = NcuPatternFor(k.name);
      const CompiledPattern compiled(item.pattern);
      int64_t matched = 0;
      item.matched_names = 0;
      for (const KernelStat& other : all.top) {
        if (&other == &k || compiled.Matches(other.name)) {
          matched += other.count;
          ++item.matched_names;
        }
      }
      item.matched_launches_per_step = static_cast<double>(matched) / n_steps;
      item.launch_skip = std::llround(static_cast<double>(out.steps_before) * item.matched_launches_per_step);
      item.sections = SectionsFor(item.kind);
      item.command = CommandFor(item, ++picked);
    }
    out.kernels.push_back(std::move(item));
  }
  return out;
}

}  // namespace tl::trace
