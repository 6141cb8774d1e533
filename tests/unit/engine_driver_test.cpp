// The parallel driver: the same results in the same order with 1 and 8 jobs, one-line errors for files
// that cannot be analysed while the others still are, and --fix that never leaves a half-written file.
#include <doctest/doctest.h>

#include <fmt/core.h>

#include "engine_test_support.h"
#include "linter/engine/driver.h"
#include "linter/engine/project_builder.h"
#include "linter/ts/parse_guard.h"

using tl::FileOutcome;
using tl::FileTask;
using tl::FixMode;
using tl::test::TempDir;

namespace {

constexpr std::string_view kScript = R"(import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(1000, 1000).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=32)
for x, y in loader:
    optimizer.zero_grad(set_to_none=False)
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
    print(loss.item())
)";

std::shared_ptr<const tl::CheckOptions> Defaults() { return std::make_shared<const tl::CheckOptions>(); }

FileTask Task(const std::filesystem::path& path, std::string display) {
  FileTask task;
  task.display_path = std::move(display);
  task.path = path;
  task.options = Defaults();
  return task;
}

std::vector<FileOutcome> RunAll(std::vector<FileTask> tasks, size_t jobs, FixMode mode = FixMode::kNone) {
  std::vector<FileOutcome> outcomes;
  tl::DriverOptions options;
  options.jobs = jobs;
  options.fix_mode = mode;
  tl::RunChecks(std::move(tasks), options, [&](FileOutcome&& outcome) { outcomes.push_back(std::move(outcome)); });
  return outcomes;
}

