// TL205 host-tensor-then-move: a tensor factory that takes no data (`torch.zeros`, `torch.randn`,
// `torch.arange`, ...) made on the host and moved to the device at once, where `device=` would make it
// there: a host allocation, a host fill and a host-to-device copy for nothing.
#include <fmt/core.h>

#include <array>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"
#include "linter/semantic/syntax.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for tensors that a factory makes from no data (`torch.zeros`, `ones`, `empty`, `full`, `rand`,
`randn`, `randint`, `randperm`, `arange`, `linspace`, `logspace`, `eye`, `empty_strided`, the windows
`hann_window`, `hamming_window`, `blackman_window`, `bartlett_window`, `kaiser_window`, `tril_indices`,
`triu_indices`, and the `*_like` forms of a host tensor) without `device=`, and that are moved to the
device at once: chained (`torch.zeros(n).to(device)`, `torch.randn(b, d).cuda()`, also through dtype casts
such as `torch.ones(b, 1).long().to(device)`) or assigned and moved by the next statement (`mask =
torch.ones(n)` then `mask = mask.to(device)`, or `x = torch.randn(b, d)` then `out = sampler(x.to(device))`
when the name is read nowhere else in its function). A move to another tensor (`torch.zeros(n).to(other)`, which takes its
device and dtype) counts unless that tensor is known to live on the host. Any cadence: once at start-up
is cheap, but the same line in a step loop costs every step, so a helper or generator (`def cycle(): while
True: yield torch.ones(...).to(device)`) is reported wherever it runs. Scripts that run on CUDA only
(TL101's definition); with the project index, a file without CUDA evidence of its own gets it from the
files of its import component.

It does not report:
- tensors built from host data (`torch.tensor(values)`, `torch.from_numpy(a)`, `torch.as_tensor(x)`):
  the data has to travel anyway;
- factories with `device=` (or `**kwargs` that may carry it), files that call
  `torch.set_default_device`, and `*_like` of a tensor that may already live on the device;
- moves to the host (`.to("cpu")`) and dtype-only conversions (`.to(torch.float16)`).

## Why is this bad?
The factory allocates and fills the tensor in host memory, and the move allocates it again on the GPU
and copies it over PCIe (from pageable memory: synchronously). Passing `device=` allocates and fills it
on the GPU with one kernel, with no copy and no host wait.

## Example
```python
noise = torch.randn(batch, latent_dim).to(device)
positions = torch.arange(seq_len).cuda()
```

## Use instead
```python
noise = torch.randn(batch, latent_dim, device=device)
positions = torch.arange(seq_len, device="cuda")
```

## Fix safety
For the chained form with a plain device (`.to(device)`, `.to(device=device)`, `.cuda()`), the fix passes
`device=` to the factory and drops the move (keeping any dtype cast before it). It is **safe** for `zeros`, `ones`, `empty`, `full`, `arange`,
`linspace`, `logspace`, `eye` and their `*_like` (the same values), and **unsafe** for the random factories
(`rand`, `randn`, `randint`, `randperm` and their `*_like`): on the device they draw from the CUDA
generator instead of the CPU one, so a seeded run produces different numbers. It is unsafe for the
windows too, which are computed (cosines, Bessel functions) and may differ in their last bits. No fix is offered for the
two-statement form, a move with other arguments (`.to(device, dtype)`), or a move to another tensor.

## Trace evidence
HtoD copies of freshly made tensors: an `aten::to` (or `aten::_to_copy`) whose copy is a
`Memcpy HtoD` and whose previous sibling op is the factory (`aten::zeros`, `aten::randn`, ...).

With `check --trace`, the moves under the line (CallFrom, a 1.8-1.9 `Call stack` or the function's
frames; else in the whole step) confirm it, with the host time of the `aten::to` calls per step as the
cost and the saving (the device-side factory replaces them with one fill kernel, not subtracted). Lines
that ran with no such move are `refuted`, lines that did not run in the profiled steps `not-observed`
(a factory made once at start-up is outside the steps), and a trace without CUDA activity `unverifiable`.
Findings below 1% of the step are `negligible`.

## Options

## References
- [PyTorch performance tuning guide: create tensors directly on the target device](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html)
- [Tensor creation ops](https://pytorch.org/docs/stable/torch.html#creation-ops)
)md";

using K = semantic::NodeKind;

struct HostFactoryFinding {
  bool random = false;
};

bool IsRandom(std::string_view factory) {
  return factory.starts_with("rand");  // rand, randn, randint, randperm and their *_like
}

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"host-factory", "`torch.{factory}()` is made on the host and then moved to the GPU; pass `device=` instead",
     "`torch.{factory}()` 先在主机上创建再移到 GPU；请改为直接传入 `device=`"},
    {"device", "Pass `device=` to the factory", "向工厂函数传入 `device=`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no factory, so no copy of the trace can be tied to it",
     "该问题没有携带张量工厂函数，无法对应到 trace 中的拷贝"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "host-to-device copies", "主机到设备的拷贝"},
    {"ev-confirmed",
     "{count} moves of freshly made tensors to the device per step {where} take {ms} ms/step of host time ({share})",
     "{where}，每个 step 有 {count} 次把新建张量移到设备上，占用主机时间每 step {ms} ms（{share}）"},
    {"ev-not-observed",
     "No factory op followed by a host-to-device move ran in the profiled steps (a factory made once at start-up runs "
     "outside them)",
     "分析的 step 中没有运行“工厂算子后接主机到设备移动”的组合（启动时只创建一次的张量在 step 之外运行）"},
    {"ev-refuted", "The code ran {where} and moved no freshly made tensor to the device",
     "代码{where}运行过，但没有把新建的张量移到设备上"},
};

