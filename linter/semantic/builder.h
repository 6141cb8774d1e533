// The model's builder and the helpers its parts share. Internal to linter/semantic: rules include
// model.h (and syntax.h), never this.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "linter/semantic/model.h"
#include "linter/semantic/syntax.h"

namespace tl::semantic {

using K = NodeKind;
using F = FieldName;

// A name's bit in the 4,096-bit set Model::function_name_bits_ keeps of the file's function names: from
// its length and its first two and last bytes. Names with different bits differ.
inline uint32_t NameBit(std::string_view name) {
  if (name.empty()) return 0;
  const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(name[i])); };
  const uint32_t second = name.size() > 1 ? byte(1) : 0;
  return (static_cast<uint32_t>(name.size()) * 131u + byte(0) * 31u + second * 7u + byte(name.size() - 1)) & 4095u;
}

// A name's length and its first six bytes in one word (Model::call_name_keys_): equal names have equal
// keys, and names of up to six bytes with equal keys are equal.
inline uint64_t NameKey(std::string_view name) {
  uint64_t key = static_cast<uint64_t>(std::min<size_t>(name.size(), 0xFFFF)) << 48;
  for (size_t i = 0; i < name.size() && i < 6; ++i) {
    key |= static_cast<uint64_t>(static_cast<unsigned char>(name[i])) << (8 * i);
  }
  return key;
}

// Orders bindings, (name, scope) pairs, config writes (by field) and item writes (by dict) by name, and
// compares them with a bare name in lookups.
struct NameLess {
  static std::string_view Key(std::string_view name) { return name; }
  static std::string_view Key(const Model::Binding& binding) { return binding.name; }
  static std::string_view Key(const std::pair<std::string_view, int>& function) { return function.first; }
  static std::string_view Key(const Model::ConfigWrite& write) { return write.field; }
  static std::string_view Key(const Model::ItemWrite& write) { return write.object; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return Key(a) < Key(b);
  }
};

// A name's first eight bytes, big-endian and padded with zeros: their order never contradicts the
// names' (a shorter name that another starts with comes first either way), so sorting or searching by
// it first and by the name where it ties is the same as by the name.
inline uint64_t NameHead(std::string_view name) {
  uint64_t head = 0;
  for (size_t b = 0; b < 8; ++b) head = (head << 8) | (b < name.size() ? static_cast<unsigned char>(name[b]) : 0U);
  return head;
}

constexpr int kMaxDepth = 24;  // bound on resolution chains (x = y; y = z ...) and nesting

// `torch.nn.modules.linear.Linear` -> `torch.nn.Linear`; anything else unchanged (names.cpp).
void PublicName(std::string& dotted);

// Names that are never functions or classes of the checked project: `torch.*`, `numpy.*`, `timm.*`...
// (summary.cpp).
bool ThirdParty(std::string_view canonical);

// `a in b`, `a is None`, `a not in b`: Python comparisons that never make a tensor (syncs.cpp).
bool IsIdentityComparison(const Model& model, ts::Node comparison);

// `a <op> b` on ints for + - * // and ** (bindings.cpp); nullopt on overflow, a negative exponent or an
// operator it does not evaluate.
std::optional<int64_t> IntArithmetic(std::string_view op, int64_t a, int64_t b);
// `a <op> b` when one side is not known but both have a lower bound (Value::LowerBound) of at least 0:
// unknown, at least the bounds' sum for + and their product for *; unknown without a bound otherwise
// (`workers - 4`, `workers // 2`, a side that may be negative).
Value BoundedArithmetic(std::string_view op, const Value& a, const Value& b);

// ---------------------------------------------------------------------------------------------------
// ValueFlow: the resolver behind Model::ResolveAll (configs.cpp), with the step budget of one query so
// that fan-out through call sites and config fields stays bounded however the file is written.

class ValueFlow {
 public:
  // An expression and the scope it is read in.
  struct Place {
    ts::Node expr;
    int scope = 0;
  };
  static constexpr int kBudget = 4000;  // resolution steps for one query

