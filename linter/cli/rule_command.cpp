// `torchlint rule CODE` prints one rule's documentation; `torchlint rules` lists every rule (as text or
// JSON) and writes or checks the generated docs/rules/*.md. Both read RuleMeta only, so what users read
// here is what the committed docs say.
#include <fmt/core.h>

#include <cctype>

#include <memory>
#include <string>
#include <nlohmann/json.hpp>

#include "linter/cli/command.h"
#include "linter/engine/rule.h"
#include "linter/engine/rule_docs.h"

namespace tl::cli {
namespace {

struct RuleArgs {
  std::string code;
  std::string format = "text";
};

struct RulesArgs {
  std::string format = "text";
  std::string write_docs;
  std::string write_readme;
  std::string check_docs;
};

nlohmann::ordered_json RuleJson(const RuleMeta& meta, bool with_docs) {
  nlohmann::ordered_json out{{"code", meta.code},
                             {"name", meta.name},
                             {"family", meta.family},
                             {"summary", meta.summary},
                             {"severity", ToString(meta.severity)},
                             {"fix", FixAvailabilityText(meta.fix)},
                             {"fix_safety", meta.fix == FixAvailability::kNone
                                                ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(ToString(meta.fix_safety))},
                             {"default_enabled", meta.default_enabled}};
  if (with_docs) out["docs"] = meta.docs;
  return out;
}

int RunRule(const RuleArgs& args) {
  std::string code = args.code;
  for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const Rule* rule = FindRule(code);
  if (rule == nullptr) rule = FindRule(args.code);  // by name: sync-in-step-loop
  if (rule == nullptr) {
    fmt::print(stderr, "error: unknown rule `{}`; `torchlint rules` lists the codes\n", args.code);
    return 2;
  }
  if (args.format == "json") {
    fmt::print("{}\n",
               RuleJson(rule->Meta(), true).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  } else {
    fmt::print("{}", RenderRuleText(rule->Meta()));
  }
  return 0;
}

int RunRules(const RulesArgs& args) {
  if (!args.write_readme.empty()) {
    Status written = WriteReadmeRuleTable(args.write_readme);
    if (!written.ok()) {
      fmt::print(stderr, "error: {}\n", written.error().message);
      return 2;
    }
    fmt::print(stderr, "Wrote the rule table of {}\n", args.write_readme);
    if (args.write_docs.empty()) return 0;
  }
  if (!args.write_docs.empty()) {
    Status written = WriteRuleDocs(args.write_docs);
    if (!written.ok()) {
      fmt::print(stderr, "error: {}\n", written.error().message);
      return 2;
    }
    fmt::print(stderr, "Wrote {} rule docs to {}\n", AllRules().size(), args.write_docs);
    return 0;
  }
  if (!args.check_docs.empty()) {
    const auto stale = StaleRuleDocs(args.check_docs);
    for (const std::string& name : stale) {
      fmt::print(stderr, "error: {}/{} is stale; run `torchlint rules --write-docs {}`\n", args.check_docs, name,
                 args.check_docs);
    }
    return stale.empty() ? 0 : 1;
  }
  if (args.format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Rule* rule : AllRules()) list.push_back(RuleJson(rule->Meta(), false));
    fmt::print("{}\n", list.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    return 0;
  }
  fmt::print("{:<5}  {:<7}  {:<26} {}\n", "code", "fix", "name", "summary");
  for (const Rule* rule : AllRules()) {
    const RuleMeta& meta = rule->Meta();
    fmt::print("{}  {:<7}  {:<26} {}{}\n", meta.code, FixSafetyText(meta), meta.name, meta.summary,
               meta.default_enabled ? "" : " (off by default)");
  }
  fmt::print(
      "\nfix: safe (applied by `check --fix`), unsafe (shown, not applied: it may change behaviour), "
      "display (a suggestion, never applied), - (none)\n");
  return 0;
}

Command AddRuleCommand(CLI::App& root) {
  auto args = std::make_shared<RuleArgs>();
  CLI::App* app = root.add_subcommand("rule", "Print a rule's documentation");
  app->add_option("code", args->code, "Rule code (TL101) or name (sync-in-step-loop)")->required();
  app->add_option("--format", args->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return {app, [args] { return RunRule(*args); }};
}

Command AddRulesCommand(CLI::App& root) {
  auto args = std::make_shared<RulesArgs>();
  CLI::App* app = root.add_subcommand(
      "rules", "List every rule and the safety of its fix: safe, unsafe, display (advice only) or -");
  app->add_option("--format", args->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  app->add_option("--write-docs", args->write_docs, "Write docs/rules/<CODE>.md and index.md into this folder");
  app->add_option("--write-readme", args->write_readme,
                  "Rewrite the rule table between `<!-- rules:begin -->` and `<!-- rules:end -->` in this file");
  app->add_option("--check-docs", args->check_docs, "Exit 1 when the generated docs in this folder are stale");
  return {app, [args] { return RunRules(*args); }};
}

}  // namespace

TL_REGISTER_COMMAND(40, AddRuleCommand);
TL_REGISTER_COMMAND(41, AddRulesCommand);

}  // namespace tl::cli
