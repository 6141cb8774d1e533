// Bindings and constants: which assignment a name reads in a scope, and the constant value of an
// expression when the file decides it.
#include "linter/semantic/builder.h"

#include <algorithm>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace tl::semantic {

std::optional<int64_t> Value::AsInt() const {
  if (kind == ValueKind::kInt || kind == ValueKind::kBool) return int_value;
  return std::nullopt;
}

std::optional<int64_t> Value::LowerBound() const {
  if (const auto n = AsInt()) return n;
  return kind == ValueKind::kUnknown ? at_least : std::nullopt;
}

std::optional<bool> Value::Truthy() const {
  switch (kind) {
    case ValueKind::kInt:
    case ValueKind::kBool: return int_value != 0;
    case ValueKind::kFloat: return float_value != 0;
    case ValueKind::kNone: return false;
    case ValueKind::kString: return !string_value.empty();
    case ValueKind::kUnknown: break;
  }
  return std::nullopt;
}

std::optional<int64_t> IntArithmetic(std::string_view op, int64_t a, int64_t b) {
  int64_t r = 0;
  if (op == "+") return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  if (op == "-") return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  if (op == "*") return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  if (op == "//" && b > 0 && a >= 0) return a / b;
  if (op == "**" && b >= 0) {
    r = 1;
    for (int64_t i = 0; i < b; ++i) {
      if (__builtin_mul_overflow(r, a, &r)) return std::nullopt;
      if (r == 0 || r == 1) break;  // 0 ** n and 1 ** n stay put; so does the loop's bound
    }
    return r;
  }
  return std::nullopt;
}

Value BoundedArithmetic(std::string_view op, const Value& a, const Value& b) {
  Value out;
  const auto x = a.LowerBound();
  const auto y = b.LowerBound();
  if (!x || !y || *x < 0 || *y < 0 || (op != "+" && op != "*")) return out;
  out.at_least = IntArithmetic(op, *x, *y);
  return out;
}

namespace {

// The entries of `items` whose names share `name`'s head (NameHead), `heads` being the heads of those
// names in the same order: found with integer comparisons, for a search by name inside them.
template <typename T>
std::span<const T> HeadRun(const std::vector<uint64_t>& heads, const std::vector<T>& items, std::string_view name) {
  const auto [lo, hi] = std::equal_range(heads.begin(), heads.end(), NameHead(name));
  return {items.data() + (lo - heads.begin()), static_cast<size_t>(hi - lo)};
}

}  // namespace

std::span<const Model::Binding> Model::BindingsOf(std::string_view name) const {
  const std::span<const Binding> run = HeadRun(binding_heads_, bindings_, name);
  auto [first, last] = std::equal_range(run.begin(), run.end(), name, NameLess{});
  return {first, last};
}

int Model::ClassMethod(int cls, std::string_view name) const {
  int method = -1;
  for (const auto& [function, scope] : FunctionsNamed(name)) {
    if (scopes_[static_cast<size_t>(scope)].parent == cls) method = scope;
  }
  return method;
}

std::span<const Model::ClassBase> Model::BasesOf(int cls) const {
  std::call_once(class_bases_once_, [&] {
    class_bases_.resize(scopes_.size());
    for (size_t s = 0; s < scopes_.size(); ++s) {
      if (scopes_[s].kind != ScopeKind::kClass) continue;
      for (const ts::Node base : NamedChildren(Field(scopes_[s].node, F::kSuperclasses))) {
        if (KindOf(base) == K::kKeywordArgument) continue;  // metaclass=...
        class_bases_[s].push_back({base, CanonicalName(base)});
      }
    }
  });
  if (cls < 0 || static_cast<size_t>(cls) >= class_bases_.size()) return {};
  return class_bases_[static_cast<size_t>(cls)];
}

std::span<const std::pair<std::string_view, int>> Model::FunctionsNamed(std::string_view name) const {
  const uint32_t bit = NameBit(name);
  if ((function_name_bits_[bit / 64] & (uint64_t{1} << (bit % 64))) == 0) return {};
  const auto run = HeadRun(function_heads_, functions_, name);
  auto [first, last] = std::equal_range(run.begin(), run.end(), name, NameLess{});
  return {first, last};
}

std::span<const std::pair<std::string_view, int>> Model::ClassesNamed(std::string_view name) const {
  auto [first, last] = std::equal_range(classes_.begin(), classes_.end(), name, NameLess{});
  return {first, last};
}

