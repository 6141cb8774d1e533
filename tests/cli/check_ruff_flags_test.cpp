// Ruff's command-line conventions on `torchlint check`, through the binary: --output-format concise,
// --unsafe-fixes (and the hidden-fix count), --show-fixes, --statistics, --add-noqa, --show-settings,
// --instrument, -q and -s, with their bad inputs (binary and unwritable files, missing paths, flags
// that do not go together), each a one-line error.
#include <unistd.h>

#include "cli_support.h"

using tl::test::CheckGolden;
using tl::test::CliInputs;
using tl::test::ReadText;
using tl::test::RunTorchlint;
using tl::test::TempFolder;

namespace {

std::string TrainScript() { return ReadText(CliInputs() / "demo" / "train.py"); }

size_t Count(std::string_view text, std::string_view what) {
  size_t count = 0;
  for (size_t pos = text.find(what); pos != std::string_view::npos; pos = text.find(what, pos + 1)) ++count;
  return count;
}

}  // namespace

TEST_CASE("concise: one line per finding and the summary") {
  const auto result = RunTorchlint({"check", "--output-format", "concise", "demo"}, CliInputs());
  CHECK(result.exit_code == 1);
  CHECK(Count(result.out, "\n") == 7);
  CHECK(result.out.find("  |") == std::string::npos);  // no source excerpt
  CheckGolden("check_concise.txt", result.Transcript());

  const auto titles = RunTorchlint({"check", "--output-format", "concise", "--show-fixes", "demo/train.py"},
                                   CliInputs());
  CHECK(titles.out.find("TL202 [*] `DataLoader` without `pin_memory=True` copies batches from pageable memory (fix: "
                        "Add `pin_memory=True`)\n") != std::string::npos);
  CHECK(titles.out.find("TL201 `DataLoader` without `num_workers` loads every batch in the training process (fix: "
                        "Add `num_workers=4`)\n") != std::string::npos);
}

TEST_CASE("--unsafe-fixes: the summary counts hidden fixes without it, and --fix applies them with it") {
  const auto hidden = RunTorchlint({"check", "--output-format", "concise", "demo/train.py"}, CliInputs());
  CHECK(hidden.err ==
        "Found 6 errors (1 fixable with --fix). 2 hidden fixes can be enabled with the `--unsafe-fixes` option.\n");
  const auto shown = RunTorchlint({"check", "--output-format", "concise", "--unsafe-fixes", "demo/train.py"},
                                  CliInputs());
  CHECK(shown.err == "Found 6 errors (3 fixable with --fix).\n");
  CHECK(Count(shown.out, "[*]") == 3);

  TempFolder project;
  project.Write("train.py", TrainScript());
  const auto diff = RunTorchlint({"check", "--diff", "--unsafe-fixes", "train.py"}, project.path());
  CHECK(diff.exit_code == 1);
  CHECK(diff.out.find("num_workers=4") != std::string::npos);
  CHECK(diff.out.find("set_to_none=True") != std::string::npos);
  // The unsafe TL201 and TL301, the safe TL202, and the two TL204 copies that pinned memory exposes.
  CHECK(diff.err == "Would fix 6 errors.\n");
  CHECK(ReadText(project.path() / "train.py") == TrainScript());  // --diff writes nothing

  const auto safe = RunTorchlint({"check", "--fix", "--show-fixes", "train.py"}, project.path());
  CHECK(
      safe.err ==
      "Fixed 3 errors:\n- train.py:\n    1 × TL202 (dataloader-pin-memory)\n    2 × TL204 (copy-without-non-blocking)\n"
      "Found 8 errors (3 fixed, 5 remaining). 2 hidden fixes can be enabled with the `--unsafe-fixes` option.\n");
  const auto unsafe = RunTorchlint({"check", "--fix", "--unsafe-fixes", "--show-fixes", "train.py"}, project.path());
  CHECK(unsafe.err.starts_with("Fixed 3 errors:\n- train.py:\n"));  // TL203 follows from num_workers
  CHECK(unsafe.err.find("1 × TL201 (dataloader-num-workers)\n") != std::string::npos);
  CHECK(unsafe.err.find("1 × TL301 (") != std::string::npos);
  const std::string fixed = ReadText(project.path() / "train.py");
  CHECK(fixed.find("num_workers=4") != std::string::npos);
  CHECK(fixed.find("pin_memory=True") != std::string::npos);
  CHECK(fixed.find("set_to_none=True") != std::string::npos);
}

