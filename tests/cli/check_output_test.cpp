// `torchlint check` end to end, through the built binary: each output format on a small project
// compared with golden files, exit codes, --select/--ignore, stdin, --jobs and colour.
#include <nlohmann/json.hpp>

#include "cli_support.h"

using tl::test::CheckGolden;
using tl::test::CliInputs;
using tl::test::RunTorchlint;
using tl::test::TempFolder;

TEST_CASE("text format") {
  const auto result = RunTorchlint({"check", "demo"}, CliInputs());
  CHECK(result.exit_code == 1);
  CHECK(result.out.find("\x1b[") == std::string::npos);  // not a terminal: no colour
  CheckGolden("check_text.txt", result.Transcript());
}

TEST_CASE("json format") {
  const auto result = RunTorchlint({"check", "--output-format", "json", "demo"}, CliInputs());
  CHECK(result.exit_code == 1);
  CHECK(result.err.empty());
  const auto json = nlohmann::json::parse(result.out);
  REQUIRE(json.is_array());
  REQUIRE_FALSE(json.empty());
  for (const auto& item : json) {
    for (const char* key :
         {"code", "name", "message", "severity", "file", "line", "column", "end_line", "end_column", "fix"}) {
      CHECK(item.contains(key));
    }
    if (!item["fix"].is_null()) {
      CHECK(item["fix"].contains("applicability"));
      CHECK(item["fix"].contains("title"));
      CHECK(item["fix"]["edits"].is_array());
    }
  }
  CheckGolden("check_json.txt", result.Transcript());
}

TEST_CASE("sarif format") {
  const auto result = RunTorchlint({"check", "--output-format", "sarif", "demo"}, CliInputs());
  CHECK(result.exit_code == 1);
  const auto log = nlohmann::json::parse(result.out);
  CHECK(log["version"] == "2.1.0");
  const auto& run = log["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "torchlint");
  for (const auto& rule : run["tool"]["driver"]["rules"]) {
    CHECK(rule.contains("help"));
    CHECK(rule["help"]["markdown"].get<std::string>().find("## What it does") != std::string::npos);
  }
  // Rule docs change with the rules; the golden file pins the results only.
  CheckGolden("check_sarif_results.json", run["results"].dump(2) + "\n");
}

TEST_CASE("github format") {
  const auto result = RunTorchlint({"check", "--output-format", "github", "demo"}, CliInputs());
  CHECK(result.exit_code == 1);
  CHECK(result.out.starts_with("::warning file=demo/"));
  CheckGolden("check_github.txt", result.Transcript());
}

TEST_CASE("exit codes: 0 clean, 1 findings, 2 usage errors, --exit-zero") {
  auto clean = RunTorchlint({"check", "demo/clean.py"}, CliInputs());
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.empty());
  CHECK(clean.err == "All checks passed!\n");

  CHECK(RunTorchlint({"check", "demo/train.py"}, CliInputs()).exit_code == 1);
  CHECK(RunTorchlint({"check", "--exit-zero", "demo/train.py"}, CliInputs()).exit_code == 0);

  auto bad_flag = RunTorchlint({"check", "--no-such-flag", "demo"}, CliInputs());
  CHECK(bad_flag.exit_code == 2);
  auto bad_select = RunTorchlint({"check", "--select", "TL8", "demo"}, CliInputs());
  CHECK(bad_select.exit_code == 2);
  CHECK(bad_select.err ==
        "error: --select: unknown rule selector `TL8`; use a code such as TL101, a prefix such as TL1, or ALL "
        "(`torchlint rules` lists the codes)\n");
  auto bad_version = RunTorchlint({"check", "--target-torch", "two", "demo"}, CliInputs());
  CHECK(bad_version.exit_code == 2);
  CHECK(bad_version.err.find("--target-torch: `two` is not a version") != std::string::npos);
  auto bad_format = RunTorchlint({"check", "--output-format", "xml", "demo"}, CliInputs());
  CHECK(bad_format.exit_code == 2);
}

TEST_CASE("--select and --ignore take codes and prefixes, comma lists, any case") {
  auto only_tl2 = RunTorchlint({"check", "--output-format", "json", "--select", "tl2", "demo"}, CliInputs());
  auto json = nlohmann::json::parse(only_tl2.out);
  REQUIRE_FALSE(json.empty());
  for (const auto& item : json) CHECK(item["code"].get<std::string>().starts_with("TL2"));

  auto ignored = RunTorchlint({"check", "--output-format", "json", "--ignore", "TL2,TL101", "--ignore=TL4", "demo"},
                              CliInputs());
  json = nlohmann::json::parse(ignored.out);
  for (const auto& item : json) {
    const std::string code = item["code"];
    CHECK_FALSE(code.starts_with("TL2"));
    CHECK(code != "TL101");
    CHECK_FALSE(code.starts_with("TL4"));
  }
}

TEST_CASE("stdin with --stdin-filename") {
  const std::string source = tl::test::ReadText(CliInputs() / "demo" / "train.py");
  auto result = RunTorchlint({"check", "--stdin-filename", "demo/train.py", "-"}, CliInputs(), source);
  auto from_file = RunTorchlint({"check", "demo/train.py"}, CliInputs());
  CHECK(result.exit_code == 1);
  CHECK(result.out == from_file.out);

  auto anonymous = RunTorchlint({"check", "--output-format", "github", "-"}, CliInputs(), source);
  CHECK(anonymous.out.starts_with("::warning file=-,"));
}

TEST_CASE("--jobs does not change the output") {
  TempFolder project;
  const std::string source = tl::test::ReadText(CliInputs() / "demo" / "train.py");
  for (int i = 0; i < 24; ++i) {
    std::string text = source;
    for (int k = 0; k < i % 7; ++k) text += fmt::format("pad_{} = {}\n", k, k);
    project.Write(fmt::format("pkg{}/train_{:02}.py", i % 3, i), text);
  }
  auto one = RunTorchlint({"check", "--jobs", "1", "."}, project.path());
  auto four = RunTorchlint({"check", "-j", "4", "."}, project.path());
  CHECK(one.exit_code == 1);
  CHECK(one.out == four.out);
  CHECK(one.err == four.err);
  CHECK(one.out.find("pkg0/train_00.py") < one.out.find("pkg0/train_03.py"));
  CHECK(one.out.find("pkg0/train_21.py") < one.out.find("pkg1/train_01.py"));
}

TEST_CASE("colour: --color always forces it, NO_COLOR and pipes turn it off") {
  auto forced = RunTorchlint({"check", "--color", "always", "demo/train.py"}, CliInputs());
  CHECK(forced.out.find("\x1b[") != std::string::npos);
  auto never = RunTorchlint({"check", "--color", "never", "demo/train.py"}, CliInputs());
  CHECK(never.out.find("\x1b[") == std::string::npos);
  auto no_color = RunTorchlint({"check", "demo/train.py"}, CliInputs(), "", "NO_COLOR=1");
  CHECK(no_color.out.find("\x1b[") == std::string::npos);
}

TEST_CASE("an empty folder is not an error") {
  TempFolder empty;
  auto result = RunTorchlint({"check", "."}, empty.path());
  CHECK(result.exit_code == 0);
  CHECK(result.err == "warning: no Python files found under the given paths\n");
}
