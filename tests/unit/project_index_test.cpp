// The project index on its own: module names, relative and absolute resolution, re-exports, inherited
// methods, components, and the hostile shapes (import cycles, 10,000 files, a module that shadows a
// torch name, names that resolve nowhere).
#include <doctest/doctest.h>
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <string>

#include "linter/core/source_file.h"
#include "linter/semantic/model.h"
#include "linter/ts/ts.h"

namespace tl::semantic {
namespace {

// The summary of a snippet, as the project pass computes it, named `path` under the root.
FileSummary Summary(const std::string& path, std::string text) {
  SourceFile file(path, std::move(text));
  ts::Parser parser;
  auto tree = parser.Parse(file.text());
  REQUIRE(tree.ok());
  FileSummary summary = Model::Build(file, *tree)->Summarize(file);
  bool package = false;
  summary.module = ModuleName(path, &package);
  summary.is_package = package;
  return summary;
}

TEST_CASE("module names follow the path") {
  bool package = false;
  CHECK(ModuleName("util/misc.py", &package) == "util.misc");
  CHECK_FALSE(package);
  CHECK(ModuleName("./pkg/__init__.py", &package) == "pkg");
  CHECK(package);
  CHECK(ModuleName("my-scripts/train.py", nullptr).empty());  // not importable
  CHECK(ModuleName("README.md", nullptr).empty());
}

TEST_CASE("relative imports, re-exports and inherited methods resolve") {
  ProjectIndex index;
  index.Add(Summary("pkg/__init__.py", "from .base import Base\n"));
  index.Add(Summary("pkg/base.py",
                    "import torch\nclass Base:\n    def log(self, x):\n        print(x.item())\n"
                    "    def quiet(self, x):\n        return x\n"
                    "    def guard(self, x):\n        if torch.isnan(x).any():\n            return 0\n"));
  index.Add(Summary("pkg/sub/train.py",
                    "from .. import Base\nfrom ..base import Base as B2\nclass T(Base):\n    pass\n"
                    "class Quiet(Base):\n    def log(self, x):\n        print(x)\n"));
  index.Finish();
  const FileSummary* train = index.Find("pkg.sub.train");
  REQUIRE(train != nullptr);
  const auto log = index.ResolveMethod(*train, "..Base", "log");
  REQUIRE(log.has_value());
  CHECK(log->function->qualname == "Base.log");
  CHECK(log->function->sync.syncs);
  CHECK(log->function->sync.on_params);
  CHECK(log->function->sync.line == 4);
  const auto quiet = index.ResolveMethod(*train, "..base.Base", "quiet");
  REQUIRE(quiet.has_value());
  CHECK(quiet->qualname == "Base.quiet");
  CHECK_FALSE(quiet->function->sync.syncs);
  // A method with nothing to tell other files is kept by name only, and still shadows its base's.
  const FileSummary* base = index.Find("pkg.base");
  REQUIRE(base != nullptr);
  CHECK(base->plain_functions == std::vector<std::string>{"Base.quiet"});
  CHECK(base->functions.size() == 2);
  const auto shadowed = index.ResolveMethod(*train, "pkg.sub.train.Quiet", "log");
  REQUIRE(shadowed.has_value());
  CHECK(shadowed->qualname == "Quiet.log");
  CHECK_FALSE(shadowed->function->sync.syncs);
  CHECK_FALSE(quiet->function->implicit.syncs);
  CHECK_FALSE(log->function->implicit.syncs);
  // A branch on a device tensor is an implicit sync, summarised apart from the explicit ones.
  const auto guard = index.ResolveMethod(*train, "..Base", "guard");
  REQUIRE(guard.has_value());
  CHECK_FALSE(guard->function->sync.syncs);
  CHECK(guard->function->implicit.syncs);
  CHECK(guard->function->implicit.line == 8);
  // The subclass of the same file, through its base.
  CHECK(index.ResolveMethod(*train, "pkg.sub.train.T", "log").has_value());
  CHECK_FALSE(index.ResolveMethod(*train, "..Base", "missing").has_value());
  CHECK_FALSE(index.ResolveFunction(*train, "...too.far.up").has_value());
}

TEST_CASE("components carry the device; cycles end") {
  ProjectIndex index;
  index.Add(Summary("a.py", "import b\nimport torch\nx = torch.zeros(1).cuda()\n"));
  index.Add(Summary("b.py", "import a\nimport c\n"));
  index.Add(Summary("c.py", "from b import *\n"));
  index.Add(Summary("lonely.py", "import os\n"));
  index.Finish();
  CHECK_FALSE(index.InheritedCuda(*index.Find("a")).has_value());  // its own
  CHECK(index.InheritedCuda(*index.Find("b")) == std::optional<std::string>("a.py:3"));
  CHECK(index.InheritedCuda(*index.Find("c")).has_value());
  CHECK_FALSE(index.InheritedCuda(*index.Find("lonely")).has_value());
}

TEST_CASE("calls from other files reach a function's parameters, with what each argument is") {
  ProjectIndex index;
  index.Add(Summary("main.py",
                    "import argparse\nfrom torch.utils.data import DataLoader\nimport train\nfrom pkg import Data\n"
                    "parser = argparse.ArgumentParser()\nparser.add_argument('--log-interval', type=int, default=1)\n"
                    "args = parser.parse_args()\nargs.workers = 8\n"
                    "loader = DataLoader(ds, pin_memory=False)\n"
                    "train.train(loader, args)\ntrain.train(loader, cfg=load())\nData(opt=args)\n"));
  index.Add(Summary("train.py", "def train(loader, args):\n    for x in loader:\n        x.cuda()\n"));
  index.Add(Summary("pkg/__init__.py", "from .data import Data\n"));
  index.Add(Summary("pkg/data.py", "class Data:\n    def __init__(self, opt):\n        self.opt = opt\n"));
  index.Finish();
  const FileSummary* main = index.Find("main");
  REQUIRE(main != nullptr);
  auto field = [&](std::string_view name) {
    const auto it = std::find_if(main->fields.begin(), main->fields.end(),
                                 [&](const FieldSummary& f) { return f.name == name; });
    return it == main->fields.end() ? std::optional<int64_t>() : std::optional<int64_t>(it->int_value);
  };
  CHECK(field("log_interval") == std::optional<int64_t>(1));
  CHECK(field("workers") == std::optional<int64_t>(8));
  const auto calls = index.CallsOf(*index.Find("train"), "train");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].caller == main);
  REQUIRE(calls[0].call->arguments.size() == 2);
  CHECK(calls[0].call->arguments[0].facts == kArgUnpinnedLoader);
  CHECK(calls[0].call->arguments[1].position == 1);
  CHECK(calls[0].call->arguments[1].facts == kArgConfig);
  CHECK(calls[1].call->arguments[1].keyword == "cfg");
  CHECK(calls[1].call->arguments[1].facts == 0);
  // A construction through a package's re-export reaches the class's __init__.
  const auto constructions = index.CallsOf(*index.Find("pkg.data"), "Data.__init__");
  REQUIRE(constructions.size() == 1);
  CHECK(constructions[0].call->arguments[0].keyword == "opt");
  CHECK(index.Called(*index.Find("pkg.data")));
  CHECK_FALSE(index.Called(*main));
  CHECK(index.CallsOf(*index.Find("train"), "missing").empty());
}

