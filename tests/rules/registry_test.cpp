// The rule registry checks itself: codes and names unique and well formed, each code in its family's
// hundred, every required docs section, fixtures with at least one expectation that fires and one file
// that expects nothing of the rule (the look-alikes), trace evidence registered for the rule, and
// declared options whose keys clash with nothing. A new rule that skips one of these fails here, which
// is what scripts/new-rule scaffolds against.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "crosscheck/evidence.h"
#include "linter/engine/rule.h"

namespace tl {
namespace {

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

char FamilyDigit(std::string_view family) {
  if (family == "host-device-sync") return '1';
  if (family == "data-loading") return '2';
  if (family == "memory") return '3';
  if (family == "compute") return '4';
  if (family == "launch-overhead") return '5';
  if (family == "communication") return '6';
  if (family == "debug") return '9';
  return '?';
}

TEST_CASE("registry: codes and names are unique and well formed, each in its family") {
  REQUIRE(!AllRules().empty());
  std::set<std::string_view> codes, names;
  const std::regex code_pattern("TL[0-9]{3}");
  const std::regex name_pattern("[a-z0-9]+(-[a-z0-9]+)*");
  for (const Rule* rule : AllRules()) {
    const RuleMeta& meta = rule->Meta();
    INFO(meta.code);
    CHECK(codes.insert(meta.code).second);
    CHECK(names.insert(meta.name).second);
    CHECK(std::regex_match(std::string(meta.code), code_pattern));
    CHECK(std::regex_match(std::string(meta.name), name_pattern));
    CHECK(meta.code.size() == 5);
    CHECK(FamilyDigit(meta.family) == meta.code[2]);
    CHECK(!meta.summary.empty());
    CHECK(meta.summary.back() != '.');
    CHECK(FindRule(meta.code) == rule);
    CHECK(FindRule(meta.name) == rule);
  }
}

TEST_CASE("registry: every rule's docs have all of Ruff's sections, in order") {
  const std::vector<std::string_view> sections = {"## What it does", "## Why is this bad?", "## Example",
                                                  "## Use instead",  "## Fix safety",       "## Trace evidence",
                                                  "## Options",      "## References"};
  for (const Rule* rule : AllRules()) {
    INFO(rule->Meta().code);
    size_t previous = 0;
    for (std::string_view section : sections) {
      INFO(section);
      const size_t at = rule->Meta().docs.find(section);
      REQUIRE(at != std::string_view::npos);
      CHECK(at >= previous);
      previous = at;
    }
  }
}

TEST_CASE("registry: every rule has fixtures that fire and fixtures of look-alikes that stay silent") {
  for (const Rule* rule : AllRules()) {
    const std::string code(rule->Meta().code);
    INFO(code);
    const auto dir = std::filesystem::path(TL_SOURCE_DIR) / "tests" / "rules" / code;
    REQUIRE(std::filesystem::is_directory(dir));
    size_t firing = 0, silent = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() != ".py" || name.ends_with(".fixed.py")) continue;
      const std::string text = ReadAll(entry.path());
      const bool expects = text.find("# error: [" + code) != std::string::npos ||
                           text.find(", " + code) != std::string::npos;
      // A file that expects nothing of the rule holds only look-alikes it must not report.
      if (expects) {
        ++firing;
      } else {
        ++silent;
      }
    }
    CHECK(firing >= 1);
    CHECK(silent >= 1);
  }
}

TEST_CASE("registry: every rule's trace evidence is registered beside it") {
  for (const Rule* rule : AllRules()) {
    INFO(rule->Meta().code);
    const RuleEvidence* evidence = FindRuleEvidence(rule->Meta().code);
    REQUIRE(evidence != nullptr);
    CHECK(evidence->Code() == rule->Meta().code);
  }
}

TEST_CASE("registry: declared options are unique, kebab-case, and clash with no configuration key") {
  const std::set<std::string_view> config_keys = {"select", "ignore", "per-file-ignores", "target-torch", "exclude"};
  std::set<std::string_view> keys;
  const std::regex key_pattern("[a-z0-9]+(-[a-z0-9]+)*");
  for (const Rule* rule : AllRules()) {
    for (const RuleOptionSpec& spec : rule->Meta().options) {
      INFO(rule->Meta().code << " " << spec.key);
      CHECK(keys.insert(spec.key).second);
      CHECK(config_keys.count(spec.key) == 0);
      CHECK(std::regex_match(std::string(spec.key), key_pattern));
      CHECK(spec.min <= spec.default_value);
      CHECK(spec.default_value <= spec.max);
      CHECK(CheckRuleOption(spec, spec.default_value).empty());
      CHECK(!CheckRuleOption(spec, spec.max + 1).empty());
      const FoundOption found = FindRuleOption(spec.key);
      CHECK(found.rule == rule);
      CHECK(found.spec == &spec);
    }
  }
  CHECK(FindRuleOption("no-such-option").spec == nullptr);
}

}  // namespace
}  // namespace tl
