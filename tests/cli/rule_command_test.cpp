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
  // The committed docs, less the note that they are generated (it is for people editing the files).
  const std::string committed = tl::test::ReadText(SourceDir() / "docs" / "rules" / "TL101.md");
  REQUIRE(committed.starts_with("<!-- Generated from the rule's metadata"));
  CHECK(result.out == committed.substr(committed.find('\n') + 1));
  CHECK(result.out.starts_with("# sync-in-step-loop (TL101)\n"));
  CHECK(result.out.find("do not edit") == std::string::npos);

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

TEST_CASE("rules marks display-only and unsafe fixes apart from safe ones") {
  auto text = RunTorchlint({"rules"}, SourceDir());
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.starts_with("code   fix      name"));
  const auto fix_column = [&](std::string_view code) {
    const size_t at = text.out.find(fmt::format("\n{}  ", code));
    if (at == std::string::npos) return std::string("(missing)");
    const size_t start = at + 1 + code.size() + 2;
    return text.out.substr(start, text.out.find(' ', start) - start);
  };
  CHECK(fix_column("TL401") == "display");  // an aligned size to consider, never applied
  CHECK(fix_column("TL201") == "unsafe");   // more worker processes change behaviour
  CHECK(fix_column("TL203") == "safe");     // persistent_workers=True
  CHECK(fix_column("TL101") == "-");
  CHECK(text.out.find("display (a suggestion, never applied)") != std::string::npos);

  // JSON says the same, rule by rule.
  auto json = RunTorchlint({"rules", "--format", "json"}, SourceDir());
  for (const auto& rule : nlohmann::json::parse(json.out)) {
    const std::string code = rule.at("code");
    const auto& safety = rule.at("fix_safety");
    CAPTURE(code);
    CHECK(fix_column(code) == (safety.is_null()           ? "-"
                               : safety == "display-only" ? "display"
                                                          : safety.get<std::string>()));
  }
}

TEST_CASE("an unknown command or flag is named, with the nearest match") {
  auto command = RunTorchlint({"chek", "train.py"}, SourceDir());
  CHECK(command.exit_code == 2);
  CHECK(command.out.empty());
  CHECK(command.err == "error: unknown command `chek`; did you mean `check`?\n");

  auto transposed = RunTorchlint({"rlue", "TL101"}, SourceDir());
  CHECK(transposed.err == "error: unknown command `rlue`; did you mean `rule`?\n");

  auto far = RunTorchlint({"compile"}, SourceDir());
  CHECK(far.exit_code == 2);
  CHECK(far.err.starts_with("error: unknown command `compile`; the commands are check, "));
  CHECK(far.err.find('\n') == far.err.size() - 1);

  auto flag = RunTorchlint({"check", "--output-fromat", "json", "."}, SourceDir());
  CHECK(flag.exit_code == 2);
  CHECK(flag.err == "error: unknown option `--output-fromat` for `check`; did you mean `--output-format`?\n");

  auto nested = RunTorchlint({"trace", "diff", "--fromat", "json", "a.json", "b.json"}, SourceDir());
  CHECK(nested.err == "error: unknown option `--fromat` for `trace diff`; did you mean `--format`?\n");

  // A known command with a bad value is still CLI11's own message, and a path is never taken for a command.
  auto value = RunTorchlint({"check", "--output-format", "yaml", "."}, SourceDir());
  CHECK(value.exit_code == 2);
  CHECK(value.err.find("did you mean") == std::string::npos);
}
