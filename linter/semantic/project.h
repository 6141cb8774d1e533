// The project index: what each file of a project tells the others, as plain data (no trees), so that a
// summary can be computed once per file, in parallel, kept while the file's content is the same, and
// read by the checks of other files. A summary holds the file's imports, whether it runs on CUDA, its
// classes and their bases, and the functions and methods that sync with the device on every call
// (explicitly, with a sync call, and implicitly, by reading a device tensor's truth or size). The
// index resolves relative and absolute imports between the files, puts files that import each other
// in one component (a component with one CUDA file runs on CUDA), and finds the function a call names,
// through re-exports and inherited methods. For values across files, a summary also holds the fields its
// configuration objects give (argparse defaults, constants written to a config) and its calls of other
// modules' functions with what each argument is (the file's configuration, a pinned or unpinned loader, a
// constant) and which parts of each call's result the file iterates more than once, so that a function
// can read what its parameters bring from another file and how its returned loaders are used there. For
// objects across files, an argument and a function's return also say which construction or factory call
// the value comes from, and a method what it does to the training step (a backward on every call, an
// optimizer step under a parameter), so that `criterion(outputs, targets)` with `criterion` a parameter
// reaches the `forward` of the class every caller passes. A function's summary also holds where what it
// returns lives and the calls it makes on each call, so that syncs and host values are followed through
// any number of files. Rules never read it: they ask the model, which asks it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tl::semantic {

enum class SyncKind : uint8_t;

// The first host-device sync of one family a function runs on every call (directly or through a function
// of its own file), when it has one.
// What a function does on every call that the step loops of other files are reported for: an explicit
// sync (TL101), an implicit one (TL102), `torch.cuda.empty_cache()` (TL103).
enum class SyncFamily : uint8_t { kExplicit, kImplicit, kEmptyCache };
inline constexpr size_t kSyncFamilies = 3;

struct SyncSummary {
  bool syncs = false;
  bool on_params = false;  // the synced value comes from the parameters: only tensor arguments sync
  uint8_t kind = 0;        // semantic::SyncKind
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;  // "`.item()` synchronizes with the GPU"
  std::string message_zh;
  // A sync found by taking an array parameter for a tensor (`assert (boxes[:, 2:] >= ...).all()`): that
  // parameter, whose argument must be a device tensor at a direct call.
  std::string parameter;
  int32_t parameter_position = -1;
  friend bool operator==(const SyncSummary&, const SyncSummary&) = default;
};

// Where a value a function returns lives, for the placements of other files (`loss, parts =
// compute_loss(...)` with `return loss, to_cpu(parts)`).
struct ReturnSummary {
  uint8_t placement = 0;  // semantic::Placement, the same on every path that returns a value
  // When unknown here: the function whose result it is, of another module (".utils.to_cpu") or of the
  // file (`via_local`: its qualname), whose summary tells.
  std::string via;
  bool via_local = false;
  friend bool operator==(const ReturnSummary&, const ReturnSummary&) = default;
};

// A call of a function or method of another module that a function makes on each of its calls (outside
// a guard on its parameters), so that the index can follow a sync the callee makes on every call, across
// as many files as it takes (`compute_loss` in loss.py calls `to_cpu` of utils.py, which calls `.cpu()`).
struct ForwardCall {
  std::string callee;  // canonical through the file's imports (".utils.to_cpu"); the class for a method
  std::string method;  // empty for a function
  bool local = false;  // a function of the same file: `callee` is its qualname
  uint32_t line = 0;
  uint32_t column = 0;
  bool device_argument = false;     // an argument is a device tensor where the call is made
  bool parameter_argument = false;  // an argument comes from the calling function's parameters
  // A call of an object (`self.matcher(...)`, `converter.decode(...)`): `callee` and `element` are where
  // the object comes from (a ValueSource), the index tells its class; `method` empty runs `__call__` or
  // `forward`.
  bool instance = false;
  int32_t element = -1;
  friend bool operator==(const ForwardCall&, const ForwardCall&) = default;
};

