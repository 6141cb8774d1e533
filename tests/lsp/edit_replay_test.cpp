// Edit replay: the editor server checks each version of a document from the tree of the one before
// (tree-sitter's incremental parse), and whatever it keeps from one check to the next must never show.
// Every rule fixture, the examples and a generated training script are edited many times over (typed
// characters, deletions, `.item()` added and removed, imports added, constants changed, whole functions
// deleted, syntax broken and fixed, indentation changed, lines typed character by character inside a
// loop, blocks pasted), and after EVERY edit the diagnostics of the incremental check are compared,
// field by field, with those of a from-scratch check of the same text in a fresh workspace.
#include <doctest/doctest.h>

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../unit/engine_test_support.h"
#include "lsp/workspace.h"

namespace tl::lsp {
namespace {

namespace fs = std::filesystem;

// Everything a client or a renderer can see of the diagnostics, one line per diagnostic.
std::string Render(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    out += fmt::format("{} {} [{}, {}) {} | {} | {} {} | {}", d.code, d.name, d.range.begin, d.range.end,
                       ToString(d.severity), d.message, d.scope.function, d.scope.function_def_line, d.message_ref.id);
    if (d.fix) {
      out += fmt::format(" | fix {} {}", d.fix->title, ToString(d.fix->applicability));
      for (const Edit& e : d.fix->edits) out += fmt::format(" [{}, {})={}", e.range.begin, e.range.end, e.replacement);
    }
    for (const RelatedLocation& r : d.related) {
      out += fmt::format(" | related {} [{}, {}) {}", r.path, r.range.begin, r.range.end, r.message);
    }
    out += '\n';
  }
  return out;
}

Settings AllRules() {
  Settings settings;
  settings.select = std::vector<std::string>{"ALL"};
  return settings;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A training script of `blocks` model classes, a helper and a CUDA step loop (bench_server's, smaller);
// the helper imported from `helpers` instead, when `imported`.
std::string TrainingScript(int blocks, bool imported = false) {
  std::string out = "import torch\nfrom torch.utils.data import DataLoader\n";
  if (imported) out += "from helpers import log_loss\n";
  out += "\nLR = 0.1\nWORKERS = 0\n\n";
  for (int b = 0; b < blocks; ++b) {
    out += fmt::format("class Block{}(torch.nn.Module):\n    def __init__(self, dim={}):\n", b, 64 + b % 7);
    out += "        super().__init__()\n        self.fc = torch.nn.Linear(dim, dim)\n\n";
    out += "    def forward(self, x):\n        y = self.fc(x)\n        return torch.relu(y) + x\n\n\n";
  }
  if (!imported) out += "def log_loss(loss, step):\n    if step % 10 == 0:\n        print(loss.item())\n\n\n";
  out += "model = torch.nn.Sequential(Block0(), Block1()).cuda()\n";
  out += "optimizer = torch.optim.AdamW(model.parameters(), lr=LR)\n";
  out += "loader = DataLoader(dataset, batch_size=32, num_workers=WORKERS)\n";
  out += "for step, (x, y) in enumerate(loader):\n    optimizer.zero_grad()\n";
  out += "    loss = model(x.cuda()).sum()\n    loss.backward()\n    optimizer.step()\n";
  out += "    log_loss(loss, step)\n";
  return out;
}

// The open documents of one scenario: one workspace edited incrementally, and the texts it should hold.
class Replay {
 public:
  explicit Replay(const test::TempDir& dir) : dir_(dir) { ws_.SetSettings(AllRules()); }

  void Open(const std::string& name, std::string text) {
    const std::string path = (dir_ / name).string();
    texts_.emplace_back(path, text);
    ws_.Open(path, std::move(text), 1);
    Compare(texts_.size() - 1);
  }

  const std::string& Text(size_t doc) const { return texts_[doc].second; }

  // Replaces [begin, end) of a document with `replacement`, then compares its check, and those of the
  // other open documents (the project index around them may have changed), with fresh checks.
  void Edit(size_t doc, size_t begin, size_t end, std::string_view replacement) {
    auto& [path, text] = texts_[doc];
    REQUIRE(
        ws_.Change(path, ++version_, TextRange{static_cast<uint32_t>(begin), static_cast<uint32_t>(end)}, replacement));
    text.replace(begin, end - begin, replacement);
    ++edits_;
    Compare(doc);
    for (size_t other = 0; other < texts_.size(); ++other) {
      if (other != doc) Compare(other);
    }
  }

  size_t edits() const { return edits_; }
  size_t checks() const { return checks_; }

 private:
  void Compare(size_t doc) {
    const auto& [path, text] = texts_[doc];
    auto checked = ws_.Check(path);
    REQUIRE(checked.has_value());
    REQUIRE(checked->snapshot.source->text() == text);
    Workspace fresh;
    fresh.SetSettings(AllRules());
    for (const auto& [other_path, other_text] : texts_) fresh.Open(other_path, other_text, 1);
    // The other documents' summaries first, as the server has them when this one is checked.
    for (const auto& [other_path, other_text] : texts_) {
      if (other_path != path) REQUIRE(fresh.Check(other_path).has_value());
    }
    auto expected = fresh.Check(path);
    REQUIRE(expected.has_value());
    ++checks_;
    const std::string got = Render(checked->diagnostics);
    const std::string want = Render(expected->diagnostics);
    if (got != want) {
      FAIL_CHECK(
          fmt::format("{} after edit {}: the incremental check differs from a fresh one\ntext:\n{}\n"
                      "incremental:\n{}fresh:\n{}",
                      fs::path(path).filename().string(), edits_, text, got, want));
      failures_++;
      REQUIRE(failures_ < 3);
    }
  }

  const test::TempDir& dir_;
  Workspace ws_;
  std::vector<std::pair<std::string, std::string>> texts_;
  int64_t version_ = 1;
  size_t edits_ = 0;
  size_t checks_ = 0;
  int failures_ = 0;
};

// Offsets of every occurrence of `needle`.
std::vector<size_t> Occurrences(const std::string& text, std::string_view needle) {
  std::vector<size_t> out;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) out.push_back(at);
  return out;
}

// The start of each line.
std::vector<size_t> LineStarts(const std::string& text) {
  std::vector<size_t> out{0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size()) out.push_back(i + 1);
  }
  return out;
}

size_t LineEnd(const std::string& text, size_t at) {
  const size_t end = text.find('\n', at);
  return end == std::string::npos ? text.size() : end;
}

// One random edit of document `doc`, of a kind an editor makes; some kinds are several edits in a row.
void RandomEdit(Replay& replay, size_t doc, std::mt19937& rng) {
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  const std::string& text = replay.Text(doc);
  const size_t size = text.size();
  switch (pick(11)) {
    case 0: {  // a keystroke anywhere
      constexpr std::array<std::string_view, 14> kKeys = {" ", "x",  ".", "(", ")", ":",  ",",
                                                          "=", "\n", "#", "'", "0", "\t", "_"};
      const size_t at = pick(size + 1);
      replay.Edit(doc, at, at, kKeys[pick(kKeys.size())]);
      return;
    }
    case 1: {  // a deletion
      if (size == 0) return;
      const size_t at = pick(size);
      replay.Edit(doc, at, std::min(size, at + 1 + pick(16)), "");
      return;
    }
    case 2: {  // `.item()` added at the end of a line, or one taken out
      const std::vector<size_t> items = Occurrences(text, ".item()");
      if (!items.empty() && pick(2) == 0) {
        const size_t at = items[pick(items.size())];
        replay.Edit(doc, at, at + 7, "");
      } else {
        const std::vector<size_t> starts = LineStarts(text);
        const size_t end = LineEnd(text, starts[pick(starts.size())]);
        replay.Edit(doc, end, end, ".item()");
      }
      return;
    }
    case 3: {  // an import at the top
      constexpr std::array<std::string_view, 5> kImports = {
          "import torch\n", "import os\n", "from torch.utils.data import DataLoader\n",
          "import torch.nn.functional as F\n", "from helpers import log_loss\n"};
      replay.Edit(doc, 0, 0, kImports[pick(kImports.size())]);
      return;
    }
    case 4: {  // a constant changed
      std::vector<size_t> digits;
      for (size_t i = 0; i < size; ++i) {
        if (text[i] >= '0' && text[i] <= '9') digits.push_back(i);
      }
      if (digits.empty()) return;
      const size_t at = digits[pick(digits.size())];
      constexpr std::array<std::string_view, 5> kDigits = {"0", "1", "4", "8", "64"};
      replay.Edit(doc, at, at + 1, kDigits[pick(kDigits.size())]);
      return;
    }
    case 5: {  // a whole top-level function or class deleted
      std::vector<size_t> starts = Occurrences(text, "\ndef ");
      const std::vector<size_t> classes = Occurrences(text, "\nclass ");
      starts.insert(starts.end(), classes.begin(), classes.end());
      if (starts.empty()) return;
      const size_t begin = starts[pick(starts.size())] + 1;
      size_t end = LineEnd(text, begin);
      while (end < size && (end + 1 >= size || text[end + 1] == ' ' || text[end + 1] == '\n' || text[end + 1] == '#')) {
        end = LineEnd(text, end + 1);
      }
      replay.Edit(doc, begin, std::min(size, end + 1), "");
      return;
    }
    case 6: {  // syntax broken, checked, and fixed
      const size_t at = pick(size + 1);
      constexpr std::array<std::string_view, 4> kBreaks = {"(", "def ", "[1, ", "if x"};
      const std::string_view broken = kBreaks[pick(kBreaks.size())];
      replay.Edit(doc, at, at, broken);
      replay.Edit(doc, at, at + broken.size(), "");
      return;
    }
    case 7: {  // indentation: a space at the start of a line (what bench_server types)
      const std::vector<size_t> starts = LineStarts(text);
      const size_t at = starts[pick(starts.size())];
      replay.Edit(doc, at, at, " ");
      return;
    }
    case 8: {  // a line typed character by character under a loop header
      const std::vector<size_t> loops = Occurrences(text, "for ");
      if (loops.empty()) return;
      size_t at = LineEnd(text, loops[pick(loops.size())]);
      if (at == size) return;
      ++at;
      size_t indent = 0;
      while (at + indent < size && text[at + indent] == ' ') ++indent;
      const std::string line = std::string(indent, ' ') + "total = total + loss.item()\n";
      for (const char c : line) {
        replay.Edit(doc, at, at, std::string_view(&c, 1));
        ++at;
      }
      return;
    }
    case 9: {  // a block of lines pasted elsewhere
      const std::vector<size_t> starts = LineStarts(text);
      const size_t first = pick(starts.size());
      const size_t last = std::min(starts.size() - 1, first + pick(6));
      const std::string block = text.substr(starts[first], LineEnd(text, starts[last]) + 1 - starts[first]);
      const size_t at = starts[pick(starts.size())];
      replay.Edit(doc, at, at, block);
      return;
    }
    default: {  // a range replaced by another part of the text (an undo, a search and replace)
      if (size == 0) return;
      const size_t begin = pick(size);
      const size_t end = std::min(size, begin + pick(40));
      const size_t from = pick(size);
      const std::string with = text.substr(from, pick(40));
      replay.Edit(doc, begin, end, with);
      return;
    }
  }
}

// The rule fixtures (not their `.fixed.py` goldens, nor the project fixtures' trees) and the examples.
std::vector<fs::path> Scripts() {
  std::vector<fs::path> out;
  for (const char* folder : {"tests/rules", "examples"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(TL_SOURCE_DIR) / folder)) {
      const std::string name = entry.path().filename().string();
      if (!entry.is_regular_file() || !name.ends_with(".py") || name.ends_with(".fixed.py")) continue;
      if (entry.path().string().find(".project") != std::string::npos) continue;
      out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("edit replay: after every edit the incremental check is the fresh check, field by field") {
  const std::vector<fs::path> scripts = Scripts();
  REQUIRE(scripts.size() > 100);
  size_t edits = 0;
  size_t checks = 0;
  for (size_t i = 0; i < scripts.size(); ++i) {
    test::TempDir dir;
    Replay replay(dir);
    replay.Open("train.py", Read(scripts[i]));
    std::mt19937 rng(static_cast<uint32_t>(1000 + i));
    for (int e = 0; e < 16; ++e) RandomEdit(replay, 0, rng);
    edits += replay.edits();
    checks += replay.checks();
  }
  {
    test::TempDir dir;
    Replay replay(dir);
    replay.Open("train.py", TrainingScript(40));
    std::mt19937 rng(7);
    for (int e = 0; e < 150; ++e) RandomEdit(replay, 0, rng);
    edits += replay.edits();
    checks += replay.checks();
  }
  MESSAGE(fmt::format("{} scripts, {} edits replayed, {} checks compared", scripts.size() + 1, edits, checks));
  CHECK(edits > 5000);
}

TEST_CASE("edit replay: a broken text's diagnostics do not depend on the tree the last check kept") {
  // Found by the replay above: typing `.item()` after the broken `nit__(self, cfg):` line. Parsed from the
  // last tree, tree-sitter recovers with the error at `class` (byte 0); parsed alone, at `nit__` (byte
  // 30). The server parses a broken text afresh, so both checks report it where the fresh one does.
  test::TempDir dir;
  Replay replay(dir);
  replay.Open("train.py",
              "class GPTModel(nn.Module):\n"
              "   nit__(self, cfg):\n"
              "        self.head = nn.Linear(cfg[\"emb_dim\"], cfg[\"n_tags\"])\n"
              "    GPT_CONFIG = {\n"
              "import torch.nn as nn\n"
              "class TransformerBlock(nn.Module):\n"
              "    def __init__(self, cfg):\n"
              "        \"n_layers\": 12,\n"
              "    }");
  replay.Edit(0, 47, 47, ".item()");
  CHECK(replay.checks() == 2);
}

TEST_CASE("edit replay across documents: a helper's edits reach the script that imports it") {
  test::TempDir dir;
  dir.Write("pyproject.toml", "[project]\nname = \"replay\"\n");
  Replay replay(dir);
  replay.Open(
      "helpers.py",
      "import torch\n\n\ndef log_loss(loss, step):\n    print(loss.item())\n\n\ndef scale(x):\n    return x * 2\n");
  replay.Open("train.py", TrainingScript(4, true));
  std::mt19937 rng(11);
  for (int e = 0; e < 120; ++e) RandomEdit(replay, static_cast<size_t>(e % 2), rng);
  MESSAGE(fmt::format("{} edits replayed over two documents, {} checks compared", replay.edits(), replay.checks()));
}

}  // namespace
}  // namespace tl::lsp
