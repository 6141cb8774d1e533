// Step loops: which loops run once per batch, which are epoch loops around them, and which sites run
// on every step (directly or in a function a step loop calls).
#include "linter/semantic/builder.h"

#include <algorithm>

namespace tl::semantic {
namespace {

// A receiver named as a reinforcement-learning environment (`env`, `envs`, `self.train_env`,
// `vec_environment`): its `.step(action)` advances the environment by one step.
bool IsEnvironment(std::string_view receiver) {
  const size_t dot = receiver.rfind('.');
  return ContainsIgnoreCase(dot == std::string_view::npos ? receiver : receiver.substr(dot + 1), "env");
}

// Whether a loop runs its body at most once: the body's last statement leaves the loop (`return`,
// `break`, `raise`) and no `continue` of the loop's own skips it. A throughput probe that returns after
// its first batch (Swin-Transformer's `throughput`) is not a loop over batches.
bool RunsOnce(const Loop& loop) {
  if (loop.body.IsNull()) return false;
  ts::Node last;
  for (const ts::Node child : loop.body.NamedChildren()) {
    if (KindOf(child) != K::kComment) last = child;
  }
  if (last.IsNull() || !(KindOf(last) == K::kReturn || last.Is("break_statement") || last.Is("raise_statement"))) {
    return false;
  }
  std::vector<ts::Node> todo = {loop.body};
  while (!todo.empty()) {
    const ts::Node node = todo.back();
    todo.pop_back();
    if (node.Is("continue_statement")) return false;
    const K kind = KindOf(node);
    // A `continue` in a nested loop is that loop's; functions and classes have loops of their own.
    if (node != loop.body &&
        (kind == K::kFor || kind == K::kWhile || kind == K::kFunction || kind == K::kClass || kind == K::kLambda)) {
      continue;
    }
    for (uint32_t i = 0; i < node.NamedChildCount(); ++i) todo.push_back(node.NamedChild(i));
  }
  return true;
}

// Marks every function that calls (through `calls`: the callees of each function) a marked one, directly
// or through other functions, until nothing changes.
void MarkCallers(std::vector<char>& marked, const std::vector<std::vector<int>>& calls) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t s = 0; s < marked.size(); ++s) {
      if (marked[s]) continue;
      for (int callee : calls[s]) {
        if (marked[static_cast<size_t>(callee)]) {
          marked[s] = 1;
          changed = true;
          break;
        }
      }
    }
  }
}

}  // namespace