// Where a value comes from, as far as its class goes: the result of calling `call` (canonical through the
// file's imports, or the bare name of a class or function of the file itself), or element `element` of
// the tuple that call returns (`model, criterion, post = build(args)` -> {"models.build", 1}). The index
// turns it into a class of the project (ProjectIndex::ResolveClass). Empty `call`: not known.
struct ValueSource {
  std::string call;
  int32_t element = -1;
  bool known() const { return !call.empty(); }
  friend bool operator==(const ValueSource&, const ValueSource&) = default;
};

// What a call of a function or method does to the training step on every call, for TL601 and for the loops
// that call it (a `backward()` on every call makes their iterations training steps): a `backward()`
// runs on every call, and an optimizer step (`optimizer.step()`, `scaler.step(optimizer)`) runs only when
// the parameter `guard` is true (`def __call__(self, loss, optimizer, update_grad=True)`).
struct StepSummary {
  uint32_t backward_line = 0;  // 0: no backward on every call
  uint32_t backward_column = 0;
  std::string guard;            // the parameter; empty when the step is not guarded by one (or absent)
  int32_t guard_position = -1;  // among the positional parameters after `self`/`cls`
  friend bool operator==(const StepSummary&, const StepSummary&) = default;
};

// A call a step loop of the file makes on every step (or evaluation batch, or generated token) of a
// function or method of another module, resolved by the index (ProjectIndex::StepEntries), so that the
// callee's own file knows the function runs that often: its syncs are reported where they are written.
struct StepCall {
  ForwardCall call;
  uint8_t cadence = 0;  // semantic::Cadence
  friend bool operator==(const StepCall&, const StepCall&) = default;
};

struct FunctionSummary {
  std::string qualname;  // "all_reduce_mean", "MetricLogger.update"
  uint32_t line = 0;     // the `def`
  SyncSummary sync;      // explicit: `.item()`, `.tolist()`, `.cpu()`, `.numpy()`, `synchronize()` (TL101)
  // Implicit (TL102): an `if`/`while`/`assert` on a device tensor, a boolean mask, a data-dependent op,
  // Python's `max()`/`sum()` over a device tensor (Model::ImplicitSyncAt).
  SyncSummary implicit;
  // `torch.cuda.empty_cache()` on every call (TL103), with the same fields.
  SyncSummary empty_cache;
  // What it returns: one entry for the whole value, or one per element when every `return` that gives
  // a value gives a tuple of the same size (`returns_tuple`). Empty when nothing is known.
  bool returns_tuple = false;
  std::vector<ReturnSummary> returns;
  // A `return` gives a container of tensors: a dict or list built from them (`return {k: v for k, v in
  // zip(names, stacked)}`), so `d["loss"]` and `**d` of the result are tensors (only in files that import
  // torch).
  bool returns_tensors = false;
  // Every `return` gives the file's parsed configuration (`return parser.parse_args()`, `config =
  // parser.parse_args(); return config`): the caller's `config = get_config()` holds its fields.
  bool returns_config = false;
  std::vector<ForwardCall> forwards;  // only in files that import torch
  // The class of what it returns, when every return agrees: the whole value, and for `return a, b, c`
  // each element (an unknown source where an element is not a construction or a call).
  ValueSource returned_source;
  std::vector<ValueSource> returned_elements;
  // Every `return` gives a DataLoader the file builds (`return DataLoader(..., pin_memory=True)`, or a name
  // bound to one): kArgPinnedLoader when each pins its memory, else kArgUnpinnedLoader; 0 otherwise. A
  // batch of what a caller in another file iterates then comes from pinned memory or not (TL204).
  uint8_t returned_loader = 0;
  StepSummary step;
  // A method of a `torch.optim.Optimizer` subclass (`step`, `first_step`) that updates the parameters one
  // tensor at a time in a loop (Model::ParameterUpdateLoops, TL501): the loop's line and column; 0 when it
  // does not.
  uint32_t update_loop_line = 0;
  uint32_t update_loop_column = 0;
  // The positional parameters (after `self`/`cls`; bit i for position i < 32) the function iterates in a
  // loop inside another of its loops (`for epoch in ...: for x in tqdm(loader):`): a loader passed there
  // is iterated once per epoch (TL203).
  uint32_t reiterated_parameters = 0;
  // The positional parameters (as above) the function calls on every call (`result = closure()` in a
  // timing helper): a function of the caller's file passed there runs as often as the call (a closure
  // that runs the training step, `gpu_timer(train_step)`).
  uint32_t called_parameters = 0;
  friend bool operator==(const FunctionSummary&, const FunctionSummary&) = default;
};

