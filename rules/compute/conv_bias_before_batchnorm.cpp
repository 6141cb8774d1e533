// TL405 conv-bias-before-batchnorm: a convolution with a bias directly followed by a batch norm, which
// subtracts the per-channel mean and so cancels the bias: its parameters, its gradient and its `add`
// kernel are wasted work.
#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <vector>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"
#include "linter/semantic/model.h"
#include "linter/semantic/syntax.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks for `nn.Conv1d`/`nn.Conv2d`/`nn.Conv3d` layers with a bias (the default, `bias=True`) whose
output goes straight into `nn.BatchNorm1d`/`2d`/`3d` (or `nn.SyncBatchNorm`):
- consecutive arguments of `nn.Sequential(...)`, or consecutive elements of a list literal passed to it
  or splatted into it (`layers += [conv, nn.BatchNorm2d(c)]` then `nn.Sequential(*layers)`);
- consecutive writes to such a list: `layers += [conv]` directly followed by `layers += [bn]`, or by
  `if batch_norm: layers += [bn]` (VGG's `make_layers`). Behind an `if`, the bias is only wasted when
  the branch runs, so no fix is offered (`bias=not batch_norm` is the edit to make);
- in `forward`: `self.bn(self.conv(x))`, or `x = self.conv(x)` directly followed by `x = self.bn(x)`,
  where `self.conv` and `self.bn` are each assigned once in the class.

The layers are matched through imports (`from torch import nn`, `torch.nn.Conv2d`), and a name bound
once to the layer (`conv2d = nn.Conv2d(...)`) is followed. A conv followed by an activation, or built
with `bias=False`, is not reported, nor is a `bias=` value torchlint cannot resolve, nor a conv that
reaches its batch norm in any other way (a loop over `nn.ModuleList`, a helper function, a layer of
another file): there the order of the layers is not known.

## Why is this bad?
Batch normalization subtracts the per-channel mean of its input, so a constant added per channel
before it cancels out exactly: the conv's bias changes nothing the network computes. It still costs a
parameter tensor, its gradient and optimizer state, and a separate elementwise `add` kernel over the
whole activation after every convolution in the forward pass (and a reduction in the backward pass).

## Example
```python
block = nn.Sequential(nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU())
```

## Use instead
```python
block = nn.Sequential(nn.Conv2d(64, 128, 3, padding=1, bias=False), nn.BatchNorm2d(128), nn.ReLU())
```

## Fix safety
The fix adds `bias=False` (or turns a literal `bias=True` into `False`). It is **safe** when nothing in
the file reads a `.bias` attribute and the file loads no checkpoint (`load_state_dict`, `torch.load`):
the outputs of the batch norm are the same. Otherwise it is **unsafe**: an initialisation loop such as
`nn.init.zeros_(m.bias)` would meet `None`, and a checkpoint saved with the bias would no longer load
strictly.

## Trace evidence
The bias `add` kernels after each convolution.

With `check --trace`, `aten::_convolution` ops in the profiled steps that run an `aten::add_` (the
bias) confirm the finding when the trace also runs batch norms; the GPU time of those adds (their
CPU time on a trace without kernels) is counted as saved, in full: removing the bias removes them.
Convolutions that run without any bias add refute it (the model in the trace has `bias=False`); a
trace with no convolutions does not observe it. A trace without CUDA activity is `unverifiable`.

## Options

## References
- [PyTorch performance tuning guide: disable bias for convolutions directly followed by a batch norm](https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html#disable-bias-for-convolutions-directly-followed-by-a-batch-norm)
- [Ioffe and Szegedy, Batch Normalization (2015)](https://arxiv.org/abs/1502.03167)
)md";

// What the rule found: the conv layer ("Conv2d") and the norm after it ("BatchNorm2d").
struct ConvBiasFinding {
  std::string conv;
  std::string norm;
};

// The last segment of a torch.nn layer class named by a canonical name ("Conv2d"), or empty.
std::string_view TorchNnClass(std::string_view canonical) {
  if (!canonical.starts_with("torch.nn.")) return {};
  return canonical.substr(canonical.rfind('.') + 1);
}

// The last segment of a torch.nn layer class the call constructs ("Conv2d"), or empty.
std::string_view LayerClass(const semantic::Model& model, const semantic::Site& call, std::string& holder) {
  holder = model.CalleeCanonical(call);
  return TorchNnClass(holder);
}

bool IsConv(std::string_view cls) { return cls == "Conv1d" || cls == "Conv2d" || cls == "Conv3d"; }
bool IsBatchNorm(std::string_view cls) {
  return cls == "BatchNorm1d" || cls == "BatchNorm2d" || cls == "BatchNorm3d" || cls == "SyncBatchNorm";
}

// Every sentence the rule emits, in English and Chinese (RuleMeta::messages).
constexpr MessageText kMessages[] = {
    {"bias", "`{conv}` has a bias that the `{norm}` after it cancels", "`{conv}` 的偏置会被其后的 `{norm}` 抵消"},
    {"set-bias", "Set `bias=False`", "设置 `bias=False`"},
    {"add-bias", "Add `bias=False`", "添加 `bias=False`"},
    // Trace evidence (RuleEvidence::Say).
    {"ev-no-payload", "The finding carries no layers, so no convolution of the trace can be tied to it",
     "该问题没有携带网络层，无法对应到 trace 中的卷积"},
    // What a trace without CUDA activity cannot show (NoCudaActivity).
    {"ev-cuda-shows", "the convolutions' kernels", "卷积的 kernel"},
    {"ev-no-convolution", "No convolution ran inside the profiled steps", "分析的 step 内没有运行任何卷积"},
    {"ev-no-bias", "The {convolutions} convolutions in the profiled steps run without a bias add",
     "分析的 step 中的 {convolutions} 次卷积都没有加 bias"},
    {"ev-no-batch-norm", "The convolutions add a bias, but no batch norm runs in the profiled steps",
     "卷积加了 bias，但分析的 step 中没有运行 batch norm"},
    {"ev-confirmed", "{count} of {convolutions} convolutions per step add a bias, {ms} ms/step ({share})",
     "每个 step 的 {convolutions} 次卷积中有 {count} 次加了 bias，每 step {ms} ms（{share}）"},
};

class ConvBiasBeforeBatchNorm final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL405",
                               "conv-bias-before-batchnorm",
                               "compute",
                               "Convolution bias directly followed by a batch norm is cancelled by it",
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
    // Every finding starts at a call that constructs a conv layer (`report` drops any other): a file
    // without one has nothing to report, and the walks below (a constructor looked up for every layer
    // call of every `forward`) are skipped. The callees' canonical names are a table lookup.
    if (std::none_of(model.Sites().begin(), model.Sites().end(), [&](const semantic::Site& site) {
          return site.kind == semantic::SiteKind::kCall && IsConv(TorchNnClass(model.CalleeCanonical(site)));
        })) {
      return;
    }
    std::vector<const semantic::Site*> reported;
    int unsafe = -1;  // computed once, on the first finding
    auto report = [&](const semantic::Site* conv, const semantic::Site* norm, bool fixable = true) {
      if (conv == nullptr || norm == nullptr) return;
      std::string conv_holder, norm_holder;
      const std::string_view conv_cls = LayerClass(model, *conv, conv_holder);
      const std::string_view norm_cls = LayerClass(model, *norm, norm_holder);
      if (!IsConv(conv_cls) || !IsBatchNorm(norm_cls)) return;
      if (std::find(reported.begin(), reported.end(), conv) != reported.end()) return;
      const auto bias = model.FindArgument(*conv, "bias", 7);
      if (bias.has_value()) {
        const auto truthy = model.Resolve(bias->value, conv->scope).Truthy();
        if (!truthy.has_value() || !*truthy) return;
      } else {
        if (model.HasStarArgs(*conv)) return;
        const semantic::KeyLookup lookup = model.KwargsLookupIn(*conv, "bias");
        if (lookup.presence == semantic::KeyPresence::kUnknown) return;
        if (lookup.presence == semantic::KeyPresence::kPresent) {
          const auto truthy = lookup.value.Truthy();
          if (!truthy.has_value() || !*truthy) return;
        }
      }
      reported.push_back(conv);
      Diagnostic diagnostic = MakeDiagnostic(
          conv->node.Range(), "bias", {{"conv", std::string(conv_cls), {}}, {"norm", std::string(norm_cls), {}}});
      diagnostic.payload = ConvBiasFinding{std::string(conv_cls), std::string(norm_cls)};
      if (unsafe < 0) {
        unsafe = model.ReadsAttribute("bias") || !model.CallsNamed("load_state_dict").empty() ||
                         !model.CallsNamed("load").empty()
                     ? 1
                     : 0;
      }
      const Applicability applicability = unsafe == 1 ? Applicability::kUnsafe : Applicability::kSafe;
      if (!fixable) {
        out.push_back(std::move(diagnostic));
        return;
      }
      if (bias.has_value() && semantic::KindOf(bias->node) == semantic::NodeKind::kKeywordArgument &&
          model.Text(bias->value) == "True") {
        diagnostic.fix = MakeFix("set-bias", {}, applicability, {Edit{bias->value.Range(), "False"}});
      } else if (!bias.has_value()) {
        if (auto insertion = model.AppendKeyword(*conv, "bias", "False")) {
          diagnostic.fix = MakeFix("add-bias", {}, applicability,
                                   {Edit{{insertion->offset, insertion->offset}, insertion->text}});
        }
      }
      out.push_back(std::move(diagnostic));
    };

    // Consecutive layers of a sequence: arguments of nn.Sequential or elements of a list given to it.
    auto pairs_in = [&](const std::vector<ts::Node>& items, int scope) {
      for (size_t i = 0; i + 1 < items.size(); ++i) {
        report(model.ConstructorOf(items[i], scope), model.ConstructorOf(items[i + 1], scope));
      }
    };
    auto list_items = [&](ts::Node list) {
      std::vector<ts::Node> items;
      for (ts::Node child : list.NamedChildren()) {
        if (semantic::KindOf(child) != semantic::NodeKind::kComment) items.push_back(child);
      }
      return items;
    };
    // `layers += [conv]` directly followed by `layers += [bn]`, or by `if batch_norm: layers += [bn]` (VGG's
    // `make_layers`): the last layer of one write and the first of the next. Behind an `if` the bias is
    // wasted only when the branch runs, so no fix is offered there (`bias=not batch_norm` is the edit).
    auto consecutive_writes = [&](const std::vector<ts::Node>& lists, int scope) {
      if (lists.size() < 2) return;
      // The `layers += [...]` statement of each list (null when the list is not written by one).
      std::vector<ts::Node> statements;
      for (ts::Node list : lists) {
        const ts::Node write = list.Parent();
        const ts::Node statement = write.Is("augmented_assignment") || write.Is("assignment") ? write.Parent()
                                                                                              : ts::Node();
        statements.push_back(statement.Is("expression_statement") ? statement : ts::Node());
      }
      for (size_t i = 0; i < lists.size(); ++i) {
        const std::vector<ts::Node> items = list_items(lists[i]);
        if (items.empty() || statements[i].IsNull()) continue;
        const semantic::Site* conv = model.ConstructorOf(items.back(), scope);
        std::string holder;
        if (conv == nullptr || !IsConv(LayerClass(model, *conv, holder))) continue;
        ts::Node next = semantic::NextStatement(statements[i]);
        const bool conditional = !next.IsNull() && next.Is("if_statement");
        if (conditional) {
          const ts::Node block = semantic::Field(next, semantic::FieldName::kConsequence);
          next = block.IsNull() || block.NamedChildCount() == 0 ? ts::Node() : block.NamedChild(0);
          if (!next.IsNull() && semantic::KindOf(next) == semantic::NodeKind::kComment)
            next = semantic::NextStatement(next);
        }
        if (next.IsNull()) continue;
        for (size_t j = 0; j < lists.size(); ++j) {
          if (j == i || statements[j] != next) continue;
          const std::vector<ts::Node> following = list_items(lists[j]);
          if (!following.empty()) report(conv, model.ConstructorOf(following.front(), scope), !conditional);
        }
      }
    };

    for (uint32_t index : model.CallsNamed("Sequential")) {
      const semantic::Site& call = model.Sites()[index];
      if (!model.IsCanonical(call, "torch.nn.Sequential")) continue;
      const ts::Node args = call.Arguments();
      if (args.IsNull()) continue;
      std::vector<ts::Node> items;
      for (ts::Node arg : list_items(args)) {
        if (semantic::KindOf(arg) == semantic::NodeKind::kKeywordArgument) continue;
        if (semantic::KindOf(arg) == semantic::NodeKind::kListSplat) {
          // `*layers`: every list literal written to `layers` in this scope, each on its own.
          const ts::Node name = arg.NamedChild(0);
          if (semantic::KindOf(name) == semantic::NodeKind::kList) {
            pairs_in(list_items(name), call.scope);
          } else {
            const std::vector<ts::Node> lists = model.ListsWrittenTo(name, call.scope);
            for (ts::Node list : lists) pairs_in(list_items(list), call.scope);
            consecutive_writes(lists, call.scope);
          }
          items.clear();
          continue;
        }
        if (semantic::KindOf(arg) == semantic::NodeKind::kList) {
          pairs_in(list_items(arg), call.scope);
          continue;
        }
        items.push_back(arg);
      }
      pairs_in(items, call.scope);
    }

    // forward: `self.bn(self.conv(x))`, or `x = self.conv(x)` then `x = self.bn(x)`.
    for (const semantic::Site& site : model.Sites()) {
      if (site.kind != semantic::SiteKind::kCall || semantic::KindOf(site.callee) != semantic::NodeKind::kAttribute) {
        continue;
      }
      const semantic::Scope& scope = model.Scopes()[static_cast<size_t>(site.scope)];
      if (scope.kind != semantic::ScopeKind::kFunction || scope.name != "forward") continue;
      const semantic::Site* conv = model.ConstructorOf(site.callee, site.scope);
      if (conv == nullptr) continue;
      // `report` drops every layer that is not a conv: that is asked first.
      std::string conv_holder;
      if (!IsConv(LayerClass(model, *conv, conv_holder))) continue;
      const ts::Node parent = site.node.Parent();
      if (semantic::KindOf(parent) == semantic::NodeKind::kArgumentList && parent.NamedChildCount() == 1) {
        const ts::Node outer = parent.Parent();
        if (const semantic::Site* outer_site = model.SiteOf(outer); outer_site != nullptr) {
          report(conv, model.ConstructorOf(outer_site->callee, site.scope));
        }
        continue;
      }
      if (semantic::KindOf(parent) != semantic::NodeKind::kAssignment) continue;
      const ts::Node target = semantic::Field(parent, semantic::FieldName::kLeft);
      const ts::Node statement = parent.Parent();
      const ts::Node next = statement.IsNull() ? ts::Node() : statement.NextNamedSibling();
      if (next.IsNull() || next.NamedChildCount() == 0) continue;
      const ts::Node assign = next.NamedChild(0);
      if (semantic::KindOf(assign) != semantic::NodeKind::kAssignment) continue;
      const ts::Node value = semantic::Unparen(semantic::Field(assign, semantic::FieldName::kRight));
      const semantic::Site* norm_call = model.SiteOf(value);
      if (norm_call == nullptr || semantic::KindOf(norm_call->callee) != semantic::NodeKind::kAttribute) continue;
      const ts::Node norm_args = norm_call->Arguments();
      if (norm_args.IsNull() || norm_args.NamedChildCount() != 1 ||
          model.Text(norm_args.NamedChild(0)) != model.Text(target)) {
        continue;
      }
      report(conv, model.ConstructorOf(norm_call->callee, site.scope));
    }
  }
};

