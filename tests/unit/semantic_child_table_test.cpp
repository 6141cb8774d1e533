// Unit tests of the ChildTable (the named children the model's walk keeps) and of the model's readers
// over it: they must answer exactly what tree-sitter answers, kept or not.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linter/core/source_file.h"
#include "linter/semantic/model.h"
#include "linter/semantic/syntax.h"
#include "linter/ts/ts.h"

namespace tl::semantic {
namespace {

std::vector<ts::Node> Collect(ChildList list) {
  std::vector<ts::Node> out;
  for (ts::Node child : list) out.push_back(child);
  return out;
}

TEST_CASE("ChildTable files children under their parent, and answers only for what it kept") {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "f" + std::to_string(i) + "(a, b)\n";  // grows past 1,024 entries
  ts::Parser parser;
  auto tree = parser.Parse(text);
  REQUIRE(tree.ok());
  auto other = parser.Parse(text);
  REQUIRE(other.ok());

  std::vector<ts::Node> lists;
  ts::Walk(tree->Root(), [&](ts::Node node) {
    if (KindOf(node) == NodeKind::kArgumentList) lists.push_back(node);
    return true;
  });
  REQUIRE(lists.size() == 3000);

  ChildTable table;
  CHECK_FALSE(table.Find(lists[0]));              // empty
  for (size_t i = 0; i < lists.size(); i += 2) {  // every other list
    const uint32_t count = lists[i].NamedChildCount();
    const uint32_t first = table.Open(count);
    for (uint32_t k = 0; k < count; ++k) table.Set(first + k, lists[i].NamedChild(k));
    table.Keep(lists[i], first, count);
  }
  for (size_t i = 0; i < lists.size(); ++i) {
    const auto kept = table.Find(lists[i]);
    if (i % 2 == 1) {
      CHECK_FALSE(kept);
      continue;
    }
    REQUIRE(kept);
    REQUIRE(kept->size() == 2);
    CHECK((*kept)[0] == lists[i].NamedChild(0));
    CHECK((*kept)[1] == lists[i].NamedChild(1));
  }
  // A node of another tree (the same text parsed again) and a null node are not in the table.
  CHECK_FALSE(table.Find(other->Root().NamedChild(0).NamedChild(0).NamedChild(1)));
  CHECK_FALSE(table.Find(ts::Node()));
}

TEST_CASE("the model's named children are tree-sitter's, for every node") {
  // Argument lists and parameters (the nodes the walk keeps), narrow and wide (over kFewChildren), with
  // comments, splats and keywords, in skipped subtrees (defaults, decorators), and in broken code.
  std::string text =
      "import torch\n"
      "def f(a, b=g(1, 2), *args, c: int = 2, **kw):\n"
      "    return h(a, b,  # note\n"
      "             *args, k=c, **kw)\n"
      "def wide(a, b, c, d, e, f, g, h, i, j):\n"
      "    return torch.cat([a, b], dim=0), m(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)\n"
      "g = lambda x, y: x(y)\n"
      "@deco(1, x=2)\n"
      "class C(Base, metaclass=M):\n"
      "    def method(self, *, key=None): return self.call(key)()\n"
      "x = p(q(r(s())))\n"
      "y = t(u for u in v)\n";
  for (int i = 0; i < 1500; ++i) text += "z" + std::to_string(i) + " = w(" + std::to_string(i) + ", k=i)\n";
  text += "broken = call(1, 2\n";
  SourceFile file("t.py", text);
  ts::Parser parser;
  auto tree = parser.Parse(file.text());
  REQUIRE(tree.ok());
  auto model = Model::Build(file, *tree);

  uint32_t nodes = 0;
  uint32_t lists = 0;
  ts::Walk(tree->Root(), [&](ts::Node node) {
    ++nodes;
    if (KindOf(node) == NodeKind::kArgumentList || KindOf(node) == NodeKind::kParameters) ++lists;
    std::vector<ts::Node> expected;
    for (uint32_t i = 0; i < node.NamedChildCount(); ++i) expected.push_back(node.NamedChild(i));
    CHECK(model->NamedChildCount(node) == expected.size());
    CHECK(Collect(model->NamedChildren(node)) == expected);
    for (uint32_t i = 0; i < expected.size(); ++i) CHECK(model->NamedChild(node, i) == expected[i]);
    CHECK(model->NamedChild(node, static_cast<uint32_t>(expected.size())).IsNull());
    return true;
  });
  CHECK(lists > 1500);
  CHECK(nodes > 10000);
  CHECK(model->NamedChildCount(ts::Node()) == 0);
  CHECK(Collect(model->NamedChildren(ts::Node())).empty());
}

}  // namespace
}  // namespace tl::semantic
