// Implicit host-device syncs (TL102): code that makes the host wait for the GPU without calling a sync
// API. Python reads the truth of a device tensor (`if loss > 10:`, `assert t.min() >= 0`), a boolean mask
// or a data-dependent op needs the number of selected elements on the host before it can allocate its
// output (`x[mask]`, `nonzero`, `masked_select`, `unique`), and Python's builtins iterate a tensor one
// element at a time and compare each on the host.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <span>
#include <utility>

#include "linter/semantic/builder.h"

namespace tl::semantic {
namespace {

constexpr std::array<std::string_view, 14> kBoolMethods = {
    "eq",    "ne",    "lt",       "le",          "gt",          "ge",         "bool",
    "isnan", "isinf", "isfinite", "logical_not", "logical_and", "logical_or", "logical_xor"};

// The positional argument `position` of a call, when it is not a keyword or splat.
ts::Node Positional(ts::Node args, uint32_t position) {
  if (args.IsNull()) return ts::Node();
  uint32_t seen = 0;
  for (ts::Node arg : args.NamedChildren()) {
    const K k = KindOf(arg);
    if (k == K::kKeywordArgument || k == K::kListSplat || k == K::kDictionarySplat) continue;
    if (k == K::kComment) continue;
    if (seen++ == position) return arg;
  }
  return ts::Node();
}

uint32_t PositionalCount(ts::Node args) {
  uint32_t n = 0;
  while (!Positional(args, n).IsNull()) ++n;
  return n;
}

// The subscript's indices other than `mask` are slices, integers, `None` or `...`, which select a view
// before the mask applies: the mask is the only tensor index.
bool MaskIsTheOnlyIndex(ts::Node subscript, ts::Node mask) {
  bool value = true;  // the first named child is the tensor indexed
  for (ts::Node child : subscript.NamedChildren()) {
    if (std::exchange(value, false)) continue;
    const K k = KindOf(child);
    if (child == mask || k == K::kComment || k == K::kInteger || k == K::kNone) continue;
    if (child.Type() == "slice" || child.Type() == "ellipsis") continue;
    if (k == K::kUnary && KindOf(Field(child, F::kArgument)) == K::kInteger) continue;
    return false;
  }
  return true;
}

bool NumberAnnotation(std::string_view type) { return type == "int" || type == "float" || type == "bool"; }

}  // namespace

// A device tensor as the binding that reaches the use sees it: `losses = []` then `sum(losses)` is a
// list, whatever `losses` is rebound to later in the function.
static bool ReachingDeviceTensor(const Model& model, ts::Node expr, int scope) {
  expr = Unparen(expr);
  if (KindOf(expr) != K::kIdentifier) return model.IsDeviceTensor(expr, scope);
  const Model::Binding* reaching = model.ReachingBinding(expr, scope);
  if (reaching == nullptr || reaching->kind != Model::BindingKind::kAssign || reaching->position != -1) {
    return model.IsDeviceTensor(expr, scope);
  }
  return model.IsDeviceTensor(reaching->value, reaching->scope);
}

bool Model::IsDeviceBoolTensor(ts::Node expr, int scope) const { return IsDeviceBoolTensorDepth(expr, scope, 0); }

bool Model::IsDeviceBoolTensorDepth(ts::Node expr, int scope, int depth) const {
  // Iterative over `~`, `&`, `|`, parentheses and names bound once; each step is one node.
  std::vector<std::pair<ts::Node, int>> work{{expr, scope}};
  for (int steps = 0; !work.empty() && steps < 32; ++steps) {
    auto [node, in] = work.back();
    work.pop_back();
    node = Unparen(node);
    switch (KindOf(node)) {
      case K::kComparison: {
        if (IsIdentityComparison(*this, node)) break;
        for (uint32_t i = 0; i < node.NamedChildCount(); ++i) {
          if (IsDeviceTensor(node.NamedChild(i), in)) return true;
        }
        break;
      }
      case K::kUnary:
        if (Text(node).starts_with("~")) work.emplace_back(Field(node, F::kArgument), in);
        break;
      case K::kBinary: {
        const std::string_view op = Text(Field(node, F::kOperator));
        if (op == "&" || op == "|" || op == "^") {
          work.emplace_back(Field(node, F::kLeft), in);
          work.emplace_back(Field(node, F::kRight), in);
        }
        // `1 - suppress`: the complement of a byte mask (a boolean tensor cannot be subtracted).
        if (op == "-" && Text(Unparen(Field(node, F::kLeft))) == "1") work.emplace_back(Field(node, F::kRight), in);
        break;
      }
      case K::kCall: {
        const Site* site = SiteOf(node);
        if (site == nullptr || site->kind != SiteKind::kCall) break;
        // A boolean tensor made with `dtype=torch.bool` on the device, or on the host and moved there
        // (`torch.eye(n, dtype=torch.bool).to(device)`).
        // (`torch.uint8` too: PyTorch still takes a byte tensor used as an index for a mask.)
        const auto bool_dtype = [&](const Site& call) {
          const auto dtype = FindArgument(call, "dtype", -1);
          if (!dtype) return false;
          const std::string canonical = CanonicalName(Unparen(dtype->value));
          return canonical == "torch.bool" || canonical == "torch.uint8";
        };
        if (site->name == "to" || site->name == "cuda") {
          const Site* made = SiteOf(Unparen(site->Receiver()));
          if (made != nullptr && made->kind == SiteKind::kCall && bool_dtype(*made) && IsDeviceTensor(node, in)) {
            return true;
          }
        }
        if (bool_dtype(*site) && CanonicalName(site->callee).starts_with("torch.") && IsDeviceTensor(node, in)) {
          return true;
        }
        if (!OneOf(site->name, kBoolMethods)) break;
        const std::string canonical = CanonicalName(site->callee);
        if (canonical.starts_with("torch.")) {
          ts::Node first = Positional(site->Arguments(), 0);
          if (!first.IsNull() && IsDeviceTensor(first, in)) return true;
        } else if (ts::Node receiver = site->Receiver(); !receiver.IsNull() && IsDeviceTensor(receiver, in)) {
          return true;
        }
        break;
      }
      case K::kIdentifier: {
        const Binding* binding = SingleBinding(Text(node), in);
        if (binding != nullptr && binding->kind == BindingKind::kAssign && binding->position == -1 &&
            binding->value != node) {
          work.emplace_back(binding->value, binding->scope);
        } else if (binding == nullptr && EveryBindingAMask(Text(node), in, depth + 1)) {
          return true;
        }
        break;
      }
      default: break;
    }
  }
  return false;
}

bool Model::EveryBindingAMask(std::string_view name, int scope, int depth) const {
  // `suppress = torch.zeros(n, dtype=torch.uint8).to(device)` and then `suppress = torch.max(suppress,
  // overlap[box] > t)`: every assignment in the function makes a mask, taking the name itself for one
  // (what it held before), and nothing else binds it. Names whose masks are made of each other end at a
  // small depth.
  if (depth > 4) return false;
  int assignments = 0;
  for (const Binding& binding : BindingsOf(name)) {
    if (binding.scope != scope) continue;
    if (binding.kind != BindingKind::kAssign || binding.position != -1) return false;
    const ts::Node value = Unparen(binding.value);
    ++assignments;
    if (KindOf(value) == K::kCall) {
      const Site* site = SiteOf(value);
      const std::string canonical = site == nullptr ? std::string() : CanonicalName(site->callee);
      if (canonical == "torch.max" || canonical == "torch.maximum" || canonical == "torch.min" ||
          canonical == "torch.minimum") {
        const ts::Node first = Positional(site->Arguments(), 0);
        const ts::Node second = Positional(site->Arguments(), 1);
        // The name itself, or a mask; beside one of those, a comparison is a tensor too (`torch.max`
        // takes no Python bool as `other`).
        const auto itself = [&](ts::Node arg) { return !arg.IsNull() && Text(Unparen(arg)) == name; };
        const auto mask = [&](ts::Node arg) {
          return itself(arg) || (!arg.IsNull() && IsDeviceBoolTensorDepth(arg, scope, depth));
        };
        const auto comparison = [&](ts::Node arg) {
          return !arg.IsNull() && KindOf(Unparen(arg)) == K::kComparison && !IsIdentityComparison(*this, Unparen(arg));
        };
        const bool two = Positional(site->Arguments(), 2).IsNull();
        if (two && ((mask(first) && mask(second)) || (itself(first) && comparison(second)) ||
                    (comparison(first) && itself(second)))) {
          continue;
        }
        return false;
      }
    }
    if (NameCount(Text(value), name) > 0 || !IsDeviceBoolTensorDepth(value, scope, depth)) return false;
  }
  return assignments > 1;
}

bool Model::IsPythonNumber(ts::Node expr, int scope, int depth) const {
  if (depth > 4) return false;
  expr = Unparen(expr);
  switch (KindOf(expr)) {
    case K::kInteger:
    case K::kFloat:
    case K::kTrue:
    case K::kFalse: return true;
    case K::kUnary: return IsPythonNumber(Field(expr, F::kArgument), scope, depth + 1);
    case K::kBinary:
      return IsPythonNumber(Field(expr, F::kLeft), scope, depth + 1) &&
             IsPythonNumber(Field(expr, F::kRight), scope, depth + 1);
    case K::kCall: {
      // `float("-inf")`, `int(n)`: the builtins (not shadowed) return a Python number.
      const ts::Node callee = Unparen(Field(expr, F::kFunction));
      const std::string_view name = KindOf(callee) == K::kIdentifier ? Text(callee) : std::string_view();
      return (name == "float" || name == "int") && !Shadowed(name) && BindingScope(name, scope) < 0;
    }
    case K::kAttribute: {
      constexpr std::array<std::string_view, 5> kConstants = {"inf", "nan", "pi", "e", "tau"};
      const std::string canonical = CanonicalName(expr);
      const size_t dot = canonical.rfind('.');
      if (dot != std::string::npos && OneOf(std::string_view(canonical).substr(dot + 1), kConstants)) {
        const std::string_view module = std::string_view(canonical).substr(0, dot);
        if (module == "math" || module == "numpy" || module == "torch") return true;
      }
      // `torch.finfo(scores.dtype).min`: a Python float (an int for iinfo).
      const ts::Node object = Unparen(Field(expr, F::kObject));
      if (KindOf(object) == K::kCall) {
        const std::string maker = CanonicalName(Unparen(Field(object, F::kFunction)));
        return maker == "torch.finfo" || maker == "torch.iinfo" || maker == "numpy.finfo" || maker == "numpy.iinfo";
      }
      break;
    }
    case K::kIdentifier: break;
    default: return false;
  }
  // A name or an attribute: what the model resolves, else every assignment of it binds a number (for
  // `self.eot`, in any method), it counts a `range` or an `enumerate`, or it is a parameter annotated as
  // a number.
  const Value value = Resolve(expr, scope);
  if (value.kind == ValueKind::kInt || value.kind == ValueKind::kFloat || value.kind == ValueKind::kBool) return true;
  std::span<const Binding> bindings;
  const Binding* single = nullptr;
  if (KindOf(expr) == K::kIdentifier) {
    single = SingleBinding(Text(expr), scope);
    if (single == nullptr) return false;
    bindings = std::span<const Binding>(single, 1);
  } else {
    const ts::Node object = Unparen(Field(expr, F::kObject));
    if (KindOf(object) != K::kIdentifier || Text(object) != "self") return false;
    bindings = BindingsOf(Text(expr));
  }
  if (bindings.empty()) return false;
  return std::all_of(bindings.begin(), bindings.end(), [&](const Binding& binding) {
    if (binding.kind == BindingKind::kLoopTarget) return CountsIterations(binding);
    if (binding.kind == BindingKind::kParameter) {
      const ts::Node type = Field(binding.target.Parent(), F::kType);
      return !type.IsNull() && NumberAnnotation(Text(type));
    }
    return binding.kind == BindingKind::kAssign && binding.position == -1 && !binding.value.IsNull() &&
           IsPythonNumber(binding.value, binding.scope, depth + 1);
  });
}

bool Model::CountsIterations(const Binding& binding) const {
  if (binding.kind != BindingKind::kLoopTarget) return false;
  const ts::Node iterable = Unparen(binding.value);
  const ts::Node callee = KindOf(iterable) == K::kCall ? Unparen(Field(iterable, F::kFunction)) : ts::Node();
  const std::string_view name = KindOf(callee) == K::kIdentifier ? Text(callee) : std::string_view();
  return !name.empty() && !Shadowed(name) &&
         ((name == "range" && binding.position == -1) || (name == "enumerate" && binding.position == 0));
}

std::optional<SyncOp> Model::ImplicitSyncAt(const Site& site) const {
  switch (site.kind) {
    case SiteKind::kCondition:
      if (IsTensorCondition(site.node, site.scope)) {
        if (KindOf(site.node.Parent()) == K::kIfClause) {
          return SyncOp{SyncKind::kScalar,
                        "A comprehension's `if` on a tensor synchronizes with the GPU once per element",
                        "推导式中对张量的 `if` 判断每个元素都会与 GPU 同步一次"};
        }
        return SyncOp{SyncKind::kScalar, "Branching on a tensor synchronizes with the GPU",
                      "根据张量的值分支会与 GPU 同步"};
      }
      return std::nullopt;
    case SiteKind::kAssert:
      if (IsTensorCondition(site.node.NamedChild(0), site.scope)) {
        return SyncOp{SyncKind::kScalar, "`assert` on a tensor synchronizes with the GPU",
                      "对张量做 `assert` 会与 GPU 同步"};
      }
      return std::nullopt;
    case SiteKind::kSubscript: {
      ts::Node value = Field(site.node, F::kValue);
      ts::Node index = Field(site.node, F::kSubscript);
      if (!IsDeviceTensor(value, site.scope) || !IsDeviceBoolTensor(index, site.scope)) return std::nullopt;
      ts::Node parent = site.node.Parent();
      const K pk = KindOf(parent);
      const bool write = (pk == K::kAssignment || pk == K::kAugmented) && FirstChild(parent) == site.node;
      if (write) {
        // `x[mask] = 0`: PyTorch 1.10 and later turn a number written through the only (boolean) index into
        // `masked_fill_`, which reads nothing back. `x[mask] += 1` reads `x[mask]` first; a tensor value
        // (`x[mask] = y[mask]`, a 0-dim device tensor) still goes through the mask's nonzeros.
        if (pk == K::kAssignment && MaskIsTheOnlyIndex(site.node, index) &&
            IsPythonNumber(Field(parent, F::kRight), site.scope)) {
          SyncOp op{SyncKind::kScalar,
                    "Assigning a number through a boolean mask synchronizes with the GPU before PyTorch 1.10 "
                    "(later versions run it as `masked_fill_`)",
                    "PyTorch 1.10 之前，通过布尔掩码赋一个数值会与 GPU 同步（之后的版本以 `masked_fill_` 执行）"};
          op.mask_fill = true;
          return op;
        }
        return SyncOp{SyncKind::kScalar, "Assigning through a boolean mask synchronizes with the GPU",
                      "通过布尔掩码赋值会与 GPU 同步"};
      }
      return SyncOp{SyncKind::kScalar, "Indexing with a boolean mask synchronizes with the GPU",
                    "用布尔掩码索引会与 GPU 同步"};
    }
    case SiteKind::kInterpolation: return std::nullopt;
    case SiteKind::kCall: break;
  }
  const std::string_view name = site.name;
  const ts::Node args = site.Arguments();
  if (args.IsNull()) return std::nullopt;
  const ts::Node receiver = site.Receiver();
  const std::string canonical = receiver.IsNull() ? std::string() : CanonicalName(site.callee);
  const bool function_form = canonical == fmt::format("torch.{}", name);
  // The tensor the op reads: the receiver of a method, the first argument of `torch.op(x)`.
  auto input = [&]() -> ts::Node { return function_form ? Positional(args, 0) : receiver; };
  if (name == "nonzero" || name == "masked_select" || name == "unique") {
    if (receiver.IsNull()) return std::nullopt;
    ts::Node tensor = input();
    if (tensor.IsNull() || !IsDeviceTensor(tensor, site.scope)) return std::nullopt;
    return SyncOp{SyncKind::kScalar,
                  fmt::format("`{}` synchronizes with the GPU: its output size depends on the data", name),
                  fmt::format("`{}` 会与 GPU 同步：它的输出大小取决于数据", name)};
  }
  if (name == "where") {
    // Only the one-argument form (`torch.where(cond)`, the same as `nonzero(as_tuple=True)`) syncs.
    if (!function_form || PositionalCount(args) != 1 || args.NamedChildCount() != 1) return std::nullopt;
    if (!IsDeviceTensor(Positional(args, 0), site.scope)) return std::nullopt;
    return SyncOp{SyncKind::kScalar,
                  "`torch.where(condition)` synchronizes with the GPU: its output size depends on the data",
                  "`torch.where(condition)` 会与 GPU 同步：它的输出大小取决于数据"};
  }
  if (name == "repeat_interleave") {
    if (receiver.IsNull() || FindArgument(site, "output_size", -1)) return std::nullopt;
    if (HasStarArgs(site) || KwargsLookupIn(site, "output_size").presence != KeyPresence::kAbsent) return std::nullopt;
    // The repeats: `x.repeat_interleave(repeats)`, `torch.repeat_interleave(x, repeats)`, or the
    // one-argument `torch.repeat_interleave(repeats)`. Integer repeats need no read of the device.
    ts::Node repeats;
    if (const auto keyword = FindArgument(site, "repeats", -1)) {
      repeats = keyword->value;
    } else if (function_form) {
      repeats = PositionalCount(args) == 1 ? Positional(args, 0) : Positional(args, 1);
    } else {
      repeats = Positional(args, 0);
    }
    if (repeats.IsNull() || !IsDeviceTensor(repeats, site.scope)) return std::nullopt;
    if (!function_form && !IsDeviceTensor(receiver, site.scope)) return std::nullopt;
    return SyncOp{SyncKind::kScalar,
                  "`repeat_interleave` with tensor repeats and no `output_size=` synchronizes with the GPU",
                  "`repeat_interleave` 的 repeats 是张量且未给出 `output_size=`，会与 GPU 同步"};
  }
  if (name == "max" || name == "min" || name == "sum" || name == "any" || name == "all") {
    // Python's builtins (not shadowed by an import or a function of the file) iterate the tensor and
    // compare or add its elements one by one, each read on the host. `sum(x for x in xs)` passes a
    // generator, not an argument list.
    if (!receiver.IsNull() || KindOf(site.callee) != K::kIdentifier) return std::nullopt;
    if (Shadowed(Text(site.callee))) return std::nullopt;
    // `any(not torch.isfinite(p.grad).all() for p in params)`: `any`/`all` take the truth of each element,
    // and an element that is a tensor test is read on the host, one sync per element.
    ts::Node generator = KindOf(args) == K::kComprehension ? args : Unparen(Positional(args, 0));
    if ((name == "any" || name == "all") && KindOf(generator) == K::kComprehension && generator.NamedChildCount() > 0 &&
        IsTensorCondition(generator.NamedChild(0), site.scope)) {
      return SyncOp{SyncKind::kScalar,
                    fmt::format("Python's `{}()` over tensor tests reads each one on the host, synchronizing with "
                                "the GPU",
                                name),
                    fmt::format("Python 的 `{}()` 在主机上逐个读取张量判断的结果，会与 GPU 同步", name)};
    }
    if (KindOf(args) != K::kArgumentList) return std::nullopt;
    for (uint32_t i = 0;; ++i) {
      ts::Node arg = Positional(args, i);
      if (arg.IsNull()) break;
      if (KindOf(Unparen(arg)) == K::kComprehension) continue;
      if (ReachingDeviceTensor(*this, arg, site.scope)) {
        return SyncOp{SyncKind::kScalar,
                      fmt::format("Python's `{}()` over a tensor reads its elements on the host, synchronizing "
                                  "with the GPU",
                                  name),
                      fmt::format("Python 的 `{}()` 在主机上逐个读取张量元素，会与 GPU 同步", name)};
      }
    }
  }
  return std::nullopt;
}

}  // namespace tl::semantic