void Builder::MarkHostBatches() {
  // `x.type(torch.cuda.FloatTensor)`, or `.type(Tensor)` with `Tensor = torch.cuda.FloatTensor if cuda
  // else torch.FloatTensor`: a cast that moves to the device when CUDA is used.
  auto cuda_type_cast = [this](const Site& call) {
    if (call.name != "type") return false;
    const auto arg = m_.FindArgument(call, "dtype", 0);
    if (!arg) return false;
    ts::Node value = Unparen(arg->value);
    if (KindOf(value) == K::kIdentifier) {
      const Model::Binding* binding = m_.SingleBinding(m_.Text(value), call.scope);
      if (binding == nullptr || binding->kind != Model::BindingKind::kAssign || binding->position != -1) return false;
      value = Unparen(binding->value);
    }
    if (KindOf(value) == K::kConditional && value.NamedChildCount() == 3) {
      return m_.CanonicalName(Unparen(value.NamedChild(0))).starts_with("torch.cuda.") ||
             m_.CanonicalName(Unparen(value.NamedChild(2))).starts_with("torch.cuda.");
    }
    return m_.CanonicalName(value).starts_with("torch.cuda.");
  };
  // Collected first, then set: MovesToDevice asks for placements, which read the flags.
  std::vector<int> marked;
  for (const Site& site : m_.sites_) {
    if (site.loop < 0 || site.kind != SiteKind::kCall) continue;
    if (site.name != "to" && site.name != "cuda" && site.name != "type") continue;
    // `x.to(device)`, also through tensor methods before the move (`x.squeeze().float().to(device)`).
    ts::Node receiver = Unparen(site.Receiver());
    for (int depth = 0; depth < 8 && KindOf(receiver) == K::kCall; ++depth) {
      const ts::Node callee = Unparen(Field(receiver, F::kFunction));
      if (KindOf(callee) != K::kAttribute) break;
      receiver = Unparen(Field(callee, F::kObject));
    }
    if (KindOf(receiver) != K::kIdentifier) continue;
    const Model::Binding* binding = m_.ReachingBinding(receiver, site.scope);
    if (binding == nullptr || binding->kind != Model::BindingKind::kLoopTarget || binding->loop < 0) continue;
    if (m_.MovesToDevice(site) || cuda_type_cast(site)) marked.push_back(binding->loop);
  }
  for (int loop : marked) m_.loops_[static_cast<size_t>(loop)].host_batch = true;
}

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
  std::vector<char> once(n, 0);
  for (size_t i = 0; i < n; ++i) {
    Loop& loop = loops[i];
    once[i] = RunsOnce(loop) ? 1 : 0;
    if (loop.kind == LoopKind::kFor &&
        (m_.IsDataLoaderLike(loop.iterable, loop.scope) || m_.WrapsLoader(loop.iterable, loop.scope))) {
      loop.evidence |= kIteratesLoader;
    }
  }
  std::vector<const Site*> model_calls;
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
      } else if (const ts::Node args = site.Arguments();
                 !args.IsNull() && args.NamedChildCount() > 0 && IsEnvironment(text)) {
        bits |= kEnvironmentStep;  // `envs.step(action.cpu().numpy())`
      }
    }
    if (site.name == "next" && KindOf(site.callee) == K::kIdentifier) {
      const ts::Node args = site.Arguments();
      if (!args.IsNull() && args.NamedChildCount() > 0 && m_.IsDataLoaderLike(args.NamedChild(0), site.scope)) {
        bits |= kNextBatch;
      }
    }
    if (site.loop >= 0) {
      if (m_.IsModelLike(site.callee, site.scope, 0) || m_.IsSubmoduleCall(site)) {
        bits |= kModelCall;
        model_calls.push_back(&site);
      }
      loops[static_cast<size_t>(site.loop)].evidence |= bits;
    } else {
      function_evidence[static_cast<size_t>(site.scope)] |= bits & ~kNextBatch;
    }
  }
  for (const auto& [index, callees] : m_.local_calls_) {
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
  // A function of the file with no loop of its own that returns what a model call gives, on each call
  // (`PyTorchInference.logits`: `return self.model.decoder(tokens, audio_features)`; also `return out[0]`
  // with `out = model(x)`): a loop that calls it calls the model.
  {
    std::vector<char> called_in_loop(scopes.size(), 0);
    std::vector<char> runs_model(scopes.size(), 0);
    for (const auto& [index, callees] : m_.local_calls_) {
      if (m_.sites_[index].loop < 0) continue;
      for (int callee : callees) called_in_loop[static_cast<size_t>(callee)] = 1;
    }
    for (const Loop& loop : loops) called_in_loop[static_cast<size_t>(loop.scope)] = 0;
    for (size_t function = 0; function < scopes.size(); ++function) {
      if (!called_in_loop[function]) continue;
      for (ts::Node value : m_.ReturnsOf(static_cast<int>(function))) {
        value = ModelOutputCall(value, static_cast<int>(function));
        const Site* call = value.IsNull() ? nullptr : m_.CallSiteOf(value);
        if (call != nullptr && m_.RunsOnEachCall(*call) &&
            (m_.IsModelLike(call->callee, call->scope, 0) || m_.IsSubmoduleCall(*call))) {
          runs_model[function] = 1;
          break;
        }
      }
    }
    for (const auto& [index, callees] : m_.local_calls_) {
      const Site& site = m_.sites_[index];
      if (site.loop < 0 || std::none_of(callees.begin(), callees.end(),
                                        [&](int callee) { return runs_model[static_cast<size_t>(callee)] != 0; })) {
        continue;
      }
      loops[static_cast<size_t>(site.loop)].evidence |= kModelCall;
      if (std::find(model_calls.begin(), model_calls.end(), &site) == model_calls.end()) model_calls.push_back(&site);
    }
  }
  // A function "trains" when it (or what it calls outside its own loops) does a backward pass or an
  // optimizer step, and "steps the environment" when it steps a reinforcement-learning environment (an
  // agent's `play_step`): a loop that calls it has that evidence.
  const auto doing = [&](uint32_t bits) {
    std::vector<char> does(scopes.size(), 0);
    for (size_t s = 0; s < scopes.size(); ++s) does[s] = (function_evidence[s] & bits) != 0;
    MarkCallers(does, calls_outside_loops);
    return does;
  };
  const std::vector<char> trains = doing(kBackward | kOptimizerStep);
  const std::vector<char> steps_environment = doing(kEnvironmentStep);
  for (size_t i = 0; i < n; ++i) {
    for (int callee : calls_from_loop[i]) {
      if (trains[static_cast<size_t>(callee)]) loops[i].evidence |= kTrainingHelper;
      if (steps_environment[static_cast<size_t>(callee)]) loops[i].evidence |= kEnvironmentStep;
    }
  }

  // 2. The loop that calls `optimizer.step()` itself is the step loop when no loop nested in it does:
  //    a gradient-accumulation loop over micro-batches inside it (even one that takes the batches from
  //    the loader) runs on every step, it is not a step loop of its own. Then loops that iterate a
  //    DataLoader (or take batches with next()) are step loops unless an enclosing loop already is.
  auto inside_step = [&](size_t i) {
    for (int p = loops[i].parent; p >= 0; p = loops[static_cast<size_t>(p)].parent) {
      if (loops[static_cast<size_t>(p)].role == LoopRole::kStep) return true;
    }
    return false;
  };
  constexpr uint32_t kStrong = kIteratesLoader | kNextBatch;
  std::vector<char> step_below(n, 0);  // some loop nested in it calls optimizer.step() itself
  for (size_t i = n; i-- > 0;) {
    const int parent = loops[i].parent;
    if (parent >= 0 && ((loops[i].evidence & kOptimizerStep) != 0 || step_below[i])) {
      step_below[static_cast<size_t>(parent)] = 1;
    }
  }
  for (size_t i = 0; i < n; ++i) {  // preorder: parents come before children
    if ((loops[i].evidence & kOptimizerStep) != 0 && !step_below[i] && !inside_step(i) && !once[i]) {
      loops[i].role = LoopRole::kStep;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if ((loops[i].evidence & kStrong) != 0 && !inside_step(i) && !step_below[i] && !once[i]) {
      loops[i].role = LoopRole::kStep;
    }
  }
  // 3. Loops with only training calls are step loops when no loop nested in them has evidence
  //    (else they are epoch loops around it) and they are not already inside a step loop.
  std::vector<char> evidence_below(n, 0);
  for (size_t i = n; i-- > 0;) {
    if ((loops[i].evidence != 0 || evidence_below[i]) && loops[i].parent >= 0) {
      evidence_below[static_cast<size_t>(loops[i].parent)] = 1;
    }
  }
  //    A loop whose only evidence is a model call, and that calls a function of the file with a loop over
  //    a loader or of optimizer steps, is an epoch loop around that function's batches (`for epoch in ...:
  //    train(epoch); sample = model.decode(noise)`), not a step loop. (A decoding loop that calls a function
  //    with a loop of its own, of backward passes on the activations with no optimizer, stays one.)
  std::vector<char> batches_within(scopes.size(), 0);  // such a loop in it, or in what it calls
  for (size_t i = 0; i < n; ++i) {
    if ((loops[i].evidence & (kStrong | kOptimizerStep)) != 0) batches_within[static_cast<size_t>(loops[i].scope)] = 1;
  }
  MarkCallers(batches_within, calls_anywhere);
  const auto around_batches = [&](size_t i) {
    return loops[i].evidence == kModelCall &&
           std::any_of(calls_from_loop[i].begin(), calls_from_loop[i].end(),
                       [&](int callee) { return batches_within[static_cast<size_t>(callee)] != 0; });
  };
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role == LoopRole::kStep || loops[i].evidence == 0 || evidence_below[i] || once[i]) continue;
    if (!inside_step(i) && !around_batches(i)) loops[i].role = LoopRole::kStep;
  }
  // 3b. An evaluation inside a step loop, under a guard that does not run on every step (`if step % 250
  //     == 0:`), is a loop of batches of its own, as when the step loop calls a function that holds it
  //     under that guard: a loop that calls the model or takes batches, with no backward or optimizer
  //     step within it, is a step loop whose iterations are evaluation batches (or generated tokens).
  //     The outermost such loop is the step loop; loops nested in it stay inside its batches.
  constexpr uint32_t kTraining = kBackward | kOptimizerStep | kTrainingHelper;
  std::vector<uint32_t> evidence_within(n, 0);
  for (size_t i = n; i-- > 0;) {
    evidence_within[i] |= loops[i].evidence;
    if (loops[i].parent >= 0) evidence_within[static_cast<size_t>(loops[i].parent)] |= evidence_within[i];
  }
  std::vector<char> periodic_evaluation(n, 0);
  for (size_t i = 0; i < n; ++i) {  // preorder: an enclosing loop is decided first
    if (loops[i].role == LoopRole::kStep || once[i] || (evidence_within[i] & kTraining) != 0 ||
        (evidence_within[i] & (kModelCall | kStrong)) == 0) {
      continue;
    }
    int step = loops[i].parent;
    while (step >= 0 && loops[static_cast<size_t>(step)].role != LoopRole::kStep) {
      step = loops[static_cast<size_t>(step)].parent;
    }
    if (step < 0 || periodic_evaluation[static_cast<size_t>(step)]) continue;
    if (RareBetween(loops[i].node, loops[static_cast<size_t>(step)].node, loops[i].scope)) {
      loops[i].role = LoopRole::kStep;
      periodic_evaluation[i] = 1;
    }
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
  MarkCallers(contains_step, calls_anywhere);
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

  // 5. What one iteration of each step loop is: a training step when it (or a loop nested in it, or a
  //    function it calls) runs the backward pass or the optimizer, an evaluation batch when it only
  //    takes batches, a generated token when it only calls the model.
  //    A loop that only calls the model is a decoding loop when what it gives the model is rebound in the
  //    loop from what the model returned (`idx = torch.cat([idx, next_id])`); otherwise it takes batches
  //    some other way (`X, Y = get_batch(split)`) and is an evaluation loop.
  for (size_t i = 0; i < n; ++i) {
    if (loops[i].role != LoopRole::kStep) continue;
    loops[i].cadence = (evidence_within[i] & kTraining) != 0                    ? Cadence::kTrainingStep
                       : (evidence_within[i] & kStrong) != 0                    ? Cadence::kEvaluationBatch
                       : (evidence_within[i] & kEnvironmentStep) != 0           ? Cadence::kEnvironmentStep
                       : FeedsModelOutputBack(static_cast<int>(i), model_calls) ? Cadence::kGenerationStep
                                                                                : Cadence::kEvaluationBatch;
  }
}