struct ClassSummary {
  std::string name;
  // The nn.Conv2d / ConvTranspose2d layers the class builds (capped at 255): a class another file imports
  // with two or more makes its component a conv net (TL406), though its own file never names it again.
  uint8_t conv2d = 0;
  std::vector<std::string> bases;  // canonical through the file's imports ("util.misc.Base", "torch.nn.Module"), or
                                   // the local name of a class of the file
  friend bool operator==(const ClassSummary&, const ClassSummary&) = default;
};

struct ImportSummary {
  std::string local;      // the name the file binds ("utils", "MetricLogger"); "*" for `from m import *`
  std::string canonical;  // "util.misc", "util.misc.MetricLogger", ".misc.MetricLogger" (relative)
  friend bool operator==(const ImportSummary&, const ImportSummary&) = default;
};

// A value a file gives a field of its configuration objects, for the functions of other files it passes
// them to: an argparse default (`--log-interval`, default 1 -> "log_interval"), or a constant written to
// an attribute (`args.workers = 8`). `kind` is a semantic::ValueKind: kUnknown (0) when the file writes
// the field with something the model cannot read, or two argparse options of that name disagree.
struct FieldSummary {
  std::string name;
  uint8_t kind = 0;
  int64_t int_value = 0;
  double float_value = 0;
  std::string string_value;
  std::optional<int64_t> at_least;  // kUnknown: the least it can be (semantic::Value::at_least)
  friend bool operator==(const FieldSummary&, const FieldSummary&) = default;
};

// What a call into another module of the project passes, as far as the callee's reads can use it.
enum ArgumentFact : uint8_t {
  kArgConfig = 1u << 0,          // the file's configuration (a parsed argparse Namespace, a config object)
  kArgPinnedLoader = 1u << 1,    // a DataLoader of the file built with `pin_memory=True`
  kArgUnpinnedLoader = 1u << 2,  // a DataLoader of the file without pinned memory
};
struct CallArgument {
  int32_t position = -1;  // among the positional arguments; -1 for a keyword
  std::string keyword;
  uint8_t facts = 0;  // ArgumentFact bits; 0 for anything else
  // The constant the calling file resolves the argument to (`num_workers=4`, `args.workers` with an
  // argparse default of 4), as a semantic::ValueKind and its value; kUnknown (0) for anything else.
  uint8_t value_kind = 0;
  int64_t int_value = 0;
  double float_value = 0;
  std::string string_value;
  ValueSource source;  // the construction or call the value comes from, for its class
  // A configuration imported from a module of the project (`from option import args`, passed directly or
  // through the caller's own `main(args)`): that module ("option"), whose fields the callee reads.
  std::string config_module;
  friend bool operator==(const CallArgument&, const CallArgument&) = default;
};
struct OutgoingCall {
  std::string callee;                   // canonical through the file's imports ("train.train", ".evaluate.evaluate")
  std::vector<CallArgument> arguments;  // every argument but the splats
  bool splat = false;                   // `*args` / `**kwargs`: may fill any parameter
  // The parts of what the call returns that the calling file iterates more than once without calling
  // again (a loader the callee builds, looped over once per epoch): bit 0 for the whole result, bit i + 1
  // for element i of a returned tuple (`train_loader, val_loader = make_loaders()`), i < 31.
  uint32_t reiterated_results = 0;
  // The attributes of the whole result the calling file iterates so (`for batch in dataset.train:` in
  // the epoch loop, with `dataset = Cifar(...)`), sorted: the loaders a constructed object holds.
  std::vector<std::string> reiterated_attributes;
  // Under a guard whose condition resolves to false (Model::SwitchedOff: `if debug:` with `debug = False`).
  bool switched_off = false;
  friend bool operator==(const OutgoingCall&, const OutgoingCall&) = default;
};

