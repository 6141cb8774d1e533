// The semantic model: what rules ask about one file, computed once by a single iterative walk of the
// tree and shared read-only by every rule, the instrumenter and the trace cross-check. It knows the
// file's imports (so rules match canonical names such as `torch.utils.data.DataLoader`, never
// spellings), its scopes and name bindings, every call site, f-string interpolation and branch
// condition with the loop, guard and function around it, which loops are training step loops (once
// per batch), epoch loops or per-element loops, which functions of the file run every step because a
// step loop calls them (transitively), `if step % N == 0` guards with N resolved, constants (module
// and function assignments, dict literals passed as `**kwargs`, argparse defaults read as
// `args.name`), every value an expression can take through the file's config classes, config objects
// and dicts and the arguments at its call sites (ResolveAll), and whether the script can run on CUDA.
// With a project attached, a parameter of a function the file never calls also reads what other files'
// calls pass it: their parsed options' fields (`args.log_interval`), their loaders' `pin_memory`, the
// constants they pass (`num_workers=4`, through `functools.partial` too), and a loader a function of the
// file returns is iterated per epoch when a caller in another file iterates that part of the result so;
// the class of the object they pass (whose `forward`, `__call__` and methods it then follows); where the
// values other modules' functions return live, and the syncs they run on every call, through any number
// of files.
// Anything it cannot resolve stays unknown; it never guesses a value. Nodes borrowed from the tree
// stay valid while the tree lives.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "linter/core/source_file.h"
#include "linter/semantic/project.h"
#include "linter/semantic/syntax.h"
#include "linter/ts/ts.h"

namespace tl::semantic {

// A resolved constant. `origin` is the literal that produced it (null when computed, e.g. `4 * 192`),
// so a fix can point at the definition rather than the use. `source` is where the value is written, what
// a user edits to change it: the origin for a literal, and for arithmetic on one written value and
// literals of the expression itself (`out_channels // 2`) that written value's source; null when the
// value comes from more than one written place (`patch_size**2 * in_chans`) or from the expression alone.
enum class ValueKind : uint8_t { kUnknown, kInt, kFloat, kBool, kNone, kString };
struct Value {
  ValueKind kind = ValueKind::kUnknown;
  int64_t int_value = 0;          // kInt; kBool as 0/1
  double float_value = 0;         // kFloat
  std::string_view string_value;  // kString: the content between the quotes (no escapes decoded)
  ts::Node origin;
  ts::Node source;
  // kUnknown only: an int the model cannot compute but knows to be at least this much on a CUDA run, the
  // product or sum of such values (`opt.workers * torch.cuda.device_count()` with `--workers` defaulting
  // to 4 is at least 4), through `int(...)`; nullopt when nothing is known of it.
  std::optional<int64_t> at_least;

  bool known() const { return kind != ValueKind::kUnknown; }
  // The value as an integer when it is an int or a bool (True is 1, as Python says).
  std::optional<int64_t> AsInt() const;
  // The least the value can be: AsInt() when known, else `at_least`.
  std::optional<int64_t> LowerBound() const;
  // Python truthiness when known.
  std::optional<bool> Truthy() const;
};

// The `torch.nn` layers whose widths TL401 checks, with the parameters that hold them at positions 0 and
// 1 ("" = none). The summary marks a file whose such layers take a width from a parameter of theirs.
struct WidthLayer {
  std::string_view name;
  std::array<std::string_view, 2> params;
};
inline constexpr std::array<WidthLayer, 8> kWidthLayers = {{
    {"Linear", {"in_features", "out_features"}},
    {"Embedding", {"num_embeddings", "embedding_dim"}},
    {"Conv1d", {"in_channels", "out_channels"}},
    {"Conv2d", {"in_channels", "out_channels"}},
    {"Conv3d", {"in_channels", "out_channels"}},
    {"MultiheadAttention", {"embed_dim", ""}},
    {"LSTM", {"input_size", "hidden_size"}},
    {"GRU", {"input_size", "hidden_size"}},
}};

// What the model can say about an expression's type, as far as syncs go.
enum class TensorKind : uint8_t { kUnknown, kTensor, kNotTensor };
// Where a tensor lives. kHost: made on the host and never moved (`torch.randint(0, 10, (1,))` without
// `device=`, `torch.from_numpy(a)`, `torch.tensor([1, 2])`); reading it back is not a device sync.
// kDevice: a model output, a loss, a parameter, a tensor moved with `.to(device)`/`.cuda()`, a factory
// with a CUDA `device=`. kUnknown: the scope's device decides.
enum class Placement : uint8_t { kUnknown, kHost, kDevice };

// How often code runs, as far as the step goes: on every training step (the step loop, a function it
// calls, a micro-batch loop inside it, a Lightning `training_step`), on every evaluation batch (a loop
// over a loader that does no backward pass, `validation_step`), on every generated token (a decoding
// loop that calls the model), or none of these.
enum class Cadence : uint8_t { kNone, kTrainingStep, kEvaluationBatch, kGenerationStep, kEnvironmentStep };
std::string_view ToString(Cadence cadence);   // "every training step", "every evaluation batch", ...
std::string_view ToChinese(Cadence cadence);  // "每个训练步", "每个评估批次", ...

// Module, function (or lambda) and class bodies. Index 0 is the module.
enum class ScopeKind : uint8_t { kModule, kFunction, kClass };
struct Scope {
  ScopeKind kind = ScopeKind::kModule;
  ts::Node node;          // module, function_definition, lambda or class_definition
  ts::Node decorated;     // the decorated_definition around `node`, if any: node.Parent() costs a descent
  std::string_view name;  // empty for the module and lambdas
  int parent = -1;        // enclosing scope
  // Functions only: true when some step loop runs this function on every step, directly or through
  // other functions of the file (calls under a periodic guard do not count).
  bool runs_per_step = false;
  int step_loop = -1;                // one step loop that reaches it, when runs_per_step (-1 for a per-step hook)
  Cadence cadence = Cadence::kNone;  // when runs_per_step
  // A framework hook the framework calls once per step or batch with no loop in the file: Lightning's
  // `training_step`/`validation_step`/`test_step`/`predict_step` on a LightningModule, a Hugging Face
  // Trainer subclass's `training_step`/`compute_loss`/`prediction_step`.
  Cadence hook = Cadence::kNone;
  // Functions only: a step loop of another file of the project calls this function (or one of the file
  // that calls this one on each call) that often (ProjectIndex::StepEntries), which the file cannot see;
  // `remote_entry` indexes the file's entries (Model::RemoteCallerOf reads it).
  Cadence remote_cadence = Cadence::kNone;
  int remote_entry = -1;
};

enum class LoopKind : uint8_t { kFor, kWhile };
// kStep: the body runs once per batch. kEpoch: the body contains a step loop (or calls a function of
// the file that does). kPerElement: anything else (over layers, parameters, list items...).
enum class LoopRole : uint8_t { kPerElement, kStep, kEpoch };

// Why a loop was taken for a step loop (a bit set).
enum StepEvidence : uint32_t {
  kIteratesLoader = 1u << 0,   // for over a DataLoader, or enumerate/zip/tqdm/iter of one
  kNextBatch = 1u << 1,        // next() on a DataLoader iterator in its body
  kBackward = 1u << 2,         // loss.backward()
  kOptimizerStep = 1u << 3,    // optimizer.step() / scaler.step(optimizer)
  kModelCall = 1u << 4,        // model(x)
  kTrainingHelper = 1u << 5,   // calls a function of the file that does one of the above
  kEnvironmentStep = 1u << 6,  // env.step(action): a reinforcement-learning rollout's environment step
};

struct Loop {
  ts::Node node;  // for_statement or while_statement
  LoopKind kind = LoopKind::kFor;
  LoopRole role = LoopRole::kPerElement;
  int scope = 0;          // enclosing function (or module / class)
  int parent = -1;        // nearest enclosing loop in the same scope
  int epoch_loop = -1;    // step loops: the nearest enclosing epoch loop in the same scope
  uint32_t evidence = 0;  // StepEvidence bits
  // Step loops: what one iteration is (a training step, an evaluation batch, a generated token).
  Cadence cadence = Cadence::kNone;
  ts::Node target;    // for: the `left` pattern (`step, batch`); null for while
  ts::Node iterable;  // for: the `right` expression; while: the condition
  ts::Node body;      // block
  // for: the body moves one of the loop's targets to the device (`x = x.to(device)`, `x.cuda()`), so the
  // iterable yields host tensors, and a target the body does not move stays on the host.
  bool host_batch = false;
};

// The phase a statement of a step loop's body belongs to (what template F labels).
enum class Phase : uint8_t { kOther, kData, kForward, kLoss, kBackward, kOptimizer };
std::string_view ToString(Phase phase);

// An `if` / `elif` branch. The guarded block is the consequence; `else` branches are not guards.
struct Guard {
  ts::Node condition;
  ts::Node block;
  int parent = -1;  // enclosing guard in the same scope
  int scope = 0;
  // True when the branch runs once every N > 1 iterations: `i % N == 0` (also `not i % N`, and
  // under `and`) with N a constant above 1, or N unknown (see TL101's docs for why).
  bool periodic = false;
  Value period;             // N as resolved (unknown when it could not be)
  bool off_device = false;  // the branch runs only when the device is not CUDA (see Site::off_device)
  // The branch ends the run (`sys.exit(1)`, or a `raise` no `try` in the function catches): it runs at
  // most once (`if not math.isfinite(loss.item()): print(...); sys.exit(1)`).
  bool ends_run = false;
  // The branch is never taken: its condition tests a parameter that every call of the function leaves at
  // a default that makes it false (`if criterion is not None:` with `criterion=None`, `if debug:` with
  // `debug=False`), in the file or, with a project, in other files (Model::ParameterNeverTrue).
  bool never = false;
  bool rare() const { return periodic || ends_run || never; }  // not every time the enclosing code runs
  // `if i % N != 0: continue`: the rest of the enclosing block runs once every N iterations; this
  // is that range (empty for ordinary guards).
  TextRange rest;
  uint32_t statement_end = 0;  // where the `if` statement of the branch ends, its `elif`s and `else` included
};

// A place rules care about: a call, an f-string interpolation, an if/elif/while condition, a subscript
// whose index is an expression (`x[mask]`, not `x[0]` or `x[:, 1]`: those never sync), or an `assert`
// statement (its condition is the first named child).
enum class SiteKind : uint8_t { kCall, kInterpolation, kCondition, kSubscript, kAssert };
struct Site {
  ts::Node node;  // call, interpolation, or the condition expression
  // Calls only: the function expression. `name` is its last segment after alias resolution, so
  // `DL(ds)` with `from torch.utils.data import DataLoader as DL` is named "DataLoader".
  ts::Node callee;
  std::string_view name;
  int scope = 0;
  int loop = -1;   // innermost enclosing loop in the same scope
  int guard = -1;  // innermost enclosing guard in the same scope
  // The step loop this site runs under on every step (directly, or in a function called every
  // step); -1 when it does not run every step.
  int step_loop = -1;
  SiteKind kind = SiteKind::kCall;
  Cadence cadence = Cadence::kNone;  // how often it runs (kNone: not every step)
  // Not every step as far as the file shows, but in a function a step loop of another file calls that
  // often (Scope::remote_cadence), outside its periodic guards and epoch loops; Model::RemoteCallerOf
  // says which call. Only with the project index.
  Cadence remote_cadence = Cadence::kNone;
  // Under a branch that only runs off the GPU (`if device.type == "cpu":`, `elif device.type == "npu":`,
  // `if not torch.cuda.is_available():`): whatever it does, it is not a CUDA sync.
  bool off_device = false;

