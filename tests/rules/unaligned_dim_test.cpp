// TL401 beyond what inline expectations say: a value written once and used by two layers is one finding
// at the write, with each layer's argument as a related location, and its suggestion edits the literal.
#include <doctest/doctest.h>

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

// A config dataclass and the head of a model whose `__init__` reads it.
constexpr std::string_view kGpt =
    "from dataclasses import dataclass\n"
    "import torch.nn as nn\n"
    "@dataclass\n"
    "class GPTConfig:\n"
    "    vocab_size: int = 50304\n"
    "class GPT(nn.Module):\n"
    "    def __init__(self, config):\n";

std::string_view At(const SourceFile& file, TextRange range) {
  return file.text().substr(range.begin, range.end - range.begin);
}

TEST_CASE("a config value used by two layers: one finding where it is written, the layers related") {
  const SourceFile file("model.py", std::string(kGpt) +
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

TEST_CASE("a table of config dicts handed on through parameters, by two chains of calls and a recursion") {
  // `table` reaches `build` from `small` and `large`, and from `build` itself: each caller's argument
  // is followed once, and the row is a dict either way.
  const SourceFile file("model.py", std::string(kGpt) +
                                        "        self.lm_head = nn.Linear(768, config.vocab_size)\n"
                                        "TABLE = {'gpt2': dict(n_layer=12)}\n"
                                        "def build(table, model_type, depth):\n"
                                        "    if depth > 0:\n"
                                        "        return build(table, model_type, depth - 1)\n"
                                        "    config_args = table[model_type]\n"
                                        "    config_args['vocab_size'] = 50257\n"
                                        "    return GPT(GPTConfig(**config_args))\n"
                                        "def small(table):\n"
                                        "    return build(table, 'gpt2', 1)\n"
                                        "def large(table):\n"
                                        "    return build(table, 'gpt2', 2)\n"
                                        "models = [small(TABLE), large(TABLE)]\n");
  const std::vector<Diagnostic> found = Check(file);
  REQUIRE(found.size() == 1);
  CHECK(At(file, found[0].range) == "50257");
  CHECK(file.lines().Locate(found[0].range.begin).line == 14);
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
