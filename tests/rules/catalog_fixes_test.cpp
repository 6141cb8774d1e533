// The catalog rules' fixes beyond what fixtures show: TL402's display-only suggestion (never applied by
// --fix, so no `.fixed.py` can hold it) wraps the forward pass and the loss, and nothing else, under
// autocast; TL302's message names `inference_mode` only where the target PyTorch has it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linter/core/fix.h"
#include "linter/core/source_file.h"
#include "linter/engine/check.h"

namespace tl {
namespace {

std::vector<Diagnostic> Check(const SourceFile& file, std::string code, TorchVersion torch = {}) {
  CheckOptions options;
  options.selection.select = {std::move(code)};
  options.rule_options.target_torch = torch;
  return CheckSource(file, options).diagnostics;
}

TEST_CASE("TL402's suggestion puts the forward pass and the loss under autocast, not the copies or backward") {
  const SourceFile file("train.py",
                        "import torch\n"
                        "def train(model, loader, optimizer, criterion):\n"
                        "    model.cuda()\n"
                        "    for x, y in loader:\n"
                        "        x, y = x.cuda(), y.cuda()\n"
                        "        out = model(x)\n"
                        "        loss = criterion(out, y)\n"
                        "        loss.backward()\n"
                        "        optimizer.step()\n");
  const std::vector<Diagnostic> found = Check(file, "TL402");
  REQUIRE(found.size() == 1);
  REQUIRE(found[0].fix);
  CHECK(found[0].fix->applicability == Applicability::kDisplayOnly);
  auto fixed = ApplyEdits(file.text(), found[0].fix->edits);
  REQUIRE(fixed.ok());
  CHECK(*fixed ==
        "import torch\n"
        "def train(model, loader, optimizer, criterion):\n"
        "    model.cuda()\n"
        "    for x, y in loader:\n"
        "        x, y = x.cuda(), y.cuda()\n"
        "        with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "            out = model(x)\n"
        "            loss = criterion(out, y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n");
}

TEST_CASE("TL302 suggests inference_mode from PyTorch 1.9 on, and only no_grad before") {
  const SourceFile file("eval.py",
                        "import torch\n"
                        "model = torch.nn.Linear(8, 2)\n"
                        "def evaluate(loader):\n"
                        "    for x, y in loader:\n"
                        "        model(x)\n");
  const std::vector<Diagnostic> old = Check(file, "TL302", TorchVersion{1, 8});
  REQUIRE(old.size() == 1);
  CHECK(old[0].message.find("inference_mode") == std::string::npos);
  CHECK(old[0].message.find("torch.no_grad()") != std::string::npos);
  const std::vector<Diagnostic> recent = Check(file, "TL302", TorchVersion{2, 1});
  REQUIRE(recent.size() == 1);
  CHECK(recent[0].message.find("torch.inference_mode()") != std::string::npos);
  REQUIRE(recent[0].fix);
  CHECK(recent[0].fix->applicability == Applicability::kUnsafe);
}

}  // namespace
}  // namespace tl