class HostTensorThenMove final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL205",
                               "host-tensor-then-move",
                               "data-loading",
                               "A tensor made on the host is moved to the GPU at once",
                               kDocs,
                               FixAvailability::kSometimes,
                               Severity::kWarning,
                               {},
                               true,
                               kMessages};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    if (!model.UsesCuda()) return;
    for (const semantic::Site& site : model.Sites()) {
      const std::string_view factory = model.DataFreeFactory(site);
      if (factory.empty() || site.off_device || !model.CudaAt(site.node)) continue;
      if (!OnHost(model, site, factory)) continue;
      const semantic::Site* move = ChainedMove(model, site);
      const bool chained = move != nullptr;
      if (!chained) move = NextStatementMove(model, site);
      if (move == nullptr) continue;
      Diagnostic diagnostic = MakeDiagnostic(site.node.Range(), "host-factory",
                                             {{"factory", std::string(factory), {}}});
      diagnostic.payload = HostFactoryFinding{IsRandom(factory)};
      if (chained) {
        if (auto fix = DeviceFix(model, site, *move, factory)) diagnostic.fix = std::move(*fix);
      }
      out.push_back(std::move(diagnostic));
    }
  }

 private:
  static bool OnHost(const semantic::Model& model, const semantic::Site& site, std::string_view factory) {
    if (model.FindArgument(site, "device", -1) || model.HasStarArgs(site)) return false;
    if (model.KwargsLookupIn(site, "device").presence != semantic::KeyPresence::kAbsent) return false;
    if (factory.ends_with("_like")) {
      // `torch.zeros_like(x)` lives where x does: only a host x makes it a host tensor.
      const ts::Node args = site.Arguments();
      if (args.IsNull() || args.NamedChildCount() == 0) return false;
      return model.PlacementOf(args.NamedChild(0), site.scope) == semantic::Placement::kHost;
    }
    return model.PlacementOf(site.node, site.scope) == semantic::Placement::kHost;
  }

  // `torch.zeros(n).to(device)`: the factory is the object of the move's attribute, or of a chain of dtype
  // casts before it (`torch.ones(b, 1).long().to(device)`): a cast makes a new host tensor, still to be moved.
  static const semantic::Site* ChainedMove(const semantic::Model& model, const semantic::Site& site) {
    static constexpr std::array<std::string_view, 10> kCasts = {"long", "int",  "short", "byte",   "char",
                                                                "bool", "half", "float", "double", "bfloat16"};
    ts::Node object = site.node;
    for (int depth = 0; depth < 8; ++depth) {
      ts::Node attribute = object.Parent();
      if (semantic::KindOf(attribute) != K::kAttribute ||
          semantic::Field(attribute, semantic::FieldName::kObject) != object) {
        return nullptr;
      }
      ts::Node call = attribute.Parent();
      if (semantic::KindOf(call) != K::kCall) return nullptr;
      const semantic::Site* move = model.SiteOf(call);
      if (move == nullptr || move->kind != semantic::SiteKind::kCall) return nullptr;
      if (model.MovesToDevice(*move)) return move;
      const ts::Node args = move->Arguments();
      const bool cast = semantic::OneOf(move->name, kCasts) && !args.IsNull() && args.NamedChildCount() == 0;
      if (!cast) return nullptr;
      object = call;
    }
    return nullptr;
  }

  // `x = torch.zeros(n)` followed by `x = x.to(device)` (or `y = x.cuda()`, `x.cuda()`): moved before any
  // other use.
  static const semantic::Site* NextStatementMove(const semantic::Model& model, const semantic::Site& site) {
    ts::Node assignment = site.node.Parent();
    if (semantic::KindOf(assignment) != K::kAssignment || semantic::LastChild(assignment) != site.node) return nullptr;
    ts::Node target = semantic::Unparen(semantic::FirstChild(assignment));
    if (semantic::KindOf(target) != K::kIdentifier) return nullptr;
    ts::Node statement = assignment.Parent();
    if (semantic::KindOf(statement) != K::kExpressionStatement) return nullptr;
    const ts::Node next = semantic::NextStatement(statement);
    if (semantic::KindOf(next) != K::kExpressionStatement || next.NamedChildCount() == 0) return nullptr;
    ts::Node expr = next.NamedChild(0);
    if (semantic::KindOf(expr) == K::kAssignment) expr = semantic::LastChild(expr);
    expr = semantic::Unparen(expr);
    const semantic::Site* whole = semantic::KindOf(expr) == K::kCall ? model.SiteOf(expr) : nullptr;
    if (whole != nullptr && MovesName(model, *whole, model.Text(target))) return whole;
    // `sampler(x.to(device))`: a move inside the next statement, when the name is read nowhere else in its
    // scope (not before, not after: the host tensor has no other use).
    const semantic::Site* inner = nullptr;
    bool several = false;
    ts::Walk(next, [&](ts::Node node) {
      if (several || semantic::KindOf(node) != K::kCall) return !several;
      const semantic::Site* candidate = model.SiteOf(node);
      if (candidate != nullptr && MovesName(model, *candidate, model.Text(target))) {
        several = inner != nullptr;
        inner = candidate;
      }
      return true;
    });
    if (inner == nullptr || several) return nullptr;
    const ts::Node scope = model.Scopes()[static_cast<size_t>(site.scope)].node;
    return semantic::NameCount(model.Text(scope), model.Text(target)) == 2 ? inner : nullptr;
  }

  // A move to the device (`name.to(device)`, `name.cuda()`) of the name itself.
  static bool MovesName(const semantic::Model& model, const semantic::Site& move, std::string_view name) {
    if (move.kind != semantic::SiteKind::kCall || !model.MovesToDevice(move)) return false;
    const ts::Node receiver = semantic::Unparen(move.Receiver());
    return semantic::KindOf(receiver) == K::kIdentifier && model.Text(receiver) == name;
  }

  // A value that names a device, not another tensor: `.to(other)` takes that tensor's dtype too, and
  // `device=other` is no device. A string, `torch.device(...)`, `x.device`, or a name that says device,
  // GPU or rank (`device`, `args.device`, `local_rank`).
  static bool PlainDevice(const semantic::Model& model, ts::Node value, int scope) {
    value = semantic::Unparen(value);
    if (model.TensorKindOf(value, scope) == semantic::TensorKind::kTensor) return false;
    if (model.Resolve(value, scope).kind == semantic::ValueKind::kString) return true;
    const K kind = semantic::KindOf(value);
    if (kind == K::kCall)
      return model.CanonicalName(semantic::Field(value, semantic::FieldName::kFunction)) == "torch.device";
    if (kind != K::kIdentifier && kind != K::kAttribute) return false;
    const std::string_view last = semantic::LastSegment(model.Text(value));
    return semantic::ContainsIgnoreCase(last, "device") || semantic::ContainsIgnoreCase(last, "gpu") ||
           semantic::ContainsIgnoreCase(last, "rank");
  }

  // Passes the move's device to the factory and deletes the move: `.to(device)` / `.to(device=d)` with no
  // other argument, or a bare `.cuda()`.
  std::optional<Fix> DeviceFix(const semantic::Model& model, const semantic::Site& factory_site,
                               const semantic::Site& move, std::string_view factory) const {
    const ts::Node args = move.Arguments();
    if (args.IsNull()) return std::nullopt;
    std::string device;
    if (move.name == "cuda") {
      if (args.NamedChildCount() != 0) return std::nullopt;
      device = "\"cuda\"";
    } else {
      if (args.NamedChildCount() != 1) return std::nullopt;
      const auto arg = model.FindArgument(move, "device", 0);
      if (!arg || !PlainDevice(model, arg->value, move.scope)) return std::nullopt;
      device = std::string(model.Text(arg->value));
    }
    auto insertion = model.AppendKeyword(factory_site, "device", device);
    if (!insertion) return std::nullopt;
    // A window is computed (cosines, Bessel functions): on the device its last bits may differ.
    const Applicability safety = IsRandom(factory) || factory.ends_with("_window") ? Applicability::kUnsafe
                                                                                   : Applicability::kSafe;
    return MakeFix("device", {}, safety,
                   {Edit{{insertion->offset, insertion->offset}, insertion->text},
                    Edit{{move.Receiver().EndByte(), move.node.EndByte()}, ""}});
  }
};

TL_REGISTER_RULE(HostTensorThenMove);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved). TL205. Model:
// saved = the host time of the `aten::to` moves of fresh tensors (a device-side factory needs no copy; its
// fill kernel is not subtracted, a few microseconds).
class HostTensorThenMoveEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL205"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<HostFactoryFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (q.at.not_observed) return NotObserved(q, TheLine(q));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::Cost c = q.trace.FactoryCopies(q.at.scope());
    const MessageArg where = SentenceArg("where", WhereText(q));
    if (c.count > 0) {
      return EvidenceFromCost(
          q, Verdict::kConfirmed, c, c.ms_per_step,
          Say("ev-confirmed", {NumberArg("count", c.count_per_step, 1), where, NumberArg("ms", c.ms_per_step, 2),
                               ShareArg("share", c.share_of_step)}));
    }
    if (q.at.level == AttributionLevel::kStep) return VerdictOnly(Verdict::kNotObserved, Say("ev-not-observed"));
    return EvidenceFromCost(q, Verdict::kRefuted, c, 0, Say("ev-refuted", {where}));
  }
};

TL_REGISTER_EVIDENCE(HostTensorThenMoveEvidence);

}  // namespace
}  // namespace tl
