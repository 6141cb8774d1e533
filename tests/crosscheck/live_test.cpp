// End to end with a real PyTorch: run one of our small training scripts (tests/e2e/scripts) under the
// real profiler through scripts/torch-env.sh (a Debian chroot with Debian's own python3-torch; .ci/run
// installs it, cached outside the clone), then run `torchlint check --trace` on the trace it wrote and
// assert the verdicts. Prints "skipped:" only when torch-env says no PyTorch can be had here (exit 77).
#include <doctest/doctest.h>

#include "tests/crosscheck/support.h"

namespace tl::test {
namespace {

// `scripts/torch-env.sh status`: 0 usable, 77 unavailable.
int TorchEnvStatus(std::string& line) {
  TempFolder io;
  const std::string command = fmt::format("{} status >{} 2>&1",
                                          ShellQuote((SourceDir() / "scripts/torch-env.sh").string()),
                                          ShellQuote((io.path() / "out").string()));
  const int status = std::system(command.c_str());
  line = ReadText(io.path() / "out");
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs tests/e2e/scripts/<name>.py with the real torch, writing <out>/<name>.pt.trace.json.
bool RunUnderProfiler(const std::string& name, const std::filesystem::path& out, std::string& log) {
  TempFolder io;
  const std::string command = fmt::format(
      "cd {} && OMP_NUM_THREADS=1 scripts/torch-env.sh run . {} -- python3 tests/e2e/scripts/{}.py {} >{} 2>&1",
      ShellQuote(SourceDir().string()), ShellQuote(out.string()), name, ShellQuote(out.string()),
      ShellQuote((io.path() / "log").string()));
  const int status = std::system(command.c_str());
  log = ReadText(io.path() / "log");
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && std::filesystem::exists(out / (name + ".pt.trace.json"));
}

TEST_CASE("live: a real PyTorch profiles our scripts, and check --trace confirms and refutes") {
  std::string status_line;
  const int status = TorchEnvStatus(status_line);
  if (status == 77) {
    MESSAGE("skipped: no PyTorch for the end-to-end test (scripts/torch-env.sh status: " << status_line << ")");
    std::cout << "skipped: live cross-check (scripts/torch-env.sh status says unavailable; run scripts/torch-env.sh "
                 "install)\n";
    return;
  }
  REQUIRE_MESSAGE(status == 0, "scripts/torch-env.sh status failed: " << status_line);

  TempFolder out;
  // The chroot runs the command as the owner of the working tree; let it write here.
  std::filesystem::permissions(out.path(), std::filesystem::perms::all, std::filesystem::perm_options::add);

  SUBCASE("workers0: the single-process DataLoader is most of the step: TL201 confirmed, --fail-on confirmed fails") {
    std::string log;
    REQUIRE_MESSAGE(RunUnderProfiler("workers0", out.path(), log), log);
    const auto trace = out.path() / "workers0.pt.trace.json";
    auto cc = LoadTrace(trace);
    REQUIRE(cc);
    Checked c = CheckAgainst(E2eScriptPath("workers0.py"), E2eScript("workers0.py"), *cc);
    const Diagnostic* d = c.Find("TL201", 55);
    REQUIRE(d != nullptr);
    REQUIRE(d->evidence);
    CHECK(d->evidence->verdict == Verdict::kConfirmed);
    CHECK(d->evidence->share_of_step > 0.20);  // 47% in the committed trace; the load of the machine moves it

    RunResult r = RunTorchlint({"check", E2eScriptPath("workers0.py"), "--trace", trace.string(), "--output-format",
                                "json", "--fail-on", "confirmed"},
                               SourceDir());
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("\"verdict\": \"confirmed\"") != std::string::npos);
  }

  SUBCASE("zero_grad(set_to_none=False): TL301 observed; a fill of a tiny model is negligible and does not gate") {
    std::string log;
    REQUIRE_MESSAGE(RunUnderProfiler("zero_grad_false", out.path(), log), log);
    const auto trace = out.path() / "zero_grad_false.pt.trace.json";
    auto cc = LoadTrace(trace);
    REQUIRE(cc);
    Checked c = CheckAgainst(E2eScriptPath("zero_grad_false.py"), E2eScript("zero_grad_false.py"), *cc);
    const Diagnostic* d = c.Find("TL301", 58);
    REQUIRE(d != nullptr);
    REQUIRE(d->evidence);
    CHECK(d->evidence->per_step_count == doctest::Approx(14.0));  // 14 zero_ per step
    // 0.2% of the step in the committed trace: the verdict follows the materiality threshold.
    const bool material = d->evidence->share_of_step >= kMaterialShare;
    CHECK(d->evidence->verdict == (material ? Verdict::kConfirmed : Verdict::kNegligible));

    RunResult r = RunTorchlint({"check", E2eScriptPath("zero_grad_false.py"), "--trace", trace.string(),
                                "--output-format", "json", "--fail-on", "confirmed"},
                               SourceDir());
    CHECK(r.exit_code == (material ? 1 : 0));
  }

  SUBCASE("sync_item: the .item() lines ran on the CPU: TL101 refuted, and --fail-on confirmed passes") {
    std::string log;
    REQUIRE_MESSAGE(RunUnderProfiler("sync_item", out.path(), log), log);
    const auto trace = out.path() / "sync_item.pt.trace.json";
    auto cc = LoadTrace(trace);
    REQUIRE(cc);
    Checked c = CheckAgainst(E2eScriptPath("sync_item.py"), E2eScript("sync_item.py"), *cc);
    const Diagnostic* d = c.Find("TL101", 61);
    REQUIRE(d != nullptr);
    REQUIRE(d->evidence);
    CHECK(d->evidence->verdict == Verdict::kRefuted);
    CHECK(d->evidence->per_step_count == doctest::Approx(1.0));

    RunResult r = RunTorchlint({"check", E2eScriptPath("sync_item.py"), "--trace", trace.string(), "--select", "TL1",
                                "--fail-on", "confirmed"},
                               SourceDir());
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("refuted") != std::string::npos);
  }
}

}  // namespace
}  // namespace tl::test
