// Torch types, as far as rules need them: models, optimizers, losses, DataLoaders, and whether an
// expression is a tensor.
#include "linter/semantic/builder.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <string>

namespace tl::semantic {
namespace {

// A name that starts with a verb that saves, loads, builds, unwraps, prints or logs (`build_model`, `log_stats`).
bool VerbNamed(std::string_view name) {
  static constexpr std::array<std::string_view, 10> kVerbs = {"save_", "load_",   "build_", "create_", "get_",
                                                              "make_", "unwrap_", "init_",  "print_",  "log_"};
  return std::any_of(kVerbs.begin(), kVerbs.end(), [&](std::string_view v) { return name.starts_with(v); });
}

}  // namespace

bool Model::AnyAssignment(ts::Node expr, const std::function<bool(const Binding&)>& holds) const {
  for (const Binding& binding : BindingsOf(Text(expr))) {
    if (binding.kind == BindingKind::kAssign && binding.position == -1 && binding.value != expr && holds(binding)) {
      return true;
    }
  }
  return false;
}

bool Model::IsOptimizerLike(ts::Node expr, int scope) const {
  expr = Unparen(expr);
  const K k = KindOf(expr);
  if (k != K::kIdentifier && k != K::kAttribute) return false;
  const std::string_view text = Text(expr);
  const std::string_view last = LastSegment(text);
  if (ContainsIgnoreCase(last, "sched")) return false;
  if (ContainsIgnoreCase(last, "optim") || last == "opt") return true;
  const std::span<const Binding> all = BindingsOf(text);
  if (all.empty()) return false;
  for (const Binding& binding : all) {
    if (binding.kind != BindingKind::kAssign || KindOf(binding.value) != K::kCall) continue;
    const std::string canonical = CanonicalName(Field(binding.value, F::kFunction));
    if (canonical.starts_with("torch.optim.") && !canonical.starts_with("torch.optim.lr_scheduler")) {
      return true;
    }
  }
  (void)scope;
  return false;
}

bool Model::ModelNamed(std::string_view text) {
  const std::string_view last = LastSegment(text);
  return !VerbNamed(last) && (last == "model" || last == "net" || last.ends_with("_model") || last.ends_with("_net"));
}

bool Model::IsModelLike(ts::Node expr, int scope, int depth) const {
  int steps = kModelLikeSteps;
  return IsModelLikeDepth(expr, scope, depth, steps);
}

bool Model::IsModelLikeDepth(ts::Node expr, int scope, int depth, int& steps) const {
  // Every assignment of a name and every caller of a parameter is followed: the question has a budget
  // of steps, as IsDataLoaderLike has.
  if (depth > 8 || --steps < 0) return false;
  expr = Unparen(expr);
  const K k = KindOf(expr);
  if (k == K::kCall) {
    ts::Node callee = Unparen(Field(expr, F::kFunction));
    ts::Node args = Field(expr, F::kArguments);
    if (KindOf(callee) == K::kAttribute) {
      static constexpr std::array<std::string_view, 9> kChain = {"to",    "cuda",     "train",  "eval", "half",
                                                                 "float", "bfloat16", "double", "cpu"};
      const std::string_view method = Text(Field(callee, F::kAttribute));
      if (OneOf(method, kChain)) return IsModelLikeDepth(Field(callee, F::kObject), scope, depth + 1, steps);
      if (method == "from_pretrained") return true;
    }
    const std::string canonical = CanonicalName(callee);
    const std::string_view last = LastSegment(canonical);
    if (canonical.starts_with("torchvision.models.") || canonical == "timm.create_model" ||
        canonical.starts_with("transformers.")) {
      return true;
    }
    // Wrappers that only take modules; `torch.compile` also takes functions.
    if (last == "DistributedDataParallel" || last == "DataParallel" || last == "FullyShardedDataParallel") {
      return true;
    }
    if (canonical == "torch.compile") {
      return KindOf(args) == K::kArgumentList && args.NamedChildCount() > 0 &&
             IsModelLikeDepth(args.NamedChild(0), scope, depth + 1, steps);
    }
    if (canonical.starts_with("torch.nn.") && !last.empty() && std::isupper(static_cast<unsigned char>(last[0])) &&
        !last.ends_with("Loss")) {
      return true;
    }
    // A class of this file built on nn.Module (or anything named like a model).
    if (KindOf(callee) == K::kIdentifier) {
      const std::string_view name = Text(callee);
      for (const auto& [class_name, index] : ClassesNamed(name)) {
        const Scope& s = scopes_[static_cast<size_t>(index)];
        const std::string_view bases = Text(Field(s.node, F::kSuperclasses));
        if (bases.find("Module") != std::string_view::npos || bases.find("Model") != std::string_view::npos) {
          return true;
        }
      }
    }
    return false;
  }
  if (k != K::kIdentifier && k != K::kAttribute) return false;
  const std::string_view text = Text(expr);
  if (k == K::kIdentifier && text == "self") {
    // `self(idx)` in a method of an nn.Module subclass (a `generate` loop) runs the module's forward.
    const Scope& method = scopes_[static_cast<size_t>(scope)];
    if (method.kind != ScopeKind::kFunction || method.parent < 0) return false;
    const Scope& klass = scopes_[static_cast<size_t>(method.parent)];
    return klass.kind == ScopeKind::kClass &&
           Text(Field(klass.node, F::kSuperclasses)).find("Module") != std::string_view::npos;
  }
  const std::string_view last = LastSegment(text);
  // `self.model.forward(tokens)` calls the model.
  if (k == K::kAttribute && last == "forward")
    return IsModelLikeDepth(Field(expr, F::kObject), scope, depth + 1, steps);
  // Names are the fallback for parameters (`def train(model, loader, optimizer)`), not for functions
  // of a module (`misc.save_model(...)`, `utils.unwrap_model(model)`) or verbs that build, save or
  // unwrap one.
  const bool module_function = k == K::kAttribute && FindImport(text.substr(0, text.find('.'))) != nullptr;
  if (!module_function && ModelNamed(text)) return true;
  if (AnyAssignment(expr, [&](const Binding& b) { return IsModelLikeDepth(b.value, b.scope, depth + 1, steps); }))
    return true;
  // A parameter every call of the file fills with a model (`train_one_epoch(student, ...)` with `student =
  // DistributedDataParallel(...)`).
  const Binding* parameter = k == K::kIdentifier ? SingleBinding(text, scope) : nullptr;
  return parameter != nullptr && parameter->kind == BindingKind::kParameter &&
         EveryCallerPasses(*parameter,
                           [&](ts::Node value, int at) { return IsModelLikeDepth(value, at, depth + 1, steps); });
}

bool Model::IsSubmoduleCall(const Site& call) const {
  if (call.kind != SiteKind::kCall || KindOf(call.callee) != K::kAttribute) return false;
  // nn.Module's methods that do not run forward, and those of the Hugging Face models' PreTrainedModel.
  static constexpr NameSet<44> kModuleMethods{{"add_module",
                                               "apply",
                                               "bfloat16",
                                               "buffers",
                                               "children",
                                               "compile",
                                               "cpu",
                                               "cuda",
                                               "double",
                                               "eval",
                                               "extra_repr",
                                               "float",
                                               "half",
                                               "load_state_dict",
                                               "modules",
                                               "named_buffers",
                                               "named_children",
                                               "named_modules",
                                               "named_parameters",
                                               "parameters",
                                               "register_buffer",
                                               "register_forward_hook",
                                               "register_forward_pre_hook",
                                               "register_full_backward_hook",
                                               "register_module",
                                               "register_parameter",
                                               "requires_grad_",
                                               "share_memory",
                                               "state_dict",
                                               "to",
                                               "to_empty",
                                               "train",
                                               "type",
                                               "zero_grad",
                                               "save_pretrained",
                                               "resize_token_embeddings",
                                               "tie_weights",
                                               "num_parameters",
                                               "gradient_checkpointing_enable",
                                               "print_trainable_parameters",
                                               "reset_parameters",
                                               "xpu",
                                               "ipu",
                                               "get_submodule"}};
  // Nor one that sets, resets or hooks state (`model.reset(batch_size=1)`, `install_kv_cache_hooks()`), or
  // asks about the model (`model.is_fork_node(n)`, `find_consumer`).
  static constexpr std::array<std::string_view, 17> kStatePrefixes = {
      "reset",    "set_",   "clear", "freeze", "unfreeze", "enable_", "disable_", "register_", "remove_",
      "install_", "update", "zero_", "is_",    "has_",     "find_",   "num_",     "count"};
  const std::string_view name = call.name;
  if (OneOf(name, kModuleMethods) || VerbNamed(name) ||
      std::any_of(kStatePrefixes.begin(), kStatePrefixes.end(),
                  [&](std::string_view p) { return name.starts_with(p); }) ||
      ContainsIgnoreCase(name, "loss") || name.starts_with("_")) {
    return false;
  }
  // A string's methods: `args.model.startswith("SIMCLR")` names a model, it does not hold one.
  static constexpr NameSet<12> kStringMethods{{"startswith", "endswith", "split", "lower", "upper", "replace", "format",
                                               "strip", "join", "find", "encode", "count"}};
  if (OneOf(name, kStringMethods)) return false;
  // A forward takes its inputs: `model.parallelize()` and `model.reset()` with none do not run the model.
  const ts::Node args = call.Arguments();
  if (args.IsNull() || args.NamedChildCount() == 0) return false;
  const ts::Node object = Unparen(Field(call.callee, F::kObject));
  const K k = KindOf(object);
  if ((k != K::kIdentifier && k != K::kAttribute) || Text(object) == "self") return false;
  // Nor an option of the run (`args.model`, `cfg.model`): a name, not a module.
  ts::Node head = object;
  while (KindOf(head) == K::kAttribute) head = Unparen(Field(head, F::kObject));
  if (head != object && HoldsConfig(head, call.scope, 0)) return false;
  // Nor a tokenizer's or a processor's (`tokenizer.decode(ids)`), which `from_pretrained` loads as well.
  const std::string_view holder = LastSegment(Text(object));
  if (ContainsIgnoreCase(holder, "tokenizer") || ContainsIgnoreCase(holder, "processor")) return false;
  // Asked of every attribute call in a loop: the object's name, or a few bindings deep, not the whole
  // chain IsModelLike may follow (most such objects are not models, and proving that is the costly part).
  constexpr int kShallow = 6;
  return IsModelLike(object, call.scope, kShallow);
}

bool Model::IsLossCall(const Site& call) const {
  if (call.kind != SiteKind::kCall) return false;
  if (ContainsIgnoreCase(call.name, "loss") || call.name == "criterion" || call.name == "cross_entropy" ||
      call.name == "kl_div") {
    return true;
  }
  const std::span<const Binding> all = BindingsOf(Text(call.callee));
  if (all.empty()) return false;
  for (const Binding& binding : all) {
    if (binding.kind == BindingKind::kAssign && KindOf(binding.value) == K::kCall) {
      const std::string canonical = CanonicalName(Field(binding.value, F::kFunction));
      if (canonical.starts_with("torch.nn.") && canonical.ends_with("Loss")) return true;
    }
  }
  return false;
}

bool Model::IsDataLoaderLike(ts::Node expr, int scope) const {
  int steps = kLoaderLikeSteps;
  return LoaderLikeDepth(expr, scope, 0, steps);
}

bool Model::LoaderLikeDepth(ts::Node expr, int scope, int depth, int& steps) const {
  // Each assignment of a name is followed: in a file that assigns the same names thousands of times the
  // tree of them is exponential in the depth, so the question has a budget of steps (an answer past it
  // is "not known to be a loader").
  if (depth > 8 || --steps < 0) return false;
  expr = Unparen(expr);
  const K k = KindOf(expr);
  if (k == K::kCall) {
    ts::Node callee = Unparen(Field(expr, F::kFunction));
    ts::Node args = Field(expr, F::kArguments);
    std::string_view name = KindOf(callee) == K::kAttribute ? Text(Field(callee, F::kAttribute)) : Text(callee);
    if (KindOf(callee) == K::kIdentifier) {
      if (const Import* import = FindImport(name)) name = LastSegment(import->canonical);
    }
    if (name.ends_with("DataLoader") || name.ends_with("Loader")) return true;
    static constexpr std::array<std::string_view, 7> kWrappers = {"enumerate", "zip",   "tqdm",    "iter",
                                                                  "islice",    "cycle", "prefetch"};
    if (OneOf(name, kWrappers) && KindOf(args) == K::kArgumentList) {
      // zip(a, b) counts when any of its inputs is a loader; the others look at their first input.
      const uint32_t count = name == "zip" ? args.NamedChildCount() : std::min(1u, args.NamedChildCount());
      for (uint32_t i = 0; i < count; ++i) {
        if (LoaderLikeDepth(args.NamedChild(i), scope, depth + 1, steps)) return true;
      }
    }
    return false;
  }
  if (k != K::kIdentifier && k != K::kAttribute) return false;
  const std::string_view text = Text(expr);
  // Names are the fallback for parameters (`def train(model, train_loader)`); `loaders` is a
  // collection of them, not one.
  const std::string_view last = LastSegment(text);
  if (ContainsIgnoreCase(last, "loader") && !last.ends_with("loaders") && !last.ends_with("Loaders")) return true;
  return AnyAssignment(expr, [&](const Binding& b) { return LoaderLikeDepth(b.value, b.scope, depth + 1, steps); });
}

TensorKind Model::TensorKindOf(ts::Node expr, int scope) const { return TensorKindDepth(expr, scope, 0); }

TensorKind Model::TensorKindDepth(ts::Node expr, int scope, int depth) const {
  if (depth > 12 || type_steps_left_ == 0) return TensorKind::kUnknown;
  if (type_steps_left_ > 0) --type_steps_left_;
  expr = Unparen(expr);
  switch (KindOf(expr)) {
    case K::kInteger:
    case K::kFloat:
    case K::kTrue:
    case K::kFalse:
    case K::kNone:
    case K::kString:
    case K::kConcatenatedString:
    case K::kList:
    case K::kDictionary:
    case K::kSet:
    case K::kTuple:
    case K::kComprehension:
    case K::kLambda: return TensorKind::kNotTensor;
    case K::kNot: return TensorKind::kNotTensor;  // `not x` is a Python bool (the sync is in evaluating x)
    case K::kAttribute: {
      const std::string_view attribute = Text(Field(expr, F::kAttribute));
      static constexpr std::array<std::string_view, 8> kMeta = {"shape",   "ndim",          "dtype",   "device",
                                                                "is_cuda", "requires_grad", "is_leaf", "layout"};
      if (OneOf(attribute, kMeta)) return TensorKind::kNotTensor;
      static constexpr std::array<std::string_view, 7> kTensorAttrs = {"data", "grad", "T", "mT", "real", "imag", "H"};
      ts::Node object = Field(expr, F::kObject);
      if (OneOf(attribute, kTensorAttrs) && TensorKindDepth(object, scope, depth + 1) == TensorKind::kTensor) {
        return TensorKind::kTensor;
      }
      // A buffer the class registered (`self.queue_ptr`): a tensor, wherever the module is moved.
      if (!buffers_.empty() && Text(object) == "self" && scope >= 0) {
        const int cls = scopes_[static_cast<size_t>(scope)].parent;
        for (const RegisteredBuffer& buffer : buffers_) {
          if (buffer.cls == cls && buffer.name == attribute &&
              TensorKindDepth(buffer.value, scope, depth + 1) == TensorKind::kTensor) {
            return TensorKind::kTensor;
          }
        }
      }
      // `outputs.loss` / `outputs.logits`: fields of a model's output.
      if ((attribute == "loss" || attribute == "logits") && KindOf(Unparen(object)) != K::kAttribute &&
          TensorKindDepth(object, scope, depth + 1) == TensorKind::kTensor) {
        return TensorKind::kTensor;
      }
      break;  // then as a name bound by assignment (self.x = ...)
    }
    case K::kSubscript: {
      // batch["x"], out[0], loss[mask]: an element or slice of a tensor (or of a batch) is a tensor, and so
      // is an entry of a container of tensors (`loss_dict_reduced["class_error"]`).
      // ElementTensorKind asks TensorKindDepth of the value first (one level down, as here).
      return ElementTensorKind(Field(expr, F::kValue), scope, depth) == TensorKind::kTensor ? TensorKind::kTensor
                                                                                            : TensorKind::kUnknown;
    }
    case K::kComparison:
      if (IsIdentityComparison(*this, expr)) return TensorKind::kNotTensor;
      [[fallthrough]];
    case K::kBinary:
    case K::kBoolean: {
      // `"%.3f" % loss`: printf-style formatting makes a string.
      if (KindOf(expr) == K::kBinary && KindOf(FirstChild(expr)) == K::kString) return TensorKind::kNotTensor;
      bool all_python = true;
      for (uint32_t i = 0; i < expr.NamedChildCount(); ++i) {
        const TensorKind kind = TensorKindDepth(expr.NamedChild(i), scope, depth + 1);
        if (kind == TensorKind::kTensor) return TensorKind::kTensor;
        if (kind != TensorKind::kNotTensor) all_python = false;
      }
      return all_python ? TensorKind::kNotTensor : TensorKind::kUnknown;
    }
    case K::kUnary: return TensorKindDepth(Field(expr, F::kArgument), scope, depth + 1);
    case K::kCall: {
      ts::Node callee = Unparen(Field(expr, F::kFunction));
      const K ck = KindOf(callee);
      std::string_view name = ck == K::kAttribute ? Text(Field(callee, F::kAttribute)) : Text(callee);
      // (`.numpy()` gives a NumPy array.)
      static constexpr NameSet<25> kPython{
          {"item",   "tolist", "size",         "dim",      "numel",     "len",      "str",  "int",    "float",
           "bool",   "round",  "isinstance",   "range",    "enumerate", "zip",      "keys", "values", "items",
           "format", "repr",   "element_size", "nelement", "stride",    "data_ptr", "numpy"}};
      // `t.float()`, `t.int()`, `t.bool()`, `t.round()` are tensor methods that give tensors; the builtins
      // of those names give Python numbers.
      static constexpr std::array<std::string_view, 4> kTensorToo = {"float", "int", "bool", "round"};
      if (OneOf(name, kPython) && !(ck == K::kAttribute && OneOf(name, kTensorToo))) return TensorKind::kNotTensor;
      const std::string canonical = CanonicalName(callee);
      if (canonical.starts_with("numpy.") || canonical.starts_with("math.")) return TensorKind::kNotTensor;
      if (canonical.starts_with("torch.")) {
        static constexpr std::array<std::string_view, 20> kNotTensorModules = {
            "torch.cuda.",        "torch.npu.",        "torch.xpu.",         "torch.mps.",
            "torch.accelerator.", "torch.backends.",   "torch.distributed.", "torch.utils.",
            "torch.optim.",       "torch.jit.",        "torch.amp.",         "torch.autograd.grad_mode",
            "torch.device",       "torch.no_grad",     "torch.is_",          "torch.get_",
            "torch.set_",         "torch.manual_seed", "torch.compile",      "torch.save"};
        for (std::string_view prefix : kNotTensorModules) {
          if (canonical.starts_with(prefix)) return TensorKind::kNotTensor;
        }
        // torch.load returns whatever was saved (a checkpoint dict of step counters, configs, tensors).
        if (canonical == "torch.load" || canonical.starts_with("torch.hub.")) return TensorKind::kUnknown;
        // torch.nn's constructors make modules (`torch.nn.Linear`), and its utilities return modules,
        // floats or nothing, except these, which return tensors (a PackedSequence unpacks into two).
        static constexpr std::array<std::string_view, 6> kNnTensors = {"torch.nn.utils.rnn.",
                                                                       "torch.nn.utils.clip_grad_norm_",
                                                                       "torch.nn.utils.parameters_to_vector",
                                                                       "torch.nn.utils.get_total_norm",
                                                                       "torch.nn.Parameter",
                                                                       "torch.nn.parameter.Parameter"};
        if (canonical.starts_with("torch.nn.") && !canonical.starts_with("torch.nn.functional.") &&
            std::none_of(kNnTensors.begin(), kNnTensors.end(),
                         [&](std::string_view prefix) { return canonical.starts_with(prefix); })) {
          return TensorKind::kUnknown;
        }
        return TensorKind::kTensor;
      }
      if (ck == K::kAttribute) {
        // A method of a tensor returns a tensor (the non-tensor methods are listed above).
        if (TensorKindDepth(Field(callee, F::kObject), scope, depth + 1) == TensorKind::kTensor) {
          return TensorKind::kTensor;
        }
      }
      if (IsModelLike(callee, scope, 0)) return TensorKind::kTensor;
      if (const Site* site = SiteOf(expr); site != nullptr && IsLossCall(*site)) return TensorKind::kTensor;
      return TensorKind::kUnknown;
    }
    default: break;
  }
  const K k = KindOf(expr);
  if (k != K::kIdentifier && k != K::kAttribute) return TensorKind::kUnknown;
  // A comprehension's own name hides the function's (`[w for w in t if w > 0]`).
  if (k == K::kIdentifier && !comprehension_targets_.empty()) {
    if (const ComprehensionTarget* target = ComprehensionBinding(expr)) {
      return ComprehensionElementKind(*target, scope, depth);
    }
  }
  const std::span<const Binding> all = BindingsOf(Text(expr));
  if (all.empty()) return TensorKind::kUnknown;
  // Tensor when any binding in reach is a tensor; not one when every binding plainly is not. A plain
  // assignment that runs before the use on every path hides the bindings written before it
  // (`H, W = int(H), int(W)` after `H, W, focal = hwf`), when what it binds is known: an unknown value
  // (`preds, refs = gather(...)`) erases nothing the earlier ones say.
  bool any = false;
  bool all_python = true;
  const bool attribute = k == K::kAttribute;
  // The target of the loop the use is in, when nothing rebinds the name between: only that binding
  // reaches it (`for p in group["params"]:` after another loop bound `p` to something else).
  if (!attribute && all.size() > 1) {
    if (const Binding* reaching = ReachingOnEveryPath(expr, scope);
        reaching != nullptr && reaching->kind == BindingKind::kLoopTarget) {
      return BindingTensorKind(*reaching, expr, depth);
    }
  }
  const Binding* dominating = attribute ? nullptr : DominatingAssignment(all, expr, scope);
  const TensorKind dominating_kind = dominating != nullptr ? BindingTensorKind(*dominating, expr, depth)
                                                           : TensorKind::kUnknown;
  if (dominating_kind == TensorKind::kUnknown) dominating = nullptr;
  for (const Binding& binding : all) {
    if (!attribute && binding.scope != scope && binding.scope != 0) continue;
    if (dominating != nullptr && binding.scope == scope && binding.target.StartByte() < dominating->target.StartByte())
      continue;
    any = true;
    const TensorKind kind = &binding == dominating ? dominating_kind : BindingTensorKind(binding, expr, depth);
    if (kind == TensorKind::kTensor) return TensorKind::kTensor;
    if (kind != TensorKind::kNotTensor) all_python = false;
  }
  return any && all_python ? TensorKind::kNotTensor : TensorKind::kUnknown;
}

ts::Node Model::ComprehensionSource(const ComprehensionTarget& target) const {
  const ts::Node iterable = Unparen(target.iterable);
  if (target.position == -1) return iterable;
  if (KindOf(iterable) != K::kCall) return ts::Node();
  const ts::Node callee = Unparen(Field(iterable, F::kFunction));
  const ts::Node args = Field(iterable, F::kArguments);
  if (KindOf(callee) != K::kIdentifier || KindOf(args) != K::kArgumentList || FindImport(Text(callee)) != nullptr) {
    return ts::Node();
  }
  // `for i, w in enumerate(t)`: w is an element of t; `for a, b in zip(x, t)`: b is one of t.
  if (Text(callee) == "enumerate" && target.position == 1 && args.NamedChildCount() > 0) return args.NamedChild(0);
  if (Text(callee) == "zip" && static_cast<uint32_t>(target.position) < args.NamedChildCount()) {
    const ts::Node source = args.NamedChild(static_cast<uint32_t>(target.position));
    return KindOf(source) == K::kKeywordArgument ? ts::Node() : source;
  }
  return ts::Node();
}

TensorKind Model::ComprehensionElementKind(const ComprehensionTarget& target, int scope, int depth) const {
  const ts::Node iterable = Unparen(target.iterable);
  if (target.position == 0 && KindOf(iterable) == K::kCall && Text(Field(iterable, F::kFunction)) == "enumerate" &&
      FindImport("enumerate") == nullptr) {
    return TensorKind::kNotTensor;  // the counter
  }
  // `for k, v in d.items()` / `for v in d.values()`: an entry of a container of tensors.
  if (KindOf(iterable) == K::kCall && KindOf(Unparen(Field(iterable, F::kFunction))) == K::kAttribute) {
    const ts::Node callee = Unparen(Field(iterable, F::kFunction));
    const std::string_view method = Text(Field(callee, F::kAttribute));
    if ((method == "items" && target.position == 1) || (method == "values" && target.position == -1)) {
      return ElementTensorKind(Field(callee, F::kObject), scope, depth + 1);
    }
    if (method == "items" && target.position == 0) return TensorKind::kUnknown;  // a key
  }
  const ts::Node source = ComprehensionSource(target);
  if (source.IsNull()) return TensorKind::kUnknown;
  // Iterating a tensor gives its rows (tensors); any other iterable is not known here.
  return TensorKindDepth(source, scope, depth + 1) == TensorKind::kTensor ? TensorKind::kTensor : TensorKind::kUnknown;
}

TensorKind Model::ElementTensorKind(ts::Node expr, int scope, int depth) const {
  if (depth > 12) return TensorKind::kUnknown;
  expr = Unparen(expr);
  switch (KindOf(expr)) {
    case K::kComprehension: {
      // The element: the pair's value of a dict comprehension, the body of the others.
      ts::Node body = expr.NamedChildCount() > 0 ? expr.NamedChild(0) : ts::Node();
      if (KindOf(body) == K::kPair) body = Field(body, F::kValue);
      return body.IsNull() ? TensorKind::kUnknown : TensorKindDepth(body, scope, depth + 1);
    }
    case K::kDictionary:
    case K::kList: {
      // Every entry: a checkpoint dict mixes tensors with counters (`{"model": ..., "iter_num": 0}`).
      bool any = false;
      for (ts::Node element : expr.NamedChildren()) {
        if (KindOf(element) == K::kComment) continue;
        if (KindOf(element) == K::kPair) element = Field(element, F::kValue);
        if (element.IsNull() || TensorKindDepth(element, scope, depth + 1) != TensorKind::kTensor) {
          return TensorKind::kUnknown;
        }
        any = true;
      }
      return any ? TensorKind::kTensor : TensorKind::kUnknown;
    }
    case K::kCall: {
      if (TensorKindDepth(expr, scope, depth + 1) == TensorKind::kTensor) return TensorKind::kTensor;
      const Site* site = SiteOf(expr);
      return site != nullptr && CallReturnsTensors(*site, depth + 1) ? TensorKind::kTensor : TensorKind::kUnknown;
    }
    case K::kIdentifier:
    case K::kAttribute: {
      if (TensorKindDepth(expr, scope, depth + 1) == TensorKind::kTensor) return TensorKind::kTensor;
      for (const Binding& binding : BindingsOf(Text(expr))) {
        if (KindOf(expr) == K::kIdentifier && binding.scope != scope && binding.scope != 0) continue;
        if (binding.kind != BindingKind::kAssign || binding.position != -1 || binding.value == expr) continue;
        if (ElementTensorKind(binding.value, binding.scope, depth + 1) == TensorKind::kTensor)
          return TensorKind::kTensor;
      }
      return TensorKind::kUnknown;
    }
    default:
      return TensorKindDepth(expr, scope, depth + 1) == TensorKind::kTensor ? TensorKind::kTensor
                                                                            : TensorKind::kUnknown;
  }
}

bool Model::CallReturnsTensors(const Site& call, int depth) const {
  if (call.kind != SiteKind::kCall || depth > 12) return false;
  if (const std::vector<int>* local = LocalCallees(call)) {
    if (local->size() != 1) return false;
    const int function = local->front();
    for (const ts::Node value : ReturnsOf(function)) {
      if (!value.IsNull() && ElementTensorKind(value, function, depth + 1) == TensorKind::kTensor) return true;
    }
    return false;
  }
  if (project_ == nullptr || self_summary_ == nullptr) return false;
  for (const Callee& callee : ProjectCallees(call)) {
    if (const auto found = ResolveCallee(callee)) return found->function->returns_tensors;
  }
  return false;
}

TensorKind Model::BindingTensorKind(const Binding& binding, ts::Node expr, int depth) const {
  TensorKind kind = TensorKind::kUnknown;
  switch (binding.kind) {
    case BindingKind::kAssign:
    case BindingKind::kAugmented:
      if (binding.position == -1 && binding.value != expr) {
        kind = TensorKindDepth(binding.value, binding.scope, depth + 1);
      } else if (binding.position != -1 && binding.value != expr) {
        const ts::Node value = Unparen(binding.value);
        const K vk = KindOf(value);
        // Only a target of plain names pairs up (`a, *b` and `(a, b), c` take the whole value).
        if ((vk == K::kExpressionList || vk == K::kTuple) && binding.pattern_size != 0 &&
            binding.pattern_size == value.NamedChildCount()) {
          // `a, b = f(x), g(y)`: each name is bound to its own element.
          kind = TensorKindDepth(value.NamedChild(static_cast<uint32_t>(binding.position)), binding.scope, depth + 1);
        } else if (TensorKindDepth(binding.value, binding.scope, depth + 1) == TensorKind::kTensor) {
          kind = TensorKind::kTensor;  // `logits, aux = model(x)`, `x, y = batch`
        }
      }
      break;
    case BindingKind::kParameter:
      if (param_arrays_ &&
          std::find(array_names_.begin(), array_names_.end(),
                    std::pair<int, std::string_view>(binding.scope, binding.name)) != array_names_.end()) {
        kind = TensorKind::kTensor;
      } else if (const ts::Node type = Field(binding.target.Parent(), F::kType); !type.IsNull()) {
        // `def update(self, tokens: Tensor, logits: torch.Tensor)`: annotated with torch's tensor class
        // (`torch.LongTensor` too); not `Optional[Tensor]`, which may hold None.
        const ts::Node annotation = Unparen(type.NamedChildCount() == 1 ? type.NamedChild(0) : type);
        const K ak = KindOf(annotation);
        if (ak == K::kIdentifier || ak == K::kAttribute) {
          const std::string canonical = CanonicalName(annotation);
          if (canonical.starts_with("torch.") && canonical.ends_with("Tensor") &&
              canonical.find('.', 6) == std::string::npos) {
            kind = TensorKind::kTensor;
          }
        }
      }
      break;
    case BindingKind::kLoopTarget: {
      if (binding.loop < 0) break;
      ts::Node iterable = Unparen(loops_[static_cast<size_t>(binding.loop)].iterable);
      ts::Node callee = KindOf(iterable) == K::kCall ? Unparen(Field(iterable, F::kFunction)) : ts::Node();
      const std::string_view callee_name = Text(callee);
      const std::string_view method = KindOf(callee) == K::kAttribute ? Text(Field(callee, F::kAttribute)) : "";
      if (callee_name == "range") {
        kind = TensorKind::kNotTensor;
      } else if (method == "parameters" || (method == "named_parameters" && binding.position == 1)) {
        kind = TensorKind::kTensor;  // `for name, p in model.named_parameters():` a parameter
      } else if (binding.position == -1 && ParamGroupParams(iterable, binding.scope)) {
        kind = TensorKind::kTensor;  // `for p in group["params"]:` a parameter
      } else if (callee_name == "enumerate" && binding.position == 0) {
        kind = TensorKind::kNotTensor;  // the step counter
      } else if (IsDataLoaderLike(iterable, binding.scope)) {
        kind = TensorKind::kTensor;  // a batch, or a field of one
      } else if (IteratesTensors(iterable, binding.position, binding.scope, depth)) {
        kind = TensorKind::kTensor;  // `for t_cur, t_next in zip(t_steps[:-1], t_steps[1:]):` 0-dim tensors
      }
      break;
    }
    default: break;
  }
  return kind;
}

bool Model::IteratesTensors(ts::Node iterable, int position, int scope, int depth) const {
  // Iterating a tensor gives its rows (tensors); `zip(a, b)` gives one of each per iteration, and
  // `enumerate(x)` a counter and one of x. `position` is the loop target's (BindTarget's): -1 the whole
  // element, i the i-th name of a flat pattern, 100 + i a name nested in the i-th element.
  if (depth > 12) return false;
  iterable = Unparen(iterable);
  if (position == -1) {
    // Not a field of a loader's batch (`labels` of `for images, labels in loader`): that is a tensor only
    // by assumption, and a list of strings as often.
    ts::Node base = iterable;
    while (KindOf(base) == K::kSubscript) base = Unparen(Field(base, F::kValue));
    if (KindOf(base) == K::kIdentifier) {
      for (const Binding& binding : BindingsOf(Text(base))) {
        if (binding.kind == BindingKind::kLoopTarget && (binding.scope == scope || binding.scope == 0)) return false;
      }
    }
    return TensorKindDepth(iterable, scope, depth + 1) == TensorKind::kTensor;
  }
  if (KindOf(iterable) != K::kCall) return false;
  const ts::Node callee = Unparen(Field(iterable, F::kFunction));
  const ts::Node args = Field(iterable, F::kArguments);
  if (KindOf(callee) != K::kIdentifier || KindOf(args) != K::kArgumentList || Shadowed(Text(callee))) return false;
  const uint32_t count = args.NamedChildCount();
  if (Text(callee) == "enumerate" && count >= 1) {
    if (position == 1) return IteratesTensors(args.NamedChild(0), -1, scope, depth + 1);
    // `for i, (a, b) in enumerate(zip(x, y))`: a name inside the zip's tuple, every input a tensor.
    return position == 101 && IteratesTensors(args.NamedChild(0), 100, scope, depth + 1);
  }
  if (Text(callee) != "zip" || count == 0) return false;
  if (position >= 0 && static_cast<uint32_t>(position) < count) {
    return IteratesTensors(args.NamedChild(static_cast<uint32_t>(position)), -1, scope, depth + 1);
  }
  if (position != 100) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (!IteratesTensors(args.NamedChild(i), -1, scope, depth + 1)) return false;
  }
  return true;
}