ts::Node Builder::ModelOutputCall(ts::Node value, int scope) const {
  for (int depth = 0; depth < 4; ++depth) {
    value = Unparen(value);
    switch (KindOf(value)) {
      case K::kCall: return value;
      case K::kSubscript: value = Field(value, F::kValue); break;   // `out[0]`
      case K::kAttribute: value = Field(value, F::kObject); break;  // `out.logits`
      case K::kIdentifier: {
        const Model::Binding* binding = m_.SingleBinding(m_.Text(value), scope);
        if (binding == nullptr || binding->kind != Model::BindingKind::kAssign || binding->position != -1 ||
            binding->scope != scope) {
          return ts::Node();
        }
        value = binding->value;
        break;
      }
      default: return ts::Node();
    }
  }
  return ts::Node();
}

bool Builder::FeedsModelOutputBack(int loop, const std::vector<const Site*>& model_calls) const {
  const Loop& l = m_.loops_[static_cast<size_t>(loop)];
  const TextRange within = l.node.Range();
  // Whether `expr` is computed from the model call `call`: it contains the call, or names a value the loop
  // binds from one (a few assignments deep).
  const auto derives = [&](ts::Node expr, const Site& call, const auto& self, int depth) -> bool {
    if (expr.IsNull() || depth > 4) return false;
    if (expr.Range().Contains(call.node.Range())) return true;
    std::vector<ts::Node> stack{expr};
    for (int visited = 0; !stack.empty() && visited < 64; ++visited) {
      const ts::Node node = stack.back();
      stack.pop_back();
      if (KindOf(node) != K::kIdentifier) {
        for (const ts::Node child : node.NamedChildren()) stack.push_back(child);
        continue;
      }
      for (const Model::Binding& binding : m_.BindingsOf(m_.Text(node))) {
        if (binding.scope != call.scope || !within.Contains(binding.target.Range()) || binding.value == expr) continue;
        if (binding.kind != Model::BindingKind::kAssign && binding.kind != Model::BindingKind::kAugmented) continue;
        if (self(binding.value, call, self, depth + 1)) return true;
      }
    }
    return false;
  };
  for (const Site* call : model_calls) {
    bool inside = false;
    for (int at = call->loop; at >= 0 && !inside; at = m_.loops_[static_cast<size_t>(at)].parent) inside = at == loop;
    if (!inside) continue;
    const ts::Node args = call->Arguments();
    if (args.IsNull()) continue;
    for (ts::Node arg : args.NamedChildren()) {
      if (KindOf(arg) == K::kKeywordArgument) arg = Field(arg, F::kValue);
      arg = Unparen(arg);
      if (KindOf(arg) != K::kIdentifier) continue;
      for (const Model::Binding& binding : m_.BindingsOf(m_.Text(arg))) {
        if (binding.scope != call->scope || !within.Contains(binding.target.Range())) continue;
        if (binding.kind != Model::BindingKind::kAssign && binding.kind != Model::BindingKind::kAugmented) continue;
        if (derives(binding.value, *call, derives, 0)) return true;
      }
    }
  }
  return false;
}