// Rules catalog: facts of a file that hold for its import component.
enum CatalogFact : uint32_t {
  kFactTrains = 1u << 0,       // a training step loop, a training hook, or framework training
  kFactCompiles = 1u << 1,     // torch.compile(...) / module.compile()
  kFactGradSyncOff = 1u << 2,  // DDP's no_sync(), require_backward_grad_sync, Accelerate's accumulate()
  kFactFramework = 1u << 3,    // Lightning Trainer / Fabric, Accelerate's Accelerator
  kFactDdp = 1u << 4,          // DistributedDataParallel(...)
  // Rules catalog (TL302-TL406): precision and convolutions.
  // Mixed precision: autocast, GradScaler or torch.amp, a `.half()`/`.bfloat16()` call, a framework's
  // precision argument that is not fp32, or an option or config field that selects it (`--amp`, `fp16`).
  kFactMixedPrecision = 1u << 5,
  kFactTf32 = 1u << 6,            // set_float32_matmul_precision("high"/"medium"), allow_tf32 = True
  kFactCudnnBenchmark = 1u << 7,  // torch.backends.cudnn.benchmark written (True, or False on purpose)
  kFactConv = 1u << 8,            // an nn.Conv1d/2d/3d/ConvTranspose* layer, or a torchvision conv net
  kFactConv2d = 1u << 9,          // two nn.Conv2d layers in one file, or a torchvision CV conv net
  kFactChannelsLast = 1u << 10,   // torch.channels_last
  // Not a fact of the component: the file has candidates (training, autograd debugging calls, gradient
  // accumulation) whose findings the component's facts can change, so the project pass checks it again.
  kFactCandidates = 1u << 31,
};

struct FileSummary {
  std::string path;         // as the check names the file
  std::string module;       // dotted, relative to the project root ("util.misc"); set by the index
  bool is_package = false;  // an __init__.py
  uint64_t content_hash = 0;
  bool own_cuda = false;  // the file itself shows CUDA use
  uint32_t cuda_line = 0;
  // What a project could change in this file's findings: it has device-gated candidates (a per-step
  // site, a DataLoader, a data-free tensor factory) without CUDA evidence of its own, or per-step calls
  // into other modules.
  bool device_candidates = false;
  bool project_calls = false;
  // Rules catalog: CatalogFact bits of what the file itself does (TL501-TL901: training, compile, DDP and
  // its no_sync; TL302-TL406: precision and convolution facts), which the rules read over the file's whole
  // import component (a `torch.compile` in `model.py` counts for `train.py`), so that a fact written in
  // another file of its component can change its findings.
  uint32_t catalog_facts = 0;
  std::vector<ImportSummary> imports;
  std::vector<ClassSummary> classes;
  // The functions and methods with something to tell other files (a sync per call, what they return, a
  // training step...), and the qualnames of the rest, sorted (most methods: a summary of each would be
  // most of the project index's memory, and its absence still shadows a base class's method).
  std::vector<FunctionSummary> functions;
  std::vector<std::string> plain_functions;
  // Values across files: the file reads something its functions' parameters may bring from another file
  // (a guard period, a DataLoader argument, a copy of a batch); the fields its configuration objects
  // hold; its calls of functions (and classes) of other modules of the project.
  bool parameter_reads = false;
  // The attributes it reads of names it imports from modules that are no third party's (`from option
  // import args`, then `args.num_workers`: "num_workers"), sorted: the index may give their values.
  // Only those the file's check asked for (Model::asked_fields_): empty in a summary made before the
  // rules ran.
  std::vector<std::string> imported_reads;
  // It builds a DataLoader: a function of another file may iterate it once per epoch (TL203).
  bool builds_loaders = false;
  // It copies to the device a batch of what a function of another module returns (`loader =
  // make_data_loader(...)`), which the index may tell is a pinned DataLoader (TL204).
  bool remote_loaders = false;
  std::vector<FieldSummary> fields;
  std::vector<OutgoingCall> calls;
  // The calls of other modules' functions its step loops make on every step (in files that import torch).
  std::vector<StepCall> step_calls;
  friend bool operator==(const FileSummary&, const FileSummary&) = default;
};

