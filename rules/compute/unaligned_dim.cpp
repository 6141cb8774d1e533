// TL401 unaligned-dim: layer dimensions (literals or resolved constants) that are not multiples of 8,
// which keep GEMMs and convolutions off tensor cores or pad them at run time. Display-only suggestion
// of the next multiple of 8.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <vector>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks the dimensions given to `nn.Linear`, `nn.Embedding`, `nn.Conv1d`/`2d`/`3d`,
`nn.MultiheadAttention`, `nn.LSTM` and `nn.GRU` and reports those that are not multiples of 8. Small
dims are never reported (below `min-dim`, 64 by default): 3 input channels or a 10-class head cost
nothing worth padding. The file need not mention CUDA: model definitions often live apart from the
training script.

Each dimension is reported once, where it is written, since that is what you edit: a literal in the
layer call at that argument; a value written elsewhere at its write, with the layer arguments it
reaches as related locations (two layers using one `vocab_size` make one finding). A size computed
from one written value (`out_channels // 2`) is reported at that value, naming the size it makes; one
computed from several (`patch_size**2 * in_chans`) at the layer.

Within the file, torchlint follows a dimension through:
- names bound once, `a, b = 768, 3070`, both branches of `x if c else y`, and `+ - * // **` on ints;
- config fields read as `config.x` or `cfg["x"]`, on a parameter or variable with a config's name
  (`config`, `cfg`, `args`, `opt`, `hparams`...), one annotated with a config class, or one the file's
  call sites pass a config: the defaults of the file's config classes (a `@dataclass`, `NamedTuple`
  or pydantic model, a class named `*Config`/`*Args`/`*Cfg`/`*Params`, one with annotated class
  attributes, or one that holds nothing but class attributes), `field(default=...)` included; the
  keyword and positional arguments of their constructors; `config.x = ...` and `config["x"] = ...`
  on a variable made by such a constructor, by `argparse.Namespace` or `SimpleNamespace`, or by a
  dict literal that is splatted into a constructor (`GPTConfig(**config_args)`) or passed to a class
  of the file, and on a variable with a config's name passed to a class of the file
  (`config = cls.get_default_config(); config.vocab_size = 50257; GPT(config)`); argparse defaults;
- `self.x` through every assignment of it in the class;
- the parameters of an `__init__`, a method or a function, through the arguments at the file's call
  sites (the default where a call omits it, and a config class's `__init__` defaults when the file
  never calls it);
- tables of literals: `configs[size]["widths"][1]` takes every row when the key is not a constant.