  bool per_step() const { return cadence != Cadence::kNone; }
  // Calls: `x` in `x.item()` (null for plain names), computed on demand to keep the site table small
  // (files have hundreds of thousands of calls); and the `arguments` field, read once by the builder,
  // since the passes ask it of every call several times.
  ts::Node Receiver() const;
  ts::Node Arguments() const { return arguments; }
  ts::Node arguments;  // calls only: the argument_list (or generator_expression)
};

// A host-device sync at a site: what kind (a scalar read, a copy to the host, an explicit sync) and
// the sentence that says so, without its cadence ("`.item()` synchronizes with the GPU").
enum class SyncKind : uint8_t { kScalar, kCopy, kExplicit };
struct SyncOp {
  SyncKind kind = SyncKind::kScalar;
  std::string message;
  std::string message_zh;  // the same sentence in Chinese, for `--lang zh` renderers
  // Found only by taking the function's array parameters for tensors (a summary's implicit syncs): the
  // call syncs when it passes a device tensor.
  bool from_parameters = false;
  std::string parameter{};  // then the parameter read, and its position (ParameterPosition)
  int parameter_position = -1;
  // A Python number assigned through one boolean mask (`logits[logits < v] = -float("inf")`): PyTorch 1.10
  // and later run it as `masked_fill_`, which does not sync; earlier versions index the mask's nonzeros.
  bool mask_fill = false;
};

// An argument of a call as the callee sees it.
struct Argument {
  ts::Node node;   // the keyword_argument, or the positional expression
  ts::Node value;  // the expression passed
};

// What a `**kwargs` splat says about one key.
enum class KeyPresence : uint8_t { kAbsent, kPresent, kUnknown };
struct KeyLookup {
  KeyPresence presence = KeyPresence::kUnknown;
  Value value;    // when present and resolvable
  ts::Node node;  // the pair / keyword that gave it, when present
  // Present on some paths only: one branch of `{...} if c else {}`, or added by an `update` or an item
  // write (which may sit under a condition).
  bool partial = false;
};
// What one dict expression says about a key: the lookup (present or absent), and whether the dict is
// closed (built from literals only, so a key it lacks is absent).
struct DictKeys {
  KeyLookup found;
  bool closed = false;
};

class Model {
 public:
  // Builds the model for a parsed file. Never fails: what cannot be resolved stays unknown. `star` are
  // the names the file's `from m import *` of modules of the project bring (ProjectIndex::StarBindings):
  // imports of the file after its own, which hide none of them.
  static std::unique_ptr<Model> Build(const SourceFile& file, const ts::Tree& tree,
                                      std::span<const ImportSummary> star = {});

  // The node's source text; empty for a null node (fields are often absent in broken code).
  std::string_view Text(ts::Node node) const { return node.IsNull() ? std::string_view() : node.Text(source_); }

  // A node's named children (null-safe).
  ChildList NamedChildren(ts::Node node) const { return ChildList(node); }
  uint32_t NamedChildCount(ts::Node node) const { return node.NamedChildCount(); }
  ts::Node NamedChild(ts::Node node, uint32_t i) const { return node.NamedChild(i); }

  const std::vector<Scope>& Scopes() const { return scopes_; }
  const std::vector<Loop>& Loops() const { return loops_; }
  const std::vector<Guard>& Guards() const { return guards_; }
  // All sites in document order (preorder of the tree).
  const std::vector<Site>& Sites() const { return sites_; }
  // Indices into Sites() of the calls whose resolved last name is `name` ("DataLoader", "item").
  // A scan, not an index: rules ask a handful of names per file, and building an index for every
  // call would cost more than the scans.
  std::vector<uint32_t> CallsNamed(std::string_view name) const;

  // The dotted canonical name of an expression through the file's imports: `tud.DataLoader` ->
  // "torch.utils.data.DataLoader", `nn.Linear` -> "torch.nn.Linear". Empty when the head of the
  // name is not imported.
  std::string CanonicalName(ts::Node expr) const;
  bool IsCanonical(const Site& call, std::string_view canonical) const;
  // CanonicalName(call.callee) of a call of Sites(), computed once per call by the builder: the
  // passes and rules ask it of every call, and each answer walks the attribute chain.
  std::string_view CalleeCanonical(const Site& call) const;

  // Arguments: the keyword `name`, else the positional at `position` (0-based; -1 for none).
  // Splats (`*args`, `**kwargs`) are not looked through here; see KwargsLookupIn.
  std::optional<Argument> FindArgument(const Site& call, std::string_view name, int position) const;
  // Looks `key` up in the call's `**dict` splats. kAbsent when every splat is a resolved closed dict
  // literal without the key (or there is no splat); kUnknown when any splat cannot be resolved.
  KeyLookup KwargsLookupIn(const Site& call, std::string_view key) const;
  // Where a new keyword argument goes: right after the last argument (before any trailing comma), or
  // after `(` when there are none. Returns the text to insert for `keyword=value`, with its comma.
  struct Insertion {
    uint32_t offset = 0;
    std::string text;
  };
  std::optional<Insertion> AppendKeyword(const Site& call, std::string_view keyword, std::string_view value) const;
  // True when the call has a `*args` splat (positions after it are unknown).
  bool HasStarArgs(const Site& call) const;