std::string Summary(const std::vector<FileOutcome>& outcomes) {
  std::string out;
  for (const auto& outcome : outcomes) {
    out += outcome.display_path + (outcome.error ? " error" : "") + ":";
    for (const auto& d : outcome.diagnostics) out += fmt::format(" {}@{}", d.code, d.range.begin);
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("output order and content do not depend on the number of jobs") {
  TempDir dir;
  std::vector<FileTask> tasks;
  for (int i = 0; i < 40; ++i) {
    // Different sizes so workers finish out of order.
    std::string text(kScript);
    for (int k = 0; k < (i * 7) % 13; ++k) text += fmt::format("value_{} = {}\n", k, k);
    const auto path = dir.Write(fmt::format("f{:02}.py", i), text);
    tasks.push_back(Task(path, path.filename().string()));
  }
  tasks.push_back(Task(dir / "missing.py", "missing.py"));
  const std::string one = Summary(RunAll(tasks, 1));
  const std::string many = Summary(RunAll(tasks, 8));
  CHECK(one == many);
  CHECK(one.find("f00.py:") == 0);
  CHECK(one.find("missing.py error:") != std::string::npos);
}

TEST_CASE("files that cannot be analysed get one line each; the others are analysed") {
  TempDir dir;
  const auto good = dir.Write("good.py", kScript);
  const auto binary = dir.Write("blob.py", std::string("\x7f"
                                                       "ELF\0\0\x01",
                                                       7));
  const auto latin1 = dir.Write("latin1.py", "# caf\xE9\nx = 1\n");
  const auto outcomes = RunAll(
      {Task(dir / "nope.py", "nope.py"), Task(binary, "blob.py"), Task(latin1, "latin1.py"), Task(good, "good.py")}, 2);
  REQUIRE(outcomes.size() == 4);
  REQUIRE(outcomes[0].error);
  CHECK(*outcomes[0].error == "nope.py: cannot open: No such file or directory; skipped");
  REQUIRE(outcomes[1].error);
  CHECK(outcomes[1].error->find("blob.py: not Python source") == 0);
  CHECK_FALSE(outcomes[2].error);
  REQUIRE(outcomes[2].notes.size() == 1);
  CHECK(outcomes[2].notes[0].find("latin1.py: not valid UTF-8") == 0);
  CHECK_FALSE(outcomes[3].error);
  CHECK(outcomes[3].source.has_value());
  for (const auto& outcome : outcomes) {
    CHECK(outcome.error.value_or("").find('\n') == std::string::npos);
  }
}

TEST_CASE("--diff computes fixes and writes nothing; --fix writes them and re-checks") {
  TempDir dir;
  const auto path = dir.Write("train.py", kScript);
  auto diff = RunAll({Task(path, "train.py")}, 1, FixMode::kDiff);
  REQUIRE(diff.size() == 1);
  CHECK(tl::test::ReadAllText(path) == kScript);
  if (diff[0].fixes_applied == 0) {
    MESSAGE("skipped: no rule offers a safe fix on this script yet");
    return;
  }
  CHECK(diff[0].original == kScript);
  const std::string fixed_text(diff[0].source->text());
  CHECK(fixed_text != kScript);

  auto fixed = RunAll({Task(path, "train.py")}, 1, FixMode::kApply);
  REQUIRE(fixed.size() == 1);
  CHECK(fixed[0].written);
  CHECK(tl::test::ReadAllText(path) == fixed_text);
  // What is reported is what is left after fixing: no safe fix remains.
  for (const auto& d : fixed[0].diagnostics) {
    CHECK_FALSE((d.fix && d.fix->applicability == tl::Applicability::kSafe));
  }
  // Fixing again changes nothing.
  auto again = RunAll({Task(path, "train.py")}, 1, FixMode::kApply);
  CHECK(again[0].fixes_applied == 0);
  CHECK(tl::test::ReadAllText(path) == fixed_text);
}

TEST_CASE("--fix whose write fails leaves no file behind and reports the original findings") {
  // The file was read, then its folder vanished before the write (root may write anywhere, so a
  // read-only folder would not fail here; a missing folder fails for everyone).
  TempDir dir;
  FileTask task = Task(dir / "vanished" / "train.py", "vanished/train.py");
  task.text = std::string(kScript);
  const auto before = RunAll({task}, 1, FixMode::kNone);
  const auto outcomes = RunAll({task}, 1, FixMode::kApply);
  REQUIRE(outcomes.size() == 1);
  if (before[0].diagnostics.empty() || (outcomes[0].fixes_applied == 0 && !outcomes[0].error)) {
    MESSAGE("skipped: no rule offers a safe fix on this script yet");
    return;
  }
  REQUIRE(outcomes[0].error);
  CHECK(outcomes[0].error->find("vanished/train.py: cannot create a temporary file") == 0);
  CHECK(outcomes[0].error->find("unchanged") != std::string::npos);
  CHECK_FALSE(outcomes[0].written);
  CHECK(outcomes[0].fixes_applied == 0);
  CHECK(outcomes[0].source->text() == kScript);
  CHECK(outcomes[0].diagnostics.size() == before[0].diagnostics.size());
  CHECK_FALSE(std::filesystem::exists(dir / "vanished"));
}

TEST_CASE("jobs: 0 means one per CPU, never more than the files") {
  CHECK(tl::EffectiveJobs(0, 1000) >= 1);
  CHECK(tl::EffectiveJobs(8, 3) == 3);
  CHECK(tl::EffectiveJobs(4, 0) == 1);
}

TEST_CASE("the input guard counts brackets left open, outside comments and strings") {
  CHECK(tl::UnclosedBrackets("f(a[1], {2: (3)})") == 0);
  CHECK(tl::UnclosedBrackets("f(a[1]") == 1);
  CHECK(tl::UnclosedBrackets("(]") == 1);  // a closer only closes its own kind
  CHECK(tl::UnclosedBrackets("x = '(((' + \"[[\"  # (((\n") == 0);
  CHECK(tl::UnclosedBrackets("s = \"\"\"\n(((\n\"\"\"\n(") == 1);
  CHECK(tl::UnclosedBrackets("s = 'it\\'s ('") == 0);
  CHECK_FALSE(tl::UnparsableReason(std::string(100000, '(') + std::string(100000, ')')));
  CHECK_FALSE(tl::UnparsableReason(std::string(100000, '(') + std::string(60000, ')')));
  CHECK(tl::UnparsableReason(std::string(60000, '[')));
}

namespace {

std::vector<FileOutcome> RunProject(const TempDir& dir, tl::semantic::SummaryCache* cache, size_t jobs,
                                    const std::string& checked = "train.py") {
  std::vector<FileOutcome> outcomes;
  tl::DriverOptions options;
  options.jobs = jobs;
  options.project = true;
  options.project_root = dir.path();
  options.summary_cache = cache;
  std::vector<FileTask> tasks;
  tasks.push_back(Task(dir / checked, checked));  // helpers/ is not checked: the pass follows the import
  tl::RunChecks(std::move(tasks), options, [&](FileOutcome&& outcome) { outcomes.push_back(std::move(outcome)); });
  return outcomes;
}

}  // namespace

TEST_CASE("the project pass follows an imported module, and the summary cache answers for it while its bytes hold") {
  TempDir dir;
  dir.Write("train.py", tl::test::ProjectLoop("helpers.logging"));
  dir.Write("helpers/__init__.py", "");
  dir.Write("helpers/logging.py", "def log_loss(loss):\n    print(loss.item())\n");
  tl::semantic::SummaryCache cache;

  const auto first = RunProject(dir, &cache, 1);
  REQUIRE(first.size() == 1);
  const auto tl101 = std::find_if(first[0].diagnostics.begin(), first[0].diagnostics.end(),
                                  [](const tl::Diagnostic& d) { return d.code == "TL101"; });
  REQUIRE(tl101 != first[0].diagnostics.end());
  REQUIRE(tl101->related.size() == 1);
  CHECK(tl101->related[0].path == "helpers/logging.py");
  CHECK(cache.hits() == 0);
  CHECK(cache.size() == 3);  // train.py, helpers/logging.py, helpers/__init__.py

  // Same bytes: the followed modules come from the cache, and the findings are the same, with 2 jobs too.
  const auto second = RunProject(dir, &cache, 2);
  CHECK(cache.hits() == 2);
  CHECK(Summary(second) == Summary(first));

  // Changed bytes: the cached summary is not used, and the finding goes with the sync.
  dir.Write("helpers/logging.py", "def log_loss(loss):\n    print('step done')\n");
  const auto third = RunProject(dir, &cache, 1);
  CHECK(cache.hits() == 3);  // __init__.py only
  CHECK(Summary(third).find("TL101") == std::string::npos);
}

TEST_CASE("the project pass follows imports through folders without __init__.py and linked folders") {
  const auto related = [](const std::vector<FileOutcome>& outcomes) {
    std::string out;
    for (const auto& outcome : outcomes) {
      for (const auto& d : outcome.diagnostics) {
        if (d.code != "TL101") continue;
        for (const auto& r : d.related) out += r.path + ";";
      }
    }
    return out;
  };
  constexpr std::string_view kHelper = "def log_loss(loss):\n    print(loss.item())\n";
  {
    // A namespace folder (`ns/`), a package below it, and a module in it: each level is searched.
    TempDir dir;
    dir.Write("train.py", tl::test::ProjectLoop("ns.sub.deep"));
    dir.Write("ns/sub/__init__.py", "");
    dir.Write("ns/sub/deep.py", kHelper);
    CHECK(related(RunProject(dir, nullptr, 1)) == "ns/sub/deep.py;");
  }
  {
    // A module beside a folder of the same name: both are candidates; the folder's module holds the sync.
    TempDir dir;
    dir.Write("train.py", tl::test::ProjectLoop("helpers.logging"));
    dir.Write("helpers.py", "X = 1\n");
    dir.Write("helpers/logging.py", kHelper);
    CHECK(related(RunProject(dir, nullptr, 1)) == "helpers/logging.py;");
  }
  {
    // A module is not a folder: `helpers.logging` names nothing in `helpers.py`.
    TempDir dir;
    dir.Write("train.py", tl::test::ProjectLoop("helpers.logging"));
    dir.Write("helpers.py", kHelper);
    CHECK(related(RunProject(dir, nullptr, 1)).empty());
  }
  {
    // A script imports its neighbour by its short name, from its own folder.
    TempDir dir;
    dir.Write("scripts/train.py", tl::test::ProjectLoop("util"));
    dir.Write("scripts/util.py", kHelper);
    CHECK(related(RunProject(dir, nullptr, 1, "scripts/train.py")) == "scripts/util.py;");
  }
  {
    // Relative imports, one dot and two.
    TempDir dir;
    dir.Write("pkg/__init__.py", "");
    dir.Write("pkg/train.py", tl::test::ProjectLoop(".helpers"));
    dir.Write("pkg/helpers.py", kHelper);
    dir.Write("pkg/sub/__init__.py", "");
    dir.Write("pkg/sub/train.py", tl::test::ProjectLoop("..common.log"));
    dir.Write("pkg/common/__init__.py", "");
    dir.Write("pkg/common/log.py", kHelper);
    CHECK(related(RunProject(dir, nullptr, 1, "pkg/train.py")) == "pkg/helpers.py;");
    CHECK(related(RunProject(dir, nullptr, 1, "pkg/sub/train.py")) == "pkg/common/log.py;");
  }
  {
    // A linked folder is a folder.
    TempDir dir;
    dir.Write("train.py", tl::test::ProjectLoop("linked.logging"));
    dir.Write("real/logging.py", kHelper);
    std::error_code ec;
    std::filesystem::create_directory_symlink(dir / "real", dir / "linked", ec);
    REQUIRE_FALSE(ec);
    CHECK(related(RunProject(dir, nullptr, 1)) == "linked/logging.py;");
  }
}

TEST_CASE("the project root is the nearest marked folder that is not a package, else the folder above the package") {
  TempDir dir;
  dir.Write("repo/pyproject.toml", "");
  dir.Write("repo/pkg/__init__.py", "");
  dir.Write("repo/pkg/eval/__init__.py", "");
  dir.Write("repo/pkg/eval/setup.py", "def setup_and_build_model():\n    pass\n");  // a module, not packaging
  dir.Write("repo/pkg/eval/linear.py", "");
  dir.Write("repo/tools/setup.py", "");  // a folder of scripts with its own packaging
  dir.Write("repo/tools/run.py", "");
  dir.Write("lib/mylib/__init__.py", "");
  dir.Write("lib/mylib/setup.py", "");  // the package's top is marked: its modules are named from lib/
  dir.Write("lib/mylib/core.py", "");

  CHECK(tl::FindProjectRoot(dir / "repo/pkg/eval/linear.py") == dir / "repo");
  CHECK(tl::FindProjectRoot(dir / "repo/pkg/eval") == dir / "repo");
  CHECK(tl::FindProjectRoot(dir / "repo/tools/run.py") == dir / "repo/tools");
  CHECK(tl::FindProjectRoot(dir / "lib/mylib/core.py") == dir / "lib");
  CHECK(tl::ModuleNameUnder(dir / "repo/pkg/eval/linear.py", tl::FindProjectRoot(dir / "repo/pkg/eval/linear.py"),
                            nullptr) == "pkg.eval.linear");
}