std::span<const uint32_t> Model::BindingsIn(std::string_view name, int first, int last) const {
  struct ByNameScope {
    const std::vector<Binding>& bindings;
    // One comparison of the names each (`!=` then `<` would compare them twice).
    bool operator()(uint32_t a, std::pair<std::string_view, int> b) const {
      const Binding& x = bindings[a];
      const int names = x.name.compare(b.first);
      return names != 0 ? names < 0 : x.scope < b.second;
    }
    bool operator()(std::pair<std::string_view, int> a, uint32_t b) const {
      const Binding& y = bindings[b];
      const int names = a.first.compare(y.name);
      return names != 0 ? names < 0 : a.second < y.scope;
    }
  };
  const ByNameScope less{bindings_};
  // A name's bindings sit in the run of its head (bindings_by_scope_ reorders only inside a name's run,
  // so binding_heads_ lines up with it too): found by integers, then searched by (name, scope).
  const std::span<const uint32_t> run = HeadRun(binding_heads_, bindings_by_scope_, name);
  const auto begin = std::lower_bound(run.begin(), run.end(), std::pair(name, first), less);
  const auto end = std::upper_bound(begin, run.end(), std::pair(name, last), less);
  return {begin, end};
}

const Model::Binding* Model::SingleBinding(std::string_view name, int scope) const {
  if (name.find('.') != std::string_view::npos) {
    // `self.workers = 4`: attribute bindings are file-wide; one assignment in the file is trusted.
    const std::span<const Binding> all = BindingsOf(name);
    return all.size() == 1 ? &all.front() : nullptr;
  }
  const std::span<const uint32_t> here = InnermostBindings(name, scope);
  return here.size() == 1 ? &bindings_[here.front()] : nullptr;  // more than one: rebound, no single value
}

std::span<const uint32_t> Model::InnermostBindings(std::string_view name, int scope) const {
  // Python's lookup: the scope, then enclosing functions (classes are skipped), then the module.
  for (int s = scope; s >= 0; s = scopes_[static_cast<size_t>(s)].parent) {
    if (s != scope && scopes_[static_cast<size_t>(s)].kind == ScopeKind::kClass) continue;
    const std::span<const uint32_t> here = BindingsIn(name, s, s);
    if (!here.empty()) return here;
  }
  return {};
}

const Model::Binding* Model::InPlaceBase(std::string_view name, int scope) const {
  if (name.find('.') != std::string_view::npos) return nullptr;
  const Binding* base = nullptr;
  for (uint32_t index : InnermostBindings(name, scope)) {
    const Binding& binding = bindings_[index];
    if (binding.kind == BindingKind::kAugmented) continue;
    if (binding.kind != BindingKind::kAssign || binding.position != -1 || base != nullptr) return nullptr;
    base = &binding;
  }
  return base;
}

const Model::Binding* Model::DominatingAssignment(std::span<const Binding> bindings, ts::Node use, int scope) const {
  const Binding* best = nullptr;
  for (const Binding& b : bindings) {
    if (b.scope != scope || b.kind != BindingKind::kAssign || b.statement_end == 0) continue;
    // The statement ends before the use, inside the block that holds both.
    if (b.statement_end > use.StartByte() || use.EndByte() > b.block_end) continue;
    if (best == nullptr || b.target.StartByte() > best->target.StartByte()) best = &b;
  }
  return best;
}

bool Model::IsCpuCount(ts::Node expr, int scope) const {
  for (int depth = 0; depth < 8 && !expr.IsNull(); ++depth) {
    expr = Unparen(expr);
    if (KindOf(expr) == K::kIdentifier) {
      const Binding* binding = SingleBinding(Text(expr), scope);
      if (binding == nullptr || binding->kind != BindingKind::kAssign || binding->position != -1) return false;
      expr = binding->value;
      scope = binding->scope;
      continue;
    }
    if (KindOf(expr) != K::kCall) return false;
    const ts::Node callee = Unparen(Field(expr, F::kFunction));
    const ts::Node args = Field(expr, F::kArguments);
    const std::string canonical = CanonicalName(callee);
    if (canonical == "os.cpu_count" || canonical == "multiprocessing.cpu_count" ||
        canonical == "torch.multiprocessing.cpu_count") {
      return true;
    }
    // `int(os.cpu_count())`, `len(os.sched_getaffinity(0))`: the builtins, when the file does not rebind them.
    const std::string_view name = KindOf(callee) == K::kIdentifier ? Text(callee) : std::string_view();
    if ((name != "int" && name != "len") || args.IsNull() || args.NamedChildCount() != 1 || !BindingsOf(name).empty() ||
        !FunctionsNamed(name).empty()) {
      return false;
    }
    const ts::Node inner = Unparen(args.NamedChild(0));
    if (name == "len") {
      return KindOf(inner) == K::kCall && CanonicalName(Unparen(Field(inner, F::kFunction))) == "os.sched_getaffinity";
    }
    expr = inner;
  }
  return false;
}