  // Constant value of an expression seen from `scope`: literals, unary minus, + - * // on ints,
  // names bound once (in the scope, then enclosing ones, then the module), `args.name` read from an
  // argparse default. Unknown otherwise.
  Value Resolve(ts::Node expr, int scope) const;
  // Whether `expr` is the machine's CPU count (`os.cpu_count()`, `multiprocessing.cpu_count()`,
  // `len(os.sched_getaffinity(0))`), directly, through `int(...)`, or through a name bound once to it: a
  // worker count that is at least 1 wherever the code runs.
  bool IsCpuCount(ts::Node expr, int scope) const;
  // Every constant an expression can take seen from `scope`, for rules that report a value where it is
  // written rather than at each use (TL401). Where Resolve needs a single binding, this follows every
  // write that can reach the expression (configs.cpp): the parameters of a function or `__init__` through
  // the arguments at the file's call sites; fields of config objects (`config.vocab_size`, `cfg["x"]`)
  // through the config classes' defaults, the constructors' keyword arguments, attribute and item writes
  // and dicts splatted into a constructor; `self.x` through every write in its class; tables of literals
  // (`configs[size]["out_channels"][1]`); both branches of `a if c else b`; `**` besides + - * //.
  // A possibility it cannot resolve is returned as an unknown Value, so "50257, or something else" is
  // both; equal values from the same source are returned once.
  std::vector<Value> ResolveAll(ts::Node expr, int scope) const;
  // The name a written literal is bound to: the field, dict key, keyword, parameter, variable or
  // argparse option whose value it is (`vocab_size` for `config_args['vocab_size'] = 50257`, the tuple's
  // name for one of its elements); empty when it has none.
  std::string_view WrittenName(ts::Node literal) const;
  TensorKind TensorKindOf(ts::Node expr, int scope) const;
  Placement PlacementOf(ts::Node expr, int scope) const;
  // A tensor not known to live on the host.
  bool IsDeviceTensor(ts::Node expr, int scope) const;
  // A condition whose truth Python reads from a device tensor (`if loss > 10:`, `while not done:`).
  bool IsTensorCondition(ts::Node condition, int scope) const;
  // The host-device sync of a call or f-string interpolation at a site, whatever its cadence; nullopt when
  // it does not sync. Conditions, masks and data-dependent ops are ImplicitSyncAt's.
  std::optional<SyncOp> SyncAt(const Site& site) const;
  // Is the expression a DataLoader, or an iterator / wrapper (enumerate, zip, tqdm, iter) of one?
  bool IsDataLoaderLike(ts::Node expr, int scope) const;
  // A call of the file's or the project's own whose first argument is a loader, which it is taken to
  // yield the batches of (`metric_logger.log_every(data_loader, 10, header)`: a logger's or prefetcher's
  // generator). Third parties' calls are not.
  bool WrapsLoader(ts::Node iterable, int scope) const;

  // Whether the script can run on CUDA, and the first piece of evidence for it: in the file itself, or
  // (with a project attached) in a file of its import component (InheritedCuda says where).
  bool UsesCuda() const { return !cuda_evidence_.IsNull() || !inherited_cuda_.empty(); }
  // Whether the code at `node` runs on CUDA as far as the file tells: UsesCuda, except in the file's
  // `if __name__ == "__main__":` block when the CUDA evidence is another file's that does not come
  // through the file's own imports (a module's self-test, run as its own script, does not load the
  // training script that imports the module).
  bool CudaAt(ts::Node node) const;
  ts::Node CudaEvidence() const { return cuda_evidence_; }
  const std::string& InheritedCuda() const { return inherited_cuda_; }

  // The project: the summary other files read of this one, and the index this file's checks read.
  // `hash`: fill FileSummary::content_hash (else 0).
  FileSummary Summarize(const SourceFile& file, bool hash = true) const;
  // Attaches the project index (which must outlive the model) with this file's module name.
  void AttachProject(const ProjectIndex* project, const std::string& module);
  // The call of another file that makes a site with a `remote_cadence` run that often: the caller's path,
  // line and column, and the function of this file it calls. nullopt for other sites.
  struct RemoteCaller {
    std::string_view path;
    uint32_t line = 0;
    uint32_t column = 0;
    std::string_view function;
  };
  std::optional<RemoteCaller> RemoteCallerOf(const Site& site) const;
  // A call whose callee is a function or method of another file of the project that syncs on every
  // call (with a tensor argument, when what it syncs comes from its parameters): explicitly (`.item()`,
  // `.cpu()`: TL101), or with `implicit`, without a sync call (a condition, an `assert`, a mask, a
  // data-dependent op or a builtin over a device tensor: TL102).
  struct RemoteSync {
    std::string path;
    uint32_t line = 0;
    uint32_t column = 0;
    std::string function;  // "misc.all_reduce_mean", "MetricLogger.update"
    // The function whose sync it is: `function` itself, or one it reaches through other calls of its own
    // (`compute_loss` -> `to_cpu`), in `path`.
    std::string syncing_function;
    std::string message;
    std::string message_zh;
    SyncKind kind = SyncKind::kScalar;
  };
  // `family` kEmptyCache: a function that runs `torch.cuda.empty_cache()` on every call (TL103).
  std::optional<RemoteSync> CrossFileSync(const Site& call, SyncFamily family = SyncFamily::kExplicit) const;
  // Whether a loader built at `loader` pins its memory: `pin_memory=` (or a `**kwargs` key) that is true.
  bool PinsMemory(const Site& loader) const;
  // Whether every loader a batch can come from pins its memory (TL204): the loaders of the file
  // (BatchLoaders), and, with a project attached, the loaders other files pass to a parameter of a
  // function of this file that the file itself never calls (`evaluate(model, val_loader, ...)` from
  // train.py). False when any is unknown or there is none.
  bool BatchFromPinnedLoaders(ts::Node expr, int scope) const;

  // Step loops in document order (indices into Loops()).
  std::vector<int> StepLoops() const;
  // The statements of a loop's body, in order, and the phase of one of them.
  std::vector<ts::Node> BodyStatements(int loop) const;
  Phase PhaseOf(ts::Node statement) const;

  // Rules catalog (TL501-TL901).
  // CatalogFact bits (project.h) of this file alone, and of its import component when a project is
  // attached (the file's own otherwise).
  uint32_t OwnCatalogFacts() const;
  uint32_t ComponentFacts() const;
  bool HasFact(CatalogFact fact) const { return (ComponentFacts() & fact) != 0; }
  // True when a guard around the site (in its scope) has a condition known to be false: a debug flag
  // whose argparse or config default is off (`if args.detect_anomaly:`).
  bool SwitchedOff(const Site& site) const;
  // Whether a condition on a parameter is false on every call of its function (Guard::never): the
  // parameter itself (`if debug:`), or `param is None` / `param is not None`, false for its default, and
  // every call (of the file, and with a project of other files) leaves the parameter out.
  bool ParameterNeverTrue(ts::Node condition, int scope) const;
  // Whether every call of a function of the file is switched off (SwitchedOff): its calls in the file and,
  // with a project attached, those of the project's other files; false when nothing calls it.
  bool CalledOnlySwitchedOff(int function) const;
  // Loops that update parameters by hand on every training step, whose body changes the loop's target `p`
  // (or `p.data`) in place from a gradient (`p.data.add_(p.grad, alpha=-lr)`, `p -= lr * p.grad`, or
  // through names that carry it: `d_p = p.grad; buf.mul_(m).add_(d_p); p.add_(buf, alpha=-lr)`):
  // `for p in model.parameters():` run every step, and the loop of a method of a `torch.optim.Optimizer`
  // subclass of the file (directly or through classes of the file) over the parameters of a group, when a
  // training step calls that method on an instance of the class (`optimizer.step()`,
  // `scaler.step(optimizer)`, SAM's `optimizer.first_step()`); `step` is that call (the first), null for
  // the former.
  struct UpdateLoop {
    int loop = -1;  // index into Loops()
    const Site* step = nullptr;
  };
  std::vector<UpdateLoop> ParameterUpdateLoops() const;
  // A training step's call of a method (`optimizer.step()`, `scaler.step(optimizer)`,
  // `optimizer.first_step()`) on an instance of a class of another file of the project whose method is
  // such a loop (FunctionSummary::update_loop_line): the call, and where the loop is.
  struct RemoteUpdateLoop {
    const Site* call = nullptr;
    std::string path;
    uint32_t line = 0;
    uint32_t column = 0;
    std::string function;  // "LARS.step", "SAM.first_step"
  };
  std::vector<RemoteUpdateLoop> CrossFileUpdateLoops() const;
  // Whether the loop runs on every training step (inside a training step loop, or in a function the
  // step loop calls).
  bool RunsEveryTrainingStep(int loop) const;
  // Gradient accumulation: the `backward()` calls (indices into Sites()) of a training step loop whose
  // optimizer step runs only every N iterations (`if (i + 1) % N == 0: optimizer.step()`), or of a
  // micro-batch loop inside the step loop whose optimizer step is outside it.
  std::vector<uint32_t> AccumulatingBackwards() const;
  // Of those, a call of a helper that runs the backward for the loop: its `backward()` runs on every call
  // and its optimizer step only under a parameter the call gives a periodic condition (`loss_scaler(loss,
  // optimizer, update_grad=(i + 1) % accum_iter == 0)`, or a name bound to one). A helper of another file
  // (with the project), or of the file itself: then `local_backward` is its `backward()` call and `path`
  // is empty. nullopt for other sites.
  struct RemoteStep {
    std::string path;
    uint32_t backward_line = 0;
    uint32_t backward_column = 0;
    std::string function;  // "NativeScalerWithGradNormCount.__call__"
    std::string guard;     // "update_grad"
    ts::Node local_backward;
  };
  std::optional<RemoteStep> AccumulatingHelper(const Site& site) const;

  // The site recorded for a node (a call, interpolation or condition), or null.
  const Site* SiteOf(ts::Node node) const;
  // The call site of a call node, or null: a call that is also a condition (`if divisible_by(step, n):`)
  // has both sites, and SiteOf may answer the condition's.
  const Site* CallSiteOf(ts::Node call) const;

