// CheckSource (linter/engine/check.cpp): BOM handling keeps offsets as file offsets, one parse-error
// notice at the first error while the rest is still analysed, `# noqa` forms, file-wide
// suppression, selection by code and prefix, and sorted output.
#include <doctest/doctest.h>

#include <string>

#include "linter/core/source_file.h"
#include "linter/engine/check.h"

namespace tl {
namespace {

FileReport Check(std::string text, std::vector<std::string> select = {}) {
  SourceFile file("t.py", std::move(text));
  CheckOptions options;
  options.selection.select = std::move(select);
  return CheckSource(file, options);
}

size_t Count(const FileReport& report, std::string_view code) {
  size_t n = 0;
  for (const Diagnostic& d : report.diagnostics) n += d.code == code ? 1 : 0;
  return n;
}

constexpr std::string_view kLoader = "from torch.utils.data import DataLoader\n";

TEST_CASE("selection by code and prefix") {
  RuleSelection selection;
  CHECK(selection.Enabled("TL101"));
  selection.select = {"TL2"};
  CHECK(selection.Enabled("TL201"));
  CHECK_FALSE(selection.Enabled("TL101"));
  selection.ignore = {"TL202"};
  CHECK_FALSE(selection.Enabled("TL202"));
  CHECK(selection.Enabled("TL201"));
}

TEST_CASE("an off-by-default rule runs only when a select names it; ignore still wins") {
  RuleSelection selection;
  CHECK(selection.Enabled("TL101", /*default_enabled=*/true));
  CHECK_FALSE(selection.Enabled("TL502", /*default_enabled=*/false));
  for (const char* selector : {"TL502", "TL5", "TL", "ALL"}) {
    selection.select = {selector};
    CHECK_MESSAGE(selection.Enabled("TL502", false), selector);
  }
  selection.select = {"TL1"};
  CHECK_FALSE(selection.Enabled("TL502", false));
  selection.select = {"ALL"};
  selection.ignore = {"TL502"};
  CHECK_FALSE(selection.Enabled("TL502", false));
}

TEST_CASE("TL502 is off by default: an uncompiled CUDA training loop reports it only when selected") {
  const std::string text =
      "import torch\n"
      "def train(model, loader, optimizer):\n"
      "    model = model.cuda()\n"
      "    for x, y in loader:\n"
      "        loss = model(x.cuda()).sum()\n"
      "        loss.backward()\n"
      "        optimizer.step()\n";
  CHECK(Count(Check(text), "TL502") == 0);
  CHECK(Count(Check(text, {"TL502"}), "TL502") == 1);
  CHECK(Count(Check(text, {"ALL"}), "TL502") == 1);
}

TEST_CASE("the summary names the imported fields the check asked for, not every one the text reads") {
  // `args.workers` decides TL201 once the project gives `option`'s default; `path.join` and
  // `args.name` decide nothing, so a file that reads only those is not checked again with the project.
  const std::string text =
      "import torch\nfrom torch.utils.data import DataLoader\nfrom option import args\nfrom os import path\n"
      "print(args.name, path.join('a', 'b'))\n"
      "loader = DataLoader(data, num_workers=args.workers, pin_memory=True)\n"
      "model = torch.nn.Linear(8, 8).cuda()\n"
      "for x in loader:\n    model(x.cuda()).sum().backward()\n";
  SourceFile file("train.py", text);
  CheckOptions options;
  options.collect_summary = true;
  FileReport report = CheckSource(file, options);
  REQUIRE(report.summary.has_value());
  CHECK(report.summary->imported_reads == std::vector<std::string>{"workers"});
  // Nothing asked when the rule that would ask is not selected.
  options.selection.select = {"TL101"};
  report = CheckSource(file, options);
  REQUIRE(report.summary.has_value());
  CHECK(report.summary->imported_reads.empty());
}

TEST_CASE("a BOM is skipped and offsets stay file offsets") {
  const std::string text = "\xEF\xBB\xBF" + std::string(kLoader) + "a = DataLoader(ds)\n";
  const FileReport report = Check(text, {"TL201"});
  REQUIRE(report.diagnostics.size() == 1);
  CHECK_FALSE(report.parse_error);
  CHECK(text.substr(report.diagnostics[0].range.begin, 10) == "DataLoader");
  REQUIRE(report.diagnostics[0].fix);
  CHECK(report.diagnostics[0].fix->edits[0].range.begin == text.find("ds)") + 2);
}

TEST_CASE("syntax errors: one notice, the rest still analysed") {
  const std::string text = std::string(kLoader) + "a = DataLoader(ds)\ndef f(:\n    pass\nb = ((\n";
  const FileReport report = Check(text, {"TL201"});
  CHECK(report.parse_error);
  CHECK(Count(report, "parse-error") == 1);
  CHECK(Count(report, "TL201") >= 1);
  for (const Diagnostic& d : report.diagnostics) {
    if (d.code == "parse-error") {
      CHECK(d.range.begin >= text.find("def f("));
      CHECK(d.message.starts_with("Syntax error"));
      CHECK(d.severity == Severity::kError);
    }
  }
  // Python 2: the grammar accepts print/exec statements; the rest is a syntax error, never a crash.
  CHECK_FALSE(Check("print 'hello'\nexec code in ns\n").parse_error);
  CHECK(Check("try:\n    pass\nexcept Exception, e:\n    print e.message\nx = 0777L\n").diagnostics.size() <= 1);
  CHECK_FALSE(Check("").parse_error);
  CHECK(Check(std::string("\x00\x01\xff\xfe binary\x00", 12)).diagnostics.size() <= 1);
}

TEST_CASE("noqa forms") {
  const std::string base = std::string(kLoader);
  CHECK(Check(base + "a = DataLoader(ds)  # noqa\n", {"TL201"}).diagnostics.empty());
  CHECK(Check(base + "a = DataLoader(ds)  # noqa: TL201\n", {"TL201"}).diagnostics.empty());
  CHECK(Check(base + "a = DataLoader(ds)  #noqa:TL101,TL201\n", {"TL201"}).diagnostics.empty());
  CHECK(Check(base + "a = DataLoader(ds)  # NoQA: TL101 TL201 because\n", {"TL201"}).diagnostics.empty());
  CHECK(Check(base + "a = DataLoader(ds)  # noqa: TL101\n", {"TL201"}).diagnostics.size() == 1);
  CHECK(Check(base + "a = DataLoader(ds)  # noqa: TL2\n", {"TL201"}).diagnostics.size() == 1);
  CHECK(Check(base + "a = DataLoader(ds)  # noqanope\n", {"TL201"}).diagnostics.size() == 1);
  CHECK(Check(base + "a = DataLoader(ds, s='# noqa')\n", {"TL201"}).diagnostics.size() == 1);
  CHECK(Check("# torchlint: noqa\n" + base + "a = DataLoader(ds)\n").diagnostics.empty());
  CHECK(Check("# torchlint: noqa: TL201\n" + base + "a = DataLoader(ds)\n", {"TL201"}).diagnostics.empty());
  CHECK(Check("s = '# torchlint: noqa'\n" + base + "a = DataLoader(ds)\n", {"TL201"}).diagnostics.size() == 1);
  // A syntax error is never suppressed.
  CHECK(Check("# torchlint: noqa\ndef f(:\n").parse_error);
}

TEST_CASE("diagnostics are sorted by position, then code") {
  const std::string text = "import torch\n" + std::string(kLoader) +
                           "b = DataLoader(ds)\nx = t.cuda()\na = DataLoader(ds)\n";
  const FileReport report = Check(text, {"TL2"});
  REQUIRE(report.diagnostics.size() == 4);
  for (size_t i = 1; i < report.diagnostics.size(); ++i) {
    const Diagnostic& a = report.diagnostics[i - 1];
    const Diagnostic& b = report.diagnostics[i];
    CHECK((a.range.begin < b.range.begin || (a.range.begin == b.range.begin && a.code < b.code)));
  }
}

}  // namespace
}  // namespace tl

namespace tl {
namespace {

TEST_CASE("100,000 nested brackets, balanced or not, are checked without recursion") {
  std::string balanced = "x = ";
  balanced.append(100000, '[');
  balanced.append(100000, ']');
  balanced += "\n";
  CHECK_FALSE(Check(balanced).parse_error);  // closed brackets parse, and the walk is iterative
  // More left open than tree-sitter 0.20.7 can free safely (65,535): one notice, no parse, no crash.
  std::string open = "import torch\nx = t.cuda()\ny = ";
  open.append(100000, '(');
  open += "\n";
  const FileReport report = Check(open);
  CHECK(report.parse_error);
  REQUIRE(Count(report, "parse-error") == 1);
  CHECK(report.diagnostics[0].message.find("still open") != std::string::npos);
  // Deep but within the limit: parsed, with a syntax error, and analysed.
  std::string deep = "import torch\nx = t.cuda()\ny = ";
  deep.append(50000, '(');
  deep += "\n";
  const FileReport deep_report = Check(deep);
  CHECK(deep_report.parse_error);
  CHECK(Count(deep_report, "parse-error") == 1);
}

}  // namespace
}  // namespace tl