bool Model::ParamGroupParams(ts::Node iterable, int scope) const {
  // `group["params"]` with `group` the target of a loop over `self.param_groups` (an optimizer's own
  // groups) or `optimizer.param_groups`: the list of parameter tensors of one group.
  if (KindOf(iterable) != K::kSubscript) return false;
  const ts::Node group = Unparen(Field(iterable, F::kValue));
  const ts::Node key = Unparen(Field(iterable, F::kSubscript));
  if (KindOf(group) != K::kIdentifier || StringContent(key, source_) != std::optional<std::string_view>("params"))
    return false;
  const Binding* binding = ReachingBinding(group, scope);
  if (binding == nullptr || binding->kind != BindingKind::kLoopTarget || binding->loop < 0 || binding->position != -1) {
    return false;
  }
  const ts::Node groups = Unparen(loops_[static_cast<size_t>(binding->loop)].iterable);
  return KindOf(groups) == K::kAttribute && Text(Field(groups, F::kAttribute)) == "param_groups";
}

Placement Model::PlacementOf(ts::Node expr, int scope) const { return PlacementDepth(expr, scope, 0); }

const Model::Binding* Model::ReachingOnEveryPath(ts::Node name, int scope) const {
  const Binding* reaching = ReachingBinding(name, scope);
  if (reaching == nullptr) return nullptr;
  const std::span<const Binding> all = BindingsOf(Text(name));
  if (reaching->kind == BindingKind::kAssign) {
    if (reaching != DominatingAssignment(all, name, scope)) return nullptr;  // a branch's, or a tuple's
  } else if (reaching->kind == BindingKind::kLoopTarget && reaching->loop >= 0) {
    if (!loops_[static_cast<size_t>(reaching->loop)].body.Range().Contains(name.Range())) return nullptr;
  } else {
    return nullptr;
  }
  // A binding in a loop that holds the use but not the reaching binding reaches the use again on that
  // loop's next iteration (`for j in ...: use(x); x = x.cuda()`).
  for (const Loop& loop : loops_) {
    if (loop.scope != scope || !loop.node.Range().Contains(name.Range()) ||
        loop.node.Range().Contains(reaching->target.Range())) {
      continue;
    }
    for (const Binding& b : all) {
      if (&b != reaching && b.scope == scope && loop.node.Range().Contains(b.target.Range())) return nullptr;
    }
  }
  return reaching;
}