  // The innermost scope whose node contains `offset`.
  int ScopeAt(uint32_t offset) const;

  // Rules catalog (TL102-TL205).
  struct Binding;  // below, with the implementation types
  // An implicit host-device sync at a site (TL102), whatever its cadence: an `if`/`elif`/`while`/`assert`
  // on a device tensor, boolean-mask indexing of a device tensor (read or write), ops whose output size
  // depends on the data (`nonzero`, `torch.where(cond)`, `masked_select`, `unique`, `repeat_interleave`
  // with tensor repeats and no `output_size=`), and Python's `max()`/`min()`/`sum()`/`any()`/`all()` over
  // a device tensor. nullopt when it does not sync or the model cannot tell (syncs_implicit.cpp).
  std::optional<SyncOp> ImplicitSyncAt(const Site& site) const;
  // A boolean tensor not known to live on the host: a comparison with a tensor operand, `~t`, `a & b` of
  // masks, `torch.isnan/isinf/isfinite/logical_*`, `.eq/.ne/.lt/.le/.gt/.ge/.bool()`, or a name bound once
  // to one of these.
  bool IsDeviceBoolTensor(ts::Node expr, int scope) const;
  // Every assignment of `name` in the function makes a device mask (two or more of them; see
  // syncs_implicit.cpp), for a name rebound as a mask grows.
  bool IsDeviceBoolTensorDepth(ts::Node expr, int scope, int depth) const;
  bool EveryBindingAMask(std::string_view name, int scope, int depth) const;
  // A Python number, not a tensor: a numeric literal, `-x` or `a * b` of numbers, `float(...)`/`int(...)`,
  // `math.inf`/`numpy.nan`/`torch.inf`, `torch.finfo(t.dtype).min`, or a name (`self.eot` too) every
  // assignment of which binds one, the variable of `for i in range(n)` (or an `enumerate` counter), or a
  // parameter annotated `int`, `float` or `bool` (syncs_implicit.cpp).
  bool IsPythonNumber(ts::Node expr, int scope, int depth = 0) const;
  // The target of `for i in range(n)`, or the counter of `for i, x in enumerate(xs)` (the builtins, not
  // names the file takes over): it counts the loop's iterations.
  bool CountsIterations(const Binding& binding) const;
  // The `torch.utils.data.DataLoader(...)` call an expression stands for (loaders.cpp): the call itself, a
  // name bound to it once, enumerate/tqdm/iter/zip of one, a parameter of a function of the file whose
  // call sites in the file all pass the same loader. Null when it cannot be told.
  const Site* LoaderCallOf(ts::Node expr, int scope) const;
  // The loops of the file over the loader built at `loader` (indices into Loops()).
  std::vector<int> LoopsOverLoader(const Site& loader) const;
  // Whether a loop starts more than once in a run: inside another loop of its function, or in a function
  // of the file called from inside a loop (directly or through other functions of the file).
  bool StartsRepeatedly(int loop) const;
  // Whether the loader built at `loader` (bound to a name or `self.x`) is handed to a call that runs more
  // than once: an argument of a call inside a loop, or of a call in a function of the file that a loop
  // calls (`train_one_epoch(model, data_loader, ...)` in the epoch loop), other than the loader's own
  // iteration. The callee, in this file or another, is taken to iterate it.
  bool PassedRepeatedly(const Site& loader) const;
  // Whether the loader built at `loader` is iterated anew, pass after pass, without a loop over it:
  // `while True: yield from loader` (a loop around a `yield from` of it, which does not build it), or
  // `iter(loader)` in an `except StopIteration:` handler (the iterator rebuilt each time it runs out).
  bool Reiterated(const Site& loader) const;
  // Whether the loader built at `loader` is what a function of the file returns (`def make_loader(): return
  // DataLoader(...)`) and that function runs more than once (in a loop, or in a function a loop calls):
  // each of its calls builds a new loader.
  bool FactoryRunsRepeatedly(const Site& loader) const;
  // Whether the loop `loop` (over a value built at `source`) starts more than once for one building of
  // it: inside a loop of its function that does not build it again, or, in another function of the file
  // than the one that builds it, in a function called from inside a loop.
  bool LoopRepeatsOver(int loop, const Site& source) const;
  // With a project attached: whether the loader built at `loader` is what a function of the file returns
  // (the whole result, or an element of a returned tuple) and some other file that calls the function
  // iterates that part of its result more than once without calling it again (OutgoingCall's
  // `reiterated_results`).
  bool ReiteratedElsewhere(const Site& loader) const;
  // With a project attached: whether the loader built at `loader` is passed by position to a function or
  // method of another file that iterates that parameter once per epoch (FunctionSummary's
  // `reiterated_parameters`): `simclr.train(train_loader)`.
  bool PassedToReiteratingCallee(const Site& loader) const;
  // The names (and their scopes) that a plain assignment binds to what the call returns.
  std::vector<std::pair<std::string_view, int>> NamesOf(const Site& call) const;
  // By function scope, FunctionSummary::reiterated_parameters.
  std::vector<uint32_t> ReiteratedParameters() const;
  // A batch of a loader: a loop target of a loop over a DataLoader call (not enumerate's counter), or a
  // value unpacked, indexed or assigned from one. Returns the loader's call, or null.
  const Site* BatchLoader(ts::Node expr, int scope) const;
  // Every loader a batch can come from, when the model knows them all (a parameter of a function the file
  // calls with batches of two loaders has both); empty when any is unknown.
  std::vector<const Site*> BatchLoaders(ts::Node expr, int scope) const;
  // The binding of a name that reaches a use: the last one before it in the use's scope, not counting
  // the assignment the use is part of (`x = x.cuda()` reads the `x` bound before); null when none.
  const Binding* ReachingBinding(ts::Node name, int scope) const;
  // A `.to(...)`/`.cuda(...)` call that moves to a device other than the host: `.cuda()`, `.to(device)`
  // with a device that is not known to be "cpu", `.to(tensor)` with a tensor not known to live on the host
  // (a dtype-only `.to(torch.float16)` is not a move).
  bool MovesToDevice(const Site& call) const;
  // A tensor factory that takes no data (`torch.zeros/ones/empty/full/rand/randn/randint/randperm/arange/
  // linspace/eye`, their `*_like`, the windows, `tril/triu_indices`), as its canonical name without
  // `torch.`; empty for other calls.
  std::string_view DataFreeFactory(const Site& call) const;
  // Whether `name` is one of those factories' names (`zeros`, `hann_window`, `zeros_like`).
  static bool DataFreeFactoryName(std::string_view name);

  // Rules catalog (TL302-TL406) (catalog.cpp).
  // Whether autograd is off where `node` runs: inside `with torch.no_grad()`, `torch.inference_mode()`
  // or `torch.set_grad_enabled(False)` in its function, in a function decorated with one of them, or in
  // a function that some call of the file makes under one of them (followed through the file's calls).
  bool GradDisabledAt(ts::Node node) const;
  // Whether the loop (or a loop nested in it) calls the model with autograd on: some call of the model
  // in it that GradDisabledAt does not cover (`with torch.no_grad():` inside the loop covers it).
  bool LoopCallsModel(int loop) const;
  // A `model.eval()` call in `scope` before `offset`.
  bool EvalModeBefore(int scope, uint32_t offset) const;
  // Where a step loop's model comes from and where its input is moved, for TL406's channels-last fix: the
  // first call of a model in the loop's body whose callee is a name (`model(x)`), followed back through the
  // statements that rebind the same module (`model = DDP(model)`, `model = model.cuda()`,
  // `model = torch.compile(net)`, `model = nn.SyncBatchNorm.convert_sync_batchnorm(model)`) to the plain
  // assignment statement that builds it in the loop's scope (`model = resnet50()`), each reaching the next
  // on every path; not when that statement also wraps it (`model = DDP(Net().cuda())`). A parameter of the
  // loop's function is followed to the one call of the file that fills it with a name
  // (`train(model, loader)`), and on from there. `model.forward(x)` is a call of `model`. The input is the
  // call's first positional argument when it is a device move (`model(x.cuda())`) or a name that a plain
  // assignment statement of the loop's body binds to one (`x = x.to(device, non_blocking=True)`). Nullopt
  // when the model is an attribute, a parameter that the file calls its function with more than once or
  // with something else than a name, or anything else.
  struct ModelSource {
    ts::Node built;                    // the name's target in the statement that builds the model (`model`)
    uint32_t built_end = 0;            // where that statement ends
    const Site* input_move = nullptr;  // the move of the input (`x.cuda()`), when there is one
  };
  std::optional<ModelSource> StepModelSource(int loop) const;
  // The call a name or `self.x` holds, seen from `scope`: a name bound once to a call, or `self.x`
  // assigned once to a call in the methods of the class around `scope`. Null otherwise.
  const Site* ConstructorOf(ts::Node expr, int scope) const;
  // The list literals written to a name in `scope` (`layers = [...]`, `layers += [...]`), in order.
  std::vector<ts::Node> ListsWrittenTo(ts::Node name, int scope) const;
  // Whether some attribute `x.<attribute>` of the file is read (not only written).
  bool ReadsAttribute(std::string_view attribute) const;
  // What the file (FileFacts) or its project import component (ComponentFacts: the file's facts without
  // a project) says about precision and convolutions, as CatalogFact bits.
  uint32_t FileFacts() const;
  // Whether the file trains, and where a rule about the training as a whole reports: the first step loop
  // whose cadence is the training step (outside a function run per step), else the first framework
  // training constructor (Lightning `Trainer`, `Fabric`, Accelerate's `Accelerator`). `node` is null when
  // the file does not train. `range` is the loop's header (`for` to the end of its iterable or
  // condition) or the whole call; `loop` indexes Loops(), -1 for a framework constructor.
  struct TrainingSite {
    ts::Node node;
    TextRange range;
    int loop = -1;
  };
  const TrainingSite& Training() const { return training_; }
  // Where the file turns TF32 off: `torch.backends.cuda.matmul.allow_tf32 = False`,
  // `torch.backends.cudnn.allow_tf32 = False` (the assignments), `set_float32_matmul_precision("highest")`
  // (the calls).
  const std::vector<ts::Node>& Tf32Disables() const { return tf32_disables_; }
  // The name the file imports a module under (`torch` for `import torch`), empty when it does not.
  std::string_view LocalNameOf(std::string_view canonical_module) const;

