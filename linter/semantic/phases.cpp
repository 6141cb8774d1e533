// Phases: what each statement of a step loop does (data, forward, loss, backward, optimizer).
#include "linter/semantic/builder.h"

#include <algorithm>

namespace tl::semantic {

std::string_view ToString(Cadence cadence) {
  switch (cadence) {
    case Cadence::kTrainingStep: return "every training step";
    case Cadence::kEvaluationBatch: return "every evaluation batch";
    case Cadence::kGenerationStep: return "every generated token";
    case Cadence::kEnvironmentStep: return "every environment step";
    case Cadence::kNone: break;
  }
  return "";
}

std::string_view ToChinese(Cadence cadence) {
  switch (cadence) {
    case Cadence::kTrainingStep: return "每个训练步";
    case Cadence::kEvaluationBatch: return "每个评估批次";
    case Cadence::kGenerationStep: return "每生成一个 token 时";
    case Cadence::kEnvironmentStep: return "每个环境步";
    case Cadence::kNone: break;
  }
  return "";
}

std::string_view ToString(Phase phase) {
  switch (phase) {
    case Phase::kData: return "data";
    case Phase::kForward: return "forward";
    case Phase::kLoss: return "loss";
    case Phase::kBackward: return "backward";
    case Phase::kOptimizer: return "optimizer";
    case Phase::kOther: break;
  }
  return "other";
}

std::vector<ts::Node> Model::BodyStatements(int loop) const {
  std::vector<ts::Node> out;
  if (loop < 0 || static_cast<size_t>(loop) >= loops_.size()) return out;
  ts::Node body = loops_[static_cast<size_t>(loop)].body;
  for (ts::Node child : body.NamedChildren()) {
    if (KindOf(child) != K::kComment) out.push_back(child);
  }
  return out;
}

Phase Model::PhaseOf(ts::Node statement) const {
  const TextRange range = statement.Range();
  auto first = std::lower_bound(sites_.begin(), sites_.end(), range.begin,
                                [](const Site& site, uint32_t offset) { return site.node.StartByte() < offset; });
  Phase phase = Phase::kOther;
  for (auto it = first; it != sites_.end() && it->node.StartByte() < range.end; ++it) {
    if (it->kind != SiteKind::kCall) continue;
    Phase p = Phase::kOther;
    if (it->name == "backward") {
      p = Phase::kBackward;
    } else if ((it->name == "step" || it->name == "zero_grad" || it->name == "update") && !it->Receiver().IsNull()) {
      p = Phase::kOptimizer;
    } else if (IsLossCall(*it)) {
      p = Phase::kLoss;
    } else if (IsModelLike(it->callee, it->scope, 0)) {
      p = Phase::kForward;
    } else if (it->name == "next" || it->name == "to" || it->name == "cuda") {
      p = Phase::kData;
    }
    if (static_cast<int>(p) > static_cast<int>(phase)) phase = p;
  }
  return phase;
}

}  // namespace tl::semantic
