// Bad input, through the binary: every case gets a clear one-line message for that file (or is simply
// analysed correctly), the other files in the run are still analysed, and exit 2 only when nothing
// could be analysed. Also --fix atomicity when the write fails.
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using tl::test::CliDir;
using tl::test::ReadText;
using tl::test::RunTorchlint;
using tl::test::TempFolder;

namespace {

std::string TrainScript() { return ReadText(CliDir() / "inputs" / "demo" / "train.py"); }

std::string Replace(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// "file code line:column" for each finding of one run in JSON.
std::vector<std::string> Findings(const std::string& json_text) {
  std::vector<std::string> out;
  for (const auto& item : nlohmann::json::parse(json_text)) {
    out.push_back(fmt::format("{} {} {}:{}", item["file"].get<std::string>(), item["code"].get<std::string>(),
                              item["line"].get<int>(), item["column"].get<int>()));
  }
  return out;
}

size_t CountLines(const std::string& text, std::string_view needle) {
  size_t count = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (std::string_view(text).substr(start, end - start).find(needle) != std::string_view::npos) ++count;
    start = end + 1;
  }
  return count;
}

// The findings of good.py, which must be there whatever else the run met.
void CheckGoodFileAnalysed(const std::string& json_text) {
  size_t good = 0;
  for (const auto& finding : Findings(json_text)) good += finding.starts_with("good.py ");
  CHECK(good >= 3);
}

}  // namespace

TEST_CASE("syntax errors: what can be analysed is, plus one parse-error notice") {
  TempFolder dir;
  dir.Write("good.py", TrainScript());
  dir.Write("broken.py", TrainScript() + "\ndef oops(:\n    pass\n");
  auto result = RunTorchlint({"check", "--output-format", "json", "."}, dir.path());
  CHECK(result.exit_code == 1);
  CheckGoodFileAnalysed(result.out);
  const auto findings = Findings(result.out);
  size_t parse_errors = 0;
  size_t broken_rules = 0;
  for (const auto& f : findings) {
    parse_errors += f.starts_with("broken.py parse-error");
    broken_rules += f.starts_with("broken.py TL");
  }
  CHECK(parse_errors == 1);
  CHECK(broken_rules >= 1);
}

TEST_CASE("Python 2 files do not crash and do not stop the run") {
  TempFolder dir;
  dir.Write("good.py", TrainScript());
  dir.Write("py2.py", "print \"hello\"\nexec \"x = 1\"\nraise ValueError, \"old\"\nprint >>sys.stderr, 'x'\n");
  auto result = RunTorchlint({"check", "--output-format", "json", "."}, dir.path());
  CHECK(result.exit_code == 1);
  CheckGoodFileAnalysed(result.out);
}

TEST_CASE("non-UTF-8 bytes: analysed, with a one-line warning") {
  TempFolder dir;
  dir.Write("good.py", TrainScript());
  dir.Write("latin1.py", "# -*- coding: latin-1 -*-\n# caf\xE9\n" + TrainScript());
  auto result = RunTorchlint({"check", "--output-format", "json", "."}, dir.path());
  CHECK(result.exit_code == 1);
  CheckGoodFileAnalysed(result.out);
  CHECK(result.err ==
        "warning: latin1.py: not valid UTF-8; analysed anyway, with columns counted in bytes where "
        "the text is invalid (save the file as UTF-8)\n");
  size_t latin1 = 0;
  for (const auto& f : Findings(result.out)) latin1 += f.starts_with("latin1.py TL");
  CHECK(latin1 >= 3);
}