void Builder::FindHooks() {
  // Classes built on a LightningModule or on a Hugging Face Trainer: the framework runs their step
  // methods once per batch, and the file has no loop to show it.
  for (size_t c = 0; c < m_.scopes_.size(); ++c) {
    const Scope& cls = m_.scopes_[c];
    if (cls.kind != ScopeKind::kClass) continue;
    bool lightning = false;
    bool hf_trainer = false;
    for (const auto& [base, canonical] : m_.BasesOf(static_cast<int>(c))) {
      lightning = lightning || ((canonical.starts_with("lightning.") || canonical.starts_with("pytorch_lightning.")) &&
                                canonical.ends_with("LightningModule"));
      hf_trainer = hf_trainer || (canonical.starts_with("transformers.") && canonical.ends_with("Trainer"));
    }
    if (!lightning && !hf_trainer) continue;
    for (size_t f = c + 1; f < m_.scopes_.size(); ++f) {
      Scope& method = m_.scopes_[f];
      if (method.parent != static_cast<int>(c) || method.kind != ScopeKind::kFunction) continue;
      const std::string_view name = method.name;
      if (lightning) {
        if (name == "training_step") method.hook = Cadence::kTrainingStep;
        if (name == "validation_step" || name == "test_step" || name == "predict_step") {
          method.hook = Cadence::kEvaluationBatch;
        }
      } else {
        if (name == "training_step" || name == "compute_loss") method.hook = Cadence::kTrainingStep;
        if (name == "prediction_step") method.hook = Cadence::kEvaluationBatch;
      }
    }
  }
}