  explicit ValueFlow(const Model& model) : m_(model) {}
  void Resolve(ts::Node expr, int scope, int depth, std::vector<Value>& out);
  // The dict, tuple and list literals (and `dict(...)` calls) an expression can be.
  std::vector<Place> Containers(ts::Node expr, int scope, int depth, bool& unknown);

 private:
  bool Spend(int depth);
  void Identifier(ts::Node expr, int scope, int depth, std::vector<Value>& out);
  void Attribute(ts::Node expr, int scope, int depth, std::vector<Value>& out);
  void Subscript(ts::Node expr, int scope, int depth, std::vector<Value>& out);
  void Binary(ts::Node expr, int scope, int depth, std::vector<Value>& out);
  // Values written to `field` of the file's config objects, and the argparse default of that name.
  bool FieldValues(std::string_view field, int depth, std::vector<Value>& out);
  // The expressions a parameter receives at the file's call sites (its default where one omits it);
  // `unknown` is set when some call cannot be read.
  std::vector<Place> Arguments(const Model::Binding& parameter, int depth, bool& unknown);
  // `self.name` in the class around `scope`: every value its methods (or the class body) assign.
  std::vector<Place> Members(std::string_view name, int scope, bool& unknown) const;
  void Select(const Place& container, const Value& key, std::vector<Place>& out, bool& unknown) const;
  bool ConfigLike(ts::Node object, int scope, int depth);

  const Model& m_;
  int budget_ = kBudget;
  std::vector<const Model::Binding*> active_;    // parameters being resolved, innermost last
  std::vector<std::string_view> active_fields_;  // config fields being resolved
  // Containers: what each parameter's callers pass it, as far as this query followed them (a parameter
  // reached again by another chain of calls gives the same; one reached around a recursion, nothing
  // more). Without it a file whose functions hand their parameters on to each other (a hand-written
  // parser passing `src, pos` everywhere) spends the whole budget on every query.
  struct ParameterContainers {
    bool done = false;  // false while its callers are being followed
    bool unknown = false;
    std::vector<Place> places;
  };
  std::unordered_map<const Model::Binding*, ParameterContainers> parameter_containers_;
};

// Modules as the code passes them around (instances.cpp): a wrapper whose call runs the wrapped module's
// forward (`DistributedDataParallel`, `DataParallel`, by canonical name), and a module's own methods that
// return the module itself (`to`, `cuda`, `train`, `eval`, `float`, `half`).
bool ModuleWrapper(std::string_view canonical);
bool ReturnsSelfModule(std::string_view method);

// ---------------------------------------------------------------------------------------------------
// Builder: one iterative preorder walk that records scopes, loops, guards, sites, bindings and
// imports, then a few passes over those (small) tables to classify loops and propagate "runs every
// step" through the file's own functions.

class Builder {
 public:
  Builder(Model& model, const ts::Tree& tree, std::span<const ImportSummary> star = {})
      : m_(model), tree_(&tree), star_(star) {}
  // For the passes after the walk (ReviewGuards), which do not read the tree.
  explicit Builder(Model& model) : m_(model) {}
  void Run();
  // With a project attached: the modulo guards whose N was unknown, again (another file's argparse
  // default may give it), and what runs every step when one of them turns out to run every step.
  void ReviewGuards();
  // With the project index: a step loop that calls, on every iteration, a function or method of another
  // file that runs `backward()` on every call (a loss scaler's `__call__`) is a training step loop, and
  // what it runs takes that cadence.
  void ReviewTrainingHelpers();
  // With the project: the functions another file's step loops call on every step
  // (Model::remote_entries_), and the file's functions they call in turn, run that often; their sites
  // outside periodic guards and epoch loops get that `remote_cadence`.
  void MarkRemoteEntries();
  // A function of the file passed to a call whose callee calls that parameter on every call (a function
  // of the file, or with the project one of another module: FunctionSummary::called_parameters) runs on
  // each of those calls, like a direct call (`gpu_timer(train_step)`). Runs PropagatePerStep again when
  // it adds a call, after the loops are `classified` (a step loop whose callback runs `backward()` becomes
  // a training loop); returns whether it added one.
  bool ReviewCallbacks(bool classified);