With the project index (the default; `--no-project` turns it off), a layer whose width is a parameter of
its function, in a file where nothing calls that function (`nn.Embedding(output_size, input_size)` in a
module's `__init__`), takes the numbers another file of the project passes when it builds the module
(`TCN(args.emsize, ...)` with `--emsize` defaulting to 100, or a literal): each such width is reported at
the layer, since the value's own line is in the other file. A dict config a model hands on to a class of
its file (`TransformerBlock(cfg)` in `GPTModel.__init__(self, cfg)`) is still read from what its callers
pass, for the keys the function does not write itself.

The object sensitivity is coarse on purpose: a config field may take any value written to that field
of any config of the file. A default is dropped when every construction in the file sets the field, and
a write when a later one replaces it in the same flow (in the same block or one around it, with no call
in between that the object is passed to), even when the later value is unknown. What torchlint cannot
resolve stays unknown and is never reported: values from other files other than those constructor
arguments (a dataclass default that the training script always overrides is still reported), a call's
result (`len(tokenizer)`), a name bound more than once in a scope, parameters of functions the file
never calls, `d.update(...)` and other changes to a dict's keys, nested fields (`config.model.width`),
and arguments behind `*args`.

## Why is this bad?
Tensor cores run GEMMs in tiles; with FP16/BF16 they need the reduction (K) and output (N) dimensions
to be multiples of 8 (16 bytes), or cuBLAS falls back to slower kernels or pads at run time. A GPT-2
vocabulary of 50257 makes the output projection, the largest GEMM of the model, unaligned; 50304
(a multiple of 64) is measurably faster.

## Example
```python
lm_head = nn.Linear(768, 50257)
```

## Use instead
```python
lm_head = nn.Linear(768, 50304)  # padded vocabulary; mask or ignore the extra logits
```

## Fix safety
The suggestion is the next multiple of 64 when that adds at most 1% (50257 becomes 50304: large
GEMMs run best on cuBLAS's 64-wide tiles), otherwise the next multiple of 8 (100 becomes 104). It is
**display-only**, never applied: a different size changes
the model's parameters, checkpoints no longer load, and padded vocabularies or features must be
handled by the code around the layer. It edits the literal that holds the size, wherever that is
written. There is none for a size derived from a written value (`out_channels // 2`), since rounding
the value does not round what it makes, nor for an argument computed from values that differ from one
call to the next.

## Trace evidence
GEMMs with unaligned K or N, their time, and whether tensor-core kernels ran.

With `check --trace`, GEMMs (`aten::mm`/`addmm`/`bmm`/`linear`/`matmul`, from `Input Dims`, so
`record_shapes=True`) whose K or N is the reported dimension confirm the finding on a GPU with tensor
cores, with their GPU time; half of it is counted as saved for fp16/bf16, a quarter for fp32 (TF32). On
a CPU-only trace alignment costs nothing, so the finding is `unverifiable` (profile the GPU run); on a
GPU without tensor cores it is `refuted`.

## Options

## References
- [NVIDIA: Matrix multiplication background: tensor core requirements](https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html)
- [NVIDIA: Linear/fully-connected layers performance guide](https://docs.nvidia.com/deeplearning/performance/dl-performance-fully-connected/index.html)
)md";

// The suggested size: the next multiple of 64 when that pads by at most 1% (cuBLAS's largest tiles,
// and the 50257 -> 50304 of GPT-2's vocabulary), else the next multiple of 8 (what tensor cores need
// at 16-bit precision), so a 100-wide layer is not pushed to 128.
int64_t Aligned(int64_t dim) {
  const int64_t by64 = (dim + 63) / 64 * 64;
  if ((by64 - dim) * 100 <= dim) return by64;
  return (dim + 7) / 8 * 8;
}

// What the rule found: the unaligned dimension and which GEMM dimension it becomes (a layer's input
// size is the K of its forward GEMM, its output size the N).
struct DimFinding {
  int64_t dim = 0;
  std::string_view layer;  // "Linear"
  std::string_view param;  // "out_features"
  bool is_k = false;
};

constexpr std::array<RuleOptionSpec, 1> kOptions = {{
    {"min-dim", "dims below this are never reported", 64, 1, int64_t{1} << 30},
}};

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"at-layer", "`{param}` of `nn.{layer}` is {dim}, not a multiple of 8; {aligned} would use tensor cores",
     "`nn.{layer}` 的 `{param}` 为 {dim}，不是 8 的倍数；改为 {aligned} 即可使用张量核心"},
    {"derived", "{subject} is {expr}, which makes {roles} {dim}, not a multiple of 8; {aligned} would use tensor cores",
     "{subject}为 {expr}，使 {roles} 为 {dim}，不是 8 的倍数；改为 {aligned} 即可使用张量核心"},
    {"written", "{subject} is {dim}, not a multiple of 8, as {roles}; {aligned} would use tensor cores",
     "{subject}为 {dim}，用作 {roles}，不是 8 的倍数；改为 {aligned} 即可使用张量核心"},
    {"round", "Round `{param}` up to {aligned}", "将 `{param}` 向上取整为 {aligned}"},
    {"related-derived", "{dim} as `{param}` of `nn.{layer}` here", "此处作为 `nn.{layer}` 的 `{param}`，值为 {dim}"},
    {"related-used", "used as `{param}` of `nn.{layer}` here", "此处用作 `nn.{layer}` 的 `{param}`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no dimension, so no GEMM can be tied to it",
     "该问题没有携带维度，无法对应到任何 GEMM"},
    {"ev-no-shapes", "The trace holds no operator shapes; {missing}", "trace 中没有算子的形状；{missing}"},
    {"ev-no-gemm-of-dim", "No GEMM with K or N = {dim} ran inside the profiled steps ({gemms} GEMMs there)",
     "分析的 step 内没有运行 K 或 N = {dim} 的 GEMM（共有 {gemms} 个 GEMM）"},
    {"ev-no-unaligned-gemm", "No GEMM with an unaligned K or N ran inside the profiled steps ({gemms} GEMMs there)",
     "分析的 step 内没有运行 K 或 N 未对齐的 GEMM（共有 {gemms} 个 GEMM）"},
    {"ev-on-cpu",
     "{count} GEMMs per step have K or N = {dim} ({shapes}), but on the CPU, where alignment costs nothing; profile "
     "the GPU run with ProfilerActivity.CUDA to see tensor-core use",
     "每个 step 有 {count} 个 K 或 N = {dim} 的 GEMM（{shapes}），但它们运行在 CPU 上，对齐与否没有影响；"
     "请用 ProfilerActivity.CUDA 采集 GPU 上的运行，查看 Tensor Core 的使用情况"},
    {"ev-no-tensor-cores",
     "The GPU has no tensor cores (compute capability below 7.0): alignment of the {count} GEMMs per step with K or N "
     "= {dim} would not change their kernels",
     "这块 GPU 没有 Tensor Core（compute capability 低于 7.0）：对齐每个 step 中 {count} 个 K 或 N = {dim} 的 "
     "GEMM 不会改变它们的 kernel"},
    {"ev-confirmed",
     "{count} GEMMs per step with K or N = {dim} take {ms} ms/step of GPU time ({shapes}); tensor-core kernels "
     "{tensor_cores} ({share} of kernel time)",
     "每个 step 有 {count} 个 K 或 N = {dim} 的 GEMM，占用 GPU 时间每 step {ms} ms（{shapes}）；使用 Tensor "
     "Core 的 kernel {tensor_cores}（占 kernel 时间的 {share}）"},
    {"ev-tensor-cores-elsewhere", "ran elsewhere in the trace", "在 trace 的其他地方运行过"},
    {"ev-tensor-cores-never", "did not run at all", "完全没有运行"},
};