Builder::StepOf Builder::StepLoopOf(const Site& site) const {
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
      if (guard.rare() && loop_range.Contains(guard.block.Range())) return {};
    }
    if (UnderSkipGuard(site.node.StartByte(), site.scope, loop_range)) return {};
    return {step, m_.loops_[static_cast<size_t>(step)].cadence};
  }
  // Otherwise in a function that runs every step, outside any periodic guard or epoch loop in it.
  const Scope& scope = m_.scopes_[static_cast<size_t>(site.scope)];
  if (!scope.runs_per_step) return {};
  for (int g = site.guard; g >= 0; g = m_.guards_[static_cast<size_t>(g)].parent) {
    if (m_.guards_[static_cast<size_t>(g)].rare()) return {};
  }
  for (int l = site.loop; l >= 0; l = m_.loops_[static_cast<size_t>(l)].parent) {
    if (m_.loops_[static_cast<size_t>(l)].role == LoopRole::kEpoch) return {};
  }
  if (UnderSkipGuard(site.node.StartByte(), site.scope, scope.node.Range())) return {};
  return {scope.step_loop, scope.cadence};
}

void Builder::ReviewTrainingHelpers() {
  bool changed = false;
  for (size_t i = 0; i < m_.loops_.size(); ++i) {
    Loop& loop = m_.loops_[i];
    if (loop.role != LoopRole::kStep || loop.cadence == Cadence::kTrainingStep) continue;
    // The calls inside the loop: sites are in document order.
    const TextRange range = loop.node.Range();
    auto it = std::lower_bound(m_.sites_.begin(), m_.sites_.end(), range.begin,
                               [](const Site& site, uint32_t offset) { return site.node.StartByte() < offset; });
    for (; it != m_.sites_.end() && it->node.StartByte() < range.end && loop.cadence != Cadence::kTrainingStep; ++it) {
      const Site& site = *it;
      if (site.kind != SiteKind::kCall || site.scope != loop.scope || !m_.RunsOnEachCall(site)) continue;
      for (const Model::Callee& callee : m_.ProjectCallees(site)) {
        const auto found = m_.ResolveCallee(callee);
        if (found && found->function->step.backward_line != 0) {
          loop.cadence = Cadence::kTrainingStep;
          changed = true;
          break;
        }
      }
    }
  }
  if (!changed) return;
  TrainsAfterAll(true);
}