TEST_CASE("syncs and return placements follow calls through other files; cycles end") {
  ProjectIndex index;
  index.Add(Summary("util.py",
                    "import torch\ndef to_cpu(t):\n    return t.detach().cpu()\n"
                    "def keep(t):\n    return t.detach()\n"
                    "def finite(t):\n    if torch.isnan(t).any():\n        return 0\n"
                    "def release():\n    torch.cuda.empty_cache()\n"
                    "def sometimes(step):\n    if step % 100 == 0:\n        torch.cuda.empty_cache()\n"));
  index.Add(Summary("loss.py",
                    "import torch\nimport util\nfrom util import to_cpu, keep\n"
                    "def parts(x):\n    return x.mean(), to_cpu(torch.stack([x, x]))\n"
                    "def kept(x):\n    return keep(x)\n"
                    "def _copy(x):\n    return to_cpu(x)\n"
                    "def outer(x):\n    return _copy(x)\n"
                    "def host_in(x):\n    to_cpu(torch.zeros(2))\n"
                    "def maybe(x, verbose):\n    if verbose:\n        to_cpu(x)\n"
                    "def checked(x):\n    util.finite(x)\n"
                    "def cleaned(x):\n    util.release()\n    return x\n"
                    "def throttled(x, step):\n    util.sometimes(step)\n"));
  index.Add(Summary("train.py", "import torch\nimport loss\ndef step(x):\n    return loss.outer(x)\n"));
  // An import cycle whose functions call each other and never sync.
  index.Add(Summary("a.py", "import torch\nimport b\ndef f(x):\n    return b.g(x)\n"));
  index.Add(Summary("b.py", "import torch\nimport a\ndef g(x):\n    return a.f(x)\n"));
  index.Finish();
  const FileSummary* train = index.Find("train");
  REQUIRE(train != nullptr);
  auto sync_of = [&](std::string_view dotted) -> std::optional<ProjectIndex::Sync> {
    const auto function = index.ResolveFunction(*train, dotted);
    REQUIRE(function.has_value());
    return index.SyncOf(*function, SyncFamily::kExplicit);
  };
  auto placement = [&](std::string_view dotted, int position) {
    const auto function = index.ResolveFunction(*train, dotted);
    REQUIRE(function.has_value());
    return static_cast<Placement>(index.ReturnPlacement(*function, position));
  };
  // `parts` copies a tensor it makes (of its parameter): the copy is in util.py.
  const auto parts = sync_of("loss.parts");
  REQUIRE(parts.has_value());
  CHECK_FALSE(parts->on_params);
  CHECK(parts->file->path == "util.py");
  CHECK(parts->function->qualname == "to_cpu");
  CHECK(parts->sync->line == 3);
  // Two files and a function of loss.py deep.
  const auto step = sync_of("train.step");
  REQUIRE(step.has_value());
  CHECK(step->function->qualname == "to_cpu");
  CHECK(step->on_params);  // what it copies is its parameter: a tensor argument makes a call sync
  CHECK(sync_of("loss.outer").has_value());
  // A host tensor passed in, a call behind a parameter's guard, a function that keeps the device.
  CHECK_FALSE(sync_of("loss.host_in").has_value());
  CHECK_FALSE(sync_of("loss.maybe").has_value());
  CHECK_FALSE(sync_of("loss.kept").has_value());
  CHECK_FALSE(sync_of("a.f").has_value());
  CHECK_FALSE(sync_of("b.g").has_value());
  // Implicit syncs are followed apart from the explicit ones.
  const auto checked = index.ResolveFunction(*train, "loss.checked");
  REQUIRE(checked.has_value());
  CHECK_FALSE(index.SyncOf(*checked, SyncFamily::kExplicit).has_value());
  const auto implicit = index.SyncOf(*checked, SyncFamily::kImplicit);
  REQUIRE(implicit.has_value());
  CHECK(implicit->function->qualname == "finite");
  CHECK(implicit->file->path == "util.py");
  CHECK_FALSE(index.SyncOf(*index.ResolveFunction(*train, "loss.outer"), SyncFamily::kImplicit).has_value());
  // `torch.cuda.empty_cache()` on every call is a family of its own (TL103), followed the same way; a
  // periodic one is not on every call, and neither family of syncs counts as one.
  const auto cleaned = index.ResolveFunction(*train, "loss.cleaned");
  REQUIRE(cleaned.has_value());
  const auto emptied = index.SyncOf(*cleaned, SyncFamily::kEmptyCache);
  REQUIRE(emptied.has_value());
  CHECK(emptied->function->qualname == "release");
  CHECK(emptied->sync->line == 10);
  CHECK_FALSE(index.SyncOf(*cleaned, SyncFamily::kExplicit).has_value());
  CHECK_FALSE(index.SyncOf(*index.ResolveFunction(*train, "loss.throttled"), SyncFamily::kEmptyCache).has_value());
  CHECK_FALSE(index.SyncOf(*index.ResolveFunction(*train, "loss.outer"), SyncFamily::kEmptyCache).has_value());
  // Return placements: per element of a tuple, through other files and the file's own functions.
  CHECK(placement("loss.parts", 1) == Placement::kHost);
  CHECK(placement("loss.parts", 0) == Placement::kUnknown);
  CHECK(placement("loss.parts", -1) == Placement::kUnknown);  // a tuple as a whole
  CHECK(placement("loss.parts", 7) == Placement::kUnknown);
  CHECK(placement("loss.outer", -1) == Placement::kHost);
  CHECK(placement("train.step", 0) == Placement::kHost);  // an element of a host tensor
  CHECK(placement("loss.kept", -1) == Placement::kUnknown);
  CHECK(placement("a.f", -1) == Placement::kUnknown);
}