  // Implementation types, public so the builder (model.cpp) can fill them.
  enum class BindingKind : uint8_t { kAssign, kAugmented, kLoopTarget, kParameter, kImport, kOther };
  struct Binding {
    std::string_view name;  // the identifier, or the attribute's text (`self.workers`)
    int scope = 0;
    BindingKind kind = BindingKind::kAssign;
    ts::Node value;     // right-hand side (assign), the iterable (loop target), default (parameter)
    ts::Node target;    // the identifier / attribute bound
    int position = -1;  // index inside a tuple target (`a, b = ...`), -1 when the whole value
    int loop = -1;      // loop targets: the loop
    // A tuple target of plain names only (`a, b = ...`): how many; 0 otherwise.
    uint32_t pattern_size = 0;
    // A plain assignment that is a statement of a block (or of the module): where the statement and that
    // block end (DominatingAssignment); 0 otherwise.
    uint32_t statement_end = 0;
    uint32_t block_end = 0;
  };
  struct Import {
    std::string_view local;  // the name the file uses ("tud", "DL", "torch")
    std::string canonical;   // "torch.utils.data", "torch.utils.data.DataLoader"
  };
  struct ArgparseDefault {
    std::string dest;
    Value value;  // unknown when there is no default or it conflicts
    bool conflicting = false;
  };

  // Configs (configs.cpp). A class whose fields are configuration: a dataclass (or NamedTuple, pydantic
  // model), a class named *Config/*Args/*Cfg/*Params/*HParams, or one with class-level annotated values.
  struct ConfigField {
    std::string_view name;
    ts::Node value;  // null for `name: int`
    bool annotated = false;
  };
  struct ConfigClass {
    std::string_view name;
    int scope = 0;  // the class body
    bool config = false;
    bool fields_are_arguments = false;  // dataclass / NamedTuple: the constructor takes the fields
    bool has_init = false;
    std::vector<ConfigField> fields;  // class-level assignments in order
  };
  // A variable of one scope that holds a config object or a dict: a config class's construction, an
  // `argparse.Namespace`, a dict literal, or an object passed to a class of the file under a config name.
  struct ConfigRecord {
    std::string_view name;
    int scope = 0;
    bool config = false;  // its writes reach reads of config fields
    bool closed = false;  // a dict built from literals only: a key it lacks is absent
  };
  // A value written to a field (or dict key) and not overwritten later in the same flow.
  struct ConfigWrite {
    std::string_view field;
    ts::Node value;   // null: written with something the model cannot read
    int scope = 0;    // where `value` is resolved
    int record = -1;  // index into config_records_; -1 for a class's default
    bool config = false;
  };
  // `d["key"] = value` (value null for `d["key"] += 1`).
  struct ItemWrite {
    std::string_view object;
    ts::Node key;
    ts::Node value;
    ts::Node target;
    int scope = 0;
  };

 private:
  friend class Builder;
  friend class ValueFlow;
  Model() = default;

  std::span<const Binding> BindingsOf(std::string_view name) const;
  std::span<const std::pair<std::string_view, int>> FunctionsNamed(std::string_view name) const;
  // The file's classes of a name, as (name, scope), in document order.
  std::span<const std::pair<std::string_view, int>> ClassesNamed(std::string_view name) const;
  // The method `name` of the file's class scope `cls` (the last definition, as Python keeps); -1 if none.
  int ClassMethod(int cls, std::string_view name) const;
  // The bases of class scope `cls`, in order, without keyword arguments (`metaclass=`), each with its
  // canonical name (empty: not an import's). Made once for all classes (imports are known by then).
  struct ClassBase {
    ts::Node node;
    std::string canonical;
  };
  std::span<const ClassBase> BasesOf(int cls) const;
  const Binding* SingleBinding(std::string_view name, int scope) const;
  // The last plain assignment of `name` in `scope` that every path to `use` runs first: a statement of a
  // block that holds `use`, ended before it. Bindings written before it cannot reach `use` (a loop that
  // held both would hold it too). Null when there is none.
  const Binding* DominatingAssignment(std::span<const Binding> bindings, ts::Node use, int scope) const;
  // What one binding of a name says of its value at `use` (types.cpp).
  TensorKind BindingTensorKind(const Binding& binding, ts::Node use, int depth) const;
  Value ResolveDepth(ts::Node expr, int scope, int depth) const;
  TensorKind TensorKindDepth(ts::Node expr, int scope, int depth) const;
  // Steps TensorKindDepth may still take before it answers unknown; negative: no limit (rules). The
  // summary sets it per site: following every binding of every condition of every function of a large
  // tree through twelve levels costs minutes, and a sync the model needs that long to see is rare.
  mutable int64_t type_steps_left_ = -1;
  // While a summary looks for implicit syncs a second time: a parameter the function indexes as an array
  // (`boxes[:, 2:]`) is taken for a tensor, and the caller's argument decides (SyncOp::from_parameters).
  mutable bool param_arrays_ = false;
  Placement PlacementDepth(ts::Node expr, int scope, int depth) const;
  // ReachingBinding when it reaches the use on every path: a plain assignment that dominates it, or the
  // target of a `for` around it, with no binding of a loop around the use in between; null otherwise.
  const Binding* ReachingOnEveryPath(ts::Node name, int scope) const;
  // The one plain assignment of a name that its scope otherwise only updates in place (`acc =
  // torch.zeros(n)` then `acc += x`): a tensor stays where that assignment put it (bindings.cpp).
  const Binding* InPlaceBase(std::string_view name, int scope) const;
  // The bindings of a name in the innermost scope around `scope` that binds it, as Python looks it up
  // (class bodies skipped); empty when none does.
  std::span<const uint32_t> InnermostBindings(std::string_view name, int scope) const;
  // A builtin's name that an import or a function of the file takes over (`from torch import max`).
  bool Shadowed(std::string_view name) const { return FindImport(name) != nullptr || !FunctionsNamed(name).empty(); }
  static constexpr int kLoaderLikeSteps = 512;  // the expressions one IsDataLoaderLike may look at
  bool LoaderLikeDepth(ts::Node expr, int scope, int depth, int& steps) const;
  bool IsModelLike(ts::Node expr, int scope, int depth) const;
  static constexpr int kModelLikeSteps = 512;  // the expressions one IsModelLike may look at
  bool IsModelLikeDepth(ts::Node expr, int scope, int depth, int& steps) const;
  // A call of a submodule or a method of a model (`self.model.decoder(tokens, audio)`, `model.encode(x)`): the
  // callee is an attribute of a model-like object (not `self`, not an option's `args.model`, not a
  // tokenizer or processor), given at least one argument, and not one of nn.Module's own methods
  // (`parameters`, `state_dict`...), a verb that saves, builds or logs (ModelNamed's), a method that sets,
  // resets or asks (`reset`, `set_`, `is_`, `find_`...), a string's method, nor a loss.
  bool IsSubmoduleCall(const Site& call) const;
  // Whether the loop target at `position` (BindTarget's numbering) of a loop over `iterable` is a tensor:
  // a row of a tensor, or one of the tensors `zip`/`enumerate` hand out.
  bool IteratesTensors(ts::Node iterable, int position, int scope, int depth) const;
  // A name that says a model (`model`, `net`, `self.ema_model`), not a verb that builds or saves one
  // (`build_model`): the fallback for parameters and values whose source is not known.
  static bool ModelNamed(std::string_view text);
  // `group["params"]` of a loop over `.param_groups`: an optimizer's parameter tensors.
  bool ParamGroupParams(ts::Node iterable, int scope) const;
  // Some assignment of the whole value to the name `expr` spells (not a tuple element) satisfies `holds`.
  bool AnyAssignment(ts::Node expr, const std::function<bool(const Binding&)>& holds) const;
  bool IsOptimizerLike(ts::Node expr, int scope) const;
  // catalog.cpp: whether a class scope derives from `torch.optim.Optimizer` (through classes of the file;
  // OptimizerClasses answers it); the loop of a method scope that ParameterUpdateLoops reports when a
  // training step calls it (-1 if none); whether a call named `step` steps an optimizer whose class
  // another file may tell.
  bool DerivesFromOptimizer(int cls) const;
  int OptimizerUpdateLoop(int method) const;
  // The class scopes that derive from `torch.optim.Optimizer`, in order; the names of their methods that
  // OptimizerUpdateLoop finds a loop in.
  const std::vector<int>& OptimizerClasses() const;
  std::vector<std::string_view> OptimizerUpdateMethods() const;
  // The bases read again, through the file's classes to `depth` 8 (OptimizerClasses is made of it).
  bool DerivesFromOptimizerUncached(int cls, int depth) const;
  bool StepsProjectOptimizer(const Site& call) const;
  // Whether a loop of the file runs `scope` (a function) more than once: a call of it inside a loop, or a
  // call in a function that such a call reaches (loaders.cpp).
  bool ScopeRunsInLoop(int scope) const;
  bool IsLossCall(const Site& call) const;
  // calls.cpp: what a dict expression (a literal, `dict(...)`, a conditional, a name bound to one and
  // changed by `update` or item writes) says about `key`.
  DictKeys DictKeyDepth(ts::Node expr, std::string_view key, int scope, int depth) const;
  std::string_view ResolvedHead(std::string_view local) const;
  // CanonicalName(expr) of an attribute whose attribute's text and unparenthesized object the caller has
  // read already (a call's callee: the builder reads both for the site's name and receiver).
  std::string CanonicalName(ts::Node expr, std::string_view attribute, ts::Node object) const;
  const Import* FindImport(std::string_view local) const;
  const ArgparseDefault* FindArgparse(std::string_view dest) const;
  // configs.cpp: the record of a variable (-1 if none), the scope a name is bound in as Python looks it
  // up (-1 if none), the one class of the file with that name, and the live writes of one record.
  int RecordOf(std::string_view name, int scope) const;
  int BindingScope(std::string_view name, int scope) const;
  // The bindings of `name` in scopes first..last (scope indices, both included), as indices into bindings_
  // in (scope, document) order.
  std::span<const uint32_t> BindingsIn(std::string_view name, int first, int last) const;
  const ConfigClass* ClassNamed(std::string_view name) const;
  std::pair<std::vector<uint32_t>::const_iterator, std::vector<uint32_t>::const_iterator> RecordWrites(
      int record) const;

