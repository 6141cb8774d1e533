// `check --output-format sarif` as GitHub code scanning receives it: validated by
// tests/support/validate_sarif.py against the vendored SARIF 2.1.0 schema and GitHub's own constraints
// (a location on every result, every ruleId described in driver.rules at its ruleIndex), with no trace,
// with a trace that confirms a finding, and with a trace that yields trace-only findings. Negative cases
// prove the validator rejects what GitHub rejects. Also: the expected saving of a confirmed finding
// appears, with its figure, in every output format.
//
// The validator runs under `python3` (Debian 12's, with python3-jsonschema from scripts/setup.sh);
// TORCHLINT_PYTHON names another interpreter.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using tl::test::CliDir;
using tl::test::ReadText;
using tl::test::RunResult;
using tl::test::RunTorchlint;
using tl::test::ShellQuote;
using tl::test::SourceDir;
using tl::test::TempFolder;

namespace {

constexpr const char* kWorkersTrace = "tests/e2e/traces/workers0.pt.trace.json.gz";
constexpr const char* kWorkersScript = "tests/e2e/scripts/workers0.py";
// H100 bert-small: launch-bound and low GPU busy, which no line of code is blamed for.
constexpr const char* kLaunchBoundTrace =
    "real/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz";

std::string Python() {
  const char* env = std::getenv("TORCHLINT_PYTHON");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string("python3");
}

// Runs validate_sarif.py on `sarif` (written to a file first); its exit status and printed problems.
RunResult Validate(std::string_view sarif) {
  TempFolder io;
  const auto file = io.Write("log.sarif", sarif);
  const auto out = io.path() / "out";
  const std::string command = fmt::format(
      "{} {} {} >{} 2>&1", ShellQuote(Python()),
      ShellQuote((SourceDir() / "tests" / "support" / "validate_sarif.py").string()), ShellQuote(file.string()),
      ShellQuote(out.string()));
  const int status = std::system(command.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadText(out);
  return result;
}

void CheckValid(const RunResult& torchlint) {
  const RunResult v = Validate(torchlint.out);
  INFO("validate_sarif.py says:\n" << v.out);
  CHECK(v.exit_code == 0);
  CHECK(v.out.empty());
}

const nlohmann::json* FindResult(const nlohmann::json& log, std::string_view rule_id) {
  for (const auto& result : log["runs"][0]["results"]) {
    if (result["ruleId"] == rule_id) return &result;
  }
  return nullptr;
}

// A minimal log that GitHub accepts, for the negative cases to break one thing at a time.
nlohmann::json MinimalLog() {
  return nlohmann::json::parse(R"({
    "version": "2.1.0",
    "runs": [{
      "tool": {"driver": {"name": "torchlint", "rules": [
        {"id": "TL101", "shortDescription": {"text": "Sync in the step loop"}},
        {"id": "TL201", "shortDescription": {"text": "DataLoader without workers"}}]}},
      "results": [{
        "ruleId": "TL201", "ruleIndex": 1, "message": {"text": "No workers"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "train.py", "uriBaseId": "%SRCROOT%"},
                                            "region": {"startLine": 3}}}]}]
    }]
  })");
}

// The figures the json output gives TL201 on the workers0 trace, and the headline they make.
struct Tl201Figures {
  double cost = 0.0;
  double share = 0.0;
  double saved = 0.0;
  std::string Headline() const {
    return fmt::format("confirmed: {:.1f} ms/step ({:.0f}%), saves ~{:.1f} ms/step", cost, share * 100, saved);
  }
};

Tl201Figures Tl201FromJson() {
  const RunResult r = RunTorchlint({"check", "--output-format", "json", "--trace", kWorkersTrace, kWorkersScript},
                                   SourceDir());
  Tl201Figures f;
  const auto findings = nlohmann::json::parse(r.out);
  for (const auto& finding : findings) {
    if (finding["code"] != "TL201") continue;
    const auto& e = finding["evidence"];
    REQUIRE(e["verdict"] == "confirmed");
    f.cost = e["cost_ms_per_step"].get<double>();
    f.share = e["share_of_step"].get<double>();
    f.saved = e["saved_ms_per_step"].get<double>();
  }
  return f;
}

}  // namespace

