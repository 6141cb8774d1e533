// The Rule interface. A rule is one source file under rules/<family>/: its RuleMeta (code, name, docs
// in Ruff's sections, fix availability, the trace evidence that confirms it) and its Check, which reads
// the per-file semantic model and reports Diagnostics. Rules never re-walk the tree for facts the
// model already knows. Registration is one line: TL_REGISTER_RULE(MyRule).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/source_file.h"
#include "linter/ts/ts.h"

namespace tl::semantic {
class Model;
}

namespace tl {

struct EvidenceQuery;  // linter/engine/crosscheck.h: the trace, the finding's line and function, the step

enum class FixAvailability { kNone, kSometimes, kAlways };

struct RuleMeta {
  std::string_view code;     // "TL101": TL + three digits; the family is the first digit
  std::string_view name;     // "sync-in-step-loop", kebab-case
  std::string_view family;   // "host-device-sync", "data-loading", "memory", "compute", ...
  std::string_view summary;  // one line, sentence case, no trailing period
  std::string_view docs;     // Markdown: What it does / Why is this bad? / Example / Use instead /
                             // Fix safety / Trace evidence / Options / References
  FixAvailability fix = FixAvailability::kNone;
  Severity severity = Severity::kWarning;
};

// A PyTorch version as major.minor; ordering compares numerically (2.10 > 2.9).
struct TorchVersion {
  int major = 2;
  int minor = 5;
  friend auto operator<=>(const TorchVersion&, const TorchVersion&) = default;
  static std::optional<TorchVersion> Parse(std::string_view text);  // "1.13", "2.1.0", "2"
  std::string ToString() const;
};

// Options rules read. Filled from configuration and the command line by the engine.
struct RuleOptions {
  TorchVersion target_torch;           // explicit, inferred from a pin, or the current default
  bool target_torch_inferred = false;  // true when no --target-torch / config key / pin said it
  uint32_t min_dim = 64;               // TL401: smaller dims are never reported
};

struct CheckContext {
  const SourceFile& file;
  const ts::Tree& tree;
  const semantic::Model& model;
  const RuleOptions& options;
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleMeta& Meta() const = 0;
  // Appends this rule's diagnostics for one file. Must be thread-safe: one Rule instance serves all
  // files and all worker threads.
  virtual void Check(const CheckContext& context, std::vector<Diagnostic>& out) const = 0;
  // What a profiler trace says about one of this rule's findings (`check --trace`): the verdict, the
  // cost per step and the saving the fix would bring by the rule's stated model (docs/crosscheck.md).
  // Must be thread-safe, like Check. The default: the rule has no trace evidence.
  virtual Evidence Confirm(const Diagnostic& /*diagnostic*/, const EvidenceQuery& /*query*/) const {
    Evidence evidence;
    evidence.verdict = Verdict::kUnverifiable;
    evidence.summary = "This rule has no trace evidence defined";
    return evidence;
  }

 protected:
  // A diagnostic of this rule (code, name and severity from Meta()) over `range`.
  Diagnostic MakeDiagnostic(TextRange range, std::string message) const {
    Diagnostic diagnostic;
    diagnostic.code = std::string(Meta().code);
    diagnostic.name = std::string(Meta().name);
    diagnostic.severity = Meta().severity;
    diagnostic.message = std::move(message);
    diagnostic.range = range;
    return diagnostic;
  }
};

// All registered rules, sorted by code.
const std::vector<const Rule*>& AllRules();
const Rule* FindRule(std::string_view code);

namespace detail {
void RegisterRule(std::unique_ptr<Rule> rule);
struct RuleRegistrar {
  explicit RuleRegistrar(std::unique_ptr<Rule> rule) { RegisterRule(std::move(rule)); }
};
}  // namespace detail

}  // namespace tl

#define TL_RULE_CONCAT_INNER(a, b) a##b
#define TL_RULE_CONCAT(a, b) TL_RULE_CONCAT_INNER(a, b)
#define TL_REGISTER_RULE(RuleClass)                                                   \
  static const ::tl::detail::RuleRegistrar TL_RULE_CONCAT(tl_rule_registrar_, __LINE__)( \
      std::make_unique<RuleClass>())