Placement Model::PlacementDepth(ts::Node expr, int scope, int depth) const {
  if (depth > 12) return Placement::kUnknown;
  expr = Unparen(expr);
  switch (KindOf(expr)) {
    case K::kCall: {
      ts::Node callee = Unparen(Field(expr, F::kFunction));
      if (KindOf(callee) == K::kAttribute) {
        const std::string_view method = Text(Field(callee, F::kAttribute));
        if (method == "cuda") return Placement::kDevice;
        if (method == "cpu") return Placement::kHost;
        if (method == "to") {
          const Site* site = SiteOf(expr);
          if (site == nullptr) return Placement::kUnknown;
          const auto device = FindArgument(*site, "device", 0);
          if (!device) return Placement::kUnknown;  // .to(dtype) keeps the placement, .to(other) follows it
          const Value value = Resolve(device->value, scope);
          if (value.kind == ValueKind::kString) {
            return value.string_value == "cpu" ? Placement::kHost : Placement::kDevice;
          }
          return Placement::kUnknown;
        }
      }
      const std::string canonical = CanonicalName(callee);
      if (!canonical.starts_with("torch.")) {
        // A function of the file or of another module of the project: where its return value lives.
        if (const Site* site = SiteOf(expr); site != nullptr) {
          if (const Placement returned = CallReturnPlacement(*site, -1, depth); returned != Placement::kUnknown) {
            return returned;
          }
        }
        // A tensor method keeps the tensor where it is: `x.float()`, `x.sum()`.
        if (KindOf(callee) == K::kAttribute) return PlacementDepth(Field(callee, F::kObject), scope, depth + 1);
        return Placement::kUnknown;
      }
      // A factory: from host data (`torch.tensor(values)`), or from none (Model::DataFreeFactory, whose
      // `*_like` forms follow their input instead).
      static constexpr std::array<std::string_view, 3> kFromData = {"torch.tensor", "torch.as_tensor",
                                                                    "torch.from_numpy"};
      const std::string_view factory = std::string_view(canonical).substr(6);  // after "torch."
      if (!OneOf(canonical, kFromData) && (!DataFreeFactoryName(factory) || factory.ends_with("_like"))) {
        return Placement::kUnknown;
      }
      const Site* site = SiteOf(expr);
      if (site == nullptr) return Placement::kUnknown;
      if (const auto device = FindArgument(*site, "device", -1)) {
        const Value value = Resolve(device->value, scope);
        if (value.kind == ValueKind::kString) {
          return value.string_value == "cpu" ? Placement::kHost : Placement::kDevice;
        }
        return Placement::kUnknown;
      }
      // No `device=`: the default device, the host unless the file changes it.
      if (sets_default_device_ || KwargsLookupIn(*site, "device").presence != KeyPresence::kAbsent) {
        return Placement::kUnknown;
      }
      return Placement::kHost;
    }
    case K::kSubscript: return PlacementDepth(Field(expr, F::kValue), scope, depth + 1);
    case K::kUnary: return PlacementDepth(Field(expr, F::kArgument), scope, depth + 1);  // `-torch.ones(n)`
    case K::kIdentifier: {
      if (!comprehension_targets_.empty()) {
        if (const ComprehensionTarget* target = ComprehensionBinding(expr)) {
          const ts::Node source = ComprehensionSource(*target);
          return source.IsNull() ? Placement::kUnknown : PlacementDepth(source, scope, depth + 1);
        }
      }
      const Binding* binding = SingleBinding(Text(expr), scope);
      if (binding == nullptr) binding = InPlaceBase(Text(expr), scope);
      if (binding == nullptr) binding = ReachingOnEveryPath(expr, scope);
      if (binding == nullptr || binding->value == expr) return Placement::kUnknown;
      if (binding->kind == BindingKind::kLoopTarget) {
        // A batch (or a field of one) of a loop whose body moves its batches to the device itself.
        const bool host = binding->loop >= 0 && loops_[static_cast<size_t>(binding->loop)].host_batch;
        return host ? Placement::kHost : Placement::kUnknown;
      }
      if (binding->kind != BindingKind::kAssign) return Placement::kUnknown;
      if (binding->position == -1) return PlacementDepth(binding->value, binding->scope, depth + 1);
      // `loss, parts = compute_loss(...)`, `a, b = x.cpu(), y`: one element of what is unpacked.
      const ts::Node value = Unparen(binding->value);
      const K vk = KindOf(value);
      if ((vk == K::kExpressionList || vk == K::kTuple) && binding->pattern_size != 0 &&
          binding->pattern_size == value.NamedChildCount()) {
        return PlacementDepth(value.NamedChild(static_cast<uint32_t>(binding->position)), binding->scope, depth + 1);
      }
      // `[lr_in, lr_out] = data_info` with `data_info` a field of a host loader's batch: the elements of a
      // value that lives in one place live there too (what is known of a name is never a mix).
      if (vk == K::kIdentifier || vk == K::kAttribute || vk == K::kSubscript) {
        return PlacementDepth(value, binding->scope, depth + 1);
      }
      const Site* call = vk == K::kCall && binding->pattern_size != 0 ? SiteOf(value) : nullptr;
      return call != nullptr ? CallReturnPlacement(*call, binding->position, depth + 1) : Placement::kUnknown;
    }
    default: return Placement::kUnknown;
  }
}

