// `torchlint instrument` as users run it: stdout by default, --diff writes nothing, -o writes elsewhere,
// --in-place is atomic and keeps a backup unless --no-backup, --remove restores the original, a second
// run is a no-op, no loop exits 2 with one line, and every golden compiles with a real CPython.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "linter/core/fs.h"
#include "tests/instrument/corpus.h"
#include "tests/instrument/run.h"

namespace {

using tl::test::RunShell;
using tl::test::ShellQuote;

std::string Exe() { return ShellQuote(tl::test::TorchlintExe().string()); }

std::string Read(const std::filesystem::path& path) {
  auto text = tl::ReadFile(path);
  return text ? *text : std::string();
}

}  // namespace

TEST_CASE("stdout, --diff, -o, --in-place with and without a backup, and --remove") {
  tl::test::ScratchDir dir("instrument-cli");
  const auto script = dir.path() / "train.py";
  const std::string original = Read(tl::test::CorpusDir() / "epoch_nested.py");
  REQUIRE(tl::WriteFileAtomically(script, original).ok());
  const std::string s = ShellQuote(script.string());

  auto printed = RunShell(Exe() + " instrument " + s, dir.path());
  CHECK(printed.rc == 0);
  CHECK(printed.out.find("with torch.profiler.profile(") != std::string::npos);
  CHECK(printed.err.find("the trace will be written to ./profiler_logs") != std::string::npos);
  CHECK(Read(script) == original);

  auto diff = RunShell(Exe() + " instrument --diff --trace-dir runs/prof " + s, dir.path());
  CHECK(diff.rc == 0);
  CHECK(diff.out.find("+++ b/") != std::string::npos);
  CHECK(diff.out.find("tensorboard_trace_handler(\"runs/prof\")") != std::string::npos);
  CHECK(Read(script) == original);

  const auto other = dir.path() / "out.py";
  auto to_other = RunShell(Exe() + " instrument -o " + ShellQuote(other.string()) + " " + s, dir.path());
  CHECK(to_other.rc == 0);
  CHECK(Read(other) == printed.out);
  CHECK(Read(script) == original);

  auto in_place = RunShell(Exe() + " instrument --in-place " + s, dir.path());
  CHECK(in_place.rc == 0);
  CHECK(Read(script) == printed.out);
  CHECK(Read(dir.path() / "train.py.bak") == original);

  auto twice = RunShell(Exe() + " instrument --in-place --no-backup " + s, dir.path());
  CHECK(twice.rc == 0);
  CHECK(twice.err.find("already instrumented") != std::string::npos);
  CHECK(Read(script) == printed.out);

  auto removed = RunShell(Exe() + " instrument --remove --in-place --no-backup " + s, dir.path());
  CHECK(removed.rc == 0);
  CHECK(Read(script) == original);
  CHECK(Read(dir.path() / "train.py.bak") == original);  // --no-backup left the old backup alone
}

TEST_CASE("usage and input errors exit 2 with one line") {
  tl::test::ScratchDir dir("instrument-cli-errors");
  auto no_loop = RunShell(Exe() + " instrument " + ShellQuote((tl::test::CorpusDir() / "no_loop.py").string()),
                          dir.path());
  CHECK(no_loop.rc == 2);
  CHECK(no_loop.out.empty());
  CHECK(no_loop.err.find("no training step loop found") != std::string::npos);
  CHECK(std::count(no_loop.err.begin(), no_loop.err.end(), '\n') == 1);

  auto two = RunShell(Exe() + " instrument " + ShellQuote((tl::test::CorpusDir() / "two_loops.py").string()),
                      dir.path());
  CHECK(two.rc == 2);
  CHECK(two.err.find("--loop-line") != std::string::npos);
  auto picked = RunShell(
      Exe() + " instrument --loop-line 18 " + ShellQuote((tl::test::CorpusDir() / "two_loops.py").string()),
      dir.path());
  CHECK(picked.rc == 0);

  auto bad_template = RunShell(
      Exe() + " instrument --template Q " + ShellQuote((tl::test::CorpusDir() / "crlf.py").string()), dir.path());
  CHECK(bad_template.rc == 2);
  auto missing = RunShell(Exe() + " instrument " + ShellQuote((dir.path() / "nope.py").string()), dir.path());
  CHECK(missing.rc == 2);
  auto both = RunShell(
      Exe() + " instrument --diff --in-place " + ShellQuote((tl::test::CorpusDir() / "crlf.py").string()), dir.path());
  CHECK(both.rc == 2);
}

