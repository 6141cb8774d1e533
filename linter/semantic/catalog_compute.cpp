// Facts for the compute and evaluation rules (TL302-TL406): where autograd is off, which loops call the
// model and after `model.eval()`, what module a `self.x` holds, and whether a module's attribute is
// read anywhere in the file.
#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "linter/semantic/builder.h"

namespace tl::semantic {
namespace {

// `torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(False)` (also bare decorators
// `@torch.no_grad`): a context or decorator under which autograd records nothing.
bool DisablesGrad(const Model& m, ts::Node expr, int scope) {
  expr = Unparen(expr);
  if (expr.Is("as_pattern")) expr = Unparen(expr.NamedChild(0));
  ts::Node callee = expr;
  ts::Node args;
  if (KindOf(expr) == K::kCall) {
    callee = Unparen(Field(expr, F::kFunction));
    args = Field(expr, F::kArguments);
  }
  const std::string canonical = m.CanonicalName(callee);
  if (!canonical.starts_with("torch.")) return false;
  const std::string_view last = LastSegment(canonical);
  ts::Node first = (!args.IsNull() && args.NamedChildCount() > 0) ? args.NamedChild(0) : ts::Node();
  if (!first.IsNull() && KindOf(first) == K::kKeywordArgument) first = Field(first, F::kValue);
  if (last == "no_grad") return true;
  if (last == "inference_mode") {
    if (first.IsNull()) return true;
    const auto truthy = m.Resolve(first, scope).Truthy();
    return !truthy.has_value() || *truthy;
  }
  if (last == "set_grad_enabled" && !first.IsNull()) {
    const auto truthy = m.Resolve(first, scope).Truthy();
    return truthy.has_value() && !*truthy;
  }
  return false;
}

// Names of options and config fields that select mixed precision (`--amp`, `cfg.fp16`, `use_bf16`).
bool PrecisionOptionName(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kNames = {
      "amp", "fp16", "bf16", "half", "mixed_precision", "precision", "dtype", "autocast", "float16"};
  for (std::string_view n : kNames) {
    if (name == n || (name.size() > n.size() && name.ends_with(n) &&
                      (name[name.size() - n.size() - 1] == '_' || name[name.size() - n.size() - 1] == '-'))) {
      return true;
    }
  }
  return name.starts_with("use_amp") || name.starts_with("amp_") || name.starts_with("fp16_") ||
         name.starts_with("bf16_");
}

// A framework precision argument that keeps fp32: `precision=32`, `"32-true"`, `mixed_precision="no"`,
// `fp16=False`.
bool KeepsFp32(const Value& v) {
  if (v.kind == ValueKind::kInt) return v.int_value == 32 || v.int_value == 64;
  if (v.kind == ValueKind::kBool) return v.int_value == 0;
  if (v.kind == ValueKind::kNone) return true;
  if (v.kind == ValueKind::kString) {
    return v.string_value == "32" || v.string_value == "32-true" || v.string_value == "no" || v.string_value == "64" ||
           v.string_value == "64-true" || v.string_value == "fp32";
  }
  return false;
}

}  // namespace

void Builder::FindCatalogFacts() {
  uint32_t facts = 0;
  ts::Node framework;
  int conv2d_layers = 0;
  int named_conv2d = 0;
  m_.class_conv2d_.clear();
  for (const Site& site : m_.sites_) {
    if (site.kind != SiteKind::kCall) continue;
    const std::string_view canonical = m_.CalleeCanonical(site);
    const std::string_view last = LastSegment(canonical.empty() ? m_.Text(site.callee) : canonical);
    if (canonical == "torch.autocast" || canonical.starts_with("torch.amp.") ||
        canonical.starts_with("torch.cuda.amp.") || canonical.starts_with("torch.cpu.amp.") ||
        canonical == "torch.GradScaler" || (site.name == "autocast" && KindOf(site.callee) == K::kAttribute)) {
      facts |= kFactMixedPrecision;
    }
    if ((site.name == "half" || site.name == "bfloat16") && KindOf(site.callee) == K::kAttribute) {
      facts |= kFactMixedPrecision;
    }
    if (canonical == "torch.set_float32_matmul_precision") {
      const auto arg = m_.FindArgument(site, "precision", 0);
      const Value v = arg ? m_.Resolve(arg->value, site.scope) : Value{};
      if (v.kind == ValueKind::kString && v.string_value == "highest") {
        m_.tf32_disables_.push_back(site.node);
      } else if (v.kind == ValueKind::kString || !v.known()) {
        facts |= kFactTf32;
      }
    }
    if (canonical.starts_with("torch.nn.") &&
        (last == "Conv1d" || last == "Conv2d" || last == "Conv3d" || last.starts_with("ConvTranspose"))) {
      facts |= kFactConv;
      // One Conv2d is a ViT's patch embedding, not a conv net: channels-last is for nets of them.
      if ((last == "Conv2d" || last == "ConvTranspose2d") && ++conv2d_layers >= 2) facts |= kFactConv2d;
      // For the project summary: the layers of each class of the module, and those of classes the file
      // names again (a conv stem a ViT file defines and never uses is not named again).
      if (last == "Conv2d" || last == "ConvTranspose2d") {
        int cls = site.scope;
        while (cls > 0 && !(m_.scopes_[static_cast<size_t>(cls)].kind == ScopeKind::kClass &&
                            m_.scopes_[static_cast<size_t>(cls)].parent == 0)) {
          cls = m_.scopes_[static_cast<size_t>(cls)].parent;
        }
        if (cls > 0) {
          const std::string_view name = m_.scopes_[static_cast<size_t>(cls)].name;
          auto it = std::find_if(m_.class_conv2d_.begin(), m_.class_conv2d_.end(),
                                 [&](const auto& entry) { return entry.first == name; });
          if (it == m_.class_conv2d_.end()) it = m_.class_conv2d_.insert(it, {name, 0});
          ++it->second;
        }
        if (cls <= 0 || NameCount(m_.source_, m_.scopes_[static_cast<size_t>(cls)].name) > 1) ++named_conv2d;
      }
    }
    if (canonical.starts_with("torchvision.models.")) {
      static constexpr std::array<std::string_view, 14> kConvNets = {
          "resnet",   "resnext", "wide_resnet", "vgg",       "densenet",  "mobilenet",  "efficientnet",
          "convnext", "regnet",  "alexnet",     "googlenet", "inception", "squeezenet", "shufflenet"};
      for (std::string_view net : kConvNets) {
        if (last.starts_with(net)) {
          facts |= kFactConv | kFactConv2d;
          named_conv2d += 2;
        }
      }
    }
    // Framework training, and its precision argument.
    const TrainingFramework trainer = TrainingFrameworkOf(canonical);
    if (trainer != TrainingFramework::kNone) {
      const bool accelerator = trainer == TrainingFramework::kAccelerate;
      if (framework.IsNull()) framework = site.node;
      if (last == "LightningCLI") {
        facts |= kFactMixedPrecision;  // the precision is a command-line flag, `--trainer.precision`
      } else {
        const auto arg = m_.FindArgument(site, accelerator ? "mixed_precision" : "precision", -1);
        if (arg && !KeepsFp32(m_.Resolve(arg->value, site.scope))) facts |= kFactMixedPrecision;
      }
    }
    if (last == "TrainingArguments" || last == "Seq2SeqTrainingArguments") {
      for (std::string_view key : {"fp16", "bf16"}) {
        const auto arg = m_.FindArgument(site, key, -1);
        if (arg && !KeepsFp32(m_.Resolve(arg->value, site.scope))) facts |= kFactMixedPrecision;
      }
    }
  }
  // Written flags: `torch.backends.cudnn.benchmark = ...`, `...allow_tf32 = True`.
  for (const Model::Binding& binding : m_.bindings_) {
    if (binding.kind != Model::BindingKind::kAssign || KindOf(binding.target) != K::kAttribute) continue;
    const std::string canonical = m_.CanonicalName(binding.target);
    if (canonical == "torch.backends.cudnn.benchmark") facts |= kFactCudnnBenchmark;
    if (canonical == "torch.backends.cuda.matmul.allow_tf32" || canonical == "torch.backends.cudnn.allow_tf32") {
      const auto truthy = m_.Resolve(binding.value, binding.scope).Truthy();
      if (truthy.has_value() && *truthy && canonical.find("matmul") != std::string::npos) facts |= kFactTf32;
      if (truthy.has_value() && !*truthy) m_.tf32_disables_.push_back(binding.target.Parent());
      if (!truthy.has_value() && canonical.find("matmul") != std::string::npos) facts |= kFactTf32;
    }
  }
  // `torch.channels_last`, `torch.float16`/`torch.bfloat16` dtypes anywhere (`.to(dtype=torch.bfloat16)`):
  // the outermost attributes of those names, which the walk collected.
  for (const ts::Node node : precision_attributes_) {
    const std::string canonical = m_.CanonicalName(node);
    if (canonical == "torch.channels_last") facts |= kFactChannelsLast;
    if (canonical == "torch.float16" || canonical == "torch.bfloat16" || canonical == "torch.half") {
      facts |= kFactMixedPrecision;
    }
  }
  // Options and config fields that select precision: the code has AMP behind a flag.
  for (const Model::ArgparseDefault& option : m_.argparse_) {
    if (PrecisionOptionName(option.dest)) facts |= kFactMixedPrecision;
  }
  for (const Model::ConfigClass& klass : m_.config_classes_) {
    if (!klass.config) continue;
    for (const Model::ConfigField& field : klass.fields) {
      if (PrecisionOptionName(field.name)) facts |= kFactMixedPrecision;
    }
  }
  std::sort(m_.tf32_disables_.begin(), m_.tf32_disables_.end(),
            [](ts::Node a, ts::Node b) { return a.StartByte() < b.StartByte(); });
  m_.catalog_facts_ = facts;
  m_.own_facts_ = m_.OwnCatalogFacts() | facts;
  m_.summary_conv2d_ = named_conv2d >= 2;
  if (!TakeTrainingLoop() && !framework.IsNull()) m_.training_ = {framework, framework.Range(), -1};
}

bool Builder::TakeTrainingLoop() {
  for (size_t i = 0; i < m_.loops_.size(); ++i) {
    const Loop& loop = m_.loops_[i];
    if (loop.role == LoopRole::kStep && loop.cadence == Cadence::kTrainingStep &&
        !m_.scopes_[static_cast<size_t>(loop.scope)].runs_per_step) {
      const ts::Node end = loop.iterable.IsNull() ? loop.body : loop.iterable;
      m_.training_ = {loop.node, {loop.node.StartByte(), end.EndByte()}, static_cast<int>(i)};
      return true;
    }
  }
  return false;
}

uint32_t Model::FileFacts() const { return catalog_facts_; }

bool Model::GradDisabledAt(ts::Node node) const {
  std::vector<ts::Node> work{node};
  std::vector<char> seen(scopes_.size(), 0);
  while (!work.empty()) {
    const ts::Node at = work.back();
    work.pop_back();
    const int scope = ScopeAt(at.StartByte());
    const ts::Node scope_node = scopes_[static_cast<size_t>(scope)].node;
    for (ts::Node p = at.Parent(); !p.IsNull() && p.StartByte() >= scope_node.StartByte(); p = p.Parent()) {
      if (KindOf(p) == K::kFunction || KindOf(p) == K::kClass || KindOf(p) == K::kLambda) break;
      if (KindOf(p) != K::kWith) continue;
      for (ts::Node clause : p.NamedChildren()) {
        if (!clause.Is("with_clause")) continue;
        for (ts::Node item : clause.NamedChildren()) {
          if (item.Is("with_item") && DisablesGrad(*this, item.Field("value"), scope)) return true;
        }
      }
    }
    // `torch.set_grad_enabled(False)` called as a statement earlier in the same function (or module).
    for (uint32_t index : CallsNamed("set_grad_enabled")) {
      const Site& call = sites_[index];
      if (call.scope == scope && call.node.EndByte() <= at.StartByte() &&
          KindOf(call.node.Parent()) == K::kExpressionStatement && DisablesGrad(*this, call.node, scope)) {
        return true;
      }
    }
    const Scope& s = scopes_[static_cast<size_t>(scope)];
    if (s.kind != ScopeKind::kFunction || seen[static_cast<size_t>(scope)]) continue;
    seen[static_cast<size_t>(scope)] = 1;
    if (const ts::Node decorated = s.decorated; !decorated.IsNull()) {
      for (ts::Node child : decorated.NamedChildren()) {
        if (KindOf(child) == K::kDecorator && child.NamedChildCount() > 0 &&
            DisablesGrad(*this, child.NamedChild(0), s.parent)) {
          return true;
        }
      }
    }
    for (const auto& [index, callees] : local_calls_) {
      if (std::find(callees.begin(), callees.end(), scope) != callees.end()) work.push_back(sites_[index].node);
    }
  }
  return false;
}

bool Model::LoopCallsModel(int loop) const {
  const Loop& outer = loops_[static_cast<size_t>(loop)];
  // A module the file switches to evaluation or training mode (`encoder.eval()`), whatever it was loaded
  // from (`encoder = checkpoint["encoder"]`): only nn.Module has those methods without arguments.
  std::vector<std::string_view> switched;
  for (std::string_view method : {"eval", "train"}) {
    for (uint32_t index : CallsNamed(method)) {
      const Site& site = sites_[index];
      const ts::Node args = site.Arguments();
      const K receiver = KindOf(Unparen(site.Receiver()));
      if (KindOf(site.callee) == K::kAttribute && (args.IsNull() || args.NamedChildCount() == 0) &&
          (receiver == K::kIdentifier || receiver == K::kAttribute)) {
        switched.push_back(Text(Unparen(site.Receiver())));
      }
    }
  }
  bool any = !switched.empty();
  for (const Loop& inner : loops_) {
    if (inner.scope != outer.scope || inner.node.StartByte() < outer.node.StartByte() ||
        inner.node.EndByte() > outer.node.EndByte()) {
      continue;
    }
    any = any || (inner.evidence & kModelCall) != 0;
  }
  if (!any) return false;
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || site.scope != outer.scope || site.node.StartByte() < outer.body.StartByte() ||
        site.node.EndByte() > outer.body.EndByte()) {
      continue;
    }
    const bool module = std::find(switched.begin(), switched.end(), Text(site.callee)) != switched.end() ||
                        IsModelLike(site.callee, site.scope, 0);
    if (module && !GradDisabledAt(site.node)) return true;
  }
  return false;
}