void Builder::TrainsAfterAll(bool trains) {
  PropagatePerStep();
  if (!trains) return;
  // The file trains: its catalog facts say so, and a training loop outranks a framework's trainer
  // as the training site (as FindCatalogFacts takes them).
  m_.catalog_facts_ |= kFactTrains;
  m_.own_facts_ |= kFactTrains;
  m_.component_facts_ |= kFactTrains;
  if (m_.training_.loop < 0) TakeTrainingLoop();
}

void Builder::PropagatePerStep() {
  // The call sites that reach the file's own functions are few; iterate them to a fixed point. Hooks
  // run every step by themselves.
  for (Scope& scope : m_.scopes_) {
    scope.runs_per_step = scope.hook != Cadence::kNone;
    scope.step_loop = -1;
    scope.cadence = scope.hook;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [index, callees] : m_.local_calls_) {
      const StepOf step = StepLoopOf(m_.sites_[index]);
      if (step.loop < 0 && step.cadence == Cadence::kNone) continue;
      for (int callee : callees) {
        Scope& scope = m_.scopes_[static_cast<size_t>(callee)];
        // A training step outranks an evaluation batch when a helper runs under both.
        if (!scope.runs_per_step || (step.cadence == Cadence::kTrainingStep && scope.cadence != step.cadence)) {
          scope.runs_per_step = true;
          scope.step_loop = step.loop;
          scope.cadence = step.cadence;
          changed = true;
        }
      }
    }
  }
  for (Site& site : m_.sites_) {
    const StepOf step = StepLoopOf(site);
    site.step_loop = step.loop;
    site.cadence = step.cadence;
    for (int g = site.guard; g >= 0 && !site.off_device; g = m_.guards_[static_cast<size_t>(g)].parent) {
      site.off_device = m_.guards_[static_cast<size_t>(g)].off_device;
    }
  }
}

