// `check --add-noqa` on the lines where writing a comment is tricky: an existing `# noqa`, a
// `# type: ignore`, a backslash continuation, a line inside a triple-quoted string, CRLF, tabs and
// bytes that are not UTF-8; and that running it twice changes nothing the second time.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linter/engine/check.h"
#include "linter/engine/noqa.h"

namespace {

tl::Diagnostic At(std::string_view code, uint32_t offset) {
  tl::Diagnostic d;
  d.code = std::string(code);
  d.name = "test-rule";
  d.range = {offset, offset + 1};
  return d;
}

// Adds the directives and returns the new text; `added` and `warnings` report what happened.
std::string Add(std::string_view text, const std::vector<tl::Diagnostic>& diagnostics, size_t* added = nullptr,
                std::vector<std::string>* warnings = nullptr) {
  const tl::SourceFile file("t.py", std::string(text));
  auto result = tl::AddNoqa(file, diagnostics);
  REQUIRE(result.ok());
  if (added != nullptr) *added = result->added;
  if (warnings != nullptr) *warnings = result->warnings;
  return result->text;
}

}  // namespace

TEST_CASE("add-noqa appends a directive with two spaces, after trailing blanks are dropped") {
  size_t added = 0;
  CHECK(Add("x = f(a)   \ny = 2\n", {At("TL101", 4)}, &added) == "x = f(a)  # noqa: TL101\ny = 2\n");
  CHECK(added == 1);
  CHECK(Add("x = f(a)", {At("TL101", 0)}) == "x = f(a)  # noqa: TL101");  // no newline at the end
}

TEST_CASE("add-noqa puts every code of a line in one directive, in code order, once") {
  CHECK(Add("x = f(a)\n", {At("TL202", 4), At("TL101", 0), At("TL101", 2)}) == "x = f(a)  # noqa: TL101, TL202\n");
}

TEST_CASE("add-noqa extends an existing `# noqa: X` instead of adding a second one") {
  CHECK(Add("x = f(a)  # noqa: TL202\n", {At("TL101", 0)}) == "x = f(a)  # noqa: TL202, TL101\n");
  CHECK(Add("x = f(a)  # NOQA:TL202 slow on purpose\n", {At("TL101", 0)}) ==
        "x = f(a)  # NOQA:TL202, TL101 slow on purpose\n");
  size_t added = 7;
  CHECK(Add("x = f(a)  # noqa\n", {At("TL101", 0)}, &added) == "x = f(a)  # noqa\n");  // bare: covers all
  CHECK(added == 0);
}

TEST_CASE("add-noqa after `# type: ignore` writes a second comment, which the suppression reads") {
  const std::string out = Add("x = f(a)  # type: ignore\n", {At("TL101", 0)});
  CHECK(out == "x = f(a)  # type: ignore  # noqa: TL101\n");
  CHECK(Add(out, {At("TL101", 0), At("TL202", 0)}) == "x = f(a)  # type: ignore  # noqa: TL101, TL202\n");
}

TEST_CASE("add-noqa does not take a `#` inside a string for a comment") {
  CHECK(Add("s = f(\"# noqa: TL9\")\n", {At("TL101", 0)}) == "s = f(\"# noqa: TL9\")  # noqa: TL101\n");
}

TEST_CASE("add-noqa leaves a backslash-continued line alone, with a warning naming the line") {
  const std::string text = "x = 1\ny = f(a) + \\\n    2\n";
  size_t added = 9;
  std::vector<std::string> warnings;
  CHECK(Add(text, {At("TL101", 6)}, &added, &warnings) == text);
  CHECK(added == 0);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].starts_with("t.py:2: the line continues with a backslash"));
  // A backslash at the end of a comment is no continuation.
  CHECK(Add("x = f(a)  # see a\\\n", {At("TL101", 0)}) == "x = f(a)  # see a\\  # noqa: TL101\n");
}

TEST_CASE("add-noqa skips a line that ends inside a triple-quoted string, and still writes the others") {
  const std::string text = "doc = f(\"\"\"first\nsecond\"\"\")\ng(x)\n";
  std::vector<std::string> warnings;
  const std::string out = Add(text, {At("TL101", 0), At("TL202", static_cast<uint32_t>(text.find("g(x)")))}, nullptr,
                              &warnings);
  CHECK(out == "doc = f(\"\"\"first\nsecond\"\"\")\ng(x)  # noqa: TL202\n");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].starts_with("t.py:1: the line ends inside a multi-line string"));
  // A call that spans lines outside any string takes the comment on its first line.
  CHECK(Add("loader = DataLoader(\n    ds)\n", {At("TL201", 9)}) == "loader = DataLoader(  # noqa: TL201\n    ds)\n");
}

TEST_CASE("add-noqa keeps CRLF, tabs and bytes that are not UTF-8 as they are") {
  CHECK(Add("x = f(a)\r\ny = 2\r\n", {At("TL101", 0)}) == "x = f(a)  # noqa: TL101\r\ny = 2\r\n");
  CHECK(Add("if a:\n\tx = f(a)\t\n", {At("TL101", 7)}) == "if a:\n\tx = f(a)  # noqa: TL101\n");
  CHECK(Add("s = \"\xff\"\nx = f(a)\n", {At("TL101", 9)}) == "s = \"\xff\"\nx = f(a)  # noqa: TL101\n");
}

TEST_CASE("add-noqa ignores notices without a rule code and changes nothing without findings") {
  size_t added = 3;
  CHECK(Add("x = (\n", {At("parse-error", 4)}, &added) == "x = (\n");
  CHECK(added == 0);
  CHECK(Add("x = 1\n", {}) == "x = 1\n");
}

TEST_CASE("add-noqa is idempotent: the directives it wrote suppress the findings they name") {
  const std::string text = "import torch\nfor x in loader:\n    print(x.cuda().item())\n";
  tl::CheckOptions options;
  const tl::SourceFile file("t.py", text);
  const tl::FileReport before = tl::CheckSource(file, options);
  REQUIRE_FALSE(before.diagnostics.empty());
  const std::string once = Add(text, before.diagnostics);
  CHECK(once != text);
  const tl::SourceFile fixed("t.py", once);
  CHECK(tl::CheckSource(fixed, options).diagnostics.empty());
  // A finding whose code the line's directive already names adds nothing either.
  size_t added = 5;
  CHECK(Add("x = f(a)  # noqa: TL101\n", {At("TL101", 0)}, &added) == "x = f(a)  # noqa: TL101\n");
  CHECK(added == 0);
}