TEST_CASE("every golden compiles with CPython") {
  tl::test::ScratchDir dir("instrument-compile");
  auto probe = RunShell("command -v python3", dir.path());
  if (probe.rc != 0) {
    MESSAGE("skipped: no python3 to compile the goldens with");
    return;
  }
  // ast.parse with the file's bytes honours its coding line, and raises TabError on mixed indentation.
  const std::string program =
      "import ast, pathlib, sys\n"
      "bad = []\n"
      "files = sorted(pathlib.Path(sys.argv[1]).glob('*.py'))\n"
      "for f in files:\n"
      "    try:\n"
      "        compile(f.read_bytes(), str(f), 'exec', dont_inherit=True)\n"
      "    except SyntaxError as e:\n"
      "        bad.append(f'{f.name}: {e}')\n"
      "print(len(files), 'compiled')\n"
      "print('\\n'.join(bad))\n"
      "sys.exit(1 if bad else 0)\n";
  REQUIRE(tl::WriteFileAtomically(dir.path() / "compile_all.py", program).ok());
  auto result = RunShell("python3 " + ShellQuote((dir.path() / "compile_all.py").string()) + " " +
                             ShellQuote(tl::test::GoldenDir().string()),
                         dir.path());
  INFO(result.out << result.err);
  CHECK(result.rc == 0);
}

TEST_CASE("binary input: one line naming the file once, exit 2, the file byte for byte as it was") {
  tl::test::ScratchDir dir("instrument-binary");
  using namespace std::string_literals;
  const std::string elf =
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\0\0for batch in loader:\n    pass\n"s;
  const std::string latin(
      "\xff\xfe"
      "for batch in loader:\n    x = 1\n");
  std::string late_invalid = std::string(2000, '#') + "\n\xff\n";  // invalid UTF-8 past the first KiB
  for (const auto& [name, bytes] : {std::pair{"nul.py", elf}, {"utf16.py", latin}}) {
    const auto file = dir.path() / name;
    REQUIRE(tl::WriteFileAtomically(file, bytes).ok());
    for (const std::string flags : {"", "--in-place ", "--remove --in-place "}) {
      auto run = RunShell(Exe() + " instrument " + flags + ShellQuote(file.string()), dir.path());
      CAPTURE(run.err);
      CHECK(run.rc == 2);
      CHECK(run.out.empty());
      CHECK(run.err ==
            "torchlint: error: " + file.string() + ": binary file, not Python source; nothing was changed\n");
      CHECK(Read(file) == bytes);
      CHECK(!std::filesystem::exists(file.string() + ".bak"));
    }
  }
  // Not UTF-8, but declared Latin-1 on its first line (PEP 263): a script, not a binary file.
  const auto declared = dir.path() / "latin1.py";
  REQUIRE(
      tl::WriteFileAtomically(declared, "# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\nfor b in loader:\n    pass\n")
          .ok());
  auto declared_run = RunShell(Exe() + " instrument " + ShellQuote(declared.string()), dir.path());
  CAPTURE(declared_run.err);
  CHECK(declared_run.err.find("binary file") == std::string::npos);
  // Not UTF-8 only far into the file: a script with a stray byte in a comment, not a binary file.
  const auto late = dir.path() / "late.py";
  REQUIRE(tl::WriteFileAtomically(late, late_invalid).ok());
  auto run = RunShell(Exe() + " instrument " + ShellQuote(late.string()), dir.path());
  CHECK(run.err.find("binary file") == std::string::npos);
}