TEST_CASE("a UTF-8 BOM, CRLF line endings and tabs give the same findings at the same places") {
  TempFolder dir;
  dir.Write("plain.py", TrainScript());
  dir.Write("bom.py", "\xEF\xBB\xBF" + TrainScript());
  dir.Write("crlf.py", Replace(TrainScript(), "\n", "\r\n"));
  auto plain = Findings(RunTorchlint({"check", "--output-format", "json", "plain.py"}, dir.path()).out);
  REQUIRE_FALSE(plain.empty());
  for (const char* name : {"bom.py", "crlf.py"}) {
    auto other = Findings(RunTorchlint({"check", "--output-format", "json", name}, dir.path()).out);
    for (auto& f : other) f = Replace(f, name, "plain.py");
    CHECK_MESSAGE(other == plain, name);
  }
  // Tabs: the same findings; columns count the tab as one character.
  dir.Write("tabs.py", Replace(TrainScript(), "    ", "\t"));
  auto tabs = RunTorchlint({"check", "tabs.py"}, dir.path());
  CHECK(tabs.exit_code == 1);
  CHECK(CountLines(tabs.out, "tabs.py:") == plain.size());
  CHECK(tabs.out.find('\t') == std::string::npos);  // expanded in the snippet, so the underline lines up
}

TEST_CASE("an empty file is clean; a binary file is skipped with one line") {
  TempFolder dir;
  dir.Write("good.py", TrainScript());
  dir.Write("empty.py", "");
  dir.Write("binary.py", std::string("\x7f"
                                     "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0",
                                     20));
  auto result = RunTorchlint({"check", "--output-format", "json", "."}, dir.path());
  CHECK(result.exit_code == 1);
  CheckGoodFileAnalysed(result.out);
  CHECK(result.err == "error: binary.py: not Python source (it contains NUL bytes, so it looks binary); skipped\n");
  auto empty = RunTorchlint({"check", "empty.py"}, dir.path());
  CHECK(empty.exit_code == 0);
  auto only_binary = RunTorchlint({"check", "binary.py"}, dir.path());
  CHECK(only_binary.exit_code == 2);  // nothing could be analysed
}

TEST_CASE("a 50 MB file is skipped with one line, over the size limit") {
  TempFolder dir;
  dir.Write("good.py", TrainScript());
  {
    std::ofstream big(dir.path() / "big.py", std::ios::binary);
    const std::string chunk = "def step(model, batch):\n    return model(batch).sum()\n\n\n";
    for (size_t written = 0; written < 50u * 1000 * 1000; written += chunk.size()) big << chunk;
  }
  auto result = RunTorchlint({"check", "--output-format", "json", "."}, dir.path());
  CHECK(result.exit_code == 1);
  CheckGoodFileAnalysed(result.out);
  CHECK(CountLines(result.err, "big.py: file is ") == 1);
  CHECK(result.err.find("over the 10000000 byte limit; skipped (raise it with --max-file-size)") != std::string::npos);
  CHECK(static_cast<size_t>(std::count(result.err.begin(), result.err.end(), '\n')) ==
        CountLines(result.err, "error: "));
}

TEST_CASE("100,000 nested brackets do not overflow the stack") {
  TempFolder dir;
  dir.Write("good.py", TrainScript());
  dir.Write("nested.py", "x = " + std::string(100000, '[') + std::string(100000, ']') + "\n" +
                             "y = " + std::string(100000, '(') + std::string(60000, ')') + "\n");
  auto result = RunTorchlint({"check", "--output-format", "json", "."}, dir.path());
  CHECK(result.exit_code == 1);
  CheckGoodFileAnalysed(result.out);
  CHECK(result.err.empty());
  // 100,000 left open: tree-sitter 0.20.7 would abort (a 16-bit count overflows in its error recovery),
  // so the file is refused with one line and the run goes on.
  dir.Write("open.py", "y = " + std::string(100000, '(') + "\n");
  auto open = RunTorchlint({"check", "--output-format", "json", "."}, dir.path());
  CHECK(open.exit_code == 1);
  CheckGoodFileAnalysed(open.out);
  CHECK(open.err ==
        "error: open.py: 100000 brackets are still open at the end of the file, more than the 50000 the parser "
        "can recover from; close them; skipped\n");
}