Placement Model::CallReturnPlacement(const Site& call, int position, int depth) const {
  if (call.kind != SiteKind::kCall || depth > 12) return Placement::kUnknown;
  if (const std::vector<int>* local = LocalCallees(call)) {
    // A function of the file: every `return` that gives a value agrees.
    if (local->size() != 1) return Placement::kUnknown;
    const int function = local->front();
    std::optional<Placement> placement;
    for (ts::Node value : ReturnsOf(function)) {
      value = Unparen(value);
      if (value.IsNull() || KindOf(value) == K::kNone) continue;
      const K k = KindOf(value);
      const bool tuple = k == K::kExpressionList || k == K::kTuple;
      Placement p = Placement::kUnknown;
      if (position < 0 || !tuple) {
        p = PlacementDepth(value, function, depth + 1);  // a host tensor's elements are on the host too
      } else if (static_cast<uint32_t>(position) < value.NamedChildCount()) {
        p = PlacementDepth(value.NamedChild(static_cast<uint32_t>(position)), function, depth + 1);
      }
      placement = !placement || *placement == p ? p : Placement::kUnknown;
      if (*placement == Placement::kUnknown) break;
    }
    return placement.value_or(Placement::kUnknown);
  }
  if (project_ == nullptr || self_summary_ == nullptr) return Placement::kUnknown;
  // The first callee the index knows (of the modules a bare name may come from, the one that has it).
  for (const Callee& callee : ProjectCallees(call)) {
    if (const auto found = ResolveCallee(callee))
      return static_cast<Placement>(project_->ReturnPlacement(*found, position));
  }
  return Placement::kUnknown;
}

}  // namespace tl::semantic
