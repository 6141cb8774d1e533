// ts::Parser's guards: a leading BOM is skipped with offsets kept as file offsets, and brackets left
// open beyond what the runtime survives are refused with a one-line reason instead of a crash. And
// NamedChildren() hands out NamedChild(i)'s nodes, for narrow nodes (indexed) and wide ones (a cursor).
#include <doctest/doctest.h>

#include <string>
#include <vector>

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

TEST_CASE("NamedChildren gives NamedChild(i)'s nodes in order, for few and for many children") {
  // Wide nodes (a long block, argument list, dict and import list, with comments among the children)
  // are read with a cursor, narrow ones by index; hidden nodes (`_suite`) and anonymous tokens with
  // children (`not in`) sit between some parents and their named children.
  std::string text = "import os, sys, re, io, abc, ast, csv, dis, enum\n";
  text += "def f(a, b=1, *args, c: int = 2, **kw):\n";
  for (int i = 0; i < 12; ++i) text += "    x" + std::to_string(i) + " = a not in b  # note\n";
  text += "    g(1, 2, 3,  # one\n      4, 5, 6, 7, 8, k=9, *a, **kw)\n";
  text += "    return {'a': 1, 'b': 2, 'c': 3, 'd': 4, 'e': 5, 'f': 6, 'g': 7, 'h': 8, 'i': 9}\n";
  text += "for i in range(3): pass\nif x: pass\nelif y:  # c\n    pass\ny = (\n";  // ends in an ERROR
  tl::ts::Parser parser;
  auto tree = parser.Parse(text);
  REQUIRE(tree.ok());
  uint32_t wide = 0;
  uint32_t narrow = 0;
  tl::ts::Walk(tree->Root(), [&](tl::ts::Node node) {
    std::vector<tl::ts::Node> indexed;
    for (uint32_t i = 0; i < node.NamedChildCount(); ++i) indexed.push_back(node.NamedChild(i));
    std::vector<tl::ts::Node> ranged;
    for (tl::ts::Node child : node.NamedChildren()) ranged.push_back(child);
    CHECK(ranged == indexed);
    (indexed.size() > tl::ts::NamedChildRange::kFewChildren ? wide : narrow) += 1;
    return true;
  });
  CHECK(wide >= 4);  // the module, the function's block, the call's arguments, the dict
  CHECK(narrow > 20);
  // Next() after the end keeps answering null.
  tl::ts::NamedChildRange range = tree->Root().NamedChildren();
  while (range.Next()) {
  }
  CHECK_FALSE(range.Next());
}