bool Model::EvalModeBefore(int scope, uint32_t offset) const {
  for (uint32_t index : CallsNamed("eval")) {
    const Site& site = sites_[index];
    if (site.scope != scope || site.node.StartByte() >= offset || KindOf(site.callee) != K::kAttribute) continue;
    const ts::Node args = site.Arguments();
    if (!args.IsNull() && args.NamedChildCount() > 0) continue;
    if (IsModelLike(Unparen(site.Receiver()), scope, 0)) return true;
  }
  return false;
}

std::optional<Model::ModelSource> Model::StepModelSource(int loop) const {
  if (loop < 0 || static_cast<size_t>(loop) >= loops_.size()) return std::nullopt;
  const Loop& step = loops_[static_cast<size_t>(loop)];
  if (step.body.IsNull()) return std::nullopt;
  // The module inside wrappers and the module methods that return it, as SameObject takes them off, and
  // also `torch.compile(model)`, FSDP and SyncBatchNorm's conversion (which returns the module with its batch
  // norms replaced; the convolutions keep their weights). `wrapped`: a wrapper was taken off.
  auto unwrap = [&](ts::Node expr, bool& wrapped) {
    for (int depth = 0; depth < 8; ++depth) {
      expr = Unparen(expr);
      if (KindOf(expr) != K::kCall) break;
      const Site* call = SiteOf(expr);
      const std::string_view canonical = call != nullptr && call->kind == SiteKind::kCall ? CalleeCanonical(*call)
                                                                                          : std::string_view();
      const bool wrapper = ModuleWrapper(canonical) || canonical == "torch.compile" ||
                           canonical == "torch.distributed.fsdp.FullyShardedDataParallel";
      if (wrapper || canonical == "torch.nn.SyncBatchNorm.convert_sync_batchnorm") {
        const ts::Node args = Field(expr, F::kArguments);
        if (args.IsNull() || args.NamedChildCount() == 0 || KindOf(args.NamedChild(0)) == K::kKeywordArgument) break;
        wrapped = wrapped || wrapper;
        expr = args.NamedChild(0);
        continue;
      }
      const ts::Node function = Field(expr, F::kFunction);
      if (KindOf(function) != K::kAttribute || !ReturnsSelfModule(Text(Field(function, F::kAttribute)))) break;
      expr = Field(function, F::kObject);
    }
    return expr;
  };
  const TextRange body = step.body.Range();
  for (const Site& site : sites_) {
    if (site.kind != SiteKind::kCall || site.scope != step.scope || !body.Contains(site.node.Range())) continue;
    // `model(x)`, or `model.forward(x)`.
    ts::Node callee = Unparen(site.callee);
    if (KindOf(callee) == K::kAttribute && Text(Field(callee, F::kAttribute)) == "forward") {
      callee = Unparen(Field(callee, F::kObject));
    }
    if (KindOf(callee) != K::kIdentifier || !IsModelLike(callee, site.scope, 0)) continue;
    // Back through `model = DDP(model)`, `model = model.cuda()`, `model = DDP(net)` to the statement that
    // builds the bare module, and from a parameter of the loop's function to the one call of the file that
    // fills it with a name (`train(model, loader)`).
    const Binding* built = nullptr;
    ts::Node current = callee;
    int scope = site.scope;
    for (int depth = 0; depth < 8 && built == nullptr; ++depth) {
      const Binding* binding = ReachingOnEveryPath(current, scope);
      if (binding == nullptr) {
        const Binding* parameter = ReachingBinding(current, scope);
        if (parameter == nullptr || parameter->kind != BindingKind::kParameter) return std::nullopt;
        const std::vector<uint32_t> callers = CallersOf(parameter->scope);
        const int position = ParameterPosition(*parameter);
        if (callers.size() != 1 || position < 0) return std::nullopt;
        const Site& call = sites_[callers.front()];
        const auto argument = FindArgument(call, parameter->name, position);
        if (!argument || KindOf(Unparen(argument->value)) != K::kIdentifier) return std::nullopt;
        current = Unparen(argument->value);
        scope = call.scope;
        continue;
      }
      if (binding->kind != BindingKind::kAssign || binding->position != -1 || binding->statement_end == 0 ||
          KindOf(binding->target) != K::kIdentifier) {
        return std::nullopt;
      }
      bool wrapped = false;
      const ts::Node inner = unwrap(binding->value, wrapped);
      if (KindOf(inner) == K::kIdentifier) {
        current = inner;
      } else if (wrapped) {
        return std::nullopt;  // `model = DDP(Net().cuda())`: no statement holds the bare module
      } else {
        built = binding;
      }
    }
    if (built == nullptr) return std::nullopt;
    ModelSource source{built->target, built->statement_end, nullptr};
    // The input: the call's first positional argument, moved in the call or by a statement of the loop. Not
    // the others: a second argument can be targets or a mask, and `memory_format=torch.channels_last` raises
    // on a tensor that is not 4-D.
    const ts::Node args = site.Arguments();
    if (args.IsNull() || args.NamedChildCount() == 0) return source;
    ts::Node input = Unparen(args.NamedChild(0));
    if (KindOf(input) == K::kIdentifier) {
      const Binding* moved = ReachingOnEveryPath(input, site.scope);
      if (moved == nullptr || moved->kind != BindingKind::kAssign || moved->position != -1 ||
          moved->statement_end == 0 || !body.Contains(moved->target.Range())) {
        return source;
      }
      input = Unparen(moved->value);
    }
    if (KindOf(input) != K::kCall) return source;
    const Site* move = SiteOf(input);
    if (move != nullptr && MovesToDevice(*move) && !FindArgument(*move, "memory_format", -1)) source.input_move = move;
    return source;
  }
  return std::nullopt;
}