TEST_CASE("--statistics: counts per code, fixable ones marked, exit status as check's") {
  const auto result = RunTorchlint({"check", "--statistics", "demo"}, CliInputs());
  CHECK(result.exit_code == 1);
  CheckGolden("check_statistics.txt", result.Transcript());
  CHECK(RunTorchlint({"check", "--statistics", "--exit-zero", "demo"}, CliInputs()).exit_code == 0);
  const auto clean = RunTorchlint({"check", "--statistics", "demo/clean.py"}, CliInputs());
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.empty());
  const auto json = RunTorchlint({"check", "--statistics", "--output-format", "json", "demo"}, CliInputs());
  CHECK(json.exit_code == 2);
  CHECK(json.err == "error: --statistics prints text; drop --output-format or use full or concise\n");
}

TEST_CASE("--add-noqa: a directive on every reported line, idempotent, atomic, and after it the check is clean") {
  TempFolder project;
  project.Write("train.py", TrainScript());
  project.Write("model.py", ReadText(CliInputs() / "demo" / "model.py"));
  const auto first = RunTorchlint({"check", "--add-noqa", "."}, project.path());
  CHECK(first.exit_code == 0);
  CHECK(first.out.empty());
  CHECK(first.err == "Added 5 noqa directives.\n");
  const std::string once = ReadText(project.path() / "train.py");
  CHECK(once.find("loader = DataLoader(dataset, batch_size=64, shuffle=True)  # noqa: TL201, TL202\n") !=
        std::string::npos);
  CHECK(once.find("    for x, y in loader:  # noqa: TL402, TL403\n") != std::string::npos);

  const auto check = RunTorchlint({"check", "."}, project.path());
  CHECK(check.exit_code == 0);
  CHECK(check.err == "All checks passed!\n");
  const auto again = RunTorchlint({"check", "--add-noqa", "."}, project.path());
  CHECK(again.err == "Added 0 noqa directives.\n");
  CHECK(ReadText(project.path() / "train.py") == once);
  for (const auto& entry : std::filesystem::directory_iterator(project.path())) {
    CHECK(entry.path().extension() == ".py");  // no temporary file left behind
  }
}

TEST_CASE("--add-noqa bad input: binary, unwritable, stdin, with --fix") {
  TempFolder project;
  project.Write("bin.py", std::string("\x7f"
                                      "ELF\0\0\x01",
                                      7));
  project.Write("ok.py", "import torch\nfor x in loader:\n    print(x.cuda().item())\n");
  const auto binary = RunTorchlint({"check", "--add-noqa", "."}, project.path());
  CHECK(binary.exit_code == 1);
  CHECK(binary.err ==
        "error: bin.py: not Python source (it contains NUL bytes, so it looks binary); skipped\n"
        "Added 1 noqa directive.\n");

  CHECK(RunTorchlint({"check", "--add-noqa", "-"}, project.path(), "x = 1\n").err ==
        "error: --add-noqa edits files in place, so it cannot read stdin\n");
  const auto with_fix = RunTorchlint({"check", "--add-noqa", "--fix", "."}, project.path());
  CHECK(with_fix.exit_code == 2);
  CHECK(with_fix.err == "error: --add-noqa cannot be combined with --fix or --diff\n");

  if (::geteuid() != 0) {  // root writes anywhere
    const auto locked = project.Write("locked/a.py", "import torch\nfor x in loader:\n    print(x.cuda().item())\n");
    std::filesystem::permissions(project.path() / "locked",
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    const auto unwritable = RunTorchlint({"check", "--add-noqa", "locked"}, project.path());
    std::filesystem::permissions(project.path() / "locked", std::filesystem::perms::owner_all);
    CHECK(unwritable.exit_code == 1);
    CHECK(Count(unwritable.err, "\n") == 2);
    CHECK(unwritable.err.starts_with("error: "));
    CHECK(ReadText(locked).find("noqa") == std::string::npos);
  }
}

TEST_CASE("--show-settings: each setting and where it came from") {
  TempFolder project;
  project.Write("pyproject.toml", R"([tool.torchlint]
select = ["TL1", "TL2", "TL4"]
ignore = ["TL202"]
exclude = ["legacy/", "*_pb2.py"]
min-dim = 32

[tool.torchlint.per-file-ignores]
"scripts/*.py" = ["TL101"]
)");
  project.Write("requirements.txt", "torch>=2.1,<3\n");
  project.Write("scripts/train.py", TrainScript());
  const auto result = RunTorchlint({"check", "--show-settings", "scripts/train.py", "--ignore", "TL401"},
                                   project.path());
  CHECK(result.exit_code == 0);
  CHECK(result.err.empty());
  CheckGolden("check_show_settings.txt", result.Transcript());

  const auto cli = RunTorchlint(
      {"check", "--show-settings", "scripts/train.py", "--select", "TL101", "--target-torch", "2.4", "--min-dim", "16"},
      project.path());
  CHECK(cli.out.find("select = [\"TL101\"]  (the command line)\n") != std::string::npos);
  CHECK(cli.out.find("ignore = []  (default)\n") != std::string::npos);  // --select drops the config's ignores
  CHECK(cli.out.find("target-torch = \"2.4\"  (the command line)\n") != std::string::npos);
  CHECK(cli.out.find("min-dim = 16  (the command line)\n") != std::string::npos);

  const auto missing = RunTorchlint({"check", "--show-settings", "nope.py"}, project.path());
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.empty());
  CHECK(missing.err == "error: --show-settings: nope.py is not a file; give the Python file to explain settings for\n");
}