TEST_CASE("calls from other files carry the attributes of their results that repeat") {
  ProjectIndex index;
  index.Add(Summary("train.py",
                    "import torch\nfrom data import Cifar\nimport data\n"
                    "def epoch(loader):\n    for x in loader:\n        pass\n"
                    "ds = Cifar(64)\nother = data.Cifar(32)\nother.valid = []\n"
                    "for x in ds.calibration:\n    pass\n"
                    "for e in range(3):\n    for i, x in enumerate(ds.train):\n        pass\n"
                    "    epoch(ds.test)\n    for x in other.valid:\n        pass\n"
                    "    fresh = Cifar(8)\n    for x in fresh.train:\n        pass\n"));
  index.Add(Summary("data.py", "class Cifar:\n    def __init__(self, n):\n        pass\n"));
  index.Finish();
  const FileSummary* data = index.Find("data");
  REQUIRE(data != nullptr);
  const auto built = index.CallsOf(*data, "Cifar.__init__");
  REQUIRE(built.size() == 3);
  // `ds`: `train` looped over each epoch and `test` handed to a call each epoch; `calibration` once.
  CHECK(built[0].call->reiterated_attributes == std::vector<std::string>{"test", "train"});
  // `other.valid` is written by the file itself; `fresh` is built again each epoch.
  CHECK(built[1].call->reiterated_attributes.empty());
  CHECK(built[2].call->reiterated_attributes.empty());
}

