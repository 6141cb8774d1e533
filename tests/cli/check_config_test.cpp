// Configuration and fixes through the binary: pyproject.toml and torchlint.toml, the closest config
// winning, the command line overriding it, per-file-ignores, exclude, --config, the torch pin, and
// --fix / --diff on real files.
#include <nlohmann/json.hpp>

#include "cli_support.h"

using tl::test::CheckGolden;
using tl::test::CliDir;
using tl::test::ReadText;
using tl::test::RunTorchlint;
using tl::test::TempFolder;

namespace {

std::string TrainScript() { return ReadText(CliDir() / "inputs" / "demo" / "train.py"); }

constexpr std::string_view kBareZeroGrad = R"(import torch

model = torch.nn.Linear(1024, 1024).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in batches:
    optimizer.zero_grad()
    model(x).sum().backward()
    optimizer.step()
)";

std::vector<std::string> Codes(const std::string& json_text) {
  std::vector<std::string> codes;
  for (const auto& item : nlohmann::json::parse(json_text)) {
    codes.push_back(item["file"].get<std::string>() + " " + item["code"].get<std::string>());
  }
  return codes;
}

bool Has(const std::vector<std::string>& codes, std::string_view entry) {
  return std::find(codes.begin(), codes.end(), entry) != codes.end();
}

}  // namespace

TEST_CASE("pyproject.toml [tool.torchlint]: ignore, per-file-ignores and exclude") {
  TempFolder project;
  project.Write("pyproject.toml", R"([project]
name = "demo"

[tool.torchlint]
ignore = ["TL202"]
exclude = ["legacy/"]

[tool.torchlint.per-file-ignores]
"scripts/**" = ["TL1"]
)");
  project.Write("train.py", TrainScript());
  project.Write("scripts/train.py", TrainScript());
  project.Write("legacy/train.py", TrainScript());
  auto result = RunTorchlint({"check", "--output-format", "json", "."}, project.path());
  const auto codes = Codes(result.out);
  CHECK(Has(codes, "train.py TL201"));
  CHECK(Has(codes, "train.py TL101"));
  CHECK_FALSE(Has(codes, "train.py TL202"));
  CHECK(Has(codes, "scripts/train.py TL201"));
  CHECK_FALSE(Has(codes, "scripts/train.py TL101"));
  for (const auto& entry : codes) CHECK(entry.find("legacy/") == std::string::npos);

  // A file named on the command line is checked even when excluded, unless --force-exclude.
  CHECK(RunTorchlint({"check", "legacy/train.py"}, project.path()).exit_code == 1);
  auto forced = RunTorchlint({"check", "--force-exclude", "legacy/train.py"}, project.path());
  CHECK(forced.exit_code == 0);

  // The command line overrides the file: --select replaces its select and ignores.
  auto selected = RunTorchlint({"check", "--output-format", "json", "--select", "TL202", "train.py"}, project.path());
  CHECK(Has(Codes(selected.out), "train.py TL202"));
}

TEST_CASE("the closest config wins; torchlint.toml beats pyproject.toml in one folder") {
  TempFolder project;
  project.Write("torchlint.toml", "select = [\"TL101\"]\n");
  project.Write("pyproject.toml", "[tool.torchlint]\nselect = [\"TL201\"]\n");
  project.Write("sub/torchlint.toml", "select = [\"TL301\"]\n");
  project.Write("train.py", TrainScript());
  project.Write("sub/train.py", TrainScript());
  const auto codes = Codes(RunTorchlint({"check", "--output-format", "json", "."}, project.path()).out);
  CHECK(codes == std::vector<std::string>{"sub/train.py TL301", "train.py TL101"});

  // --config applies one file to everything.
  project.Write("ci.toml", "select = [\"TL202\"]\n");
  const auto forced = Codes(
      RunTorchlint({"check", "--output-format", "json", "--config", "ci.toml", "."}, project.path()).out);
  CHECK(forced == std::vector<std::string>{"sub/train.py TL202", "train.py TL202"});
}

TEST_CASE("a bad config is a one-line usage error naming the file, line and key") {
  TempFolder project;
  project.Write("torchlint.toml", "select = [\"TL101\"]\nignroe = [\"TL2\"]\n");
  project.Write("train.py", TrainScript());
  auto result = RunTorchlint({"check", "."}, project.path());
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK(result.err.find("error: " + (project.path() / "torchlint.toml").string() + ":2:") == 0);
  CHECK(result.err.find("unknown key `ignroe`") != std::string::npos);
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);

  auto missing = RunTorchlint({"check", "--config", "nope.toml", "."}, project.path());
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("nope.toml: cannot open") != std::string::npos);
}

TEST_CASE("target PyTorch: --target-torch, the config key, a pin, or the 2.x default") {
  TempFolder project;
  project.Write("legacy/requirements.txt", "numpy\ntorch==1.13.1\n");
  project.Write("legacy/train.py", kBareZeroGrad);
  project.Write("modern/train.py", kBareZeroGrad);

  // A bare zero_grad() matters only before 2.0, which the pin says.
  auto pinned = RunTorchlint({"check", "--output-format", "json", "."}, project.path());
  const auto codes = Codes(pinned.out);
  CHECK(Has(codes, "legacy/train.py TL301"));
  CHECK_FALSE(Has(codes, "modern/train.py TL301"));
  CHECK(pinned.err ==
        "note: target PyTorch 1.13 inferred from `torch==1.13.1` in legacy/requirements.txt; pass --target-torch "
        "to override\n");

  auto overridden = RunTorchlint({"check", "--output-format", "json", "--target-torch", "2.1", "."}, project.path());
  CHECK_FALSE(Has(Codes(overridden.out), "legacy/train.py TL301"));
  CHECK(overridden.err.empty());

  auto old_everywhere = RunTorchlint({"check", "--output-format", "json", "--target-torch", "1.12", "."},
                                     project.path());
  CHECK(Has(Codes(old_everywhere.out), "modern/train.py TL301"));

  project.Write("modern/torchlint.toml", "target-torch = \"1.10\"\n");
  auto configured = RunTorchlint({"check", "--output-format", "json", "modern"}, project.path());
  CHECK(Has(Codes(configured.out), "modern/train.py TL301"));
}

TEST_CASE("--diff prints the safe fixes and writes nothing; --fix writes them") {
  TempFolder project;
  const auto file = project.Write("train.py", TrainScript());
  auto diff = RunTorchlint({"check", "--diff", "train.py"}, project.path());
  CHECK(ReadText(file) == TrainScript());
  if (diff.out.empty()) {
    MESSAGE("skipped: no rule offers a safe fix on the demo script");
    return;
  }
  CHECK(diff.exit_code == 1);
  CHECK(diff.out.starts_with("--- a/train.py\n+++ b/train.py\n"));
  CheckGolden("fix_diff.txt", diff.Transcript());

  auto fixed = RunTorchlint({"check", "--fix", "train.py"}, project.path());
  CheckGolden("fix_train.fixed.py", ReadText(file));
  CHECK(fixed.err.find(" fixed, ") != std::string::npos);
  // What is left is reported, and fixing again changes nothing.
  auto again = RunTorchlint({"check", "--diff", "train.py"}, project.path());
  CHECK(again.out.empty());
  CHECK(again.exit_code == 0);

  // stdin: the fixed source goes to stdout, findings to stderr.
  auto piped = RunTorchlint({"check", "--fix", "--stdin-filename", "train.py", "-"}, project.path(), TrainScript());
  CHECK(piped.out == ReadText(file));
}