bool Builder::ReviewCallbacks(bool classified) {
  // The parameters each function of the file calls (the summary reads the same table). Only files that
  // import torch run a training step through a closure; elsewhere nothing is looked for.
  if (m_.called_parameters_.size() != m_.scopes_.size()) {
    m_.called_parameters_ = m_.ImportsTorch() ? m_.CalledParameters() : std::vector<uint32_t>(m_.scopes_.size(), 0);
  }
  if (m_.functions_.empty()) return false;  // no function of the file to pass
  const bool remote = classified && m_.project_ != nullptr && m_.project_->CallsParameters();
  // The positional arguments of a call that name one function of the file: (position, scope).
  std::vector<std::pair<uint32_t, int>> passed;
  const auto functions_passed = [&](const Site& site) {
    passed.clear();
    const ts::Node args = site.Arguments();
    if (args.IsNull() || KindOf(args) != K::kArgumentList) return false;
    uint32_t position = 0;
    for (ts::Node arg : args.NamedChildren()) {
      const K k = KindOf(arg);
      if (k == K::kComment) continue;
      if (k == K::kKeywordArgument || k == K::kListSplat || k == K::kDictionarySplat || position >= 32) break;
      if (k == K::kIdentifier) {
        const auto named = m_.FunctionsNamed(m_.Text(arg));
        if (named.size() == 1 && m_.BindingsOf(m_.Text(arg)).empty())
          passed.emplace_back(position, named.front().second);
      }
      ++position;
    }
    return !passed.empty();
  };
  std::vector<std::pair<uint32_t, int>> added;
  const auto add = [&](uint32_t index, uint32_t called) {
    for (const auto& [at, function] : passed) {
      if (((called >> at) & 1u) != 0) added.emplace_back(index, function);
    }
  };
  // Calls of the file's own functions that call a parameter.
  for (const auto& [index, callees] : m_.local_calls_) {
    if (callees.size() != 1) continue;
    const uint32_t called = m_.called_parameters_[static_cast<size_t>(callees.front())];
    if (called != 0 && functions_passed(m_.sites_[index])) add(index, called);
  }
  // Calls of other modules' functions that call a parameter.
  for (uint32_t i = 0; remote && i < m_.sites_.size(); ++i) {
    const Site& site = m_.sites_[i];
    if (site.kind != SiteKind::kCall || m_.LocalCallees(site) != nullptr || !functions_passed(site)) continue;
    for (const Model::Callee& callee : m_.ProjectCallees(site)) {
      if (const auto found = m_.ResolveCallee(callee)) {
        add(i, found->function->called_parameters);
        break;
      }
    }
  }
  std::vector<std::pair<uint32_t, int>> fresh;  // the calls added
  for (const auto& [index, function] : added) {
    auto it = std::lower_bound(m_.local_calls_.begin(), m_.local_calls_.end(), index,
                               [](const auto& entry, uint32_t i) { return entry.first < i; });
    if (it == m_.local_calls_.end() || it->first != index) it = m_.local_calls_.insert(it, {index, {}});
    if (std::find(it->second.begin(), it->second.end(), function) == it->second.end()) {
      it->second.push_back(function);
      ++m_.local_calls_version_;
      fresh.emplace_back(index, function);
    }
  }
  if (fresh.empty() || !classified) return !fresh.empty();
  // The loops were classified without these calls: a step loop whose callback runs `backward()` on every
  // call is a training loop (as ReviewTrainingHelpers does for another file's helpers).
  const std::vector<Model::StepSites> steps = m_.StepSitesPerCall();
  bool trains = false;
  for (const auto& [index, function] : fresh) {
    if (steps[static_cast<size_t>(function)].backward == nullptr) continue;
    for (int l = m_.sites_[index].loop; l >= 0; l = m_.loops_[static_cast<size_t>(l)].parent) {
      Loop& loop = m_.loops_[static_cast<size_t>(l)];
      if (loop.role != LoopRole::kStep) continue;
      trains = trains || loop.cadence != Cadence::kTrainingStep;
      loop.cadence = Cadence::kTrainingStep;
      break;
    }
  }
  TrainsAfterAll(trains);
  return true;
}