TEST_CASE("calls from other files carry their constants and which parts of their results repeat") {
  ProjectIndex index;
  index.Add(Summary("train.py",
                    "from functools import partial\nimport torch\nimport data\n"
                    "def epoch(loader):\n    for x in loader:\n        pass\n"
                    "train, val = data.make(ds, 4)\nonce = data.single(ds, num_workers=2, flag=True)\n"
                    "for e in range(3):\n    epoch(train)\n    fresh = data.single(ds)\n    for x in fresh:\n"
                    "        pass\n"
                    "for x in val:\n    pass\nfor x in once:\n    pass\n"
                    "it = partial(data.Task.batches, num_workers=0, size=8)\nfor x in it(size=16):\n    pass\n"));
  index.Add(Summary("data.py",
                    "def make(ds, workers):\n    pass\ndef single(ds, num_workers=1, flag=False):\n"
                    "    pass\nclass Task:\n    @staticmethod\n    def batches(num_workers, size):\n"
                    "        pass\n"));
  index.Finish();
  const FileSummary* data = index.Find("data");
  REQUIRE(data != nullptr);
  const auto make = index.CallsOf(*data, "make");
  REQUIRE(make.size() == 1);
  // `train, val = data.make(...)`: element 0 goes to a call in the epoch loop, element 1 is looped over once.
  CHECK(make[0].call->reiterated_results == 0b10u);
  REQUIRE(make[0].call->arguments.size() == 2);
  CHECK(make[0].call->arguments[1].value_kind == static_cast<uint8_t>(ValueKind::kInt));
  CHECK(make[0].call->arguments[1].int_value == 4);
  CHECK(make[0].call->arguments[0].value_kind == 0);  // `ds`: not a constant
  const auto single = index.CallsOf(*data, "single");
  REQUIRE(single.size() == 2);
  CHECK(single[0].call->reiterated_results == 0);  // iterated once
  CHECK(single[0].call->arguments[2].value_kind == static_cast<uint8_t>(ValueKind::kBool));
  CHECK(single[1].call->reiterated_results == 0);  // called again each epoch: a new result each time
  // A partial is a call of its function with the keywords the calls of the partial do not pass again.
  const auto batches = index.CallsOf(*data, "Task.batches");
  REQUIRE(batches.size() == 1);
  CHECK(batches[0].call->splat);
  REQUIRE(batches[0].call->arguments.size() == 1);
  CHECK(batches[0].call->arguments[0].keyword == "num_workers");
  CHECK(batches[0].call->arguments[0].int_value == 0);
}

