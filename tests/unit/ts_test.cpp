// ts::Parser's guards: a leading BOM is skipped with offsets kept as file offsets, and brackets left
// open beyond what the runtime survives are refused with a one-line reason instead of a crash.
#include <doctest/doctest.h>

#include <string>

#include "linter/ts/ts.h"

TEST_CASE("a BOM is skipped and node offsets stay file offsets") {
  const std::string text = "\xEF\xBB\xBFimport torch\n";
  tl::ts::Parser parser;
  auto tree = parser.Parse(text);
  REQUIRE(tree.ok());
  CHECK_FALSE(tree->Root().HasError());
  const tl::ts::Node import = tree->Root().NamedChild(0);
  CHECK(import.Type() == "import_statement");
  CHECK(import.StartByte() == 3);
  CHECK(import.Text(text) == "import torch");
  // The same parser parses a file without a BOM from byte 0 afterwards.
  auto plain = parser.Parse("x = 1\n");
  REQUIRE(plain.ok());
  CHECK(plain->Root().NamedChild(0).StartByte() == 0);
}

TEST_CASE("too many brackets left open is refused; 100,000 closed ones parse") {
  tl::ts::Parser parser;
  auto refused = parser.Parse("y = " + std::string(100000, '['));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("still open at the end of the file") != std::string::npos);
  auto parsed = parser.Parse("z = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "\n");
  REQUIRE(parsed.ok());
  CHECK_FALSE(parsed->Root().HasError());
}

TEST_CASE("FirstSyntaxError finds the first ERROR or MISSING node") {
  tl::ts::Parser parser;
  const std::string text = "def f(:\n    pass\nx = 1\n";
  auto tree = parser.Parse(text);
  REQUIRE(tree.ok());
  const tl::ts::Node error = tl::ts::FirstSyntaxError(tree->Root());
  REQUIRE(error);
  CHECK(error.StartByte() < 8);
  auto clean = parser.Parse("x = 1\n");
  REQUIRE(clean.ok());
  CHECK_FALSE(tl::ts::FirstSyntaxError(clean->Root()));
}