 private:
  struct Frame {
    uint32_t depth;
    int scope, loop, guard;  // the values to restore when the frame is popped
  };

  bool Enter(ts::Node node, uint32_t depth);
  void Push(uint32_t depth) { frames_.push_back({depth, scope_, loop_, guard_}); }
  void PopTo(uint32_t depth) {
    while (!frames_.empty() && frames_.back().depth >= depth) {
      scope_ = frames_.back().scope;
      loop_ = frames_.back().loop;
      guard_ = frames_.back().guard;
      frames_.pop_back();
    }
  }
  // `kids`: the definition's children when the walk read them (Kids), else empty.
  void AddScope(ScopeKind kind, ts::Node node, uint32_t depth, std::span<const ts::Node> kids = {});
  // `statement_end` and `block_end`: a plain assignment statement's and its block's end bytes (0: not one).
  void BindTarget(ts::Node target, ts::Node value, Model::BindingKind kind, int position, int loop,
                  uint32_t statement_end = 0, uint32_t block_end = 0);
  void RecordParameters(ts::Node parameters);
  void RecordImport(ts::Node node, K kind);
  void RecordCall(ts::Node node, std::span<const ts::Node> kids);
  // The named children of the node Enter is at (only for a node with up to kFewKids of them; empty
  // otherwise), valid until the next call: Enter reads their positional fields from them (a call's
  // callee and arguments, an assignment's target and value, a definition's name and parameters).
  static constexpr uint32_t kFewKids = 8;
  std::span<const ts::Node> Kids(ts::Node node);
  void AddSite(ts::Node node, SiteKind kind);
  void NoteString(ts::Node node);
  // The outermost attributes (no attribute around them) named like a precision or layout constant
  // (`torch.float16`, `torch.channels_last`), for FindCatalogFacts: collected by the walk, and by a
  // small walk of the subtrees it skips, so that no second walk of the whole tree is needed.
  void NoteAttribute(ts::Node node, uint32_t depth);
  void NoteSkippedAttributes(ts::Node subtree, uint32_t depth);