TEST_CASE("a project module named like torch does not capture torch's names") {
  ProjectIndex index;
  index.Add(Summary("torch.py", "def item(x):\n    return x.item()\n"));
  index.Add(Summary("train.py", "import torch\n"));
  index.Finish();
  const FileSummary* train = index.Find("train");
  REQUIRE(train != nullptr);
  // The index resolves what it is asked; the model never asks it about torch's names (summary.cpp
  // treats canonical names of torch, numpy and the frameworks as third-party). Checked end to end:
  SourceFile file("train.py",
                  "import torch\nm = torch.nn.Linear(2, 2).cuda()\nfor x in loader:\n"
                  "    loss = m(x).sum()\n    loss.backward()\n    opt.step()\n    torch.item(loss)\n");
  ts::Parser parser;
  auto tree = parser.Parse(file.text());
  REQUIRE(tree.ok());
  auto model = Model::Build(file, *tree);
  model->AttachProject(&index, "train");
  bool remote = false;
  for (const Site& site : model->Sites()) remote = remote || model->CrossFileSync(site).has_value();
  CHECK_FALSE(remote);
}

TEST_CASE("a loop whose backward runs in another file's loss scaler is a training loop once the index is attached") {
  ProjectIndex index;
  index.Add(Summary("util/scaler.py",
                    "import torch\n"
                    "class NativeScaler:\n"
                    "    def __init__(self):\n"
                    "        self._scaler = torch.cuda.amp.GradScaler()\n"
                    "    def __call__(self, loss, optimizer):\n"
                    "        self._scaler.scale(loss).backward()\n"
                    "        self._scaler.step(optimizer)\n"
                    "class Logger:\n"
                    "    def __call__(self, value):\n"
                    "        return value\n"));
  const std::string engine =
      "import torch\n"
      "from util.scaler import Logger, NativeScaler\n"
      "def train_one_epoch(model, loader, optimizer):\n"
      "    scaler = NativeScaler()\n"
      "    for x, y in loader:\n"
      "        loss = model(x.cuda()).sum()\n"
      "        scaler(loss, optimizer)\n"
      "def evaluate(model, loader):\n"
      "    log = Logger()\n"
      "    for x, y in loader:\n"
      "        loss = model(x.cuda()).sum()\n"
      "        log(loss)\n";
  index.Add(Summary("engine.py", engine));
  index.Finish();
  SourceFile file("engine.py", engine);
  ts::Parser parser;
  auto tree = parser.Parse(file.text());
  REQUIRE(tree.ok());
  auto model = Model::Build(file, *tree);
  REQUIRE(model->StepLoops().size() == 2);
  // Alone, neither loop shows a backward pass: both take batches.
  for (const int loop : model->StepLoops())
    CHECK(model->Loops()[static_cast<size_t>(loop)].cadence == Cadence::kEvaluationBatch);
  CHECK(model->Training().node.IsNull());
  CHECK_FALSE(model->HasFact(kFactTrains));
  model->AttachProject(&index, "engine");
  const std::vector<int> loops = model->StepLoops();
  REQUIRE(loops.size() == 2);
  CHECK(model->Loops()[static_cast<size_t>(loops[0])].cadence == Cadence::kTrainingStep);
  // The file trains, and that loop is its training site (TL402-TL406 and TL502 report there).
  CHECK(model->Training().loop == loops[0]);
  CHECK(model->HasFact(kFactTrains));
  CHECK(model->Loops()[static_cast<size_t>(loops[1])].cadence == Cadence::kEvaluationBatch);
  // What runs in the training loop takes its cadence.
  for (const Site& site : model->Sites()) {
    if (site.kind == SiteKind::kCall && site.name == "scaler") CHECK(site.cadence == Cadence::kTrainingStep);
    if (site.kind == SiteKind::kCall && site.name == "log") CHECK(site.cadence == Cadence::kEvaluationBatch);
  }
}

