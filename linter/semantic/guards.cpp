// Guards: `if step % N == 0:`, `if i % N != 0: continue` and `if i == 0:`, the branches that do not
// run on every iteration.
#include "linter/semantic/builder.h"

#include <algorithm>
#include <array>

namespace tl::semantic {

// Whether a condition is true on few iterations of its loop: `X % N == 0` (also `not X % N`) with N
// a constant above 1 or unknown (see TL101's docs), `i == K` with `i` a loop target and K anything but
// another loop target (`batch_idx == 0`, `step == last_idx`), `i in C` with `i` an iteration counter and C
// a collection (`iteration in testing_iterations`), a name bound once to such a condition
// (`last_batch = batch_idx == last_idx`), `A and B` when either side is rare, `A or B` when both are.
Builder::Rarity Builder::RareCondition(ts::Node condition, int scope, int depth, ts::Node block) const {
  Rarity out;
  if (depth > kMaxDepth) return out;
  ts::Node node = Unparen(condition);
  switch (KindOf(node)) {
    case K::kNot: {
      ts::Node arg = Unparen(Field(node, F::kArgument));
      if (KindOf(arg) == K::kBinary && m_.Text(Field(arg, F::kOperator)) == "%") return Periodic(arg, scope);
      return out;
    }
    case K::kBoolean: {
      const Rarity left = RareCondition(Field(node, F::kLeft), scope, depth + 1, block);
      const Rarity right = RareCondition(Field(node, F::kRight), scope, depth + 1, block);
      if (m_.Text(Field(node, F::kOperator)) == "and") return left.rare ? left : right;
      // `or`: both sides must be rare (`if i % 100 == 0 or loss_is_bad:` can run on any step).
      if (left.rare && right.rare) return left.period.known() ? left : right;
      return out;
    }
    case K::kComparison: {
      if (ts::Node modulo = ModuloCompared(node, "==", scope); !modulo.IsNull()) return Periodic(modulo, scope);
      if (CountsOnce(node, scope) || CounterInCollection(node, scope)) {
        out.rare = true;
        return out;
      }
      // `j <= 4`, `shown < 5`: an order comparison of two operands (the operator read once).
      if (node.NamedChildCount() == 2 && node.ChildCount() == 3) {
        const std::string_view op = m_.Text(node.Child(1));
        if (op == "<" || op == "<=" || op == ">" || op == ">=") {
          out.rare = FirstIterations(node, op, scope) || Budgeted(node, op, scope, block);
        }
      }
      return out;
    }
    case K::kCall: return PeriodicHelper(node, scope);
    case K::kIdentifier: {
      if (EndsLoop(node, scope)) {
        out.rare = true;  // `done` of `if done: break`: true on the last iteration only
        return out;
      }
      const Model::Binding* binding = m_.SingleBinding(m_.Text(node), scope);
      if (binding == nullptr || binding->kind != Model::BindingKind::kAssign || binding->position != -1) return out;
      const K value = KindOf(Unparen(binding->value));
      if (value != K::kComparison && value != K::kBoolean && value != K::kNot) return out;
      return RareCondition(binding->value, binding->scope, depth + 1);
    }
    default: return out;
  }
}

bool Builder::EndsLoop(ts::Node name, int scope) const {
  // A flag the function assigns (to a comparison, `done = (cur_nimg >= total_kimg * 1000)`, or to `True`)
  // and leaves its loop on: `if done: break` (or `return`), the branch's last statement.
  const std::string_view text = m_.Text(name);
  const std::span<const uint32_t> bindings = m_.BindingsIn(text, scope, scope);
  const bool comparison = std::any_of(bindings.begin(), bindings.end(), [&](uint32_t index) {
    return KindOf(Unparen(m_.bindings_[index].value)) == K::kComparison;
  });
  const bool flags = std::all_of(bindings.begin(), bindings.end(), [&](uint32_t index) {
    const Model::Binding& binding = m_.bindings_[index];
    const K value = KindOf(Unparen(binding.value));
    return binding.kind == Model::BindingKind::kAssign && binding.position == -1 &&
           (value == K::kComparison || value == K::kTrue);
  });
  if (bindings.empty() || !comparison || !flags) return false;
  return std::any_of(m_.guards_.begin(), m_.guards_.end(), [&](const Guard& guard) {
    if (guard.scope != scope || guard.block.IsNull() || m_.Text(Unparen(guard.condition)) != text) return false;
    const uint32_t count = guard.block.NamedChildCount();
    const ts::Node last = count > 0 ? guard.block.NamedChild(count - 1) : ts::Node();
    return last.Is("break_statement") || KindOf(last) == K::kReturn;
  });
}

Builder::Rarity Builder::PeriodicHelper(ts::Node call, int scope) const {
  // `divisible_by(self.step, self.save_every)` with `def divisible_by(numer, denom): return (numer % denom)
  // == 0` in the file: the period is the argument the divisor parameter takes.
  Rarity out;
  const Site* site = m_.CallSiteOf(call);
  const std::vector<int>* callees = site != nullptr ? m_.LocalCallees(*site) : nullptr;
  if (callees == nullptr || callees->size() != 1) return out;
  const int function = callees->front();
  const std::vector<ts::Node> returns = m_.ReturnsOf(function);
  if (returns.size() != 1 || returns.front().IsNull()) return out;
  const ts::Node modulo = ModuloCompared(Unparen(returns.front()), "==", function);
  if (modulo.IsNull()) return out;
  const ts::Node divisor = Unparen(Field(modulo, F::kRight));
  if (KindOf(divisor) != K::kIdentifier) return out;
  const Model::Binding* parameter = m_.SingleBinding(m_.Text(divisor), function);
  if (parameter == nullptr || parameter->kind != Model::BindingKind::kParameter || parameter->scope != function) {
    return out;
  }
  const auto argument = m_.FindArgument(*site, parameter->name, m_.ParameterPosition(*parameter));
  return argument ? EveryPeriod(m_.Resolve(argument->value, scope)) : out;
}

Builder::Rarity Builder::Periodic(ts::Node modulo, int scope) const {
  return EveryPeriod(m_.Resolve(Field(modulo, F::kRight), scope));
}

Builder::Rarity Builder::EveryPeriod(Value period) {
  Rarity out;
  out.period = std::move(period);
  const auto n = out.period.AsInt();
  // N == 1 runs every step. N == 0 (or negative) never does: `i % 0` raises, so such a guard is
  // short-circuited before it (`args.eval_step > 0 and step % args.eval_step == 0`, an option off by
  // default). Unknown N is taken as periodic: a modulo guard is written to throttle, and reporting it
  // would be noise.
  out.rare = !n.has_value() || *n != 1;
  return out;
}

// `device.type == "cpu"`, `args.device == "mps"`, `elif device.type == "npu":`, `if not
// torch.cuda.is_available():`: the branch runs only off CUDA.
bool Builder::OffDevice(ts::Node condition) const {
  ts::Node node = Unparen(condition);
  if (KindOf(node) == K::kNot) {
    ts::Node arg = Unparen(Field(node, F::kArgument));
    if (KindOf(arg) != K::kCall) return false;
    return m_.CanonicalName(Field(arg, F::kFunction)) == "torch.cuda.is_available";
  }
  if (KindOf(node) != K::kComparison || node.NamedChildCount() != 2 || node.ChildCount() != 3 ||
      m_.Text(node.Child(1)) != "==") {
    return false;
  }
  static constexpr std::array<std::string_view, 7> kOtherDevices = {"cpu", "mps", "npu", "xla", "xpu", "hpu", "tpu"};
  for (uint32_t i = 0; i < 2; ++i) {
    const auto device = StringContent(Unparen(node.NamedChild(i)), m_.source_);
    const std::string_view other = m_.Text(Unparen(node.NamedChild(1 - i)));
    if (device && OneOf(*device, kOtherDevices) &&
        (other.ends_with(".type") || ContainsIgnoreCase(LastSegment(other), "device"))) {
      return true;
    }
  }
  return false;
}

bool Builder::EndsRun(const Guard& guard) const {
  // A statement of the branch itself (not of a nested block) that exits or raises.
  bool raises = false;
  bool exits = false;
  for (const ts::Node statement : guard.block.NamedChildren()) {
    if (raises || exits) break;
    if (statement.Is("raise_statement")) {
      raises = true;
    } else if (statement.Is("expression_statement") && statement.NamedChildCount() == 1) {
      const ts::Node call = Unparen(statement.NamedChild(0));
      if (KindOf(call) != K::kCall) continue;
      const ts::Node callee = Unparen(Field(call, F::kFunction));
      const std::string canonical = m_.CanonicalName(callee);
      const std::string_view text = m_.Text(callee);
      // The builtins `exit()`/`quit()` only when the file does not define or rebind them.
      exits = canonical == "sys.exit" || canonical == "os._exit" ||
              ((text == "exit" || text == "quit") && m_.BindingsOf(text).empty() && m_.FunctionsNamed(text).empty());
    }
  }
  if (exits) return true;
  if (!raises) return false;
  // A raise that a `try` of the function catches may let the loop go on: only a branch that raises
  // inside some `try` is looked at further.
  const TextRange block = guard.block.Range();
  if (std::none_of(try_statements_.begin(), try_statements_.end(),
                   [&](TextRange statement) { return statement.Contains(block); })) {
    return true;
  }
  for (ts::Node node = guard.block.Parent(); !node.IsNull(); node = node.Parent()) {
    if (node.Is("try_statement")) return false;
    if (node.Is("function_definition") || node.Is("module")) break;
  }
  return true;
}

void Builder::EvaluateGuards() {
  for (Guard& guard : m_.guards_) {
    guard.off_device = OffDevice(guard.condition);
    guard.ends_run = EndsRun(guard);
    guard.never = m_.ParameterNeverTrue(guard.condition, guard.scope);
    const Rarity rarity = RareCondition(guard.condition, guard.scope, 0, guard.block);
    guard.period = rarity.period;  // also when N == 1 makes the guard run every step
    if (rarity.rare) {
      guard.periodic = true;
      continue;
    }
    EvaluateSkipGuard(guard);
  }
}

void Builder::ReviewGuards() {
  bool changed = false;
  for (Guard& guard : m_.guards_) {
    // A parameter that other files' calls may pass, or leave out too.
    if (const bool never = m_.ParameterNeverTrue(guard.condition, guard.scope); never != guard.never) {
      guard.never = never;
      changed = true;
    }
    if (!guard.periodic || guard.period.known()) continue;
    const Rarity rarity = RareCondition(guard.condition, guard.scope, 0, guard.block);
    guard.period = rarity.period;
    changed = changed || !rarity.rare;
    guard.periodic = rarity.rare;
  }
  if (changed) PropagatePerStep();
}

void Builder::EvaluateSkipGuard(Guard& guard) {
  // `if i % N != 0: continue` (or `if i % N: continue`): what follows in the loop body runs once
  // every N iterations, as if it were under `if i % N == 0:` (gradient accumulation loops).
  ts::Node condition = Unparen(guard.condition);
  ts::Node modulo;
  if (KindOf(condition) == K::kBinary && m_.Text(Field(condition, F::kOperator)) == "%") {
    modulo = condition;
  } else if (KindOf(condition) == K::kComparison) {
    modulo = ModuloCompared(condition, "!=", guard.scope);
  }
  if (modulo.IsNull() || guard.block.NamedChildCount() != 1 ||
      guard.block.NamedChild(0).Type() != "continue_statement") {
    return;
  }
  ts::Node statement = guard.condition.Parent();
  ts::Node block = statement.Parent();
  if (!statement.Is("if_statement") || !block.Is("block")) return;
  guard.period = m_.Resolve(Field(modulo, F::kRight), guard.scope);
  const auto n = guard.period.AsInt();
  if (n.has_value() && *n <= 1) {
    // `i % 1 != 0` never skips. With an option of the run as N (`args.update_freq`, default 1), the rest
    // is still what the code runs once every N when the option is set: TL601 reads it as accumulation
    // (Model::AccumulatingBackwards, as PeriodicCondition does for `if i % N == 0:`); nothing else does.
    if (m_.PeriodIsOption(Field(modulo, F::kRight), guard.scope)) guard.rest = {statement.EndByte(), block.EndByte()};
    return;
  }
  guard.rest = {statement.EndByte(), block.EndByte()};
  guard.periodic = true;
  skip_guards_.push_back(static_cast<int>(&guard - m_.guards_.data()));
}

bool Builder::CounterInCollection(ts::Node comparison, int scope) const {
  // `not in` is one token and true on most iterations; only `in` is rare.
  if (comparison.NamedChildCount() != 2 || comparison.ChildCount() != 3 || m_.Text(comparison.Child(1)) != "in") {
    return false;
  }
  const K collection = KindOf(Unparen(comparison.NamedChild(1)));
  if (collection != K::kIdentifier && collection != K::kAttribute && collection != K::kList &&
      collection != K::kTuple && collection != K::kSet) {
    return false;
  }
  return IterationCounter(comparison.NamedChild(0), scope, 0) && !IterationCounter(comparison.NamedChild(1), scope, 0);
}

std::optional<Builder::UpperBound> Builder::BoundedBelow(ts::Node comparison, std::string_view op, int scope,
                                                         const std::function<bool(ts::Node)>& name_holds) const {
  // `j <= 4`, `j < 5`, and `5 > j`, `4 >= j`: the name on the left of `<`/`<=` or the right of `>`/`>=`.
  const uint32_t side = op == "<" || op == "<=" ? 0 : 1;
  // The caller's cheaper test of the name first: most comparisons are not what it looks for.
  const ts::Node name = Unparen(comparison.NamedChild(side));
  if (!name_holds(name)) return std::nullopt;
  const auto bound = m_.Resolve(comparison.NamedChild(1 - side), scope).AsInt();
  if (!bound.has_value()) return std::nullopt;
  return UpperBound{name, *bound + (op == "<=" || op == ">=" ? 1 : 0)};
}

bool Builder::FirstIterations(ts::Node comparison, std::string_view op, int scope) const {
  const auto bounded = BoundedBelow(comparison, op, scope,
                                    [&](ts::Node name) { return IterationCounter(name, scope, 0); });
  return bounded && bounded->limit <= kFirstIterations;
}

bool Builder::Budgeted(ts::Node comparison, std::string_view op, int scope, ts::Node block) const {
  if (block.IsNull()) return false;
  const auto grown = [&](ts::Node name) {
    if (KindOf(name) != K::kIdentifier) return false;
    const auto bindings = m_.BindingsOf(m_.Text(name));
    return std::any_of(bindings.begin(), bindings.end(), [&](const Model::Binding& b) {
      return b.scope == scope && b.kind == Model::BindingKind::kAugmented;
    });
  };
  const auto bounded = BoundedBelow(comparison, op, scope, grown);
  if (!bounded) return false;
  // The name starts at a constant and only ever grows: `mistakes = 0`, then `mistakes += 1`.
  const std::string_view text = m_.Text(bounded->name);
  const auto positive = [&](ts::Node value, int at) {
    const auto n = m_.Resolve(value, at).AsInt();
    return n.has_value() && *n > 0;
  };
  std::optional<int64_t> start;
  for (const Model::Binding& binding : m_.BindingsOf(text)) {
    if (binding.scope != scope) continue;
    if (binding.kind == Model::BindingKind::kAssign && binding.position == -1 && !start) {
      start = m_.Resolve(binding.value, scope).AsInt();
      if (!start) return false;
      continue;
    }
    if (binding.kind != Model::BindingKind::kAugmented || !positive(binding.value, scope) ||
        m_.Text(Field(binding.target.Parent(), F::kOperator)) != "+=") {
      return false;
    }
  }
  // At most `limit - start` runs, each of which grows it by at least one.
  if (!start || bounded->limit - *start > kFirstIterations) return false;
  // The branch itself grows it, on every run: `name += 1` is a statement of its block.
  for (const ts::Node statement : block.NamedChildren()) {
    const ts::Node inner = KindOf(statement) == K::kExpressionStatement ? FirstChild(statement) : ts::Node();
    if (KindOf(inner) == K::kAugmented && m_.Text(Field(inner, F::kLeft)) == text &&
        m_.Text(Field(inner, F::kOperator)) == "+=") {
      return true;
    }
  }
  return false;
}

bool Builder::IterationCounter(ts::Node name, int scope, int depth) const {
  name = Unparen(name);
  if (depth > kMaxDepth || KindOf(name) != K::kIdentifier) return false;
  const Model::Binding* binding = m_.SingleBinding(m_.Text(name), scope);
  if (binding == nullptr) return false;
  if (binding->kind == Model::BindingKind::kParameter) {
    return m_.EveryCallerPasses(*binding, [&](ts::Node arg, int at) { return IterationCounter(arg, at, depth + 1); });
  }
  return m_.CountsIterations(*binding);
}

bool Builder::CountsOnce(ts::Node comparison, int scope) const {
  if (comparison.NamedChildCount() != 2 || comparison.ChildCount() != 3 || m_.Text(comparison.Child(1)) != "==") {
    return false;
  }
  auto counter = [&](ts::Node side) {
    side = Unparen(side);
    if (KindOf(side) != K::kIdentifier) return false;
    const Model::Binding* binding = m_.SingleBinding(m_.Text(side), scope);
    if (binding != nullptr && binding->kind == Model::BindingKind::kLoopTarget) return true;
    // A step counter the function keeps itself (`iteration = start_iter`, then `iteration += 1` in the
    // loop): plain assignments outside the loops around the comparison (a counter reset in the loop is 0
    // again and again), and at least one increment by a positive constant.
    const std::span<const uint32_t> bindings = m_.BindingsIn(m_.Text(side), scope, scope);
    const TextRange at = comparison.Range();
    bool increments = false;
    for (const uint32_t index : bindings) {
      const Model::Binding& b = m_.bindings_[index];
      if (b.kind == Model::BindingKind::kAugmented) {
        const auto step = m_.Resolve(b.value, scope).AsInt();
        const ts::Node statement = b.target.Parent();
        if (!step || *step <= 0 || m_.Text(Field(statement, F::kOperator)) != "+=") return false;
        increments = true;
      } else if (b.kind != Model::BindingKind::kAssign || b.position != -1) {
        return false;
      } else if (std::any_of(m_.loops_.begin(), m_.loops_.end(), [&](const Loop& loop) {
                   return loop.scope == scope && loop.node.Range().Contains(at) &&
                          loop.node.Range().Contains(b.target.Range());
                 })) {
        return false;
      }
    }
    return increments;
  };
  for (uint32_t i = 0; i < 2; ++i) {
    ts::Node other = Unparen(comparison.NamedChild(1 - i));
    if (!counter(comparison.NamedChild(i)) || counter(other)) continue;
    // The other side is a constant or a value the loop does not step through (`last_idx`,
    // `len(loader) - 1`); a string or a call's result per iteration would not be.
    const K k = KindOf(other);
    if (m_.Resolve(other, scope).AsInt() || k == K::kIdentifier || k == K::kAttribute || k == K::kBinary) return true;
  }
  return false;
}

ts::Node Builder::ModuloCompared(ts::Node comparison, std::string_view op, int scope) const {
  ts::Node modulo;
  if (comparison.NamedChildCount() != 2 || comparison.ChildCount() != 3 || m_.Text(comparison.Child(1)) != op) {
    return modulo;
  }
  for (uint32_t i = 0; i < 2; ++i) {
    ts::Node side = Unparen(comparison.NamedChild(i));
    if (KindOf(side) == K::kBinary && m_.Text(Field(side, F::kOperator)) == "%" &&
        m_.Resolve(comparison.NamedChild(1 - i), scope).AsInt().has_value()) {
      modulo = side;
    }
  }
  return modulo;
}

bool Builder::RareBetween(ts::Node inner, ts::Node outer, int scope) const {
  const TextRange at = inner.Range();
  const TextRange within = outer.Range();
  for (const Guard& guard : m_.guards_) {
    if (guard.scope == scope && guard.rare() && within.Contains(guard.block.Range()) &&
        guard.block.Range().Contains(at)) {
      return true;
    }
  }
  return UnderSkipGuard(at.begin, scope, within);
}

bool Builder::UnderSkipGuard(uint32_t offset, int scope, TextRange within) const {
  for (int index : skip_guards_) {
    const Guard& guard = m_.guards_[static_cast<size_t>(index)];
    if (guard.scope == scope && guard.rest.Contains(offset) && within.Contains(guard.rest)) return true;
  }
  return false;
}

}  // namespace tl::semantic
