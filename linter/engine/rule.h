// The Rule interface. A rule is one source file under rules/<family>/: its RuleMeta (code, name, docs
// in Ruff's sections, fix availability, its options) and its Check, which reads the per-file semantic
// model and reports Diagnostics with a typed payload of what it found. Rules never re-walk the tree for
// facts the model already knows. Registration is one line: TL_REGISTER_RULE(MyRule). The trace evidence
// that confirms a rule's findings lives in the same file but registers with the cross-check
// (crosscheck/evidence.h): this header, and the linter library, know nothing of traces.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
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

enum class FixAvailability { kNone, kSometimes, kAlways };

// An option of a rule, declared once in its metadata: the configuration (`[tool.torchlint]`), the
// command line (`--KEY`), the fixtures' `# torchlint-test:` header and the rule's docs all read it here.
// Options are integers in [min, max]; that is all rules need today.
struct RuleOptionSpec {
  std::string_view key;   // kebab-case: "min-dim"
  std::string_view help;  // one line: "dims below this are never reported"
  int64_t default_value = 0;
  int64_t min = 1;
  int64_t max = int64_t{1} << 30;
};

struct RuleMeta {
  std::string_view code;     // "TL101": TL + three digits; the family is the first digit
  std::string_view name;     // "sync-in-step-loop", kebab-case
  std::string_view family;   // "host-device-sync", "data-loading", "memory", "compute", ...
  std::string_view summary;  // one line, sentence case, no trailing period
  std::string_view docs;     // Markdown: What it does / Why is this bad? / Example / Use instead /
                             // Fix safety / Trace evidence / Options / References
  FixAvailability fix = FixAvailability::kNone;
  Severity severity = Severity::kWarning;
  std::span<const RuleOptionSpec> options = {};
  // Off-by-default rules (advice rather than defects) run only when a select names them by code,
  // prefix or ALL; an empty select runs the default-enabled ones.
  bool default_enabled = true;
  // Every sentence the rule emits (messages, fix titles, related-location notes), in English and
  // Chinese. A rule can only emit by id (MakeDiagnostic, MakeFix, Localize), so an English-only
  // sentence cannot be added; tests/unit checks every catalog.
  std::span<const MessageText> messages = {};
  // How far the rule's fixes go, which `torchlint rules` shows: kSafe when some are applied by --fix,
  // kUnsafe when all may change behaviour (shown, not applied), kDisplayOnly when they are
  // suggestions only (ignored when `fix` is kNone).
  Applicability fix_safety = Applicability::kSafe;
};

// A PyTorch version as major.minor; ordering compares numerically (2.10 > 2.9).
struct TorchVersion {
  int major = 2;
  int minor = 5;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>
  friend auto operator<=>(const TorchVersion&, const TorchVersion&) = default;
  static std::optional<TorchVersion> Parse(std::string_view text);  // "1.13", "2.1.0", "2"
  std::string ToString() const;
};

// Options rules read. Filled from configuration and the command line by the engine.
struct RuleOptions {
  TorchVersion target_torch;           // explicit, inferred from a pin, or the current default
  bool target_torch_inferred = false;  // true when no --target-torch / config key / pin said it
  // When the target is a pin's floor (`torch>=1.8`), the project may also run any newer version up to
  // the pin's upper bound (`newest_torch`; nullopt: no bound). An explicit target is one version.
  bool target_is_floor = false;
  std::optional<TorchVersion> newest_torch;
  // Values of declared rule options (RuleOptionSpec) that configuration or the command line set.
  std::map<std::string, int64_t, std::less<>> values;

  // Whether a PyTorch the project may run has what arrived in `since`: the target itself, or, when the
  // target is a pin's floor, a newer version the pin allows. Advice about such an API applies; a fix
  // that needs it is safe only when the target itself has it.
  bool Allows(TorchVersion since) const {
    if (target_torch >= since) return true;
    return target_is_floor && (!newest_torch || *newest_torch >= since);
  }

  // The option's value, or its declared default.
  int64_t Get(const RuleOptionSpec& spec) const {
    auto it = values.find(spec.key);
    return it == values.end() ? spec.default_value : it->second;
  }
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

 protected:
  // A diagnostic of this rule (code, name and severity from Meta()) over `range`, with the catalog
  // sentence `id` (English in `message`, the id and arguments in `message_ref`).
  Diagnostic MakeDiagnostic(TextRange range, std::string_view id, MessageArgs args = {}) const {
    Diagnostic diagnostic;
    diagnostic.code = std::string(Meta().code);
    diagnostic.name = std::string(Meta().name);
    diagnostic.severity = Meta().severity;
    diagnostic.message = English(id, args);
    diagnostic.message_ref = MessageRef{std::string(id), std::move(args)};
    diagnostic.range = range;
    return diagnostic;
  }
  // A fix titled with the catalog sentence `id`.
  Fix MakeFix(std::string_view id, MessageArgs args, Applicability applicability, std::vector<Edit> edits) const {
    Fix fix{English(id, args), applicability, std::move(edits), {}};
    fix.title_ref = MessageRef{std::string(id), std::move(args)};
    return fix;
  }
  // A related location's note from the catalog sentence `id`.
  void SetMessage(RelatedLocation& related, std::string_view id, MessageArgs args) const {
    related.message = English(id, args);
    related.message_ref = MessageRef{std::string(id), std::move(args)};
  }
  // A related location in another file (a helper's sync), with the catalog sentence `id` as its note.
  RelatedLocation MakeRelated(std::string path, uint32_t line, uint32_t column, std::string_view id,
                              MessageArgs args) const {
    RelatedLocation related;
    related.path = std::move(path);
    related.line = line;
    related.column = column;
    SetMessage(related, id, std::move(args));
    return related;
  }

 private:
  // Throws std::logic_error for an id the catalog lacks: a rule's bug, which the fixtures catch.
  std::string English(std::string_view id, const MessageArgs& args) const;
};

// A diagnostic's message, its fix title and a related note in `lang`, from the rule's catalog. English,
// or a text made without a catalog (`parse-error` notices), is returned as it is.
std::string LocalizedMessage(const Diagnostic& diagnostic, Lang lang);
std::string LocalizedFixTitle(const Diagnostic& diagnostic, Lang lang);
std::string LocalizedRelated(const Diagnostic& diagnostic, const RelatedLocation& related, Lang lang);

// All registered rules, sorted by code.
const std::vector<const Rule*>& AllRules();
const Rule* FindRule(std::string_view code);
// The declared option `key` of any rule, with the rule that declares it; null when none does.
struct FoundOption {
  const Rule* rule = nullptr;
  const RuleOptionSpec* spec = nullptr;
};
FoundOption FindRuleOption(std::string_view key);
// "min-dim: use an integer from 1 to 1073741824" when `value` is out of the declared range, else empty.
std::string CheckRuleOption(const RuleOptionSpec& spec, int64_t value);

namespace detail {
void RegisterRule(std::unique_ptr<Rule> rule);
struct RuleRegistrar {
  explicit RuleRegistrar(std::unique_ptr<Rule> rule) { RegisterRule(std::move(rule)); }
};
}  // namespace detail

}  // namespace tl

#define TL_RULE_CONCAT_INNER(a, b) a##b
#define TL_RULE_CONCAT(a, b) TL_RULE_CONCAT_INNER(a, b)
#define TL_REGISTER_RULE(RuleClass) \
  static const ::tl::detail::RuleRegistrar TL_RULE_CONCAT(tl_rule_registrar_, __LINE__)(std::make_unique<RuleClass>())