const Site* Model::ConstructorOf(ts::Node expr, int scope) const {
  expr = Unparen(expr);
  if (KindOf(expr) == K::kCall) return SiteOf(expr);
  const Binding* found = nullptr;
  if (KindOf(expr) == K::kIdentifier) {
    found = SingleBinding(Text(expr), scope);
  } else if (KindOf(expr) == K::kAttribute && Text(Unparen(Field(expr, F::kObject))) == "self") {
    // The class around the method: `self.conv` is the one assignment to it in that class's methods.
    const int klass = scopes_[static_cast<size_t>(scope)].parent;
    if (klass < 0 || scopes_[static_cast<size_t>(klass)].kind != ScopeKind::kClass) return nullptr;
    // Scopes are numbered in preorder: the class's methods are among the scopes that follow it up to
    // the first one outside it.
    int last = klass;
    while (static_cast<size_t>(last) + 1 < scopes_.size() && scopes_[static_cast<size_t>(last) + 1].node.StartByte() <
                                                                 scopes_[static_cast<size_t>(klass)].node.EndByte()) {
      ++last;
    }
    int count = 0;
    for (const uint32_t index : BindingsIn(Text(expr), klass + 1, last)) {
      const Binding& binding = bindings_[index];
      if (scopes_[static_cast<size_t>(binding.scope)].parent != klass) continue;
      ++count;
      found = &binding;
    }
    if (count != 1) return nullptr;
  }
  if (found == nullptr || found->kind != BindingKind::kAssign || found->position != -1) return nullptr;
  if (KindOf(Unparen(found->value)) != K::kCall) return nullptr;
  return SiteOf(Unparen(found->value));
}

