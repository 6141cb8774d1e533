// The model's builder and the helpers its parts share. Internal to linter/semantic: rules include
// model.h (and syntax.h), never this.
#pragma once

#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "linter/semantic/model.h"
#include "linter/semantic/syntax.h"

namespace tl::semantic {

using K = NodeKind;
using F = FieldName;

// Orders bindings and (name, scope) pairs by name, and compares them with a bare name in lookups.
struct NameLess {
  static std::string_view Key(std::string_view name) { return name; }
  static std::string_view Key(const Model::Binding& binding) { return binding.name; }
  static std::string_view Key(const std::pair<std::string_view, int>& function) { return function.first; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return Key(a) < Key(b);
  }
};

constexpr int kMaxDepth = 24;  // bound on resolution chains (x = y; y = z ...) and nesting

// `torch.nn.modules.linear.Linear` -> `torch.nn.Linear`; anything else unchanged (names.cpp).
void PublicName(std::string& dotted);

// ---------------------------------------------------------------------------------------------------
// Builder: one iterative preorder walk that records scopes, loops, guards, sites, bindings and
// imports, then a few passes over those (small) tables to classify loops and propagate "runs every
// step" through the file's own functions.

class Builder {
 public:
  Builder(Model& model, const ts::Tree& tree) : m_(model), tree_(tree) {}
  void Run();

 private:
  struct Frame {
    uint32_t depth;
    int scope, loop, guard;  // the values to restore when the frame is popped
  };

  bool Enter(ts::Node node, const TSTreeCursor* cursor, uint32_t depth);
  void Push(uint32_t depth) { frames_.push_back({depth, scope_, loop_, guard_}); }
  void PopTo(uint32_t depth) {
    while (!frames_.empty() && frames_.back().depth >= depth) {
      scope_ = frames_.back().scope;
      loop_ = frames_.back().loop;
      guard_ = frames_.back().guard;
      frames_.pop_back();
    }
  }
  void AddScope(ScopeKind kind, ts::Node node, uint32_t depth);
  void BindTarget(ts::Node target, ts::Node value, Model::BindingKind kind, int position, int loop);
  void RecordParameters(ts::Node parameters);
  void RecordImport(ts::Node node, K kind);
  void RecordCall(ts::Node node);
  void AddSite(ts::Node node, SiteKind kind);
  void NoteString(ts::Node node);

  void NameCalls();
  void ReadArgparse();
  bool ChoicesNameCuda(const Site& site) const;
  void FindCudaEvidence();
  // Accelerate's Accelerator(), torch.cuda.amp.GradScaler(), Lightning's Trainer(accelerator="gpu").
  bool IsDeviceCall(const Site& site) const;
  bool MovesToGpuIndex(const Site& site) const;
  struct Rarity {
    bool rare = false;
    Value period;  // N of a modulo guard, when it resolves
  };
  Rarity RareCondition(ts::Node condition, int scope, int depth) const;
  Rarity Periodic(ts::Node modulo, int scope) const;
  bool OffDevice(ts::Node condition, int scope) const;
  void EvaluateGuards();
  void EvaluateSkipGuard(Guard& guard);
  // The `X % N` side of a comparison `X % N <op> K` whose other side resolves to an integer; null if not.
  ts::Node ModuloCompared(ts::Node comparison, std::string_view op, int scope) const;
  // `i == 0` (either side) with `i` a loop target: true once per pass over the loop, not every step.
  bool CountsOnce(ts::Node comparison, int scope) const;
  bool UnderSkipGuard(const Site& site, TextRange within) const;
  void FindHooks();
  void ClassifyLoops();
  void PropagatePerStep();
  struct StepOf {
    int loop = -1;  // -1 in a hook
    Cadence cadence = Cadence::kNone;
  };
  StepOf StepLoopOf(const Site& site) const;
  std::vector<int> LocalCallees(const Site& site) const;

  Model& m_;
  const ts::Tree& tree_;
  std::vector<Frame> frames_;
  std::vector<K> parent_kind_;  // kind of the node at each depth
  int scope_ = 0;
  int loop_ = -1;
  int guard_ = -1;
  int pending_loop_ = -1;   // for_statement whose body block comes next
  int pending_guard_ = -1;  // if/elif whose consequence block comes next
  std::vector<uint32_t> add_argument_calls_;
  std::vector<int> skip_guards_;  // guards of the `if i % N != 0: continue` shape
  std::unordered_map<std::string_view, int> import_index_;
};

}  // namespace tl::semantic