// Whether two summaries of one file tell the project the same (their bytes may differ).
bool SameForProject(const FileSummary& a, const FileSummary& b);

// The hash a summary's `content_hash` holds: equal bytes, equal hash, within one process.
uint64_t ContentHash(std::string_view text);

// Summaries kept by path and content, so that a file whose bytes did not change is not parsed again to
// learn what it tells the project: the project pass asks for the modules it follows beyond the checked
// files, the editor server for every file of the workspace on each keystroke. Thread-safe. It holds at
// most `capacity` files and starts again empty when a new one would pass that.
class SummaryCache {
 public:
  explicit SummaryCache(size_t capacity = 50'000) : capacity_(capacity) {}
  std::optional<FileSummary> Find(std::string_view path, uint64_t content_hash) const;
  void Put(const FileSummary& summary);
  size_t size() const;
  size_t hits() const;

  // A file on disk as a stat shows it: its modification time (ns) and size. A summary put with a stamp
  // is found by the stamp alone, so that a file whose stamp did not change is not even read again.
  struct Stamp {
    int64_t mtime_ns = 0;
    uint64_t size = 0;
    friend bool operator==(const Stamp&, const Stamp&) = default;
  };
  std::optional<FileSummary> FindStamped(std::string_view path, Stamp stamp) const;
  void Put(const FileSummary& summary, Stamp stamp);

 private:
  struct Entry {
    FileSummary summary;
    std::optional<Stamp> stamp;
  };
  size_t capacity_;
  mutable std::mutex mu_;
  mutable size_t hits_ = 0;
  std::unordered_map<std::string, Entry> by_path_;
};

// Module name of a file path relative to the project root: "util/misc.py" -> "util.misc",
// "pkg/__init__.py" -> "pkg". Empty when the path is not a Python module name.
std::string ModuleName(std::string_view relative_path, bool* is_package);

class ProjectIndex {
 public:
  // Adds a file; `summary.module` must be set (ModuleName). A module seen twice keeps the first.
  void Add(FileSummary summary);
  // Resolves imports and components; call once, after the last Add and before any lookup.
  void Finish();

  size_t size() const { return files_.size(); }
  const FileSummary* Find(std::string_view module) const;
  // "path:line" of the CUDA evidence of the file's component, when the file has none of its own but a
  // file it imports or that imports it (transitively) has.
  std::optional<std::string> InheritedCuda(const FileSummary& file) const;
  // Whether a module the file imports, or one those import (and so on), shows CUDA itself: what the file
  // runs on when it runs as a script of its own (its `__main__` block).
  bool ImportedCuda(const FileSummary& file) const;
  // Rules catalog: the CatalogFact bits of every file of `file`'s import component, or'd.
  uint32_t ComponentFacts(const FileSummary& file) const;

  // A function of a module of the project: one of its file's `functions`, or, for a plain one, a shared
  // empty summary (it has nothing to tell) and its entry of `plain_functions` as the qualname.
  struct Function {
    const FileSummary* file = nullptr;
    const FunctionSummary* function = nullptr;
    std::string_view qualname;
  };
  // The function a dotted name of `from` means: "util.misc.all_reduce_mean", ".misc.f", a re-export
  // through a package's __init__. nullopt when the name is not a function of the project.
  std::optional<Function> ResolveFunction(const FileSummary& from, std::string_view dotted) const;
  // The method `method` of the class a dotted name of `from` means, looking through the bases of the
  // class that are classes of the project.
  std::optional<Function> ResolveMethod(const FileSummary& from, std::string_view class_dotted,
                                        std::string_view method) const;