TL_REGISTER_RULE(ConvBiasBeforeBatchNorm);

// Trace evidence (`check --trace`; docs/crosscheck.md states the model of the time saved).
// TL405. Model: saved = the time of the bias adds run inside convolutions. Without the bias cuDNN's
// output is final; nothing replaces the add.
class ConvBiasBeforeBatchNormEvidence final : public RuleEvidence {
 public:
  std::string_view Code() const override { return "TL405"; }

  Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& q) const override {
    if (diagnostic.Payload<ConvBiasFinding>() == nullptr) return Unverifiable(Say("ev-no-payload"));
    if (!q.trace.capabilities().cuda) return NoCudaActivity(Say("ev-cuda-shows"));
    const trace::ConvBiasEvidence conv = q.trace.ConvBiasAdds();
    if (conv.convolutions == 0) return VerdictOnly(Verdict::kNotObserved, Say("ev-no-convolution"));
    if (conv.cost.count == 0) {
      return EvidenceFromCost(q, Verdict::kRefuted, conv.cost, 0,
                              Say("ev-no-bias", {NumberArg("convolutions", static_cast<int64_t>(conv.convolutions))}));
    }
    if (conv.batch_norms == 0) return EvidenceFromCost(q, Verdict::kRefuted, conv.cost, 0, Say("ev-no-batch-norm"));
    return EvidenceFromCost(
        q, Verdict::kConfirmed, conv.cost, conv.cost.ms_per_step,
        Say("ev-confirmed",
            {NumberArg("count", conv.cost.count_per_step, 1), NumberArg("convolutions", conv.convolutions_per_step, 1),
             NumberArg("ms", conv.cost.ms_per_step, 3), ShareArg("share", conv.cost.share_of_step)}));
  }
};

TL_REGISTER_EVIDENCE(ConvBiasBeforeBatchNormEvidence);

}  // namespace
}  // namespace tl