  // Sorts the bindings by name (stable) and fills bindings_by_scope_.
  void SortBindings();
  void NameCalls();
  void NameCanonicalCallees();
  void ReadArgparse();
  // The blocks of the module's `if __name__ == "__main__":` statements (Model::main_blocks_).
  void FindMainBlocks();
  void ReadAbslFlag(const Site& site);
  // An option of the run (argparse's dest, absl's flag name) with its default, into Model::argparse_.
  void AddOption(const Site& site, const std::string& dest, const Value& value, bool choices_name_cuda);
  bool ChoicesNameCuda(const Site& site) const;
  // configs.cpp: config classes, the variables that hold configs and dicts, and their live writes.
  void CollectConfigs();
  void FindConfigClasses();
  void FindConfigRecords();
  void MarkConfigArguments();
  ts::Node PassedExpression(ts::Node argument) const;
  void CollectHandedOn();
  void CollectRecordWrites();
  void CollectClassWrites();
  void FindCudaEvidence();
  // catalog.cpp: the precision and convolution facts, and where the file trains (TL402-TL406).
  void FindCatalogFacts();
  // The file's training site (Model::Training) is its first training step loop that no per-step code
  // runs; true when there is one.
  bool TakeTrainingLoop();
  // Accelerate's Accelerator(), torch.cuda.amp.GradScaler(), Lightning's Trainer(accelerator="gpu").
  bool IsDeviceCall(const Site& site) const;
  // A call that seeds the CUDA generators (`torch.cuda.manual_seed(42)`), or `torch.cuda.is_available()`
  // as the condition of a branch that only does that: no evidence that the script runs on CUDA.
  bool IsCudaSeeding(const Site& site) const;
  bool MovesToGpuIndex(const Site& site) const;
  struct Rarity {
    bool rare = false;
    Value period;  // N of a modulo guard, when it resolves
  };
  // `block`: the guarded block, when the condition is a guard's (Budgeted).
  Rarity RareCondition(ts::Node condition, int scope, int depth, ts::Node block = ts::Node()) const;
  // A guard that runs once every `period` iterations: rare unless the period is 1 (see Periodic).
  static Rarity EveryPeriod(Value period);
  // A rare guard (periodic, or one that ends the run) of `scope` inside `outer` that `inner` lies under: in
  // its block, or in the rest of a block that `if i % N != 0: continue` skips.
  bool RareBetween(ts::Node inner, ts::Node outer, int scope) const;
  Rarity Periodic(ts::Node modulo, int scope) const;
  bool OffDevice(ts::Node condition) const;
  void EvaluateGuards();
  bool EndsRun(const Guard& guard) const;
  void EvaluateSkipGuard(Guard& guard);
  // The `X % N` side of a comparison `X % N <op> K` whose other side resolves to an integer; null if not.
  ts::Node ModuloCompared(ts::Node comparison, std::string_view op, int scope) const;
  // A call of a function of the file whose one `return` is a modulo test of its parameters
  // (`divisible_by(step, every)`): periodic, with the period the call passes.
  Rarity PeriodicHelper(ts::Node call, int scope) const;
  // A flag assigned comparisons (or `True`) only, on which the function leaves its loop (`if done: break`).
  bool EndsLoop(ts::Node name, int scope) const;
  // `i == 0` (either side) with `i` a loop target: true once per pass over the loop, not every step.
  bool CountsOnce(ts::Node comparison, int scope) const;
  // `if j <= 4:` with `j` an iteration counter (IterationCounter) and a constant bound: the branch runs on
  // the first few iterations of the loop only (at most kFirstIterations; a larger bound may cover a whole
  // evaluation set).
  static constexpr int64_t kFirstIterations = 10;
  // `op`: the comparison's operator, one of `<`, `<=`, `>`, `>=`, between two operands.
  bool FirstIterations(ts::Node comparison, std::string_view op, int scope) const;
  // `x < 5`, `x <= 4`, `5 > x` (`op` as FirstIterations takes it): the name bounded and how many values
  // from 0 pass (5); nullopt when the bound does not resolve.
  struct UpperBound {
    ts::Node name;
    int64_t limit = 0;
  };
  // `name_holds` is asked of the name before the bound is resolved.
  std::optional<UpperBound> BoundedBelow(ts::Node comparison, std::string_view op, int scope,
                                         const std::function<bool(ts::Node)>& name_holds) const;
  // `if mistakes < 5:` whose block runs `mistakes += 1`, with `mistakes` set once to a constant and only
  // ever grown by positive constants in the scope: the branch runs at most that many times (at most
  // kFirstIterations).
  bool Budgeted(ts::Node comparison, std::string_view op, int scope, ts::Node block) const;
  // `i in C` with `i` an iteration counter and C a collection (a name, an attribute or a literal): true on
  // the few iterations C lists (`if iteration in testing_iterations:`), not every step.
  bool CounterInCollection(ts::Node comparison, int scope) const;
  // A name that counts a loop's iterations: the target of `for i in range(...)`, enumerate's counter, or a
  // parameter of a function of the file that every call of the file passes such a counter.
  bool IterationCounter(ts::Node name, int scope, int depth) const;
  // Whether `offset` lies in the rest of a block that `if i % N != 0: continue` of `scope` skips, inside `within`.
  bool UnderSkipGuard(uint32_t offset, int scope, TextRange within) const;
  void FindHooks();
  void ClassifyLoops();
  void MarkHostBatches();
  void PropagatePerStep();
  // After calls were added or loops became training loops: cadences again, and when the file `trains`
  // now, its facts and its training site.
  void TrainsAfterAll(bool trains);
  struct StepOf {
    int loop = -1;  // -1 in a hook
    Cadence cadence = Cadence::kNone;
  };
  StepOf StepLoopOf(const Site& site) const;
  std::vector<int> LocalCallees(const Site& site) const;
  // The methods a call of an object the file builds from its own classes runs: `obj(x)` its `__call__`
  // (or `forward`), `obj.m(x)` (`method` given) its `m`. `head` is the object: a name, or `self.x` in a
  // method of `scope`'s class.
  void InstanceCallees(ts::Node head, int scope, std::vector<int>& out, std::string_view method = {}) const;
  // The names of the classes a binding builds an object of (`x = Net(...).cuda()`), or for the variable of
  // a loop over a list, the classes of the objects the list is made of or given by `append`.
  void ConstructedClasses(const Model::Binding& binding, std::vector<std::string_view>& out) const;
  // The call a function's returned value is, or is an element or field of (`out[0]`, `out.logits`),
  // directly or through a name the function binds once; null otherwise.
  ts::Node ModelOutputCall(ts::Node value, int scope) const;
  // A decoding loop: the loop rebinds what it gives one of its model calls from what a model call returned.
  bool FeedsModelOutputBack(int loop, const std::vector<const Site*>& model_calls) const;