TEST_CASE("--instrument FILE is `instrument FILE --in-place`, with the same --template") {
  TempFolder project;
  project.Write("train.py", TrainScript());
  const auto expected = RunTorchlint({"instrument", "train.py", "--template", "A"}, project.path());
  REQUIRE(expected.exit_code == 0);
  const auto result = RunTorchlint({"check", "--instrument", "train.py", "--template", "A"}, project.path());
  CHECK(result.exit_code == 0);
  CHECK(ReadText(project.path() / "train.py") == expected.out);
  CHECK(ReadText(project.path() / "train.py.bak") == TrainScript());
  CHECK(result.err.find("instrumented the step loop at train.py:") != std::string::npos);

  project.Write("bin.py", std::string("\0\x01\x02garbage", 10));
  const auto binary = RunTorchlint({"check", "--instrument", "bin.py"}, project.path());
  CHECK(binary.exit_code == 2);
  CHECK(Count(binary.err, "\n") == 1);
  CHECK(binary.err.find("error: ") != std::string::npos);
  CHECK(ReadText(project.path() / "bin.py") == std::string("\0\x01\x02garbage", 10));

  CHECK(RunTorchlint({"check", "--template", "A", "train.py"}, project.path()).err ==
        "error: --template needs --instrument FILE\n");
  CHECK(RunTorchlint({"check", "--instrument", "train.py", "other.py"}, project.path()).err ==
        "error: --instrument FILE rewrites that one script; give no other paths\n");
}

TEST_CASE("-q drops the summary and notes, -s everything but errors") {
  TempFolder project;
  project.Write("requirements.txt", "torch==2.1.0\n");
  project.Write("train.py", TrainScript());
  const auto normal = RunTorchlint({"check", "train.py"}, project.path());
  CHECK(normal.err.starts_with("note: target PyTorch 2.1 inferred from `torch==2.1.0` in requirements.txt"));
  const auto quiet = RunTorchlint({"check", "-q", "train.py"}, project.path());
  CHECK(quiet.exit_code == 1);
  CHECK(quiet.out == normal.out);
  CHECK(quiet.err.empty());
  const auto silent = RunTorchlint({"check", "-s", "train.py", "missing.py"}, project.path());
  CHECK(silent.exit_code == 1);
  CHECK(silent.out.empty());
  CHECK(silent.err == "error: missing.py: no such file or folder; check the path\n");
}

TEST_CASE("`unsafe-fixes = true` in the config, and --no-unsafe-fixes over it") {
  TempFolder project;
  project.Write("pyproject.toml", "[tool.torchlint]\nunsafe-fixes = true\n");
  project.Write("train.py", TrainScript());
  const auto diff = RunTorchlint({"check", "--diff", "train.py"}, project.path());
  CHECK(diff.err == "Would fix 6 errors.\n");
  const auto safe = RunTorchlint({"check", "--diff", "--no-unsafe-fixes", "train.py"}, project.path());
  CHECK(safe.err == "Would fix 3 errors.\n");
  CHECK(RunTorchlint({"check", "--unsafe-fixes", "--no-unsafe-fixes", "train.py"}, project.path()).exit_code == 2);

  project.Write("pyproject.toml", "[tool.torchlint]\nunsafe-fixes = \"yes\"\n");
  const auto bad = RunTorchlint({"check", "train.py"}, project.path());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.starts_with("error: "));
  CHECK(bad.err.find("`unsafe-fixes` must be true or false") != std::string::npos);
  CHECK(Count(bad.err, "\n") == 1);
}

