// Host-device syncs: which sites make the host wait for the device through a call that reads or copies
// (`.item()`, `.cpu()`, printing or formatting a tensor, `float(t)`, `torch.cuda.synchronize()`),
// whatever their cadence; the syncs without such a call (branching on a tensor, masks) are
// ImplicitSyncAt's (syncs_implicit.cpp). TL101 asks it of the sites that run every step; the project index asks it of
// every function to know which ones sync on each call.
#include <fmt/core.h>

#include <array>
#include <string>

#include "linter/semantic/builder.h"

namespace tl::semantic {
namespace {

// `x.cpu().item()`: the first `.cpu()` already synchronised; what follows reads host memory.
bool AfterSync(const Model& model, ts::Node receiver) {
  static constexpr std::array<std::string_view, 4> kSync = {"cpu", "numpy", "item", "tolist"};
  for (int depth = 0; depth < 16 && !receiver.IsNull(); ++depth) {
    const K kind = KindOf(receiver);
    if (kind == K::kCall) {
      ts::Node callee = Field(receiver, F::kFunction);
      if (KindOf(callee) != K::kAttribute) return false;
      if (OneOf(model.Text(Field(callee, F::kAttribute)), kSync)) return true;
      receiver = Field(callee, F::kObject);
      continue;
    }
    if (kind == K::kAttribute) {
      receiver = Field(receiver, F::kObject);
      continue;
    }
    return false;
  }
  return false;
}

// `t.numpy(force=True)`: a copy to the host first, when the flag is not known to be false.
bool NumpyForced(const Model& model, const Site& site) {
  const ts::Node args = site.Arguments();
  if (args.IsNull()) return false;
  for (ts::Node arg : args.NamedChildren()) {
    if (KindOf(arg) == K::kKeywordArgument && model.Text(Field(arg, F::kName)) == "force") {
      return model.Resolve(Field(arg, F::kValue), site.scope).Truthy().value_or(true);
    }
    if (KindOf(arg) != K::kComment) return model.Resolve(arg, site.scope).Truthy().value_or(true);  // numpy(True)
  }
  return false;
}

}  // namespace

bool IsIdentityComparison(const Model& model, ts::Node comparison) {
  for (uint32_t i = 0; i < comparison.ChildCount(); ++i) {
    ts::Node child = comparison.Child(i);
    if (child.IsNamed()) continue;
    const std::string_view op = model.Text(child);
    if (op == "in" || op.starts_with("is") || op.starts_with("not")) return true;
  }
  return false;
}

bool Model::IsDeviceTensor(ts::Node expr, int scope) const {
  return TensorKindOf(expr, scope) == TensorKind::kTensor && PlacementOf(expr, scope) != Placement::kHost;
}

bool Model::IsTensorCondition(ts::Node condition, int scope) const {
  // Python evaluates the truth of each operand of `not`, `and`, `or`.
  std::vector<ts::Node> work{condition};
  for (size_t guard = 0; !work.empty() && guard < 64; ++guard) {
    ts::Node node = Unparen(work.back());
    work.pop_back();
    const K kind = KindOf(node);
    if (kind == K::kNot) {
      work.push_back(Field(node, F::kArgument));
    } else if (kind == K::kBoolean) {
      // The left operand first, as Python reads it: the typing budget of a site is not spent on the
      // right one's derivation before the left one is looked at.
      work.push_back(Field(node, F::kRight));
      work.push_back(Field(node, F::kLeft));
    } else if (kind == K::kComparison) {
      // `loss > 10` reads the device when one operand lives there (`host.sum() > 3` does not); `x is
      // None` and `k in d` make no tensor.
      if (IsIdentityComparison(*this, node)) continue;
      for (uint32_t i = 0; i < node.NamedChildCount(); ++i) {
        if (IsDeviceTensor(node.NamedChild(i), scope)) return true;
      }
    } else if (IsDeviceTensor(node, scope)) {
      return true;
    }
  }
  return false;
}

std::optional<SyncOp> Model::SyncAt(const Site& site) const {
  switch (site.kind) {
    case SiteKind::kInterpolation: {
      if (KindOf(site.node) == K::kBinary) {
        // `"%.3f" % loss`, `"%d/%d" % (correct, total)`: a device tensor among the operands.
        const ts::Node operands = Unparen(Field(site.node, F::kRight));
        bool device = IsDeviceTensor(operands, site.scope);
        for (uint32_t i = 0; !device && KindOf(operands) == K::kTuple && i < operands.NamedChildCount(); ++i) {
          device = IsDeviceTensor(operands.NamedChild(i), site.scope);
        }
        if (!device) return std::nullopt;
        return SyncOp{SyncKind::kScalar, "Formatting a tensor with `%` synchronizes with the GPU",
                      "用 `%` 格式化张量会与 GPU 同步"};
      }
      ts::Node expr = Field(site.node, F::kExpression);
      if (!expr.IsNull() && IsDeviceTensor(expr, site.scope)) {
        return SyncOp{SyncKind::kScalar, "Formatting a tensor in an f-string synchronizes with the GPU",
                      "在 f-string 中格式化张量会与 GPU 同步"};
      }
      return std::nullopt;
    }
    case SiteKind::kCondition:
    case SiteKind::kSubscript:
    case SiteKind::kAssert:
      // Syncs without a sync call: ImplicitSyncAt (TL102).
      return std::nullopt;
    case SiteKind::kCall: break;
  }
  const std::string_view name = site.name;
  const ts::Node receiver = site.Receiver();
  if (!receiver.IsNull()) {
    if (name == "item" || name == "tolist" || name == "cpu" || name == "numpy") {
      // `.numpy()` of a CUDA tensor raises: in code that runs, it reads a host tensor, unless
      // `force=True` (PyTorch 1.13) copies it to the host first.
      if (name == "numpy" && !NumpyForced(*this, site)) return std::nullopt;
      if (TensorKindOf(receiver, site.scope) == TensorKind::kNotTensor) return std::nullopt;
      if (PlacementOf(receiver, site.scope) == Placement::kHost) return std::nullopt;
      if (AfterSync(*this, receiver)) return std::nullopt;
      return SyncOp{name == "item" ? SyncKind::kScalar : SyncKind::kCopy,
                    fmt::format("`.{}()` synchronizes with the GPU", name), fmt::format("`.{}()` 会与 GPU 同步", name)};
    }
    if (name == "synchronize") {
      const std::string_view call = IsCanonical(site, "torch.cuda.synchronize") ? "torch.cuda.synchronize"
                                                                                : ".synchronize";
      return SyncOp{SyncKind::kExplicit, fmt::format("`{}()` blocks the host", call),
                    fmt::format("`{}()` 会阻塞主机", call)};
    }
    return std::nullopt;
  }
  const ts::Node args = site.Arguments();
  if (KindOf(site.callee) != K::kIdentifier || args.IsNull()) return std::nullopt;
  if (name == "float" || name == "int" || name == "bool") {
    if (args.NamedChildCount() == 0) return std::nullopt;
    if (IsDeviceTensor(args.NamedChild(0), site.scope)) {
      return SyncOp{SyncKind::kScalar, fmt::format("`{}()` of a tensor synchronizes with the GPU", name),
                    fmt::format("对张量调用 `{}()` 会与 GPU 同步", name)};
    }
    return std::nullopt;
  }
  if (name == "print") {
    for (ts::Node arg : args.NamedChildren()) {
      if (KindOf(arg) == K::kKeywordArgument) continue;
      if (IsDeviceTensor(arg, site.scope))
        return SyncOp{SyncKind::kScalar, "Printing a tensor synchronizes with the GPU", "打印张量会与 GPU 同步"};
    }
  }
  return std::nullopt;
}

}  // namespace tl::semantic