TEST_CASE("a missing path: one line; exit 2 only when nothing else could be analysed") {
  TempFolder dir;
  dir.Write("good.py", TrainScript());
  auto mixed = RunTorchlint({"check", "missing.py", "good.py"}, dir.path());
  CHECK(mixed.exit_code == 1);
  CHECK(mixed.err.starts_with("error: missing.py: no such file or folder; check the path\n"));
  CHECK(mixed.out.find("good.py:") != std::string::npos);
  auto alone = RunTorchlint({"check", "missing.py"}, dir.path());
  CHECK(alone.exit_code == 2);
  CHECK(alone.out.empty());
  CHECK(alone.err == "error: missing.py: no such file or folder; check the path\n");
}

TEST_CASE("symlink loops and dangling links: one line each; the walk finishes") {
  TempFolder dir;
  dir.Write("good.py", TrainScript());
  std::filesystem::create_directory_symlink(dir.path(), dir.path() / "loop");
  std::filesystem::create_symlink("self.py", dir.path() / "self.py");
  std::filesystem::create_symlink("gone.py", dir.path() / "dangling.py");
  auto result = RunTorchlint({"check", "--output-format", "json", "."}, dir.path());
  CHECK(result.exit_code == 1);
  CheckGoodFileAnalysed(result.out);
  CHECK(result.err ==
        "error: dangling.py: broken symbolic link; fix or remove the link\n"
        "error: self.py: symbolic link loop; fix or remove the link\n");
  size_t io_errors = 0;
  for (const auto& f : Findings(result.out)) io_errors += f.find(" io-error ") != std::string::npos;
  CHECK(io_errors == 2);
}

TEST_CASE("unreadable files: a pipe, a folder without permission, a file without permission") {
  TempFolder dir;
  dir.Write("good.py", TrainScript());
  REQUIRE(::mkfifo((dir.path() / "pipe.py").c_str(), 0644) == 0);
  // Named on the command line, a pipe is refused rather than opened (opening it would block).
  auto pipe = RunTorchlint({"check", "pipe.py", "good.py"}, dir.path());
  CHECK(pipe.exit_code == 1);
  CHECK(pipe.err.starts_with(
      "error: pipe.py: not a regular file or folder (a pipe, socket or device); pass Python source files\n"));

  if (::geteuid() == 0) {
    MESSAGE("skipped: permission cases, since tests run as root, which reads files whatever their mode");
    return;
  }
  dir.Write("secret.py", TrainScript());
  dir.Write("locked/x.py", TrainScript());
  ::chmod((dir.path() / "secret.py").c_str(), 0);
  ::chmod((dir.path() / "locked").c_str(), 0);
  auto result = RunTorchlint({"check", "--output-format", "json", "."}, dir.path());
  ::chmod((dir.path() / "locked").c_str(), 0755);
  CHECK(result.exit_code == 1);
  CheckGoodFileAnalysed(result.out);
  CHECK(CountLines(result.err, "secret.py: cannot open: Permission denied; skipped") == 1);
  CHECK(CountLines(result.err, "locked: cannot read the folder") == 1);
}

TEST_CASE("--fix never leaves a half-written file when the write fails") {
  TempFolder dir;
  // Over 2 KB, so the file-size limit below stops the write of the fixed text.
  const std::string original = TrainScript() + "\n# " + std::string(4000, 'x') + "\n";
  const auto file = dir.Write("train.py", original);
  auto probe = RunTorchlint({"check", "--diff", "train.py"}, dir.path());
  if (probe.out.empty()) {
    MESSAGE("skipped: no rule offers a safe fix on the demo script");
    return;
  }
  // A full disk, simulated by a file-size limit (which binds root too): writing the temporary file
  // fails with EFBIG. The original must be untouched and no temporary file left behind. stdout goes
  // to /dev/null, which the limit does not cover; the stderr lines fit under it.
  auto result = RunTorchlint({"check", "--fix", "train.py"}, dir.path(), "",
                             "sh -c 'trap \"\" XFSZ; ulimit -f 2; exec \"$0\" \"$@\" >/dev/null'");
  CHECK(ReadText(file) == original);
  CHECK(result.exit_code == 1);
  CHECK(result.err.find("error: train.py: cannot write") != std::string::npos);
  CHECK(result.err.find("the file is unchanged") != std::string::npos);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 1);
}
