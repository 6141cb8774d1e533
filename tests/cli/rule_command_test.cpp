// `torchlint rule` and `torchlint rules`: docs from RuleMeta, the JSON listing, and the staleness check
// of the committed docs/rules.
#include <nlohmann/json.hpp>

#include "cli_support.h"

using tl::test::RunTorchlint;
using tl::test::SourceDir;

TEST_CASE("torchlint rule TL101 prints the rule's docs") {
  auto result = RunTorchlint({"rule", "TL101"}, SourceDir());
  CHECK(result.exit_code == 0);
  CHECK(result.out.find("# sync-in-step-loop (TL101)") != std::string::npos);
  CHECK(result.out.find("## What it does") != std::string::npos);
  CHECK(result.out == tl::test::ReadText(SourceDir() / "docs" / "rules" / "TL101.md"));

  auto by_name = RunTorchlint({"rule", "dataloader-num-workers"}, SourceDir());
  CHECK(by_name.out.find("(TL201)") != std::string::npos);

  auto unknown = RunTorchlint({"rule", "TL999"}, SourceDir());
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "error: unknown rule `TL999`; `torchlint rules` lists the codes\n");
}

TEST_CASE("torchlint rules lists every rule, as text or JSON") {
  auto text = RunTorchlint({"rules"}, SourceDir());
  CHECK(text.exit_code == 0);
  for (const char* code : {"TL101", "TL201", "TL202", "TL301", "TL401"}) {
    CHECK(text.out.find(code) != std::string::npos);
  }
  auto json = RunTorchlint({"rules", "--format", "json"}, SourceDir());
  const auto list = nlohmann::json::parse(json.out);
  REQUIRE(list.size() >= 5);
  for (const auto& rule : list) {
    CHECK(rule.contains("code"));
    CHECK(rule.contains("name"));
    CHECK(rule.contains("summary"));
    CHECK(rule.contains("fix"));
  }
}

TEST_CASE("rules and rule CODE say when a rule is off by default") {
  auto text = RunTorchlint({"rules"}, SourceDir());
  REQUIRE(text.exit_code == 0);
  const size_t tl502 = text.out.find("TL502");
  REQUIRE(tl502 != std::string::npos);
  const std::string line = text.out.substr(tl502, text.out.find('\n', tl502) - tl502);
  CHECK(line.find("(off by default)") != std::string::npos);
  const size_t tl602 = text.out.find("TL602");
  REQUIRE(tl602 != std::string::npos);
  CHECK(text.out.substr(tl602, text.out.find('\n', tl602) - tl602).find("off by default") == std::string::npos);

  auto doc = RunTorchlint({"rule", "TL502"}, SourceDir());
  CHECK(doc.exit_code == 0);
  CHECK(doc.out.find("Off by default: enable it with `select = [\"TL502\"]`") != std::string::npos);
  auto json = RunTorchlint({"rules", "--format", "json"}, SourceDir());
  for (const auto& rule : nlohmann::json::parse(json.out)) {
    CHECK(rule.at("default_enabled").get<bool>() == (rule.at("code") != "TL502"));
  }
}

TEST_CASE("the committed docs/rules are not stale") {
  auto result = RunTorchlint({"rules", "--check-docs", "docs/rules"}, SourceDir());
  INFO(result.err);
  CHECK(result.exit_code == 0);
}
