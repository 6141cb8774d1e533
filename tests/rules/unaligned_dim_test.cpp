// TL401 beyond what inline expectations say: a value written once and used by two layers is one finding
// at the write, with each layer's argument as a related location, and its suggestion edits the literal.
#include <doctest/doctest.h>

#include <fmt/core.h>

#include <string>

#include "linter/core/source_file.h"
#include "linter/engine/check.h"

namespace tl {
namespace {

std::vector<Diagnostic> Check(const SourceFile& file) {
  CheckOptions options;
  options.selection.select = {"TL401"};
  return CheckSource(file, options).diagnostics;
}

std::string_view At(const SourceFile& file, TextRange range) {
  return file.text().substr(range.begin, range.end - range.begin);
}

TEST_CASE("a config value used by two layers: one finding where it is written, the layers related") {
  const SourceFile file("model.py",
                        "from dataclasses import dataclass\n"
                        "import torch.nn as nn\n"
                        "@dataclass\n"
                        "class GPTConfig:\n"
                        "    vocab_size: int = 50304\n"
                        "class GPT(nn.Module):\n"
                        "    def __init__(self, config):\n"
                        "        self.wte = nn.Embedding(config.vocab_size, 768)\n"
                        "        self.lm_head = nn.Linear(768, config.vocab_size)\n"
                        "def from_pretrained(model_type):\n"
                        "    config_args = {'gpt2': dict(n_layer=12)}[model_type]\n"
                        "    config_args['vocab_size'] = 50257\n"
                        "    return GPT(GPTConfig(**config_args))\n");
  const std::vector<Diagnostic> found = Check(file);
  REQUIRE(found.size() == 1);
  const Diagnostic& d = found[0];
  CHECK(At(file, d.range) == "50257");
  CHECK(file.lines().Locate(d.range.begin).line == 12);
  CHECK(d.message ==
        "`vocab_size` is 50257, not a multiple of 8, as `num_embeddings` of `nn.Embedding` and `out_features` of "
        "`nn.Linear`; 50304 would use tensor cores");
  REQUIRE(d.related.size() == 2);
  CHECK(d.related[0].path.empty());
  CHECK(file.lines().Locate(d.related[0].range.begin).line == 8);
  CHECK(At(file, d.related[0].range) == "config.vocab_size");
  CHECK(d.related[0].message == "used as `num_embeddings` of `nn.Embedding` here");
  CHECK(file.lines().Locate(d.related[1].range.begin).line == 9);
  CHECK(d.related[1].message == "used as `out_features` of `nn.Linear` here");
  REQUIRE(d.fix);
  CHECK(d.fix->applicability == Applicability::kDisplayOnly);
  CHECK(d.fix->title == "Round `vocab_size` up to 50304");
  REQUIRE(d.fix->edits.size() == 1);
  CHECK(At(file, d.fix->edits[0].range) == "50257");
  CHECK(d.fix->edits[0].replacement == "50304");
}

// The text and line of `file`'s one finding; "" when it has none or several.
std::string SoleFinding(const SourceFile& file) {
  const std::vector<Diagnostic> found = Check(file);
  if (found.size() != 1) return "";
  return std::string(At(file, found[0].range)) + " on line " +
         std::to_string(file.lines().Locate(found[0].range.begin).line);
}

// A table of dicts and a function that builds a layer from the row of the table it is given: the size
// is reported where the table writes it (line 2) only when the value flow finds which dicts `table`
// holds, through `build`'s callers (no splat into a config class makes the row a config otherwise).
constexpr std::string_view kTable =
    "import torch.nn as nn\n"
    "TABLE = {'gpt2': dict(vocab_size=50257)}\n"
    "def build(table, key):\n"
    "    row = table[key]\n"
    "    return nn.Linear(768, row['vocab_size'])\n";

TEST_CASE("a table of dicts handed on through parameters, by two chains of calls and a recursion") {
  // `table` reaches `build` through `again` from `small` and `large`, and around `again`'s recursion.
  const SourceFile file("model.py", std::string(kTable) +
                                        "def again(table, depth):\n"
                                        "    return again(table, depth - 1) if depth else build(table, 'gpt2')\n"
                                        "def small(table):\n"
                                        "    return again(table, 1)\n"
                                        "def large(table):\n"
                                        "    return again(table, 2)\n"
                                        "models = [small(TABLE), large(TABLE)]\n");
  CHECK(SoleFinding(file) == "50257 on line 2");
}

TEST_CASE("a parameter reached by thousands of chains of calls is followed once, within the query's budget") {
  // `build` is called from `a1` and `b1`, each of those from both `a2` and `b2`, and so on for 14
  // levels, whose top passes nothing readable: 16,384 chains, more than a query's 4,000 steps if each
  // were followed again. The table comes by the last call of `build`: it is found only when each
  // parameter's callers are followed once (with that undone, this finding is lost).
  std::string text(kTable);
  for (int level = 1; level <= 14; ++level) {
    const std::string below = level == 1 ? "build(t, 'gpt2'), build(t, 'gpt2')"
                                         : fmt::format("a{0}(t), b{0}(t)", level - 1);
    for (const char* side : {"a", "b"}) text += fmt::format("def {}{}(t):\n    return [{}]\n", side, level, below);
  }
  text += "models = [a14(load()), b14(load()), build(TABLE, 'gpt2')]\n";
  CHECK(SoleFinding(SourceFile("model.py", text)) == "50257 on line 2");
}

TEST_CASE("a literal in the layer call is reported there, with no related location") {
  const SourceFile file("m.py", "import torch.nn as nn\nhead = nn.Linear(768, 50257)\n");
  const std::vector<Diagnostic> found = Check(file);
  REQUIRE(found.size() == 1);
  CHECK(At(file, found[0].range) == "50257");
  CHECK(found[0].related.empty());
  CHECK(found[0].message ==
        "`out_features` of `nn.Linear` is 50257, not a multiple of 8; 50304 would use tensor cores");
}

TEST_CASE("a size derived from a written value: reported at the write, naming what it makes, no edit") {
  const SourceFile file("m.py",
                        "import torch.nn as nn\n"
                        "class Down(nn.Module):\n"
                        "    def __init__(self, width):\n"
                        "        self.conv = nn.Conv2d(64, width // 2, 1)\n"
                        "down = Down(488)\n");
  const std::vector<Diagnostic> found = Check(file);
  REQUIRE(found.size() == 1);
  CHECK(At(file, found[0].range) == "488");
  CHECK(found[0].message ==
        "`width` is 488, which makes `out_channels` of `nn.Conv2d` 244, not a multiple of 8; 248 would use tensor "
        "cores");
  REQUIRE(found[0].related.size() == 1);
  CHECK(found[0].related[0].message == "244 as `out_channels` of `nn.Conv2d` here");
  CHECK_FALSE(found[0].fix);
}

}  // namespace
}  // namespace tl