  // The sync a function runs on every call: its own, or one that a function of another module it calls
  // on each call runs (ForwardCall), found by Finish through any number of files. `function` and `file`
  // are where the sync is; `on_params` as SyncSummary's (only tensor arguments make the call sync).
  struct Sync {
    const FileSummary* file = nullptr;
    const FunctionSummary* function = nullptr;
    const SyncSummary* sync = nullptr;
    bool on_params = false;
  };
  std::optional<Sync> SyncOf(const Function& function, SyncFamily family) const;
  // The placement (a semantic::Placement; 0 when unknown) of what a function returns: element `position`
  // of its tuple, or the whole value for -1, following `via` into other modules.
  uint8_t ReturnPlacement(const Function& function, int position) const;

  // The calls other files of the index make of the function `qualname` of `file` (`Class.__init__` for a
  // construction of the class), each with the file that makes it. Empty when none does.
  struct Incoming {
    const FileSummary* caller = nullptr;
    const OutgoingCall* call = nullptr;
  };
  std::span<const Incoming> CallsOf(const FileSummary& file, std::string_view qualname) const;

  // A class of the project: the file that defines it and its name there.
  struct ClassRef {
    const FileSummary* file = nullptr;
    std::string name;
    friend bool operator==(const ClassRef&, const ClassRef&) = default;
  };
  // The class of the project a value of `from` comes from: a construction of the class, or a call of a
  // function of the project whose returns (or the tuple element) are one, followed through the functions
  // that return another function's result. nullopt for a class outside the project or anything unknown.
  std::optional<ClassRef> ResolveClass(const FileSummary& from, const ValueSource& source) const;
  // The loader a value of `from` is when it comes from a function of the project that returns one
  // (FunctionSummary::returned_loader), followed through the functions that return another function's
  // result as ResolveClass does: kArgPinnedLoader, kArgUnpinnedLoader, or 0 when it is not known.
  uint8_t ReturnedLoader(const FileSummary& from, const ValueSource& source) const;
  // The method a call of an instance of the class runs (`obj(...)`): its `__call__` (its own or a project
  // base's), else `forward` for a subclass of a torch.nn class. nullopt when neither is in the project.
  std::optional<Function> CallOperator(const ClassRef& cls) const;
  // The method `method` of the class, through its bases of the project.
  std::optional<Function> MethodOf(const ClassRef& cls, std::string_view method) const;
  // The method `method` of the one class of the project built on torch.nn that defines it (its own
  // method, not an inherited one): what `model.detect_objects(...)` runs when the model's class is
  // not known where the call is (`model = checkpoint["model"]`). nullopt when no class or several
  // define it, and for the methods torch.nn.Module has itself (`forward`, `train`, `state_dict`...).
  std::optional<Function> ModuleMethod(std::string_view method) const;
  // Whether a method name may be one ModuleMethod answers for (not a dunder, not torch.nn.Module's).
  static bool ModuleMethodName(std::string_view method);
  // ForwardCall::callee of such a call (its `method` the name).
  static constexpr std::string_view kModuleMethodCallee = "*module";
  // The names of the methods of the project with an update loop (FunctionSummary::update_loop_line),
  // sorted: `step`, `first_step`.
  const std::vector<std::string>& UpdateLoopMethods() const { return update_loop_methods_; }
  // Whether some file of the index calls a function of `file`.
  bool Called(const FileSummary& file) const;
  // The functions of `file` that a step loop of another file calls on every step and that synchronize
  // implicitly on every call (TL102's helpers, which its own file then reports line by line), each with
  // the cadence and the call that makes it run so. Sorted by qualname; empty when none.
  struct StepEntry {
    std::string_view qualname;
    uint8_t cadence = 0;  // semantic::Cadence
    const FileSummary* caller = nullptr;
    uint32_t line = 0;
    uint32_t column = 0;
    bool cuda = false;  // the caller runs on CUDA (its own evidence, or its component's)
  };
  std::span<const StepEntry> StepEntries(const FileSummary& file) const;
  // Whether some function of the index calls one of its parameters on every call
  // (FunctionSummary::called_parameters): only then do the files' calls need resolving for callbacks.
  bool CallsParameters() const { return calls_parameters_; }
  // The names `from m import *` of modules of the project brings into `file`: the public imports of m
  // that name no module by a relative path (`import torch`, `from torch import nn`), and those of the
  // modules m star-imports in turn (three levels), the nearest first. Python binds them in the file, so
  // `torch.cuda.empty_cache()` in a file that only has `from utils import *` is torch's.
  std::vector<ImportSummary> StarBindings(const FileSummary& file) const;
  // Whether such bindings bring a name of torch (`torch`, `nn`, `DataLoader`): what the rules read.
  static bool BringsTorch(const std::vector<ImportSummary>& bindings);
  // Whether `file` reads a field (its `imported_reads`) of a name it imports from a module of the project
  // whose configuration gives that field (FieldSummary).
  bool ImportsFields(const FileSummary& file) const;
  // The module of the project a dotted name of `from` means ("option", ".misc"); nullptr when none.
  const FileSummary* Module(const FileSummary& from, std::string_view dotted) const {
    return ResolveModule(from, dotted);
  }