  std::string_view source_;
  // ResolveAll of a plain name, by (name, scope): what it finds depends on nothing else, and rules ask
  // it of the same name in the same function many times (`nn.Linear(dim, dim)`, then `LayerNorm(dim)`).
  mutable std::mutex resolved_mu_;
  mutable std::map<std::pair<std::string_view, int>, std::vector<Value>> resolved_names_;
  std::vector<Scope> scopes_;
  std::vector<Loop> loops_;
  std::vector<Guard> guards_;
  std::vector<Site> sites_;
  std::vector<Binding> bindings_;  // sorted by name (stable: document order within a name)
  // Indices into bindings_ sorted by (name, scope), document order within a scope: the bindings of a name
  // in one scope without a scan of all the name's bindings (BindingsIn).
  std::vector<uint32_t> bindings_by_scope_;
  // The first eight bytes of each binding's name, in bindings_' order (NameHead): a lookup finds the run
  // of its name's head with integer comparisons, and compares names only inside it.
  std::vector<uint64_t> binding_heads_;
  std::vector<Import> imports_;
  std::vector<std::string> star_imports_;  // modules imported with `*`
  // The last import of each local name (FindImport), once the walk has recorded them all.
  std::unordered_map<std::string_view, int> import_last_;
  bool import_last_ready_ = false;
  std::deque<std::string> star_names_;         // the local names of the imports those bring (imports_)
  std::vector<std::string> callee_canonical_;  // by site index: CanonicalName(callee) of each call
  std::vector<ArgparseDefault> argparse_;
  std::vector<std::pair<std::string_view, int>> functions_;  // (name, scope), sorted by name
  std::vector<uint64_t> function_heads_;                     // NameHead of each, in that order
  // A bit per NameBit() of each name in functions_, set when it is sorted (Builder::Run, before any
  // query): most names asked of FunctionsNamed (every call's) are of no function of the file, and are
  // answered without a search.
  std::array<uint64_t, 64> function_name_bits_{};
  // By call site, in site order: its name's NameKey (CallsNamed scans these eight bytes a call instead
  // of the sites), made once the names are final (Builder::NameCalls, before any query).
  std::vector<uint64_t> call_name_keys_;
  std::vector<std::pair<std::string_view, int>> classes_;        // (name, scope), sorted by name
  std::vector<std::string_view> open_dicts_;                     // dict names mutated after creation
  std::vector<ItemWrite> item_writes_;                           // sorted by object name
  std::vector<ConfigClass> config_classes_;                      // every class of the file
  std::vector<std::pair<std::string_view, int>> class_by_name_;  // (name, index in config_classes_), by name
  std::vector<ConfigRecord> config_records_;                     // sorted by (name, scope)
  std::vector<ConfigWrite> config_writes_;                       // sorted by field
  std::vector<uint32_t> writes_by_record_;                       // indices into config_writes_, by record
  std::vector<std::pair<int, ts::Node>> returns_;                // (function, value) of each return
  struct YieldFrom {
    ts::Node value;  // what `yield from` iterates
    int scope = 0;
    int loop = -1;  // the loop of its function around it
  };
  std::vector<YieldFrom> yield_froms_;
  std::vector<TextRange> stop_iteration_handlers_;  // `except StopIteration:` clauses
  // Every if statement, in document order: ExclusiveBranches walks up through parents only when one of
  // them holds both nodes.
  std::vector<TextRange> if_statements_;
  // The names each comprehension's `for` clauses bind, sorted by name: `w` in `[w for w in t if w > 0]`
  // (position -1), `i` and `w` in `for i, w in enumerate(t)` (positions 0 and 1).
  struct ComprehensionTarget {
    std::string_view name;
    int position = -1;
    TextRange comprehension;  // where the name is bound: the whole comprehension
    ts::Node iterable;        // the clause's `in` expression
  };
  std::vector<ComprehensionTarget> comprehension_targets_;
  // `self.register_buffer("queue_ptr", torch.zeros(1))` in a method: the class's buffer, a tensor that
  // lives where the module does (`self.queue_ptr` in its methods).
  struct RegisteredBuffer {
    int cls = -1;  // the class scope
    std::string_view name;
    ts::Node value;
  };
  std::vector<RegisteredBuffer> buffers_;
  // Names indexed with several indices in a function (`boxes[:, 2:]`, `x[..., 4]`): arrays (a tensor or a
  // NumPy array), as (scope, name).
  std::vector<std::pair<int, std::string_view>> array_names_;
  std::vector<std::pair<std::string_view, int>> local_call_sites_;  // (callee, site) of the file's own, by name
  ts::Node cuda_evidence_;
  bool sets_default_device_ = false;  // torch.set_default_device(...) somewhere in the file
  // Call sites that reach functions of this file, with those functions (few per file).
  std::vector<std::pair<uint32_t, std::vector<int>>> local_calls_;
  size_t local_calls_version_ = 0;  // counts the changes of local_calls_ after the walk
  // CallersOf's indexes, made on first use: the callers of each function (made again when local_calls_
  // changed since), and the calls of a plain name (`Trainer(...)`), by name.
  mutable std::mutex callers_mu_;
  mutable size_t callers_version_ = SIZE_MAX;
  mutable std::vector<std::vector<uint32_t>> callers_;
  mutable bool calls_by_name_made_ = false;
  mutable std::vector<std::pair<std::string_view, uint32_t>> calls_by_name_;
  const ProjectIndex* project_ = nullptr;
  const FileSummary* self_summary_ = nullptr;
  // BasesOf and OptimizerClasses, each made once (the builder, the summary and the rules ask for them,
  // DerivesFromOptimizer for each method: reading every class's bases each time cost 8% of the check of a
  // file of 400 classes).
  mutable std::once_flag class_bases_once_;
  mutable std::vector<std::vector<ClassBase>> class_bases_;  // by scope
  mutable std::once_flag optimizer_classes_once_;
  mutable std::vector<int> optimizer_classes_;
  // The fields RemoteFieldValues was asked of a name while no project was attached (each once):
  // only those can change the file's findings once the project gives an imported name's fields, so
  // only those make the project pass check the file again.
  mutable std::mutex asked_mu_;
  mutable std::vector<std::string> asked_fields_;
  std::string inherited_cuda_;  // "path:line" of the component's CUDA evidence
  // ProjectIndex::StepEntries of the file, while a project is attached (Scope::remote_entry).
  std::vector<ProjectIndex::StepEntry> remote_entries_;
  // Rules catalog, for the project summary: the 2-D convolution layers each top-level class builds, and
  // whether the file's layers outside classes it never names again make a conv net (a ViT module's unused
  // conv stem does not): FileSummary::catalog_facts' kFactConv2d and ClassSummary::conv2d.
  std::vector<std::pair<std::string_view, int>> class_conv2d_;
  bool summary_conv2d_ = false;
  // CalledParameters(), by scope, made once by the builder (ReviewCallbacks) and read by Summarize.
  std::vector<uint32_t> called_parameters_;
  // The blocks of the file's `if __name__ == "__main__":` statements, and whether the files the file
  // imports (transitively) show CUDA (ProjectIndex::ImportedCuda): CudaAt.
  std::vector<TextRange> main_blocks_;
  bool imports_cuda_ = false;
  uint32_t catalog_facts_ = 0;  // FileFacts, computed by the builder
  uint32_t component_facts_ = 0;
  uint32_t own_facts_ = 0;  // OwnCatalogFacts() | catalog_facts_, computed by the builder
  TrainingSite training_;
  std::vector<ts::Node> tf32_disables_;