TEST_CASE("sarif without a trace passes the schema and GitHub's constraints") {
  const RunResult r = RunTorchlint({"check", "--output-format", "sarif", "demo"}, CliDir() / "inputs");
  CHECK(r.exit_code == 1);
  CheckValid(r);
}

TEST_CASE("sarif with a parse-error notice is valid: the notice has a rule descriptor of its own") {
  TempFolder project;
  project.Write("broken.py", "import torch\n\ndef step(:\n    torch.cuda.synchronize()\n");
  const RunResult r = RunTorchlint({"check", "--output-format", "sarif", "broken.py"}, project.path());
  CheckValid(r);
  const auto log = nlohmann::json::parse(r.out);
  const nlohmann::json* notice = FindResult(log, "parse-error");
  REQUIRE(notice != nullptr);
  CHECK(log["runs"][0]["tool"]["driver"]["rules"][(*notice)["ruleIndex"].get<size_t>()]["id"] == "parse-error");
}

TEST_CASE("sarif with a trace that confirms TL201 is valid, and carries the saving") {
  const RunResult r = RunTorchlint({"check", "--output-format", "sarif", "--trace", kWorkersTrace, kWorkersScript},
                                   SourceDir());
  CHECK(r.exit_code == 1);
  CheckValid(r);
  const auto log = nlohmann::json::parse(r.out);
  const nlohmann::json* tl201 = FindResult(log, "TL201");
  REQUIRE(tl201 != nullptr);
  const auto& e = (*tl201)["properties"]["evidence"];
  CHECK(e["verdict"] == "confirmed");
  CHECK(e["saved_ms_per_step"].get<double>() > 0.0);
  const Tl201Figures f = Tl201FromJson();
  CHECK(e["saved_ms_per_step"].get<double>() == doctest::Approx(f.saved));
  const std::string message = (*tl201)["message"]["text"];
  INFO("message: " << message);
  CHECK(message.find(f.Headline()) != std::string::npos);
}

TEST_CASE("sarif with trace-only findings is valid: each has a location and a rule descriptor") {
  auto trace = tl::test::SharedTrace(kLaunchBoundTrace);
  if (!trace) return;
  const RunResult r = RunTorchlint({"check", "--output-format", "sarif", "--trace", trace->string(), "demo"},
                                   CliDir() / "inputs");
  CheckValid(r);
  const auto log = nlohmann::json::parse(r.out);
  const auto& rules = log["runs"][0]["tool"]["driver"]["rules"];
  const nlohmann::json* launch = FindResult(log, "trace-launch-bound");
  REQUIRE(launch != nullptr);
  const auto& rule = rules[(*launch)["ruleIndex"].get<size_t>()];
  CHECK(rule["id"] == "trace-launch-bound");
  CHECK_FALSE(rule["name"].get<std::string>().empty());
  CHECK_FALSE(rule["shortDescription"]["text"].get<std::string>().empty());
  CHECK(rule["help"]["text"].get<std::string>().find("CUDA Graph") != std::string::npos);
  // Until the cross-check knows the script's step loop, the finding points at the trace file.
  const auto& artifact = (*launch)["locations"][0]["physicalLocation"]["artifactLocation"];
  CHECK_FALSE(artifact["uri"].get<std::string>().empty());
  const double saved = (*launch)["properties"]["saved_ms_per_step"].get<double>();
  CHECK(saved > 0.0);
  CHECK((*launch)["message"]["text"].get<std::string>().find(fmt::format("saves ~{:.1f} ms/step", saved)) !=
        std::string::npos);
}