 private:
  struct Symbol {
    const FileSummary* file = nullptr;
    std::string rest;  // qualname inside the file ("f", "Class"), empty for the module itself
  };
  std::optional<Symbol> ResolveSymbol(const FileSummary& from, std::string_view dotted, int depth) const;
  const FileSummary* ResolveModule(const FileSummary& from, std::string_view dotted) const;
  std::optional<Function> MethodIn(const FileSummary& file, std::string_view cls, std::string_view method,
                                   int depth) const;
  std::optional<ClassRef> ResolveClassDepth(const FileSummary& from, const ValueSource& source, int depth) const;
  uint8_t ReturnedLoaderDepth(const FileSummary& from, const ValueSource& source, int depth) const;
  // The file and the qualname a source's call names: a bare name of the file's own class or function,
  // else a name through its imports. nullopt when it is neither.
  std::optional<Symbol> SourceSymbol(const FileSummary& from, const ValueSource& source) const;
  // Whether the class derives (through classes of the project) from a torch.nn class.
  bool DerivesFromTorchNn(const FileSummary& file, std::string_view cls, int depth) const;

  // Module names, looked up by a std::string_view without making a std::string of it (the index asks
  // for tens of thousands of names while it is built).
  struct NameHash {
    using is_transparent = void;  // NOLINT(readability-identifier-naming): the name the standard asks for
    size_t operator()(std::string_view name) const noexcept { return std::hash<std::string_view>{}(name); }
  };
  template <typename T>
  using ByName = std::unordered_map<std::string, T, NameHash, std::equal_to<>>;

  std::vector<std::unique_ptr<FileSummary>> files_;
  ByName<size_t> by_module_;
  ByName<std::vector<size_t>> by_last_;    // last module segment -> files
  std::vector<size_t> component_;          // file -> representative
  std::vector<uint32_t> component_facts_;  // representative -> CatalogFact bits
  std::vector<int> component_cuda_;        // representative -> file with CUDA evidence, or -1
  // (callee module, qualname) -> the calls of it from other files, found by Finish.
  std::unordered_map<std::string, std::vector<Incoming>> incoming_;
  std::unordered_set<std::string> called_;  // modules in incoming_
  std::vector<std::string> update_loop_methods_;
  std::unordered_map<std::string, std::vector<StepEntry>> step_entries_;  // module -> StepEntries
  // ModuleMethod's table, made on first use: method name -> the one method, or null for several.
  mutable std::once_flag module_methods_once_;
  mutable std::unordered_map<std::string_view, std::optional<Function>> module_methods_;
  void FindStepEntries();
  bool calls_parameters_ = false;
  std::optional<Function> ResolveForward(const FileSummary& file, const ForwardCall& call) const;
  // Syncs functions run through other modules' functions (SyncOf), found by Finish, by SyncFamily.
  std::unordered_map<const FunctionSummary*, Sync> forwarded_[kSyncFamilies];
  void ForwardSyncs();
  static std::optional<Function> FunctionIn(const FileSummary& file, std::string_view qualname);
  uint8_t ReturnPlacementDepth(const Function& function, int position, int depth) const;
};

}  // namespace tl::semantic
