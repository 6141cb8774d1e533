// End to end on a real PyTorch: instrument corpus scripts, run them with the torch that
// scripts/torch-env.sh provides, check that the trace appears where `torchlint instrument` said it
// would, and that `torchlint trace` reads it. Prints a visible "skipped:" line and passes when
// `scripts/torch-env.sh status` says no PyTorch is installed (`scripts/torch-env.sh install` as root).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "linter/core/fs.h"
#include "tests/instrument/corpus.h"
#include "tests/instrument/run.h"

namespace {

using tl::test::RunShell;
using tl::test::ShellQuote;

std::string TorchEnv() { return ShellQuote((tl::test::SourceDir() / "scripts" / "torch-env.sh").string()); }

struct Case {
  std::string script;
  std::string spec;
  bool stop_after = false;
  std::string loop_line;
};

// The folder named by "the trace will be written to DIR (" in the instrumenter's notes.
std::string AnnouncedDir(const std::string& err) {
  const std::string lead = "the trace will be written to ";
  const size_t at = err.find(lead);
  if (at == std::string::npos) return "";
  const size_t end = err.find(" (", at);
  return err.substr(at + lead.size(), end - at - lead.size());
}

std::vector<std::filesystem::path> TraceFiles(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().string().ends_with(".json")) out.push_back(entry.path());
  }
  return out;
}

}  // namespace

TEST_CASE("instrumented corpus scripts run on a real PyTorch and write traces torchlint reads") {
  tl::test::ScratchDir scratch("instrument-e2e");
  auto status = RunShell(TorchEnv() + " status", scratch.path());
  if (status.rc != 0) {
    std::string why = status.err + status.out;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    MESSAGE("skipped: PyTorch is unavailable (" << why << "); run scripts/torch-env.sh install as root");
    return;
  }
  MESSAGE("torch: " << status.out);

  std::vector<Case> cases;
  for (const auto& script : tl::test::CorpusScripts()) {
    if (script.stem() == "no_loop") continue;
    cases.push_back({script.filename().string(), "C", false, script.stem() == "two_loops" ? "18" : ""});
  }
  for (const char* spec : {"A", "B", "D", "E", "F", "nvtx"}) cases.push_back({"function_loop.py", spec, false, ""});
  cases.push_back({"region_marked.py", "G", false, ""});
  cases.push_back({"epoch_nested.py", "C", true, ""});
  cases.push_back({"continue_path.py", "F", true, ""});

  // Instrument every case in a folder of its own, then run them all in one torch-env call, two at a
  // time: starting the environment and importing torch is most of the cost of each run.
  std::vector<std::filesystem::path> works;
  std::vector<std::string> notes;
  std::string runner = "set -u\n";
  for (const auto& c : cases) {
    CAPTURE(c.script);
    CAPTURE(c.spec);
    const auto work = scratch.path() /
                      (std::filesystem::path(c.script).stem().string() + "-" + c.spec + (c.stop_after ? "-stop" : ""));
    std::filesystem::create_directories(work);
    auto text = tl::ReadFile(tl::test::CorpusDir() / c.script);
    REQUIRE(text.ok());
    REQUIRE(tl::WriteFileAtomically(work / c.script, *text).ok());

    std::string args = " instrument --in-place --no-backup --template " + c.spec +
                       " --skip-first 0 --wait 1 --warmup 1 --active 2 --repeat 1";
    if (c.stop_after) args += " --stop-after";
    if (!c.loop_line.empty()) args += " --loop-line " + c.loop_line;
    auto instrumented = RunShell(
        ShellQuote(tl::test::TorchlintExe().string()) + args + " " + ShellQuote((work / c.script).string()), work);
    INFO(instrumented.err);
    REQUIRE(instrumented.rc == 0);
    works.push_back(work);
    notes.push_back(instrumented.err);
    runner += "printf '%s\\0' " + ShellQuote(work.filename().string() + "/" + c.script) + "\n";
  }
  const std::string run_one =
      "cd \"$(dirname \"$1\")\" && { python3 \"$(basename \"$1\")\" >run.out 2>run.err; echo $? >run.rc; }";
  REQUIRE(tl::WriteFileAtomically(scratch.path() / "run_all.sh",
                                  "{\n" + runner + "} | xargs -0 -n 1 -P 2 sh -c " + ShellQuote(run_one) + " sh\n")
              .ok());
  auto all = RunShell(TorchEnv() + " run " + ShellQuote(scratch.path().string()) + " -- sh run_all.sh", scratch.path());
  INFO(all.err);
  REQUIRE(all.rc == 0);

  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const auto& work = works[i];
    CAPTURE(c.script);
    CAPTURE(c.spec);
    auto read_file = [&](const char* name) {
      auto text = tl::ReadFile(work / name);
      return text ? *text : std::string();
    };
    const std::string out = read_file("run.out"), err = read_file("run.err");
    INFO(out.substr(out.size() > 3000 ? out.size() - 3000 : 0));
    INFO(err.substr(err.size() > 3000 ? err.size() - 3000 : 0));
    CHECK(read_file("run.rc") == "0\n");

    if (c.spec == "nvtx") {
      CHECK(notes[i].find("nsys profile --trace=cuda,nvtx,osrt,cudnn,cublas -o") != std::string::npos);
      continue;
    }
    const std::string announced = AnnouncedDir(notes[i]);
    REQUIRE_FALSE(announced.empty());
    const auto traces = TraceFiles(work / announced);
    CHECK_MESSAGE(traces.size() == 1, "no single trace in " << (work / announced).string());
    if (traces.size() != 1) continue;
    if (c.spec == "A" || c.spec == "B") CHECK(out.find("Self CPU") != std::string::npos);
    if (c.spec == "E") {
      CHECK(out.find("Source Location") != std::string::npos);
      std::error_code ec;
      CHECK(std::filesystem::file_size(work / announced / "profiler_stacks_step4.txt", ec) > 0);
    }

    auto read = RunShell(
        ShellQuote(tl::test::TorchlintExe().string()) + " trace " + ShellQuote((work / announced).string()), work);
    INFO(read.err);
    CHECK((read.rc == 0 || read.rc == 1));
    CHECK(read.out.find("steps") != std::string::npos);
    CHECK(read.err.find("error") == std::string::npos);
  }
}