TEST_CASE("the class of a value another file builds, through factories and tuples") {
  ProjectIndex index;
  index.Add(Summary("models/detr.py",
                    "import torch\nfrom torch import nn\n\n"
                    "class Base(nn.Module):\n    pass\n\n"
                    "class SetCriterion(Base):\n    def forward(self, outputs, targets):\n"
                    "        return outputs.sum().item()\n\n"
                    "class Plain:\n    def forward(self, x):\n        return x.item()\n\n"
                    "def build(args):\n    model = nn.Linear(2, 2)\n    criterion = SetCriterion()\n"
                    "    criterion.to(args.device)\n    return model, criterion, {}\n"));
  index.Add(
      Summary("models/__init__.py", "from .detr import build\n\n\ndef build_model(args):\n    return build(args)\n"));
  index.Add(Summary("util/misc.py",
                    "class Scaler:\n    def __call__(self, loss, optimizer, clip=None, update_grad=True):\n"
                    "        self._scaler.scale(loss).backward()\n        if update_grad:\n"
                    "            self._scaler.step(optimizer)\n\n"
                    "class Always:\n    def __call__(self, loss, optimizer):\n        loss.backward()\n"
                    "        optimizer.step()\n"));
  index.Add(Summary("main.py",
                    "from models import build_model\nfrom util.misc import Scaler\nimport engine\n\n"
                    "model, criterion, post = build_model(args)\nscaler = Scaler()\n"
                    "engine.train(model, criterion, scaler=scaler)\n"));
  index.Finish();
  const FileSummary* detr = index.Find("models.detr");
  REQUIRE(detr != nullptr);
  const auto build = std::find_if(detr->functions.begin(), detr->functions.end(),
                                  [](const FunctionSummary& f) { return f.qualname == "build"; });
  REQUIRE(build != detr->functions.end());
  REQUIRE(build->returned_elements.size() == 3);
  CHECK(build->returned_elements[1] == ValueSource{"SetCriterion", -1});
  CHECK_FALSE(build->returned_elements[0].known());  // torch's class: not the project's
  const FileSummary* main = index.Find("main");
  REQUIRE(main != nullptr);
  REQUIRE(main->calls.size() >= 1);
  const OutgoingCall& train = main->calls.back();
  REQUIRE(train.arguments.size() == 3);
  CHECK(train.arguments[1].source == ValueSource{"models.build_model", 1});
  const auto criterion = index.ResolveClass(*main, train.arguments[1].source);
  REQUIRE(criterion.has_value());
  CHECK(criterion->file == detr);
  CHECK(criterion->name == "SetCriterion");
  // An nn.Module (through a base of the project) runs `forward` when called; a plain class has no call.
  const auto forward = index.CallOperator(*criterion);
  REQUIRE(forward.has_value());
  CHECK(forward->function->qualname == "SetCriterion.forward");
  CHECK(forward->function->sync.syncs);
  CHECK_FALSE(index.CallOperator({detr, "Plain"}).has_value());
  CHECK_FALSE(index.ResolveClass(*main, train.arguments[0].source).has_value());
  CHECK_FALSE(index.ResolveClass(*main, {"models.build_model", 2}).has_value());
  // The scaler: backward on every call, the optimizer step under its `update_grad` parameter.
  const auto scaler = index.ResolveClass(*main, train.arguments[2].source);
  REQUIRE(scaler.has_value());
  const auto call = index.CallOperator(*scaler);
  REQUIRE(call.has_value());
  CHECK(call->function->step.backward_line == 3);
  CHECK(call->function->step.backward_column == 9);
  CHECK(call->function->step.guard == "update_grad");
  CHECK(call->function->step.guard_position == 3);
  const auto always = index.MethodOf({scaler->file, "Always"}, "__call__");
  REQUIRE(always.has_value());
  CHECK(always->function->step.guard.empty());
}