  Model& m_;
  const ts::Tree* tree_ = nullptr;
  std::vector<Frame> frames_;
  std::vector<K> parent_kind_;        // kind of the node at each depth
  std::vector<uint32_t> parent_end_;  // its end byte
  int scope_ = 0;
  int loop_ = -1;
  int guard_ = -1;
  // The conditions of the conditional expressions (`a if cond else b`) being walked, with the depth of
  // each expression: a condition's site is added when the walk reaches it.
  std::vector<std::pair<uint32_t, ts::Node>> ternary_conditions_;
  std::vector<uint32_t> append_calls_;  // the file's `x.append(...)` calls, as indices into sites_
  int pending_loop_ = -1;               // for_statement whose body block comes next
  int pending_guard_ = -1;              // if/elif whose consequence block comes next
  std::vector<uint32_t> option_calls_;
  std::vector<int> skip_guards_;                // guards of the `if i % N != 0: continue` shape
  std::vector<ts::Node> precision_attributes_;  // see NoteAttribute
  std::vector<TextRange> try_statements_;       // every try statement, for EndsRun
  // Unparen(site.Receiver()) of each site, read once by the walk for the passes that ask it of every
  // call; kept by the builder only, so that the model's site table stays small.
  std::vector<ts::Node> receivers_;
  ts::Node ReceiverOf(const Site& site) const { return receivers_[static_cast<size_t>(&site - m_.sites_.data())]; }
  // The last decorated_definition entered: the parent of a definition entered right below one, since
  // decorators (expressions) hold no definitions.
  ts::Node last_decorated_;
  // The last call's callee when it is an attribute, and its object as read (parenthesized or not): the
  // walk enters that attribute next, and asks the same.
  ts::Node callee_attribute_;
  ts::Node callee_object_;
  std::vector<ts::Node> kids_;           // Kids: the children of the node Enter is at
  std::span<const ImportSummary> star_;  // what the file's star imports bring (Model::Build)
  // configs.cpp: a class of the file by name (-1 when two share it), and each record's writes before
  // the overwritten ones are dropped, with the positions of the calls that hand the record on.
  struct RecordWrite {
    Model::ConfigWrite write;
    ts::Node statement;
  };
  struct ByField {
    bool operator()(const RecordWrite& a, const RecordWrite& b) const { return a.write.field < b.write.field; }
  };
  std::unordered_map<std::string_view, int> class_by_name_;
  std::vector<std::vector<RecordWrite>> record_writes_;                    // each sorted by field
  std::unordered_map<std::string_view, std::vector<uint32_t>> handed_on_;  // record name -> call offsets
  int AddRecord(std::string_view name, int scope);
  bool Supplies(const Site& construction, const Model::ConfigClass& klass, size_t field) const;
  bool Overwritten(const RecordWrite& earlier, const std::vector<RecordWrite>& writes, std::string_view name) const;
};

}  // namespace tl::semantic