Value Model::Resolve(ts::Node expr, int scope) const { return ResolveDepth(expr, scope, 0); }

namespace {

// The value every one of `values` is (other files' callers or configurations agreeing); unknown when they
// differ, one is unknown, or there are none, then at least the least of their lower bounds when each has one.
Value SameValue(const std::vector<Value>& values) {
  const bool same = std::all_of(values.begin(), values.end(), [&](const Value& v) {
    return v.known() && v.kind == values.front().kind && v.int_value == values.front().int_value &&
           v.float_value == values.front().float_value && v.string_value == values.front().string_value;
  });
  if (same && !values.empty()) return values.front();
  Value out;
  for (const Value& v : values) {
    const auto bound = v.LowerBound();
    if (!bound) return Value{};
    out.at_least = out.at_least ? std::min(*out.at_least, *bound) : *bound;
  }
  return out;
}

}  // namespace

Value Model::ResolveDepth(ts::Node expr, int scope, int depth) const {
  Value out;
  if (depth > kMaxDepth) return out;
  expr = Unparen(expr);
  switch (KindOf(expr)) {
    case K::kInteger:
      if (auto v = ParseIntLiteral(Text(expr))) {
        out.kind = ValueKind::kInt;
        out.int_value = *v;
        out.origin = out.source = expr;
      }
      return out;
    case K::kFloat: {
      std::string text(Text(expr));
      text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
      if (text.find_first_of("jJ") != std::string::npos) return out;  // complex
      char* end = nullptr;
      out.float_value = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size()) return Value{};
      out.kind = ValueKind::kFloat;
      out.origin = out.source = expr;
      return out;
    }
    case K::kTrue:
    case K::kFalse:
      out.kind = ValueKind::kBool;
      out.int_value = KindOf(expr) == K::kTrue ? 1 : 0;
      out.origin = out.source = expr;
      return out;
    case K::kNone:
      out.kind = ValueKind::kNone;
      out.origin = out.source = expr;
      return out;
    case K::kString:
      if (auto s = StringContent(expr, source_)) {
        out.kind = ValueKind::kString;
        out.string_value = *s;
        out.origin = out.source = expr;
      }
      return out;
    case K::kUnary: {
      const std::string_view op = Text(Field(expr, F::kOperator));
      Value inner = ResolveDepth(Field(expr, F::kArgument), scope, depth + 1);
      if (op == "-" && inner.kind == ValueKind::kInt) {
        inner.int_value = -inner.int_value;
        inner.origin = ts::Node();
        return inner;
      }
      if (op == "-" && inner.kind == ValueKind::kFloat) {
        inner.float_value = -inner.float_value;
        inner.origin = ts::Node();
        return inner;
      }
      if (op == "+" && (inner.kind == ValueKind::kInt || inner.kind == ValueKind::kFloat)) return inner;
      return out;
    }
    case K::kBinary: {
      const Value a = ResolveDepth(Field(expr, F::kLeft), scope, depth + 1);
      const Value b = ResolveDepth(Field(expr, F::kRight), scope, depth + 1);
      if (a.kind != ValueKind::kInt || b.kind != ValueKind::kInt) {
        return BoundedArithmetic(Text(Field(expr, F::kOperator)), a, b);
      }
      const auto r = IntArithmetic(Text(Field(expr, F::kOperator)), a.int_value, b.int_value);
      if (!r) return out;
      out.kind = ValueKind::kInt;
      out.int_value = *r;
      return out;
    }
    case K::kConditional: {
      // Both branches agree, or it is unknown.
      if (expr.NamedChildCount() != 3) return out;
      const Value a = ResolveDepth(expr.NamedChild(0), scope, depth + 1);
      const Value b = ResolveDepth(expr.NamedChild(2), scope, depth + 1);
      if (a.known() && a.kind == b.kind && a.int_value == b.int_value && a.float_value == b.float_value &&
          a.string_value == b.string_value) {
        Value v = a;
        v.origin = ts::Node();
        return v;
      }
      return out;
    }
    case K::kCall: {
      // `int(opt.workers)`: the builtin on an int or a bool (argparse options typed as strings stay
      // unknown), when the file does not rebind `int`.
      const ts::Node callee = Unparen(FirstChild(expr));
      const ts::Node args = Field(expr, F::kArguments);
      // On a CUDA run the script sees at least one device.
      if (UsesCuda() && CanonicalName(callee) == "torch.cuda.device_count") {
        out.at_least = 1;
        return out;
      }
      if (KindOf(callee) != K::kIdentifier || Text(callee) != "int" || KindOf(args) != K::kArgumentList ||
          args.NamedChildCount() != 1 || !BindingsOf("int").empty() || !FunctionsNamed("int").empty() ||
          FindImport("int") != nullptr) {
        return out;
      }
      Value inner = ResolveDepth(args.NamedChild(0), scope, depth + 1);
      if (inner.kind == ValueKind::kBool) inner.kind = ValueKind::kInt;
      if (inner.kind == ValueKind::kUnknown) out.at_least = inner.at_least;
      return inner.kind == ValueKind::kInt ? inner : out;
    }
    case K::kComparison: {
      // `args.optimizer == "lars"`: one `==` or `!=` between two known strings, ints or bools.
      if (expr.NamedChildCount() != 2 || expr.ChildCount() != 3) return out;
      const std::string_view op = Text(expr.Child(1));
      if (op != "==" && op != "!=") return out;
      // The literal side first (usually one is): the other is followed only when it resolves.
      const bool swap = KindOf(Unparen(expr.NamedChild(0))) != K::kString &&
                        KindOf(Unparen(expr.NamedChild(1))) == K::kString;
      const Value a = ResolveDepth(expr.NamedChild(swap ? 1 : 0), scope, depth + 1);
      if (!a.known()) return out;
      const Value b = ResolveDepth(expr.NamedChild(swap ? 0 : 1), scope, depth + 1);
      bool equal = false;
      if (a.kind == ValueKind::kString && b.kind == ValueKind::kString) {
        // Raw contents: a string with an escape is compared only with itself.
        if (a.string_value.find('\\') != std::string_view::npos ||
            b.string_value.find('\\') != std::string_view::npos) {
          return out;
        }
        equal = a.string_value == b.string_value;
      } else if (a.AsInt().has_value() && b.AsInt().has_value()) {
        equal = *a.AsInt() == *b.AsInt();
      } else {
        return out;
      }
      out.kind = ValueKind::kBool;
      out.int_value = equal == (op == "==") ? 1 : 0;
      return out;
    }
    case K::kIdentifier: {
      const Binding* binding = SingleBinding(Text(expr), scope);
      // A parameter that only other files' calls fill: the value when all of them pass the same one.
      if (std::vector<Value> remote;
          binding != nullptr && binding->kind == BindingKind::kParameter && RemoteParameterValues(*binding, remote)) {
        return SameValue(remote);
      }
      if (binding == nullptr || binding->kind != BindingKind::kAssign || binding->position != -1) return out;
      return ResolveDepth(binding->value, binding->scope, depth + 1);
    }
    case K::kAttribute: {
      ts::Node object = Unparen(Field(expr, F::kObject));
      const std::string_view attribute = Text(Field(expr, F::kAttribute));
      // Not the write the read is part of (`opt.workers = opt.workers * opt.num_gpu` reads the value before).
      if (const Binding* binding = SingleBinding(Text(expr), scope);
          binding != nullptr && binding->kind == BindingKind::kAssign && binding->position == -1 &&
          !(binding->value.StartByte() <= expr.StartByte() && expr.EndByte() <= binding->value.EndByte())) {
        return ResolveDepth(binding->value, binding->scope, depth + 1);
      }
      // `args.log_interval` with `args` a parameter that other files fill with their configuration:
      // the value when all of them give the field the same one.
      if (std::vector<Value> remote; RemoteFieldValues(object, attribute, scope, remote)) return SameValue(remote);
      // `args.workers`: an argparse default. Any plain name reads it (the namespace is usually
      // passed around as args/opt/cfg), except self, whose attributes are the object's own.
      if (KindOf(object) == K::kIdentifier && Text(object) != "self") {
        if (const ArgparseDefault* d = FindArgparse(attribute); d != nullptr && !d->conflicting) {
          return d->value;
        }
      }
      return out;
    }
    default: return out;
  }
}

}  // namespace tl::semantic