TEST_CASE("a model's method is the project's one torch.nn class's, by name, and nothing else") {
  ProjectIndex index;
  index.Add(Summary("detector.py",
                    "import torch\nclass Detector(torch.nn.Module):\n"
                    "    def detect_boxes(self, x):\n        s = torch.sigmoid(x)\n        return s[s > 0]\n"
                    "    def decode(self, x):\n        return x\n"
                    "    def train(self, mode=True):\n        return self\n"
                    "class Child(Detector):\n    pass\n"
                    "class Plain:\n    def render(self, x):\n        return x\n"));
  index.Add(
      Summary("other.py", "import torch\nclass Other(torch.nn.Module):\n    def decode(self, x):\n        return x\n"));
  index.Finish();
  const auto detect = index.ModuleMethod("detect_boxes");
  REQUIRE(detect.has_value());
  CHECK(detect->qualname == "Detector.detect_boxes");
  CHECK(detect->function->implicit.syncs);
  CHECK_FALSE(index.ModuleMethod("decode").has_value());  // two classes define it
  CHECK_FALSE(index.ModuleMethod("train").has_value());   // torch.nn.Module's own
  CHECK_FALSE(index.ModuleMethod("render").has_value());  // not a torch.nn class
  CHECK_FALSE(index.ModuleMethod("__init__").has_value());
  CHECK_FALSE(index.ModuleMethod("missing").has_value());
}

TEST_CASE("a step loop's calls into other files make entries of the functions that sync implicitly") {
  ProjectIndex index;
  index.Add(Summary("losses.py",
                    "import torch\nclass BoxLoss(torch.nn.Module):\n"
                    "    def forward(self, p, y):\n        s = torch.softmax(p, -1)\n        return s[s > 0.5].sum()\n"
                    "def quiet(p):\n    return p * 2\n"));
  index.Add(Summary("train.py",
                    "import torch\nfrom losses import BoxLoss, quiet\ndevice = torch.device('cuda')\n"
                    "model = torch.nn.Linear(2, 2).to(device)\ncriterion = BoxLoss()\n"
                    "def train(loader):\n    for x, y in loader:\n        out = model(x.to(device))\n"
                    "        loss = criterion(out, y.to(device))\n        q = quiet(out)\n        loss.backward()\n"));
  index.Add(Summary("unused.py",
                    "import torch\nfrom losses import BoxLoss\ncriterion = BoxLoss()\n"
                    "def once(x):\n    return criterion(x, x)\n"));
  index.Finish();
  const FileSummary* losses = index.Find("losses");
  REQUIRE(losses != nullptr);
  const auto entries = index.StepEntries(*losses);
  REQUIRE(entries.size() == 1);  // `quiet` does not sync; `once` is no step loop
  CHECK(entries[0].qualname == "BoxLoss.forward");
  CHECK(entries[0].caller->module == "train");
  CHECK(entries[0].line == 9);
  CHECK(entries[0].cuda);
  CHECK(static_cast<Cadence>(entries[0].cadence) == Cadence::kTrainingStep);
  CHECK(index.StepEntries(*index.Find("train")).empty());
}

