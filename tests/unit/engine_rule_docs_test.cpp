// docs/rules/*.md are generated from RuleMeta; this fails when the committed files are stale, and says
// how to regenerate them. It also holds every rule's docs to the house style's required sections.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "linter/engine/rule.h"
#include "linter/engine/rule_docs.h"

TEST_CASE("docs/rules is up to date with the rules' metadata") {
  const auto dir = std::filesystem::path(TL_SOURCE_DIR) / "docs" / "rules";
  const auto stale = tl::StaleRuleDocs(dir);
  std::string names;
  for (const auto& name : stale) names += " " + name;
  INFO("stale:" << names << "; run `build/torchlint rules --write-docs docs/rules`");
  CHECK(stale.empty());
}

TEST_CASE("every rule's docs have Ruff's sections") {
  for (const tl::Rule* rule : tl::AllRules()) {
    const tl::RuleMeta& meta = rule->Meta();
    INFO(meta.code);
    CHECK(meta.docs.find("## What it does") != std::string_view::npos);
    CHECK(meta.docs.find("## Why is this bad?") != std::string_view::npos);
    CHECK(meta.docs.find("## Example") != std::string_view::npos);
    const std::string rendered = tl::RenderRuleDoc(meta);
    CHECK(rendered.find(std::string(meta.code)) != std::string::npos);
    CHECK(rendered.find(tl::FixAvailabilityText(meta.fix)) != std::string::npos);
  }
}

TEST_CASE("the README's rule table is up to date with the rules' metadata") {
  std::ifstream in(std::filesystem::path(TL_SOURCE_DIR) / "README.md", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const auto updated = tl::WithReadmeRuleTable(text.str());
  REQUIRE(updated.ok());
  INFO("run `build/torchlint rules --write-readme README.md`");
  CHECK(*updated == text.str());
  for (const tl::Rule* rule : tl::AllRules())
    CHECK(text.str().find(std::string(rule->Meta().code)) != std::string::npos);
}

TEST_CASE("a README without the rule table's markers is an error, not a silent no-op") {
  CHECK_FALSE(tl::WithReadmeRuleTable("# torchlint\n| Code |\n").ok());
  CHECK_FALSE(tl::WithReadmeRuleTable("<!-- rules:begin -->\nno end").ok());
}