class UnalignedDim final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL401",
                               "unaligned-dim",
                               "compute",
                               "Layer dimension is not a multiple of 8 and misses tensor cores",
                               kDocs,
                               FixAvailability::kSometimes,
                               Severity::kWarning,
                               kOptions,
                               /*default_enabled=*/true,
                               kMessages,
                               Applicability::kDisplayOnly};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    const int64_t min_dim = context.options.Get(kOptions[0]);
    std::vector<Written> written;
    for (const semantic::WidthLayer& layer : semantic::kWidthLayers) {
      const std::string canonical = fmt::format("torch.nn.{}", layer.name);
      for (uint32_t index : model.CallsNamed(layer.name)) {
        const semantic::Site& call = model.Sites()[index];
        if (!model.IsCanonical(call, canonical)) continue;
        for (int position = 0; position < 2; ++position) {
          const std::string_view param = layer.params[static_cast<size_t>(position)];
          if (param.empty()) continue;
          auto arg = model.FindArgument(call, param, position);
          if (!arg) continue;
          const std::vector<semantic::Value> values = model.ResolveAll(arg->value, call.scope);
          for (const semantic::Value& value : values) {
            if (value.kind != semantic::ValueKind::kInt || value.int_value < min_dim || value.int_value % 8 == 0) {
              continue;
            }
            const Use use{arg->value, layer.name, param, position == 0};
            const bool here = value.source.IsNull() || (call.node.StartByte() <= value.source.StartByte() &&
                                                        value.source.EndByte() <= call.node.EndByte());
            if (here) {
              out.push_back(AtLayer(value, use, values.size() == 1));
              continue;
            }
            auto group = std::find_if(written.begin(), written.end(), [&](const Written& w) {
              return w.value.source == value.source && w.value.int_value == value.int_value;
            });
            if (group == written.end()) group = written.insert(written.end(), Written{value, {}});
            group->uses.push_back(use);
          }
        }
      }
    }
    for (const Written& w : written) out.push_back(AtWrite(model, w));
  }

 private:
  // A layer argument a dimension reaches.
  struct Use {
    ts::Node arg;
    std::string_view layer;
    std::string_view param;
    bool is_k = false;
  };
  // A dimension written away from the layers that use it (a config field, a constant, a call's
  // argument), with those layers: reported once, where it is written.
  struct Written {
    semantic::Value value;
    std::vector<Use> uses;
  };

  // The literal in the layer call, or a value computed from more than one place: reported at the argument.
  Diagnostic AtLayer(const semantic::Value& value, const Use& use, bool only_value) const {
    const int64_t dim = value.int_value;
    const int64_t aligned = Aligned(dim);
    Diagnostic diagnostic = MakeDiagnostic(use.arg.Range(), "at-layer",
                                           {{"param", std::string(use.param), {}},
                                            {"layer", std::string(use.layer), {}},
                                            {"dim", std::to_string(dim), {}},
                                            {"aligned", std::to_string(aligned), {}}});
    // Point the suggestion at the literal that holds the number; a computed argument is rewritten whole
    // only when it has no other value.
    if (!value.origin.IsNull() || only_value) {
      const ts::Node target = value.origin.IsNull() ? use.arg : value.origin;
      diagnostic.fix = MakeFix("round",
                               {{"param", std::string(use.param), {}}, {"aligned", std::to_string(aligned), {}}},
                               Applicability::kDisplayOnly, {Edit{target.Range(), std::to_string(aligned)}});
    }
    diagnostic.payload = DimFinding{dim, use.layer, use.param, use.is_k};
    return diagnostic;
  }

  Diagnostic AtWrite(const semantic::Model& model, Written w) const {
    std::stable_sort(w.uses.begin(), w.uses.end(),
                     [](const Use& a, const Use& b) { return a.arg.StartByte() < b.arg.StartByte(); });
    w.uses.erase(std::unique(w.uses.begin(), w.uses.end(), [](const Use& a, const Use& b) { return a.arg == b.arg; }),
                 w.uses.end());
    const int64_t dim = w.value.int_value;
    const int64_t aligned = Aligned(dim);
    // "`num_embeddings` of `nn.Embedding` and `out_features` of `nn.Linear`", each role once; in
    // Chinese "`nn.Embedding` 的 `num_embeddings` 和 `nn.Linear` 的 `out_features`".
    std::vector<std::pair<std::string, std::string>> roles;
    for (const Use& use : w.uses) {
      std::pair<std::string, std::string> role{fmt::format("`{}` of `nn.{}`", use.param, use.layer),
                                               fmt::format("`nn.{}` 的 `{}`", use.layer, use.param)};
      if (std::find(roles.begin(), roles.end(), role) == roles.end()) roles.push_back(std::move(role));
    }
    MessageArg joined{"roles", "", ""};
    for (size_t i = 0; i < roles.size(); ++i) {
      const bool last = i + 1 == roles.size();
      joined.en += i == 0 ? "" : last ? " and " : ", ";
      joined.zh += i == 0 ? "" : last ? " 和 " : "、";
      joined.en += roles[i].first;
      joined.zh += roles[i].second;
    }
    const std::string_view name = model.WrittenName(w.value.source);
    const MessageArg subject = name.empty()
                                   ? MessageArg{"subject", "The value written here", "此处写入的值"}
                                   : MessageArg{"subject", fmt::format("`{}`", name), fmt::format("`{}` ", name)};
    const bool derived = w.value.origin.IsNull();  // `out_channels // 2` of a written `out_channels`
    MessageArgs args{subject, joined, {"dim", std::to_string(dim), {}}, {"aligned", std::to_string(aligned), {}}};
    if (derived) args.push_back({"expr", std::string(model.Text(w.value.source)), {}});
    Diagnostic diagnostic = MakeDiagnostic(w.value.source.Range(), derived ? "derived" : "written", std::move(args));
    for (const Use& use : w.uses) {
      RelatedLocation related;
      related.range = use.arg.Range();
      MessageArgs related_args{{"param", std::string(use.param), {}}, {"layer", std::string(use.layer), {}}};
      if (derived) related_args.push_back({"dim", std::to_string(dim), {}});
      SetMessage(related, derived ? "related-derived" : "related-used", std::move(related_args));
      diagnostic.related.push_back(std::move(related));
    }
    // The literal holds the number itself; a derived size has no single literal to round.
    if (!derived) {
      diagnostic.fix = MakeFix("round",
                               {{"param", std::string(name.empty() ? w.uses.front().param : name), {}},
                                {"aligned", std::to_string(aligned), {}}},
                               Applicability::kDisplayOnly, {Edit{w.value.origin.Range(), std::to_string(aligned)}});
    }
    const Use& first = w.uses.front();
    diagnostic.payload = DimFinding{dim, first.layer, first.param, first.is_k};
    return diagnostic;
  }
};