TEST_CASE("a summary says which parameters a function calls on every call") {
  const FileSummary summary = Summary("timing.py",
                                      "import torch\ndef timed(closure, log=True):\n    result = closure()\n"
                                      "    return result\n"
                                      "def maybe(fn, enabled):\n    if enabled:\n        return fn()\n"
                                      "def store(callbacks, fn):\n    callbacks.append(fn)\n"
                                      "class Runner:\n    def run(self, setup, step):\n        return step()\n");
  const auto called = [&](std::string_view qualname) -> int64_t {
    for (const FunctionSummary& f : summary.functions) {
      if (f.qualname == qualname) return f.called_parameters;
    }
    return -1;  // a plain function: nothing called
  };
  CHECK(called("timed") == 1);
  CHECK(called("maybe") == -1);      // under a parameter
  CHECK(called("store") == -1);      // stored, not called
  CHECK(called("Runner.run") == 2);  // `step`, the second after `self`
}

TEST_CASE("10,000 modules index and resolve") {
  ProjectIndex index;
  const FileSummary helper = Summary("helpers.py", "def sync(x):\n    return x.item()\n");
  for (int i = 0; i < 10000; ++i) {
    FileSummary s = helper;
    s.path = fmt::format("m{}/helpers.py", i);
    s.module = fmt::format("m{}.helpers", i);
    // Each imports the next: one long chain (a component of 10,000 files).
    s.imports.push_back({"nxt", fmt::format("m{}.helpers", (i + 1) % 10000)});
    index.Add(std::move(s));
  }
  index.Finish();
  CHECK(index.size() == 10000);
  const FileSummary* first = index.Find("m0.helpers");
  REQUIRE(first != nullptr);
  const auto found = index.ResolveFunction(*first, "m9999.helpers.sync");
  REQUIRE(found.has_value());
  CHECK(found->file->module == "m9999.helpers");
  // A re-export chain longer than the hop limit answers "unknown", not a hang.
  CHECK_FALSE(index.ResolveFunction(*first, "m0.helpers.nxt.nxt.nxt.nxt.nxt.nxt.nxt.nxt.nxt.nxt.sync").has_value());
}

TEST_CASE("the summary cache answers for the same path and bytes only, and stays bounded") {
  SummaryCache cache(2);
  FileSummary a = Summary("a.py", "def f(x):\n    return x.item()\n");
  CHECK(a.content_hash == ContentHash("def f(x):\n    return x.item()\n"));
  cache.Put(a);
  REQUIRE(cache.Find("a.py", a.content_hash).has_value());
  CHECK(cache.Find("a.py", a.content_hash)->functions.size() == 1);
  CHECK_FALSE(cache.Find("a.py", ContentHash("def f(x):\n    return x\n")).has_value());
  CHECK_FALSE(cache.Find("b.py", a.content_hash).has_value());
  CHECK(cache.hits() == 2);
  // A new version of a file replaces the old one; a third file over the capacity starts it again.
  FileSummary a2 = Summary("a.py", "x = 1\n");
  cache.Put(a2);
  CHECK(cache.size() == 1);
  CHECK_FALSE(cache.Find("a.py", a.content_hash).has_value());
  cache.Put(Summary("b.py", "y = 2\n"));
  CHECK(cache.size() == 2);
  cache.Put(Summary("c.py", "z = 3\n"));
  CHECK(cache.size() == 1);
  CHECK(cache.Find("c.py", ContentHash("z = 3\n")).has_value());
}

TEST_CASE("a summary made without its hash is the same summary, with no hash") {
  // The command line's project pass keeps no cache and asks for no hash (CheckOptions::hash_summary).
  SourceFile file("a.py", "import torch\n\ndef f(x):\n    return x.item()\n");
  ts::Parser parser;
  auto tree = parser.Parse(file.text());
  REQUIRE(tree.ok());
  const auto model = Model::Build(file, *tree);
  const FileSummary hashed = model->Summarize(file);
  const FileSummary bare = model->Summarize(file, /*hash=*/false);
  CHECK(hashed.content_hash == ContentHash(file.text()));
  CHECK(bare.content_hash == 0);
  CHECK(SameForProject(bare, hashed));  // all but the hash
  CHECK(bare.functions.size() == 1);
}

}  // namespace
}  // namespace tl::semantic