TEST_CASE("validate_sarif.py accepts a minimal valid log and rejects what GitHub rejects") {
  {
    const RunResult v = Validate(MinimalLog().dump());
    INFO(v.out);
    CHECK(v.exit_code == 0);
  }
  SUBCASE("a result with no location") {
    auto log = MinimalLog();
    log["runs"][0]["results"][0].erase("locations");
    const RunResult v = Validate(log.dump());
    CHECK(v.exit_code == 1);
    CHECK(v.out == "$.runs[0].results[0]: no location with physicalLocation.artifactLocation.uri\n");
  }
  SUBCASE("a location without an artifact URI") {
    auto log = MinimalLog();
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"].erase("uri");
    const RunResult v = Validate(log.dump());
    CHECK(v.exit_code == 1);
    CHECK(v.out.find("no location with physicalLocation.artifactLocation.uri") != std::string::npos);
  }
  SUBCASE("a ruleId that driver.rules does not describe") {
    auto log = MinimalLog();
    log["runs"][0]["results"][0]["ruleId"] = "trace-launch-bound";
    log["runs"][0]["results"][0].erase("ruleIndex");
    const RunResult v = Validate(log.dump());
    CHECK(v.exit_code == 1);
    CHECK(v.out == "$.runs[0].results[0]: ruleId `trace-launch-bound` is not in tool.driver.rules\n");
  }
  SUBCASE("a ruleIndex that points at another rule") {
    auto log = MinimalLog();
    log["runs"][0]["results"][0]["ruleIndex"] = 0;
    const RunResult v = Validate(log.dump());
    CHECK(v.exit_code == 1);
    CHECK(v.out.find("ruleIndex 0 is not the index of `TL201`") != std::string::npos);
  }
  SUBCASE("what the schema forbids") {
    auto log = MinimalLog();
    log["version"] = "2.0.0";
    log["runs"][0]["results"][0]["level"] = "fatal";
    const RunResult v = Validate(log.dump());
    CHECK(v.exit_code == 1);
    CHECK(v.out.find("$.version: schema: ") != std::string::npos);
    CHECK(v.out.find("$.runs[0].results[0].level: schema: ") != std::string::npos);
  }
  SUBCASE("input that is not JSON is a usage error") {
    const RunResult v = Validate("{\"version\": ");
    CHECK(v.exit_code == 2);
    CHECK(v.out.find("cannot read") != std::string::npos);
  }
}

TEST_CASE("the expected saving of a confirmed finding shows in text, github, json and sarif") {
  // json: the evidence object's saved_ms_per_step, beside the cost and share the headline is made of.
  const Tl201Figures f = Tl201FromJson();
  REQUIRE(f.saved > 0.0);
  REQUIRE(f.cost > 0.0);
  const std::string headline = f.Headline();
  INFO("headline: " << headline);

  const RunResult text = RunTorchlint({"check", "--trace", kWorkersTrace, kWorkersScript}, SourceDir());
  CHECK(text.out.find("= trace: " + headline + " — ") != std::string::npos);

  // Workflow commands escape `%` in messages as %25.
  std::string escaped;
  for (char c : headline) escaped += c == '%' ? std::string("%25") : std::string(1, c);
  const RunResult github = RunTorchlint(
      {"check", "--output-format", "github", "--trace", kWorkersTrace, kWorkersScript}, SourceDir());
  bool annotated = false;
  for (size_t at = 0, end = 0; at < github.out.size(); at = end + 1) {
    end = github.out.find('\n', at);
    if (end == std::string::npos) end = github.out.size();
    const std::string_view line(github.out.data() + at, end - at);
    if (line.find("title=TL201") != std::string_view::npos) annotated = line.find(escaped) != std::string_view::npos;
  }
  CHECK(annotated);

  const RunResult sarif = RunTorchlint({"check", "--output-format", "sarif", "--trace", kWorkersTrace, kWorkersScript},
                                       SourceDir());
  const auto log = nlohmann::json::parse(sarif.out);
  const nlohmann::json* tl201 = FindResult(log, "TL201");
  REQUIRE(tl201 != nullptr);
  CHECK((*tl201)["message"]["text"].get<std::string>().find(headline) != std::string::npos);
  CHECK((*tl201)["properties"]["evidence"]["saved_ms_per_step"].get<double>() == doctest::Approx(f.saved));
  CHECK((*tl201)["properties"]["evidence"]["cost_ms_per_step"].get<double>() == doctest::Approx(f.cost));
}