TL_REGISTER_RULE(UnalignedDim);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved). Model: saved
// = the unaligned GEMMs' device time x 0.5 for fp16/bf16 GEMMs on a GPU with tensor cores (aligned K and
// N let cuBLAS pick tensor-core kernels, commonly 2x or more), x 0.25 for fp32 ones (TF32 tensor cores,
// when enabled, have the same alignment rule), x 0 without tensor cores.
class UnalignedDimEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL401"; }

  Evidence Confirm(const Diagnostic& d, const EvidenceQuery& q) const override {
    const DimFinding* finding = d.Payload<DimFinding>();
    // Without the dimension, every unaligned GEMM would match: say so instead of guessing.
    if (finding == nullptr) return Unverifiable(Say("ev-no-payload"));
    const auto& caps = q.trace.capabilities();
    if (!caps.shapes) {
      return Unverifiable(Say("ev-no-shapes", {SentenceArg("missing", MissingOption("record_shapes=True"))}));
    }
    const std::optional<int64_t> dim = finding->dim;
    trace::GemmEvidence g = q.trace.UnalignedGemms(nullptr);
    std::vector<trace::GemmShape> matching;
    int64_t count = 0, gpu_ns = 0, cpu_ns = 0;
    bool half = false;
    std::vector<EventClaim> claims;
    for (const auto& s : g.shapes) {
      if (s.k != *dim && s.n != *dim) continue;
      count += s.count;
      gpu_ns += s.gpu_ns;
      cpu_ns += s.cpu_ns;
      half = half || HalfPrecision(s.dtype);
      matching.push_back(s);
      // GEMM shapes are aggregates: two findings of the same dimension claim the same shapes and share them.
      claims.push_back(KeyClaim(q, fmt::format("gemm {} {}", s.op, s.dims), caps.cuda ? s.gpu_ns : s.cpu_ns));
    }
    const double steps = static_cast<double>(std::max<size_t>(1, q.steps));
    const MessageArg gemms = NumberArg("gemms", static_cast<int64_t>(g.gemms));
    if (matching.empty()) {
      return VerdictOnly(Verdict::kNotObserved, dim ? Say("ev-no-gemm-of-dim", {NumberArg("dim", *dim), gemms})
                                                    : Say("ev-no-unaligned-gemm", {gemms}));
    }
    trace::Cost c;
    c.observed = true;
    c.count = count;
    c.count_per_step = static_cast<double>(count) / steps;
    c.ms_per_step = static_cast<double>(caps.cuda ? gpu_ns : cpu_ns) / 1e6 / steps;
    c.share_of_step = q.step_ms > 0 ? c.ms_per_step / q.step_ms : 0.0;
    std::string shapes;
    for (size_t i = 0; i < matching.size() && i < 3; ++i) {
      shapes += fmt::format("{}{} {}", shapes.empty() ? "" : ", ", matching[i].op, matching[i].dims);
    }
    const MessageArg count_arg = NumberArg("count", c.count_per_step, 1);
    const MessageArg dim_arg = NumberArg("dim", dim.value_or(0));
    const MessageArg shapes_arg{"shapes", shapes, {}};
    if (!caps.cuda) {
      Evidence e = EvidenceFromCost(q, Verdict::kUnverifiable, c, 0,
                                    Say("ev-on-cpu", {count_arg, dim_arg, shapes_arg}));
      e.claims = claims;
      AddShapeEvents(e, matching);
      return e;
    }
    bool tensor_core_gpu = g.tensor_cores_ran;
    for (const auto& dev : q.trace.trace().metadata().devices)
      tensor_core_gpu = tensor_core_gpu || dev.compute_major >= 7;
    const double factor = !tensor_core_gpu ? 0.0 : half ? 0.5 : 0.25;
    if (!tensor_core_gpu) {
      Evidence e = EvidenceFromCost(q, Verdict::kRefuted, c, 0, Say("ev-no-tensor-cores", {count_arg, dim_arg}));
      e.claims = claims;
      AddShapeEvents(e, matching);
      return e;
    }
    const Sentence tensor_cores = Say(g.tensor_cores_ran ? "ev-tensor-cores-elsewhere" : "ev-tensor-cores-never");
    Evidence e = EvidenceFromCost(
        q, Verdict::kConfirmed, c, c.ms_per_step * factor,
        Say("ev-confirmed", {count_arg, dim_arg, NumberArg("ms", c.ms_per_step, 2), shapes_arg,
                             SentenceArg("tensor_cores", tensor_cores), ShareArg("share", g.tensor_core_share)}));
    AddShapeEvents(e, matching);
    e.claims = claims;
    return e;
  }

 private:
  // The matching GEMM shapes, a few, as the evidence's events.
  static void AddShapeEvents(Evidence& e, const std::vector<trace::GemmShape>& matching) {
    e.events.clear();
    for (size_t i = 0; i < matching.size() && i < 5; ++i) {
      e.events.push_back(fmt::format("{} {} x{}", matching[i].op, matching[i].dims, matching[i].count));
    }
  }

  static bool HalfPrecision(std::string_view dtype) {
    return dtype.find("Half") != std::string_view::npos || dtype.find("BFloat16") != std::string_view::npos ||
           dtype.find("half") != std::string_view::npos || dtype.find("bfloat16") != std::string_view::npos ||
           dtype.find("c10::") != std::string_view::npos;
  }
};

TL_REGISTER_EVIDENCE(UnalignedDimEvidence);

}  // namespace
}  // namespace tl