std::vector<ts::Node> Model::ListsWrittenTo(ts::Node name, int scope) const {
  std::vector<ts::Node> out;
  name = Unparen(name);
  if (KindOf(name) != K::kIdentifier) return out;
  for (const Binding& binding : BindingsOf(Text(name))) {
    if (binding.scope != scope || binding.position != -1) continue;
    if (binding.kind != BindingKind::kAssign && binding.kind != BindingKind::kAugmented) continue;
    if (KindOf(Unparen(binding.value)) == K::kList) out.push_back(Unparen(binding.value));
  }
  return out;
}

bool Model::ReadsAttribute(std::string_view attribute) const {
  bool read = false;
  ts::Walk(scopes_.front().node, [&](ts::Node node) {
    if (read) return false;
    if (KindOf(node) != K::kAttribute || Text(Field(node, F::kAttribute)) != attribute) return true;
    const ts::Node parent = node.Parent();
    const bool written = KindOf(parent) == K::kAssignment && Field(parent, F::kLeft).StartByte() == node.StartByte() &&
                         Field(parent, F::kLeft).EndByte() == node.EndByte();
    if (!written) read = true;
    return !read;
  });
  return read;
}

std::string_view Model::LocalNameOf(std::string_view canonical_module) const {
  for (size_t i = imports_.size(); i-- > 0;) {
    if (imports_[i].canonical == canonical_module && imports_[i].local.find('.') == std::string_view::npos) {
      return imports_[i].local;
    }
  }
  return {};
}

}  // namespace tl::semantic
