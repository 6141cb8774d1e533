// Step loops: which loops run once per batch, which are epoch loops around them, and which sites run
// on every step (directly or in a function a step loop calls).
#include "linter/semantic/builder.h"

#include <algorithm>

namespace tl::semantic {

void Builder::ClassifyLoops() {
  auto& loops = m_.loops_;
  const size_t n = loops.size();
  if (n == 0) return;
  auto& scopes = m_.scopes_;

  // 1. Direct evidence from each loop's header and from the calls whose innermost loop it is; the
  //    same evidence outside any loop makes a function a "training helper".
  std::vector<uint32_t> function_evidence(scopes.size(), 0);
  std::vector<std::vector<int>> calls_from_loop(n);  // local callees, by innermost loop
  std::vector<std::vector<int>> calls_outside_loops(scopes.size());
  std::vector<std::vector<int>> calls_anywhere(scopes.size());
  for (size_t i = 0; i < n; ++i) {
    Loop& loop = loops[i];
    if (loop.kind == LoopKind::kFor && m_.IsDataLoaderLike(loop.iterable, loop.scope)) {
      loop.evidence |= kIteratesLoader;
    }
  }
  for (const Site& site : m_.sites_) {
    if (site.kind != SiteKind::kCall) continue;
    // Cheap name tests first: only backward/step/next calls and, inside loops, calls of a model
    // need the (costlier) binding lookups.
    uint32_t bits = 0;
    if (site.name == "backward" && KindOf(site.callee) == K::kAttribute) bits |= kBackward;
    if (site.name == "step" && KindOf(site.callee) == K::kAttribute) {
      ts::Node receiver = Unparen(site.Receiver());
      const std::string_view text = m_.Text(receiver);
      if (m_.IsOptimizerLike(receiver, site.scope) || ContainsIgnoreCase(text, "scaler")) {
        bits |= kOptimizerStep;
      }
    }
    if (site.name == "next" && KindOf(site.callee) == K::kIdentifier) {
      const ts::Node args = site.Arguments();
      if (!args.IsNull() && args.NamedChildCount() > 0 && m_.IsDataLoaderLike(args.NamedChild(0), site.scope)) {
        bits |= kNextBatch;
      }
    }
    if (site.loop >= 0) {
      if (m_.IsModelLike(site.callee, site.scope, 0)) bits |= kModelCall;
      loops[static_cast<size_t>(site.loop)].evidence |= bits;
    } else {
      function_evidence[static_cast<size_t>(site.scope)] |= bits & ~kNextBatch;
    }
  }
  for (const auto& [index, callees] : local_calls_) {
    const Site& site = m_.sites_[index];
    for (int callee : callees) {
      calls_anywhere[static_cast<size_t>(site.scope)].push_back(callee);
      if (site.loop >= 0) {
        calls_from_loop[static_cast<size_t>(site.loop)].push_back(callee);
      } else {
        calls_outside_loops[static_cast<size_t>(site.scope)].push_back(callee);
      }
    }
  }
  // A function "trains" when it (or what it calls outside its own loops) does a training call.
  std::vector<char> trains(scopes.size(), 0);
  for (size_t s = 0; s < scopes.size(); ++s) trains[s] = function_evidence[s] != 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t s = 0; s < scopes.size(); ++s) {
      if (trains[s]) continue;
      for (int callee : calls_outside_loops[s]) {
        if (trains[static_cast<size_t>(callee)]) {
          trains[s] = 1;
          changed = true;
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (int callee : calls_from_loop[i]) {
      if (trains[static_cast<size_t>(callee)]) loops[i].evidence |= kTrainingHelper;
    }
  }

  // 2. Loops that iterate a DataLoader (or take batches with next()) are step loops unless an
  //    enclosing loop already is: the batch loop wins over anything nested in it (gradient
  //    accumulation over micro-batches is per-element).
  auto inside_step = [&](size_t i) {
    for (int p = loops[i].parent; p >= 0; p = loops[static_cast<size_t>(p)].parent) {
      if (loops[static_cast<size_t>(p)].role == LoopRole::kStep) return true;
    }
    return false;
  };
  constexpr uint32_t kStrong = kIteratesLoader | kNextBatch;
  for (size_t i = 0; i < n; ++i) {  // preorder: parents come before children
    if ((loops[i].evidence & kStrong) != 0 && !inside_step(i)) loops[i].role = LoopRole::kStep;
  }
  // 3. Loops with only training calls are step loops when no loop nested in them has evidence
  //    (else they are epoch loops around it) and they are not already inside a step loop.
  std::vector<char> evidence_below(n, 0);
  for (size_t i = n; i-- > 0;) {
    if ((loops[i].evidence != 0 || evidence_below[i]) && loops[i].parent >= 0) {
      evidence_below[static_cast<size_t>(loops[i].parent)] = 1;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role == LoopRole::kStep || loops[i].evidence == 0 || evidence_below[i]) continue;
    if (!inside_step(i)) loops[i].role = LoopRole::kStep;
  }
  // Loops in functions that a batch loop calls run inside that batch: per-element, not steps.
  PropagatePerStep();
  for (size_t i = 0; i < n; ++i) {
    const Scope& scope = scopes[static_cast<size_t>(loops[i].scope)];
    if (loops[i].role == LoopRole::kStep && (loops[i].evidence & kStrong) == 0 && scope.runs_per_step) {
      loops[i].role = LoopRole::kPerElement;
    }
  }

  // 4. Epoch loops: around a step loop in the same function, or calling a function that contains one.
  std::vector<char> contains_step(scopes.size(), 0);
  for (const Loop& loop : loops) {
    if (loop.role == LoopRole::kStep) contains_step[static_cast<size_t>(loop.scope)] = 1;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t s = 0; s < scopes.size(); ++s) {
      if (contains_step[s]) continue;
      for (int callee : calls_anywhere[s]) {
        if (contains_step[static_cast<size_t>(callee)]) {
          contains_step[s] = 1;
          changed = true;
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role != LoopRole::kStep) continue;
    for (int p = loops[i].parent; p >= 0; p = loops[static_cast<size_t>(p)].parent) {
      if (loops[static_cast<size_t>(p)].role == LoopRole::kPerElement)
        loops[static_cast<size_t>(p)].role = LoopRole::kEpoch;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role != LoopRole::kPerElement || inside_step(i)) continue;
    for (int callee : calls_from_loop[i]) {
      if (contains_step[static_cast<size_t>(callee)]) loops[i].role = LoopRole::kEpoch;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role != LoopRole::kStep) continue;
    for (int p = loops[i].parent; p >= 0; p = loops[static_cast<size_t>(p)].parent) {
      if (loops[static_cast<size_t>(p)].role == LoopRole::kEpoch) {
        loops[i].epoch_loop = p;
        break;
      }
    }
  }
}

int Builder::StepLoopOf(const Site& site) const {
  // Inside a step loop of its own function, with no periodic guard between the site and that loop.
  int step = -1;
  for (int l = site.loop; l >= 0; l = m_.loops_[static_cast<size_t>(l)].parent) {
    if (m_.loops_[static_cast<size_t>(l)].role == LoopRole::kStep) {
      step = l;
      break;
    }
  }
  if (step >= 0) {
    const TextRange loop_range = m_.loops_[static_cast<size_t>(step)].node.Range();
    for (int g = site.guard; g >= 0; g = m_.guards_[static_cast<size_t>(g)].parent) {
      const Guard& guard = m_.guards_[static_cast<size_t>(g)];
      if (guard.periodic && loop_range.Contains(guard.block.Range())) return -1;
    }
    if (UnderSkipGuard(site, loop_range)) return -1;
    return step;
  }
  // Otherwise in a function that runs every step, outside any periodic guard or epoch loop in it.
  const Scope& scope = m_.scopes_[static_cast<size_t>(site.scope)];
  if (!scope.runs_per_step) return -1;
  for (int g = site.guard; g >= 0; g = m_.guards_[static_cast<size_t>(g)].parent) {
    if (m_.guards_[static_cast<size_t>(g)].periodic) return -1;
  }
  for (int l = site.loop; l >= 0; l = m_.loops_[static_cast<size_t>(l)].parent) {
    if (m_.loops_[static_cast<size_t>(l)].role == LoopRole::kEpoch) return -1;
  }
  if (UnderSkipGuard(site, scope.node.Range())) return -1;
  return scope.step_loop;
}

void Builder::PropagatePerStep() {
  // The call sites that reach the file's own functions are few; iterate them to a fixed point.
  for (Scope& scope : m_.scopes_) {
    scope.runs_per_step = false;
    scope.step_loop = -1;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [index, callees] : local_calls_) {
      const int step = StepLoopOf(m_.sites_[index]);
      if (step < 0) continue;
      for (int callee : callees) {
        Scope& scope = m_.scopes_[static_cast<size_t>(callee)];
        if (!scope.runs_per_step) {
          scope.runs_per_step = true;
          scope.step_loop = step;
          changed = true;
        }
      }
    }
  }
  for (Site& site : m_.sites_) site.step_loop = StepLoopOf(site);
}

std::vector<int> Model::StepLoops() const {
  std::vector<int> out;
  for (size_t i = 0; i < loops_.size(); ++i) {
    if (loops_[i].role == LoopRole::kStep) out.push_back(static_cast<int>(i));
  }
  return out;
}

}  // namespace tl::semantic