TEST_CASE("--fix and --diff in a project: a finding only another file shows is fixed once, like `check` reports it") {
  // The conv net is in model.py, so train.py's TL406 needs the project index.
  TempFolder project;
  project.Write(
      "model.py",
      "import torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
      "        self.conv1 = nn.Conv2d(3, 64, 3)\n        self.conv2 = nn.Conv2d(64, 64, 3)\n\n"
      "    def forward(self, x):\n        return self.conv2(self.conv1(x)).mean()\n");
  const std::string train =
      "import torch\n\nfrom model import Net\n\n\ndef main(loader):\n    model = Net().cuda()\n"
      "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n    scaler = torch.amp.GradScaler(\"cuda\")\n"
      "    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n"
      "        with torch.autocast(\"cuda\", dtype=torch.float16):\n            loss = model(x)\n"
      "        scaler.scale(loss).backward()\n        scaler.step(optimizer)\n        scaler.update()\n";
  project.Write("train.py", train);
  const std::vector<std::string> select = {"check", "--select", "TL406", "--output-format", "concise"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = select;
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(".");
    return RunTorchlint(args, project.path());
  };
  const auto alone = with({"--no-project"});
  CHECK(alone.exit_code == 0);  // without model.py's convolutions there is no conv net
  const auto checked = with({});
  CHECK(checked.exit_code == 1);
  CHECK(checked.out.find("train.py:10:5: TL406") != std::string::npos);

  const auto diff = with({"--diff", "--unsafe-fixes"});
  CHECK(diff.exit_code == 1);
  CHECK(diff.out.find("+    model = model.to(memory_format=torch.channels_last)\n") != std::string::npos);
  CHECK(diff.out.find("+        x = x.cuda(non_blocking=True, memory_format=torch.channels_last)\n") !=
        std::string::npos);
  CHECK(diff.err == "Would fix 1 error.\n");
  CHECK(ReadText(project.path() / "train.py") == train);

  const auto fixed = with({"--fix", "--unsafe-fixes"});
  CHECK(fixed.exit_code == 0);
  CHECK(fixed.err == "Found 1 error (1 fixed, 0 remaining).\n");
  const std::string text = ReadText(project.path() / "train.py");
  CHECK(Count(text, "memory_format=torch.channels_last") == 2);  // the model once, the input once
  CHECK(text.find("    model = Net().cuda()\n    model = model.to(memory_format=torch.channels_last)\n") !=
        std::string::npos);
  const auto again = with({"--fix", "--unsafe-fixes"});
  CHECK(again.exit_code == 0);
  CHECK(ReadText(project.path() / "train.py") == text);
}

TEST_CASE("a file whose text the project pass gave back is read again when the project gives the fields it reads") {
  // model.py has nothing to report alone and reads `args.hidden` of `from option import args`: the pass
  // gives its text back after the first check, and reads it again from disk for the check with the
  // project, whose finding points into it with its line.
  TempFolder project;
  project.Write("option.py",
                "import argparse\n\nparser = argparse.ArgumentParser()\n"
                "parser.add_argument(\"--hidden\", type=int, default=1150)\nargs = parser.parse_args()\n");
  project.Write("model.py",
                "import torch.nn as nn\n\nfrom option import args\n\n\nclass Net(nn.Module):\n"
                "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(args.hidden, 10)\n");
  project.Write("train.py", "import torch\n\nfrom model import Net\n\nmodel = Net().cuda()\n");
  const auto alone = RunTorchlint({"check", "--select", "TL401", "--no-project", "."}, project.path());
  CHECK(alone.exit_code == 0);
  const auto checked = RunTorchlint({"check", "--select", "TL401", "."}, project.path());
  CHECK(checked.exit_code == 1);
  CHECK(checked.out.find("model.py:9:29: TL401") != std::string::npos);
  CHECK(checked.out.find("self.fc = nn.Linear(args.hidden, 10)") != std::string::npos);  // the snippet
}
