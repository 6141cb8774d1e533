// Guards: `if step % N == 0:`, `if i % N != 0: continue` and `if i == 0:`, the branches that do not
// run on every iteration.
#include "linter/semantic/builder.h"

#include <algorithm>

namespace tl::semantic {

void Builder::EvaluateGuards() {
  for (Guard& guard : m_.guards_) {
    // Find `X % N == 0` in the condition, through `not`, `and` and parentheses. `or` is not looked
    // through: `if i % 100 == 0 or loss_is_bad:` can run on any step.
    std::vector<ts::Node> work{guard.condition};
    ts::Node modulo;
    bool once = false;
    while (!work.empty() && modulo.IsNull()) {
      ts::Node node = Unparen(work.back());
      work.pop_back();
      switch (KindOf(node)) {
        case K::kNot: {
          ts::Node arg = Unparen(Field(node, F::kArgument));
          if (KindOf(arg) == K::kBinary && m_.Text(Field(arg, F::kOperator)) == "%") modulo = arg;
          break;
        }
        case K::kBoolean:
          if (m_.Text(Field(node, F::kOperator)) == "and") {
            work.push_back(Field(node, F::kLeft));
            work.push_back(Field(node, F::kRight));
          }
          break;
        case K::kComparison:
          modulo = ModuloCompared(node, "==", guard.scope);
          once = once || (modulo.IsNull() && CountsOnce(node, guard.scope));
          break;
        default: break;
      }
    }
    if (modulo.IsNull() && once) {
      // `if i == 0:` runs on one iteration of the loop: as rare as any periodic guard.
      guard.periodic = true;
      continue;
    }
    if (modulo.IsNull()) {
      EvaluateSkipGuard(guard);
      continue;
    }
    guard.period = m_.Resolve(Field(modulo, F::kRight), guard.scope);
    const auto n = guard.period.AsInt();
    // N == 1 (or 0/negative, which Python would reject at run time) runs every step; unknown N is
    // taken as periodic: a modulo guard is written to throttle, and reporting it would be noise.
    guard.periodic = !n.has_value() || *n > 1;
  }
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
  // Parent lookups walk down from the root in this tree-sitter; they are only paid here, for the
  // rare guard of this shape.
  ts::Node statement = guard.condition.Parent();
  ts::Node block = statement.Parent();
  if (!statement.Is("if_statement") || !block.Is("block")) return;
  guard.period = m_.Resolve(Field(modulo, F::kRight), guard.scope);
  const auto n = guard.period.AsInt();
  if (n.has_value() && *n <= 1) return;  // `i % 1 != 0` never skips
  guard.rest = {statement.EndByte(), block.EndByte()};
  guard.periodic = true;
  skip_guards_.push_back(static_cast<int>(&guard - m_.guards_.data()));
}

bool Builder::CountsOnce(ts::Node comparison, int scope) const {
  if (comparison.NamedChildCount() != 2 || comparison.ChildCount() != 3 || m_.Text(comparison.Child(1)) != "==") {
    return false;
  }
  for (uint32_t i = 0; i < 2; ++i) {
    ts::Node side = Unparen(comparison.NamedChild(i));
    if (KindOf(side) != K::kIdentifier || !m_.Resolve(comparison.NamedChild(1 - i), scope).AsInt()) continue;
    const Model::Binding* binding = m_.SingleBinding(m_.Text(side), scope);
    if (binding != nullptr && binding->kind == Model::BindingKind::kLoopTarget) return true;
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

bool Builder::UnderSkipGuard(const Site& site, TextRange within) const {
  for (int index : skip_guards_) {
    const Guard& guard = m_.guards_[static_cast<size_t>(index)];
    if (guard.scope == site.scope && guard.rest.Contains(site.node.StartByte()) && within.Contains(guard.rest)) {
      return true;
    }
  }
  return false;
}

}  // namespace tl::semantic