  struct Callee {
    // kInstance: a method of an instance whose class the model knows (`cls`); an empty `method` is the
    // call of the instance itself (`criterion(outputs, targets)`: ProjectIndex::CallOperator).
    // kModuleMethod: a method of a model whose class is not known where the call is, which the project's
    // one torch.nn class with that method has (ProjectIndex::ModuleMethod); `dotted` is
    // ProjectIndex::kModuleMethodCallee.
    enum Kind : uint8_t { kFunction, kMethod, kInstance, kModuleMethod } kind = kFunction;
    std::string dotted;       // the function, or the class of the method
    std::string_view method;  // kMethod, kInstance
    ProjectIndex::ClassRef cls;
  };
  std::vector<Callee> ProjectCallees(const Site& call) const;
  // The function or method of the project a callee names.
  std::optional<ProjectIndex::Function> ResolveCallee(const Callee& callee) const;
  // instances.cpp. The expression with the module wrappers that keep its class taken off
  // (`DistributedDataParallel(model)`, `model.cuda()`, `model.to(device)`).
  ts::Node SameObject(ts::Node expr) const;
  // Where a value comes from, as far as its class goes: a call of a class or function of the project (by
  // canonical name, or the bare name of one of the file's own), an element of the tuple one returns, through
  // the name's bindings (which must all agree; a module loaded from a checkpoint's entry is taken to be of
  // the class the others build) and the arguments the file's own calls pass a parameter.
  ValueSource SourceOf(ts::Node expr, int scope, int depth) const;
  // SourceOf of a name through its bindings `bindings` in one scope: the class they all say, or unknown;
  // `by_default`: only the bindings the run's defaults reach (OffByDefault).
  ValueSource BindingsSource(std::string_view name, std::span<const uint32_t> bindings, int depth,
                             bool by_default) const;
  // Whether a binding sits in a branch that the run's defaults never take: under `if c:`/`elif c:` whose
  // condition resolves false, or under an `elif`/`else` after a condition that resolves true
  // (`if args.optimizer == "lars":` with the argparse default "lars").
  bool OffByDefault(const Binding& binding) const;
  ValueSource AttributeSource(ts::Node attribute, int scope, int depth) const;
  // The assignments of `self.x` (`attribute` is its text) in the methods of the class whose method is
  // `scope` (methods of nested classes included: the caller checks a binding's scope), as indices into
  // bindings_; empty outside a method.
  std::span<const uint32_t> ClassAttributeBindings(std::string_view attribute, int scope) const;
  // The class of the project an expression holds: SourceOf resolved through the index, or for a parameter
  // that no call of the file fills, the class every call from other files passes (all must agree).
  std::optional<ProjectIndex::ClassRef> ClassOf(ts::Node expr, int scope) const;
  // Whether a call may be a method (or the call) of an instance whose class another file tells: its
  // callee's head is a parameter or a name with a SourceOf. For the project pass to check the file again.
  bool MayHoldInstance(const Site& call) const;
  // `(i + 1) % N == 0`, `not i % N` with N above 1 or unknown: true once every N iterations.
  bool PeriodicCondition(ts::Node expr, int scope) const;
  // A period that is an option of the run (a parameter the callers fill, a field of the run's config),
  // whatever its default: code written to run every N when the option is set.
  bool PeriodIsOption(ts::Node period, int scope) const;
  // What a call of each function does to the training step (StepSummary), by scope.
  std::vector<StepSummary> StepsPerCall(const SourceFile& file) const;
  // StepsPerCall's findings for one function, as sites: its first backward that runs on every call (null
  // if none), and the parameter its optimizer step runs under (null if none).
  struct StepSites {
    const Site* backward = nullptr;
    const Binding* guard = nullptr;
  };
  std::vector<StepSites> StepSitesPerCall() const;
  // The canonical class `C` of an `isinstance(receiver, C)` guard around the site (alone or under `and`);
  // empty when there is none.
  std::string IsinstanceClass(const Site& site, std::string_view receiver) const;
  bool RunsOnEachCall(const Site& site) const;
  // By scope: FunctionSummary::called_parameters of each function of the file.
  std::vector<uint32_t> CalledParameters() const;
  bool FromParameters(ts::Node expr, int scope, int depth) const;
  bool FromParametersUncached(ts::Node expr, int scope, int depth) const;
  // FromParameters by (node, scope, depth): the summary asks it of the names of the same guards for every
  // site under them, and each answer follows every binding of the name.
  struct FromParametersKey {
    uint32_t node = 0;  // ts::Node::Id()
    int scope = 0;
    int depth = 0;
    friend bool operator<(const FromParametersKey& a, const FromParametersKey& b) {
      return std::tie(a.node, a.scope, a.depth) < std::tie(b.node, b.scope, b.depth);
    }
  };
  mutable std::mutex from_parameters_mu_;
  mutable std::map<FromParametersKey, bool> from_parameters_;
  // Whether a guard around the site in its function reads a parameter other than `self`/`cls`.
  // `synced`: a name the guard may read freely (the synced value's own, told by the call's argument).
  bool GuardedByParameters(const Site& site, std::string_view synced = {}) const;
  // Whether the file imports torch or a module of it: the summary's costlier questions are asked only then.
  bool ImportsTorch() const;
  // `p.grad is not None`: true after every backward pass, whatever the call passes.
  bool GradientExists(ts::Node condition) const;
  // summary.cpp: for each scope, the first site whose `find` answers a sync and that runs on each call of
  // its function, directly or through the functions of the file it calls on each call.
  struct PerCall {
    int site = -1;
    bool on_params = false;
    SyncOp sync;
  };
  std::vector<PerCall> FirstSyncPerCall(const std::function<std::optional<SyncOp>(const Site&)>& find) const;
  // loaders.cpp: the position a call passes a parameter at (after `self` for methods); -1 if unknown.
  int ParameterPosition(const Binding& parameter) const;
  // The functions of the file a call can reach (scopes), or null when it reaches none of them.
  const std::vector<int>* LocalCallees(const Site& call) const;
  // Whether the file calls the parameter's function, and every call passes a value that `holds` (at the
  // call's scope).
  bool EveryCallerPasses(const Binding& parameter, const std::function<bool(ts::Node, int)>& holds) const;
  // The file's calls of a function (indices into sites_): its local call sites, and for a class's
  // `__init__` the calls of the class by name.
  std::vector<uint32_t> CallersOf(int function) const;
  // The values a function of the file returns (null for a bare `return`); empty when it has no return.
  std::vector<ts::Node> ReturnsOf(int function) const;
  // The loaders an expression (or a batch) can stand for, added to `out` once each; false when some
  // path cannot be told.
  // `remote`, when given, collects the parameters that no call of the file fills (another file may).
  // loaders.cpp, results across files: the call whose result (or element `second` of its returned
  // tuple; -1 for the whole) an expression stands for, through names, `self.` attributes, wrappers
  // (`enumerate`, `tqdm`, `iter`) and the parameters of functions the file calls with one such result;
  // {null, -1} when it cannot be told.
  // `element`, when given, also follows a subscript (`loaders[index]`: an element of the result) and
  // records the first one crossed.
  struct ElementRead {
    ts::Node node;  // the subscript; null when none was crossed
    int scope = 0;
  };
  std::pair<const Site*, int> ResultSource(ts::Node expr, int scope, int depth, ElementRead* element = nullptr) const;
  // For each call of the file (by site index), the OutgoingCall::reiterated_results bits of what it
  // returns: iterated by a loop that starts more than once, handed to a call that runs more than once,
  // `yield from` in a loop, or `iter()` in an `except StopIteration:` handler; 0 for a call that itself
  // runs more than once (each run builds the value again).
  // And the attributes of such results the file iterates so (`for batch in dataset.train:` in the epoch
  // loop, with `dataset = Cifar(...)` of another module): by site index, sorted.
  struct ReiteratedResults {
    std::vector<uint32_t> bits;
    std::vector<std::pair<uint32_t, std::string_view>> attributes;
  };
  ReiteratedResults ReiteratedResultBits() const;
  // `dataset.train`, through wrappers (`enumerate(dataset.train)`), when the file binds no `dataset.train`:
  // the call whose whole result `dataset` stands for (ResultSource), and the attribute.
  std::optional<std::pair<const Site*, std::string_view>> AttributeOfResult(ts::Node expr, int scope) const;
  // Whether a function scope is a `@staticmethod` (its first parameter is not `self`).
  bool IsStaticMethod(int scope) const;
  // With a project attached, for a parameter of a function the file never calls: the values the calls of
  // other files pass it (its default where one leaves it out; unknown where a splat may fill it or the
  // caller's argument is not a constant). False when there are no such calls.
  bool RemoteParameterValues(const Binding& parameter, std::vector<Value>& out) const;
  // The keywords of a `functools.partial(f, ...)` call that the file's calls of the partial may pass
  // again (a later keyword replaces the partial's).
  std::vector<std::string_view> PartialOverrides(const Site& partial) const;
  // Whether `list` names a list bound once to `[]` whose every change in the file is an `append` of a
  // loader, the one built at `loader` among them (`iter(self.loaders[i])` rebuilds one of them). Item
  // writes to `self.x[i]` are not recorded by the builder and are not seen.
  bool ListOfLoadersHolds(ts::Node list, int scope, const Site& loader) const;
  // Where the loaders of a value come from beyond the file's own DataLoader calls, for the project to
  // tell: a parameter that no call of the file fills (other files' calls do), and a call of a function of
  // another module (which may return a loader: ProjectIndex::ReturnedLoader). `prepared`: a loader on the
  // way went through Accelerate's `prepare`, whose loader puts each batch on the device itself.
  struct RemoteLoaders {
    std::vector<const Binding*> parameters;
    std::vector<std::string> factories;  // the functions, by dotted name ("pkg.data.make_data_loader")
    bool prepared = false;
    bool empty() const { return parameters.empty() && factories.empty(); }
  };
  bool LoaderCallsDepth(ts::Node expr, int scope, int depth, std::vector<const Site*>& out,
                        RemoteLoaders* remote = nullptr) const;
  bool BatchLoadersDepth(ts::Node expr, int scope, int depth, std::vector<const Site*>& out,
                         RemoteLoaders* remote = nullptr) const;
  // The function of another module a call names, when it is one (a factory of RemoteLoaders).
  std::optional<std::string> OtherModuleFunction(const Site& call) const;
  // summary.cpp: the calls of functions (the file's own and other modules') each function makes on each
  // call, by scope; what a function returns (FunctionSummary::returns).
  // The values a call passes (keyword arguments' values), without splats; whether one is a device tensor
  // or a model (whose parameters are device tensors).
  void ForEachArgumentValue(const Site& call, const std::function<void(ts::Node)>& visit) const;
  bool DeviceArgument(const Site& call) const;
  void SummarizeForwards(const SourceFile& file, std::vector<std::vector<ForwardCall>>& out) const;
  // The calls of other modules' functions a call site makes, as the index resolves them (by name, or by
  // where the called object comes from).
  std::vector<ForwardCall> OtherModuleCalls(const Site& site, bool project_imports) const;
  bool ImportsProjectModules() const;
  // FileSummary::step_calls.
  void SummarizeStepCalls(const SourceFile& file, std::vector<StepCall>& out) const;
  void SummarizeReturnPlacements(int function, std::span<const ts::Node> returns, FunctionSummary& out) const;
  // types.cpp: where element `position` (-1: the whole value) of what a call returns lives, when the
  // callee is a function of the file or, with a project attached, of another module.
  Placement CallReturnPlacement(const Site& call, int position, int depth) const;
  // summary.cpp, values across files: what Summarize tells other files of the file's fields and calls.
  void SummarizeValues(FileSummary& out) const;
  // The sources of what a function returns (FunctionSummary::returned_source, returned_elements).
  void SummarizeReturns(int function, std::span<const ts::Node> returns, FunctionSummary& out) const;
  // FunctionSummary::returned_loader: whether every return gives a DataLoader of the file, and whether
  // each pins its memory (ArgumentFact bits; 0 when a return is anything else).
  uint8_t ReturnedLoaderFacts(int function, std::span<const ts::Node> returns) const;
  // What a value is as a loader of the file (ArgumentFact bits): the one DataLoader of the file it comes
  // from, pinned or not (a loader Accelerate prepared counts as not pinned: its batches are on the
  // device); 0 when it is not one loader of the file.
  uint8_t LoaderFacts(ts::Node expr, int scope) const;
  // Whether a call reads what a parameter may bring from another file: a DataLoader whose workers or
  // `persistent_workers=` do not resolve in the file, a layer whose width is a parameter.
  bool ReadsParameters(const Site& call) const;
  // A `.to()` / `.cuda()` of a batch whose loader another file gives, in one walk of the batch: sets
  // `parameters` for a parameter no call of the file fills (in a function; FileSummary::parameter_reads),
  // `factories` for a call of another module's function, which may return a pinned loader
  // (FileSummary::remote_loaders).
  void CopiesRemoteBatch(const Site& call, bool& parameters, bool& factories) const;
  // The dotted name other files call a function scope by ("f",
  // "Class.method"); empty for nested functions and lambdas.
  std::string QualName(int scope) const;
  // Whether `expr` holds the file's configuration: a parsed argparse Namespace (`parser.parse_args()`),
  // a config record, or a parameter every call of the file fills with one.
  // `parser.parse_args()` in a file with argparse options: the run's parsed configuration.
  bool ParsesArguments(ts::Node expr) const;
  bool HoldsConfig(ts::Node expr, int scope, int depth) const;
  // The arguments calls from other files pass to `parameter` (of a function the file never calls),
  // with the file that passes each (null argument: not passed, or behind a splat). Empty when there is
  // no project, the file calls the function itself, or no other file calls it.
  struct RemoteArgument {
    const FileSummary* caller = nullptr;
    const CallArgument* argument = nullptr;
    const OutgoingCall* call = nullptr;
  };
  std::vector<RemoteArgument> RemoteArguments(const Binding& parameter) const;
  // `args.log_interval` with `args` such a parameter: the values the callers' configurations give the
  // field (an unknown one where a caller passes something else or does not give it); with `args` a name
  // the file imports from a module of the project (`from option import args`), the values that
  // module's configuration gives it. False when the object is neither, or the module gives no such field.
  bool RemoteFieldValues(ts::Node object, std::string_view field, int scope, std::vector<Value>& out) const;
  // The module of the project a name's configuration is imported from: `args` of `from option import
  // args` ("option"), or a parameter that every call of the file fills with one such name (`main(args)`)
  // and whose fields the function does not write. Empty otherwise.
  std::string ImportedConfigModule(ts::Node name, int scope, int depth) const;
  // The attributes the text reads of `name` (`name.x`) that a question of the check asked without a
  // project (asked_fields_), appended: FileSummary::imported_reads.
  void FieldsReadOf(std::string_view name, std::vector<std::string>& out) const;
  // The loaders the file's function called at `call` returns.
  bool ReturnedLoaders(const Site& call, int depth, std::vector<const Site*>& out) const;
  // For a name bound by a comprehension around it (`t` in `[t.to(d) for t in batch]`), the iterable of
  // its `for` clause; null otherwise.
  ts::Node ComprehensionIterable(ts::Node name) const;
  // The same for any target of the clause: null, or the iterable with the name's position in the target
  // (-1 for a plain name).
  const ComprehensionTarget* ComprehensionBinding(ts::Node name) const;
  // What iterating a comprehension's iterable binds to the name: elements of a tensor are tensors, and so
  // is element 1 of `enumerate(t)` and element i of `zip(a, t)`; an enumerate counter is not one.
  TensorKind ComprehensionElementKind(const ComprehensionTarget& target, int scope, int depth) const;
  // What the elements of a container hold (`d[k]`, `**d`, `for k, v in d.items()`): tensors when it is
  // built from them (a dict or list comprehension or display of tensors, a function's result that is one,
  // a tensor or a batch itself), unknown otherwise. The container itself stays what TensorKindOf says.
  TensorKind ElementTensorKind(ts::Node expr, int scope, int depth) const;
  // Whether a function of the file or of the project returns a container of tensors.
  bool CallReturnsTensors(const Site& call, int depth) const;
  // For the summary: whether one of a function's returns builds a container of tensors.
  bool ReturnsTensors(int function, std::span<const ts::Node> returns_of) const;
  // Where that element lives: where the tensor it is taken from does.
  ts::Node ComprehensionSource(const ComprehensionTarget& target) const;
};

}  // namespace tl::semantic