void Builder::MarkRemoteEntries() {
  for (Scope& scope : m_.scopes_) {
    scope.remote_cadence = Cadence::kNone;
    scope.remote_entry = -1;
  }
  for (Site& site : m_.sites_) site.remote_cadence = Cadence::kNone;
  if (m_.remote_entries_.empty()) return;
  bool any = false;
  for (size_t s = 1; s < m_.scopes_.size(); ++s) {
    Scope& scope = m_.scopes_[s];
    if (scope.kind != ScopeKind::kFunction || scope.runs_per_step) continue;
    const std::string qualname = m_.QualName(static_cast<int>(s));
    const auto it = std::lower_bound(
        m_.remote_entries_.begin(), m_.remote_entries_.end(), qualname,
        [](const ProjectIndex::StepEntry& e, const std::string& q) { return e.qualname < q; });
    if (it == m_.remote_entries_.end() || it->qualname != qualname) continue;
    scope.remote_cadence = static_cast<Cadence>(it->cadence);
    scope.remote_entry = static_cast<int>(it - m_.remote_entries_.begin());
    any = true;
  }
  if (!any) return;
  // Whether a site of such a function runs on each of its calls: outside periodic guards, epoch loops and
  // the branches a `continue` skips.
  const auto each_call = [&](const Site& site) {
    const Scope& scope = m_.scopes_[static_cast<size_t>(site.scope)];
    if (scope.remote_cadence == Cadence::kNone) return false;
    for (int g = site.guard; g >= 0; g = m_.guards_[static_cast<size_t>(g)].parent) {
      if (m_.guards_[static_cast<size_t>(g)].rare()) return false;
    }
    for (int l = site.loop; l >= 0; l = m_.loops_[static_cast<size_t>(l)].parent) {
      if (m_.loops_[static_cast<size_t>(l)].role == LoopRole::kEpoch) return false;
    }
    return !UnderSkipGuard(site.node.StartByte(), site.scope, scope.node.Range());
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [index, callees] : m_.local_calls_) {
      const Site& site = m_.sites_[index];
      if (!each_call(site)) continue;
      const Scope& from = m_.scopes_[static_cast<size_t>(site.scope)];
      for (int callee : callees) {
        Scope& scope = m_.scopes_[static_cast<size_t>(callee)];
        if (scope.runs_per_step || scope.remote_cadence != Cadence::kNone) continue;
        scope.remote_cadence = from.remote_cadence;
        scope.remote_entry = from.remote_entry;
        changed = true;
      }
    }
  }
  for (Site& site : m_.sites_) {
    if (!site.per_step() && each_call(site))
      site.remote_cadence = m_.scopes_[static_cast<size_t>(site.scope)].remote_cadence;
  }
}

std::optional<Model::RemoteCaller> Model::RemoteCallerOf(const Site& site) const {
  if (site.remote_cadence == Cadence::kNone) return std::nullopt;
  const int entry = scopes_[static_cast<size_t>(site.scope)].remote_entry;
  if (entry < 0 || static_cast<size_t>(entry) >= remote_entries_.size()) return std::nullopt;
  const ProjectIndex::StepEntry& e = remote_entries_[static_cast<size_t>(entry)];
  return RemoteCaller{e.caller->path, e.line, e.column, e.qualname};
}

std::vector<int> Model::StepLoops() const {
  std::vector<int> out;
  for (size_t i = 0; i < loops_.size(); ++i) {
    if (loops_[i].role == LoopRole::kStep) out.push_back(static_cast<int>(i));
  }
  return out;
}

}  // namespace tl::semantic
