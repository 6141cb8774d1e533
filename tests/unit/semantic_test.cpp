// Unit tests of the semantic model: imports and canonical names, loop roles, guards, constants,
// argparse defaults, **kwargs dicts, device facts, per-step propagation through helpers, phases,
// and that nothing recurses on deeply nested input. (That the tree the model reads answers as
// tree-sitter does is tested in ts_test.cpp.)
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "linter/core/source_file.h"
#include "linter/semantic/model.h"
#include "linter/semantic/syntax.h"
#include "linter/ts/ts.h"

namespace tl::semantic {
namespace {

struct Parsed {
  SourceFile file;
  ts::Tree tree;
  std::unique_ptr<Model> model;
};

std::unique_ptr<Parsed> Build(std::string text) {
  SourceFile file("t.py", std::move(text));
  ts::Parser parser;
  auto tree = parser.Parse(file.text());
  REQUIRE(tree.ok());
  // NOLINTNEXTLINE(modernize-make-unique): an aggregate; make_unique cannot brace-initialise it
  auto parsed = std::unique_ptr<Parsed>(new Parsed{std::move(file), std::move(tree).value(), nullptr});
  parsed->model = Model::Build(parsed->file, parsed->tree);
  return parsed;
}

// The first call site whose source text starts with `prefix`.
const Site* CallStartingWith(const Model& model, std::string_view prefix) {
  for (const Site& site : model.Sites()) {
    if (site.kind == SiteKind::kCall && model.Text(site.node).starts_with(prefix)) return &site;
  }
  return nullptr;
}

const Loop* LoopStartingWith(const Model& model, std::string_view prefix) {
  for (const Loop& loop : model.Loops()) {
    if (model.Text(loop.node).starts_with(prefix)) return &loop;
  }
  return nullptr;
}

TEST_CASE("a NameSet answers as a search of its names does") {
  static constexpr std::array<std::string_view, 6> kNames = {"item",
                                                             "cpu",
                                                             "numpy",
                                                             "",
                                                             "synchronize",
                                                             "a_name_longer_than_sixty_three_bytes_which_"
                                                             "shares_the_last_length_bit_with_others"};
  static constexpr NameSet<6> kSet(kNames);
  const std::vector<std::string_view> probes = {
      "item", "cpu", "numpy", "", "synchronize", kNames[5],
      // Look-alikes: the same length or the same first byte as a member, a prefix, a longer name, and
      // another name over 63 bytes.
      "itex", "iter", "cpus", "cp", "nump", "numpyy", "Item", "synchronise", "xyz", "a",
      "a_name_longer_than_sixty_three_bytes_which_shares_the_last_length_bit_with_other_words"};
  for (const std::string_view probe : probes) {
    CAPTURE(probe);
    CHECK(kSet.Contains(probe) == OneOf(probe, kNames));
    CHECK(OneOf(probe, kSet) == OneOf(probe, kNames));
  }
  CHECK(kSet.Contains("numpy"));
  CHECK_FALSE(kSet.Contains("nump"));
}

TEST_CASE("StringContent reads a plain string's text between its quotes; f-strings and bytes have none") {
  // Each case is `x = LITERAL`, and the content expected of LITERAL, or "<none>".
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"('cuda')", "cuda"},
      {R"("cuda:0")", "cuda:0"},
      {R"('')", ""},
      {R"("")", ""},
      {R"("""""")", ""},
      {"'''doc\nmore'''", "doc\nmore"},
      {R"("""a "quoted" word""")", R"(a "quoted" word)"},
      {R"(r'\d+')", R"(\d+)"},
      {R"(u"x")", "x"},
      {R"(R'''x''')", "x"},
      {R"('it\'s')", R"(it\'s)"},  // escapes as written
      {R"('\n')", R"(\n)"},
      {R"(f'cuda')", "<none>"},
      {R"(f'{x}')", "<none>"},
      {R"(rb'x')", "<none>"},
      {R"(b'x')", "<none>"},
      {R"('a' 'b')", "<none>"},  // implicit concatenation: not a string node
  };
  for (const auto& one : cases) {
    const std::string& literal = one.first;
    const std::string& expected = one.second;
    CAPTURE(literal);
    const auto parsed = Build("x = " + literal + "\n");
    const ts::Node value = Field(parsed->tree.Root().NamedChild(0).NamedChild(0), FieldName::kRight);
    REQUIRE(value);
    const auto content = StringContent(value, parsed->file.text());
    CHECK((content ? std::string(*content) : std::string("<none>")) == expected);
  }
  // An unterminated literal is no string node in this grammar (an ERROR holding its string_start).
  const auto broken = Build("x = '''never closed\n");
  bool any = false;
  ts::Walk(broken->tree.Root(), [&](ts::Node node) {
    any = any || KindOf(node) == NodeKind::kString;
    return true;
  });
  CHECK_FALSE(any);
}

TEST_CASE("imports resolve to canonical names") {
  auto p = Build(
      "import torch\n"
      "import torch.nn as nn\n"
      "import torch.utils.data as tud\n"
      "from torch.utils.data import DataLoader as DL\n"
      "from torch import nn as tnn, optim\n"
      "a = tud.DataLoader(x)\n"
      "b = DL(x)\n"
      "c = nn.Linear(1, 2)\n"
      "d = optim.SGD(p)\n"
      "e = torch.utils.data.DataLoader(x)\n"
      "f = tnn.Conv2d(1, 2, 3)\n"
      "g = unknown.DataLoader(x)\n");
  const Model& m = *p->model;
  CHECK(m.CanonicalName(CallStartingWith(m, "tud.")->callee) == "torch.utils.data.DataLoader");
  const Site* dl = CallStartingWith(m, "DL(");
  CHECK(dl->name == "DataLoader");
  CHECK(m.IsCanonical(*dl, "torch.utils.data.DataLoader"));
  CHECK(m.CanonicalName(CallStartingWith(m, "nn.Linear")->callee) == "torch.nn.Linear");
  CHECK(m.CanonicalName(CallStartingWith(m, "optim.SGD")->callee) == "torch.optim.SGD");
  CHECK(m.CanonicalName(CallStartingWith(m, "torch.utils")->callee) == "torch.utils.data.DataLoader");
  CHECK(m.CanonicalName(CallStartingWith(m, "tnn.Conv2d")->callee) == "torch.nn.Conv2d");
  CHECK(m.CanonicalName(CallStartingWith(m, "unknown.")->callee).empty());
  CHECK(m.CallsNamed("DataLoader").size() == 4);
}

TEST_CASE("CallsNamed gives the calls of a name and no other, in site order") {
  // `step_fx` has the length and the first six bytes of `step_fn` (the key CallsNamed scans); the
  // f-string and the condition are sites that are no calls.
  auto p = Build(
      "def step_fn(x):\n"
      "    return x\n"
      "a = step_fn(1)\n"
      "b = step_fx(2)\n"
      "c = obj.step_fn(3)\n"
      "d = f'{step_fn}'\n"
      "e = step(4) if step_fn else 0\n"
      "g = step_fn(5)\n");
  const Model& m = *p->model;
  const std::vector<uint32_t> calls = m.CallsNamed("step_fn");
  REQUIRE(calls.size() == 3);
  CHECK(std::is_sorted(calls.begin(), calls.end()));
  CHECK(m.Text(m.Sites()[calls[0]].node) == "step_fn(1)");
  CHECK(m.Text(m.Sites()[calls[1]].node) == "obj.step_fn(3)");
  CHECK(m.Text(m.Sites()[calls[2]].node) == "step_fn(5)");
  CHECK(m.CallsNamed("step_fx").size() == 1);
  CHECK(m.CallsNamed("step").size() == 1);
  CHECK(m.CallsNamed("step_f").empty());
  CHECK(m.CallsNamed("step_fnn").empty());
  CHECK(m.CallsNamed("").empty());
}

TEST_CASE("step, epoch and per-element loops") {
  auto p = Build(
      "for epoch in range(10):\n"
      "    for step, (x, y) in enumerate(train_loader):\n"
      "        for micro in x.chunk(4):\n"
      "            loss = model(micro).mean()\n"
      "            loss.backward()\n"
      "        optimizer.step()\n"
      "    for layer in layers:\n"
      "        print(layer)\n"
      "for i in range(100):\n"
      "    out = net(batch)\n"
      "    out.backward()\n"
      "it = iter(loader)\n"
      "while True:\n"
      "    batch = next(it)\n");
  const Model& m = *p->model;
  const Loop* epoch = LoopStartingWith(m, "for epoch");
  const Loop* step = LoopStartingWith(m, "for step");
  const Loop* micro = LoopStartingWith(m, "for micro");
  const Loop* layer = LoopStartingWith(m, "for layer");
  const Loop* plain = LoopStartingWith(m, "for i in");
  const Loop* loop_while = LoopStartingWith(m, "while True");
  REQUIRE(epoch);
  REQUIRE(step);
  REQUIRE(micro);
  REQUIRE(layer);
  REQUIRE(plain);
  REQUIRE(loop_while);
  CHECK(epoch->role == LoopRole::kEpoch);
  CHECK(step->role == LoopRole::kStep);
  CHECK((step->evidence & kIteratesLoader) != 0);
  CHECK(step->epoch_loop == 0);
  CHECK(micro->role == LoopRole::kPerElement);
  CHECK(layer->role == LoopRole::kPerElement);
  CHECK(plain->role == LoopRole::kStep);
  CHECK((plain->evidence & kModelCall) != 0);
  CHECK(loop_while->role == LoopRole::kStep);
  CHECK(loop_while->kind == LoopKind::kWhile);
  CHECK((loop_while->evidence & kNextBatch) != 0);
  CHECK(m.StepLoops().size() == 3);
}

TEST_CASE("loops that take batches are evaluation loops; a loop that feeds the model its output decodes") {
  auto p = Build(
      "import torch\n"
      "def evaluate(model, data_loader, metric_logger):\n"
      "    for samples, targets in metric_logger.log_every(data_loader, 10, 'Test:'):\n"
      "        outputs = model(samples.cuda())\n"
      "def decode(model, idx, data_loader):\n"
      "    for _ in range(len(data_loader)):\n"
      "        idx = model(idx)\n"
      "def estimate(model, get_batch):\n"
      "    for k in range(20):\n"
      "        X, Y = get_batch('val')\n"
      "        logits, loss = model(X, Y)\n"
      "def sample(model, idx):\n"
      "    for _ in range(64):\n"
      "        logits = model(idx)\n"
      "        probs = logits[:, -1].softmax(-1)\n"
      "        next_id = torch.multinomial(probs, 1)\n"
      "        idx = torch.cat((idx, next_id), dim=1)\n");
  const Model& m = *p->model;
  const Loop* wrapped = LoopStartingWith(m, "for samples");
  const Loop* decoding = LoopStartingWith(m, "for _ in range(len(");
  const Loop* batches = LoopStartingWith(m, "for k in range(20)");
  const Loop* sampling = LoopStartingWith(m, "for _ in range(64)");
  REQUIRE(wrapped);
  REQUIRE(decoding);
  REQUIRE(batches);
  REQUIRE(sampling);
  // The batches come from elsewhere: an evaluation loop. The sampled token goes back in: decoding.
  CHECK(batches->cadence == Cadence::kEvaluationBatch);
  CHECK(sampling->cadence == Cadence::kGenerationStep);
  CHECK((wrapped->evidence & kIteratesLoader) != 0);
  CHECK(wrapped->cadence == Cadence::kEvaluationBatch);
  CHECK((decoding->evidence & kIteratesLoader) == 0);
  CHECK(decoding->cadence == Cadence::kGenerationStep);
}

TEST_CASE("a loop that steps an environment is a rollout: one iteration per environment step") {
  auto p = Build(
      "import torch\n"
      "def rollout(agent, envs, obs):\n"
      "    for step in range(128):\n"
      "        action = agent.act(obs)\n"
      "        obs, reward, done, info = envs.step(action.cpu().numpy())\n"
      "def dqn(q, env, optimizer, obs):\n"
      "    for t in range(1000):\n"
      "        obs, reward, done, info = env.step(q(obs).argmax().item())\n"
      "        q(obs).sum().backward()\n"
      "        optimizer.step()\n"
      "def schedule(scheduler, event, n):\n"
      "    for epoch in range(n):\n"
      "        scheduler.step()\n"
      "        event.step(epoch)\n");
  const Model& m = *p->model;
  const Loop* rollout = LoopStartingWith(m, "for step in range(128)");
  const Loop* dqn = LoopStartingWith(m, "for t in range(1000)");
  const Loop* schedule = LoopStartingWith(m, "for epoch in range(n)");
  REQUIRE(rollout);
  REQUIRE(dqn);
  REQUIRE(schedule);
  CHECK((rollout->evidence & kEnvironmentStep) != 0);
  CHECK(rollout->role == LoopRole::kStep);
  CHECK(rollout->cadence == Cadence::kEnvironmentStep);
  // Training on every environment step (DQN) is a training step.
  CHECK(dqn->cadence == Cadence::kTrainingStep);
  // A scheduler's step, or a step of something not named as an environment, is not one.
  CHECK((schedule->evidence & kEnvironmentStep) == 0);
  CHECK(schedule->role != LoopRole::kStep);
  CHECK(ToString(Cadence::kEnvironmentStep) == "every environment step");
}

TEST_CASE("the condition of a conditional expression is a site, and sites stay in document order") {
  auto p = Build(
      "import torch\n"
      "def f(model, x, t, a, b):\n"
      "    y = model(x) if g(t) > 0 else h(a if c(b) else d(b))\n"
      "    z = (k(x) if p(x) else q(x)) if r(x) else s(x)\n");
  const Model& m = *p->model;
  const auto& sites = m.Sites();
  CHECK(std::is_sorted(sites.begin(), sites.end(),
                       [](const Site& a, const Site& b) { return a.node.StartByte() < b.node.StartByte(); }));
  std::vector<std::string> conditions;
  for (const Site& site : sites) {
    if (site.kind == SiteKind::kCondition) conditions.emplace_back(m.Text(site.node));
  }
  CHECK(conditions == std::vector<std::string>{"g(t) > 0", "c(b)", "p(x)", "r(x)"});
  // A call that is also a condition has both sites; CallSiteOf answers the call's.
  for (const Site& site : sites) {
    if (site.kind != SiteKind::kCondition || m.Text(site.node) != "c(b)") continue;
    const Site* call = m.CallSiteOf(site.node);
    REQUIRE(call != nullptr);
    CHECK(call->kind == SiteKind::kCall);
    CHECK(call->name == "c");
  }
}

TEST_CASE("a helper that steps the environment makes its caller's loop a rollout, not a training loop") {
  auto p = Build(
      "import torch\n"
      "class Agent:\n"
      "    def play_step(self, net, env):\n"
      "        action = net(self.state).argmax().item()\n"
      "        self.state, reward, done, info = env.step(action)\n"
      "        return reward\n"
      "def populate(agent, net, env):\n"
      "    for i in range(1000):\n"
      "        agent.play_step(net, env)\n"
      "agent = Agent()\n");
  const Model& m = *p->model;
  const Loop* populate = LoopStartingWith(m, "for i in range(1000)");
  REQUIRE(populate);
  CHECK((populate->evidence & kEnvironmentStep) != 0);
  CHECK((populate->evidence & kTrainingHelper) == 0);
  CHECK(populate->cadence == Cadence::kEnvironmentStep);
}

TEST_CASE("a method that returns what a model's submodule gives is a model call; an epoch loop stays one") {
  auto p = Build(
      "import torch\n"
      "class Inference:\n"
      "    def __init__(self, model):\n"
      "        self.model = model\n"
      "    def logits(self, tokens, features):\n"
      "        out = self.model.decoder(tokens, features)\n"
      "        return out[0]\n"
      "class Task:\n"
      "    def __init__(self, model):\n"
      "        self.inference = Inference(model)\n"
      "    def run(self, tokens, features):\n"
      "        for i in range(100):\n"
      "            logits = self.inference.logits(tokens, features)\n"
      "            tokens = torch.cat([tokens, logits.argmax(-1)], dim=-1)\n"
      "def train(model, loader, optimizer):\n"
      "    for x in loader:\n"
      "        model(x).sum().backward()\n"
      "        optimizer.step()\n"
      "def main(model, loader, optimizer, noise):\n"
      "    for epoch in range(10):\n"
      "        train(model, loader, optimizer)\n"
      "        sample = model.decode(noise)\n");
  const Model& m = *p->model;
  const Loop* decoding = LoopStartingWith(m, "for i in range(100)");
  const Loop* epochs = LoopStartingWith(m, "for epoch in range(10)");
  REQUIRE(decoding);
  REQUIRE(epochs);
  CHECK((decoding->evidence & kModelCall) != 0);
  CHECK(decoding->role == LoopRole::kStep);
  CHECK(decoding->cadence == Cadence::kGenerationStep);
  // `model.decode(noise)` is a model call, but the loop runs train()'s batches: an epoch loop.
  CHECK((epochs->evidence & kModelCall) != 0);
  CHECK(epochs->role == LoopRole::kEpoch);
}

TEST_CASE("helpers called from the step loop run every step, transitively") {
  auto p = Build(
      "def log(x):\n"
      "    inner(x)\n"
      "def inner(x):\n"
      "    x.item()\n"
      "def rare(x):\n"
      "    x.tolist()\n"
      "def once(x):\n"
      "    x.cpu()\n"
      "for epoch in range(3):\n"
      "    for i, b in enumerate(loader):\n"
      "        log(b)\n"
      "        if i % 50 == 0:\n"
      "            rare(b)\n"
      "    once(b)\n");
  const Model& m = *p->model;
  CHECK(CallStartingWith(m, "x.item()")->per_step());
  CHECK_FALSE(CallStartingWith(m, "x.tolist()")->per_step());
  CHECK_FALSE(CallStartingWith(m, "x.cpu()")->per_step());
  CHECK(CallStartingWith(m, "log(b)")->per_step());
  CHECK_FALSE(CallStartingWith(m, "once(b)")->per_step());
  int log_scope = -1;
  for (size_t i = 0; i < m.Scopes().size(); ++i) {
    if (m.Scopes()[i].name == "inner") log_scope = static_cast<int>(i);
  }
  REQUIRE(log_scope > 0);
  CHECK(m.Scopes()[static_cast<size_t>(log_scope)].runs_per_step);
}

TEST_CASE("helpers whose names share their first eight bytes are told apart") {
  // Model::FunctionsNamed finds a name's run by its first eight bytes (NameHead), then by the name:
  // `training_log` and `trainin` run every step, `training_logs` and `training` once an epoch.
  std::string text;
  for (const auto& [name, sync] : std::vector<std::pair<std::string, std::string>>{
           {"training_log", "item"}, {"training_logs", "tolist"}, {"training", "cpu"}, {"trainin", "numpy"}}) {
    text += "def " + name + "(x): return x." + sync + "()\n";
  }
  text += "for epoch in range(3):\n    for i, b in enumerate(loader):\n        training_log(b); trainin(b)\n";
  text += "    training_logs(b); training(b)\n";
  auto p = Build(text);
  const Model& m = *p->model;
  CHECK(CallStartingWith(m, "x.item()")->per_step());
  CHECK(CallStartingWith(m, "x.numpy()")->per_step());
  CHECK_FALSE(CallStartingWith(m, "x.tolist()")->per_step());
  CHECK_FALSE(CallStartingWith(m, "x.cpu()")->per_step());
}

TEST_CASE("an epoch loop calling a function with a step loop") {
  auto p = Build(
      "def train_one_epoch(model, train_loader):\n"
      "    for x in train_loader:\n"
      "        model(x).backward()\n"
      "for epoch in range(5):\n"
      "    train_one_epoch(model, loader)\n"
      "    val.item()\n");
  const Model& m = *p->model;
  CHECK(LoopStartingWith(m, "for epoch")->role == LoopRole::kEpoch);
  CHECK(LoopStartingWith(m, "for x")->role == LoopRole::kStep);
  CHECK_FALSE(CallStartingWith(m, "val.item()")->per_step());
}

TEST_CASE("names that share their first eight bytes each resolve to their own value") {
  // The bindings are sorted by a name's first eight bytes and then by the whole name
  // (Builder::SortBindings); these differ only past the eighth byte, or in length. Each is a period of
  // a guard in a step loop. `interval_steps_b` is assigned twice at the module's top: not one constant.
  const std::vector<std::pair<std::string, int64_t>> names = {{"interval_steps", 10}, {"interval_steps_b", 0},
                                                              {"interval_step", 30},  {"interval_stepsx", 40},
                                                              {"intervalsteps", 50},  {"interval", 60}};
  std::string text;
  for (const auto& [name, value] : names) text += name + " = " + std::to_string(value == 0 ? 20 : value) + "\n";
  text += "interval_steps_b = 70\nfor i, b in enumerate(loader):\n";
  for (size_t k = 0; k < names.size(); ++k) {
    text += "    if i % " + names[k].first + " == 0:\n        a" + std::to_string(k) + "()\n";
  }
  auto p = Build(text);
  const Model& m = *p->model;
  REQUIRE(m.Guards().size() == names.size());
  for (size_t k = 0; k < names.size(); ++k) {
    CAPTURE(names[k].first);
    if (names[k].second == 0) {
      CHECK_FALSE(m.Guards()[k].period.known());
    } else {
      CHECK(m.Guards()[k].period.AsInt() == names[k].second);
    }
  }
}

TEST_CASE("guards resolve N") {
  auto p = Build(
      "import argparse\n"
      "EVERY = 10\n"
      "ONE = 1\n"
      "parser = argparse.ArgumentParser()\n"
      "parser.add_argument('--log-interval', type=int, default=1)\n"
      "args = parser.parse_args()\n"
      "for i, b in enumerate(loader):\n"
      "    if i % EVERY == 0:\n"
      "        a1()\n"
      "    if i % ONE == 0:\n"
      "        a2()\n"
      "    if i % args.log_interval == 0:\n"
      "        a3()\n"
      "    if i % cfg.n == 0:\n"
      "        a4()\n"
      "    if not (i + 1) % 7:\n"
      "        a5()\n");
  const Model& m = *p->model;
  REQUIRE(m.Guards().size() == 5);
  CHECK(m.Guards()[0].periodic);
  CHECK(m.Guards()[0].period.AsInt() == 10);
  CHECK_FALSE(m.Guards()[1].periodic);
  CHECK_FALSE(m.Guards()[2].periodic);
  CHECK(m.Guards()[2].period.AsInt() == 1);
  CHECK(m.Guards()[3].periodic);
  CHECK_FALSE(m.Guards()[3].period.known());
  CHECK(m.Guards()[4].periodic);
  CHECK_FALSE(CallStartingWith(m, "a1")->per_step());
  CHECK(CallStartingWith(m, "a2")->per_step());
  CHECK(CallStartingWith(m, "a3")->per_step());
  CHECK_FALSE(CallStartingWith(m, "a4")->per_step());
  CHECK_FALSE(CallStartingWith(m, "a5")->per_step());
}

TEST_CASE("a comparison resolves when both sides do: `args.optimizer == \"lars\"` under the argparse default") {
  auto p = Build(
      "import argparse\n"
      "parser = argparse.ArgumentParser()\n"
      "parser.add_argument('--optimizer', default='lars')\n"
      "parser.add_argument('--depth', type=int, default=50)\n"
      "parser.add_argument('--choice')\n"
      "args = parser.parse_args()\n"
      "if args.optimizer == 'lars':\n    a0()\n"
      "if args.optimizer != 'lars':\n    a1()\n"
      "if args.depth == 50:\n    a2()\n"
      "if 18 == args.depth:\n    a3()\n"
      "if args.choice == 'lars':\n    a4()\n"
      "if args.optimizer == 50:\n    a5()\n"
      "if args.optimizer in ('lars',):\n    a6()\n"
      "if args.depth == 50 == args.depth:\n    a7()\n"
      "if 'a\\\\nb' == 'a\\\\nb':\n    a8()\n"
      "if args.optimizer is 'lars':\n    a9()\n");
  const Model& m = *p->model;
  REQUIRE(m.Guards().size() == 10);
  const auto truth = [&](size_t i) { return m.Resolve(m.Guards()[i].condition, m.Guards()[i].scope).Truthy(); };
  CHECK(truth(0) == true);
  CHECK(truth(1) == false);
  CHECK(truth(2) == true);
  CHECK(truth(3) == false);
  CHECK_FALSE(truth(4).has_value());  // no default
  CHECK_FALSE(truth(5).has_value());  // a string and an int
  CHECK_FALSE(truth(6).has_value());  // `in`
  CHECK_FALSE(truth(7).has_value());  // chained
  CHECK_FALSE(truth(8).has_value());  // escapes are not decoded
  CHECK_FALSE(truth(9).has_value());  // `is`: identity, not equality
}

TEST_CASE("constants, argparse and kwargs") {
  auto p = Build(
      "import argparse\n"
      "A = 4\n"
      "B = A * 2 + 1\n"
      "C = 0\n"
      "C = 1\n"
      "S = 'x'\n"
      "p = argparse.ArgumentParser()\n"
      "p.add_argument('--workers', '-j', type=int, default=A)\n"
      "p.add_argument('--none')\n"
      "p.add_argument('--flag', action='store_true')\n"
      "p.add_argument('-b', dest='batch', default='32', type=int)\n"
      "args = p.parse_args()\n"
      "kw = {'num_workers': 0, 'x': 1}\n"
      "def f(n=3):\n"
      "    local = 7\n"
      "    use(A, B, C, S, n, local, args.workers, args.none, args.flag, args.batch, -A, 0x10, 1_000)\n"
      "    g(**kw)\n"
      "    g(**other)\n"
      "    g(**dict(num_workers=2))\n");
  const Model& m = *p->model;
  const Site* use = CallStartingWith(m, "use(");
  REQUIRE(use);
  auto arg = [&](int i) { return m.Resolve(use->Arguments().NamedChild(static_cast<uint32_t>(i)), use->scope); };
  CHECK(arg(0).AsInt() == 4);
  CHECK(arg(0).origin.StartByte() > 0);
  CHECK(arg(1).AsInt() == 9);
  CHECK_FALSE(arg(2).known());  // rebound: no single value
  CHECK(arg(3).kind == ValueKind::kString);
  CHECK(arg(3).string_value == "x");
  CHECK_FALSE(arg(4).known());  // a parameter
  CHECK(arg(5).AsInt() == 7);
  CHECK(arg(6).AsInt() == 4);
  CHECK_FALSE(arg(7).known());  // no default: unknown, never guessed
  CHECK(arg(8).kind == ValueKind::kBool);
  CHECK(arg(8).Truthy() == false);
  CHECK(arg(9).AsInt() == 32);
  CHECK(arg(10).AsInt() == -4);
  CHECK(arg(11).AsInt() == 16);
  CHECK(arg(12).AsInt() == 1000);

  const Site* g1 = CallStartingWith(m, "g(**kw)");
  const KeyLookup k1 = m.KwargsLookupIn(*g1, "num_workers");
  CHECK(k1.presence == KeyPresence::kPresent);
  CHECK(k1.value.AsInt() == 0);
  CHECK(m.KwargsLookupIn(*g1, "pin_memory").presence == KeyPresence::kAbsent);
  CHECK(m.KwargsLookupIn(*CallStartingWith(m, "g(**other)"), "num_workers").presence == KeyPresence::kUnknown);
  CHECK(m.KwargsLookupIn(*CallStartingWith(m, "g(**dict"), "num_workers").value.AsInt() == 2);
}

// The known ints among ResolveAll's answers, and whether it also said "something unknown".
std::vector<int64_t> Ints(const std::vector<Value>& values, bool* unknown = nullptr) {
  std::vector<int64_t> out;
  for (const Value& v : values) {
    if (v.kind == ValueKind::kInt) out.push_back(v.int_value);
    if (unknown != nullptr && !v.known()) *unknown = true;
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("ResolveAll: configs, call sites, tables, and what stays unknown") {
  auto p = Build(
      "from dataclasses import dataclass\n"
      "@dataclass\n"
      "class Cfg:\n"
      "    width: int = 1001\n"
      "    depth: int = 2\n"
      "big = Cfg(width=4 ** 5)\n"
      "c = Cfg(3, depth=6)\n"
      "c.depth = unknown_call()\n"
      "class Net:\n"
      "    def __init__(self, config, n, m=7):\n"
      "        use(config.width, config.depth, n, m, n // 2, self.k)\n"
      "        self.k = n\n"
      "Net(Cfg(), 10)\n"
      "Net(Cfg(), 12, m=9)\n"
      "table = {'a': (1, 2), 'b': (3, 4)}\n"
      "def f(key, free):\n"
      "    use(table[key][1], table['a'][0], free, 5 if key else 6)\n"
      "f('a', 1)\n");
  const Model& m = *p->model;
  const Site* use = CallStartingWith(m, "use(config");
  REQUIRE(use);
  auto all = [&](const Site* site, int i, bool* unknown = nullptr) {
    return Ints(m.ResolveAll(site->Arguments().NamedChild(static_cast<uint32_t>(i)), site->scope), unknown);
  };
  // The default (some construction keeps it), the keyword, and the positional argument.
  CHECK(all(use, 0) == std::vector<int64_t>{3, 1001, 1024});
  // `c.depth` is overwritten with something unknown: its 6 is gone, the unknown stays.
  bool unknown = false;
  CHECK(all(use, 1, &unknown) == std::vector<int64_t>{2});
  CHECK(unknown);
  CHECK(all(use, 2) == std::vector<int64_t>{10, 12});
  CHECK(all(use, 3) == std::vector<int64_t>{7, 9});  // the default where a call omits it
  CHECK(all(use, 4) == std::vector<int64_t>{5, 6});
  CHECK(all(use, 5) == std::vector<int64_t>{10, 12});  // `self.k`: every write of the class
  // Sources: a literal is its own; `n // 2` comes from the argument written at the call.
  const std::vector<Value> halves = m.ResolveAll(use->Arguments().NamedChild(4), use->scope);
  REQUIRE(!halves.empty());
  CHECK(halves[0].origin.IsNull());
  CHECK(m.Text(halves[0].source) == "10");
  CHECK(m.WrittenName(halves[0].source) == "n");

  const Site* g = CallStartingWith(m, "use(table");
  REQUIRE(g);
  CHECK(all(g, 0) == std::vector<int64_t>{2, 4});  // every row: the key is not taken from call sites
  CHECK(all(g, 1) == std::vector<int64_t>{1});
  unknown = false;
  CHECK(all(g, 2, &unknown) == std::vector<int64_t>{1});
  CHECK_FALSE(unknown);
  CHECK(all(g, 3) == std::vector<int64_t>{5, 6});
  // Resolve keeps its single-value answers: a parameter is unknown, a conditional must agree.
  CHECK_FALSE(m.Resolve(g->Arguments().NamedChild(2), g->scope).known());
  CHECK_FALSE(m.Resolve(g->Arguments().NamedChild(3), g->scope).known());
  CHECK(m.Resolve(CallStartingWith(m, "Cfg(width")->Arguments().NamedChild(0), 0).known() == false);
}

TEST_CASE("ResolveAll is bounded on recursive call chains") {
  auto p = Build(
      "def f(n):\n"
      "    use(n)\n"
      "    return f(n + 1) + f(n * 2)\n"
      "f(3)\n");
  const Site* use = CallStartingWith(*p->model, "use(");
  REQUIRE(use);
  bool unknown = false;
  const std::vector<int64_t> values = Ints(p->model->ResolveAll(use->Arguments().NamedChild(0), use->scope), &unknown);
  CHECK(std::find(values.begin(), values.end(), 3) != values.end());
  CHECK(unknown);  // the chain is cut, and says so
}

TEST_CASE("device facts") {
  CHECK(Build("x = t.cuda()\n")->model->UsesCuda());
  CHECK(Build("import torch\nd = torch.device('cuda:1')\n")->model->UsesCuda());
  CHECK(Build("import torch\ntorch.cuda.synchronize()\n")->model->UsesCuda());
  CHECK(Build("import torch\nd = 'cuda' if torch.cuda.is_available() else 'cpu'\n")->model->UsesCuda());
  CHECK(Build("p.add_argument('--gpu', type=int, default=0)\n")->model->UsesCuda());
  CHECK_FALSE(Build("import torch\nd = torch.device('cpu')\nx = t.to(d)\n")->model->UsesCuda());
  CHECK_FALSE(Build("'''Runs on cuda when you port it.'''\nprint('cuda is not used')\n")->model->UsesCuda());
}

TEST_CASE("tensor kinds") {
  auto p = Build(
      "import torch\n"
      "import numpy as np\n"
      "for step, (x, y) in enumerate(loader):\n"
      "    loss = criterion(model(x), y)\n"
      "    n = x.shape[0]\n"
      "    t = 0\n"
      "    t += 1\n"
      "    a = np.mean(z)\n"
      "    check(loss, n, t, step, x, a, loss.item(), torch.zeros(3), len(x), loss > 1, {'a': 1})\n");
  const Model& m = *p->model;
  const Site* check = CallStartingWith(m, "check(");
  REQUIRE(check);
  auto kind = [&](int i) {
    return m.TensorKindOf(check->Arguments().NamedChild(static_cast<uint32_t>(i)), check->scope);
  };
  CHECK(kind(0) == TensorKind::kTensor);
  CHECK(kind(1) == TensorKind::kUnknown);
  CHECK(kind(2) == TensorKind::kNotTensor);
  CHECK(kind(3) == TensorKind::kNotTensor);
  CHECK(kind(4) == TensorKind::kTensor);
  CHECK(kind(5) == TensorKind::kNotTensor);
  CHECK(kind(6) == TensorKind::kNotTensor);
  CHECK(kind(7) == TensorKind::kTensor);
  CHECK(kind(8) == TensorKind::kNotTensor);
  CHECK(kind(9) == TensorKind::kTensor);
  CHECK(kind(10) == TensorKind::kNotTensor);
}

TEST_CASE("step loop body statements and phases (for the instrumenter)") {
  auto p = Build(
      "def train(model, loader, optimizer, criterion):\n"
      "    for epoch in range(3):\n"
      "        for x, y in loader:\n"
      "            x = x.to('cuda')\n"
      "            out = model(x)\n"
      "            loss = criterion(out, y)\n"
      "            loss.backward()\n"
      "            optimizer.step()\n"
      "            # a comment\n"
      "            count = 1\n");
  const Model& m = *p->model;
  const std::vector<int> steps = m.StepLoops();
  REQUIRE(steps.size() == 1);
  const Loop& loop = m.Loops()[static_cast<size_t>(steps[0])];
  CHECK(loop.kind == LoopKind::kFor);
  CHECK(m.Scopes()[static_cast<size_t>(loop.scope)].name == "train");
  REQUIRE(loop.epoch_loop >= 0);
  CHECK(m.Text(m.Loops()[static_cast<size_t>(loop.epoch_loop)].node).starts_with("for epoch"));
  const std::vector<ts::Node> body = m.BodyStatements(steps[0]);
  REQUIRE(body.size() == 6);
  CHECK(m.PhaseOf(body[0]) == Phase::kData);
  CHECK(m.PhaseOf(body[1]) == Phase::kForward);
  CHECK(m.PhaseOf(body[2]) == Phase::kLoss);
  CHECK(m.PhaseOf(body[3]) == Phase::kBackward);
  CHECK(m.PhaseOf(body[4]) == Phase::kOptimizer);
  CHECK(m.PhaseOf(body[5]) == Phase::kOther);
  CHECK(ToString(Phase::kBackward) == "backward");
}

TEST_CASE("deep nesting does not recurse") {
  std::string text = "x = ";
  text.append(100000, '(');
  text += "1";
  text.append(100000, ')');
  text += "\nfor b in loader:\n    y = (((b.item())))\n";
  auto p = Build(text);
  const Model& m = *p->model;
  CHECK_FALSE(m.Resolve(ts::Node(), 0).known());
  // Parentheses are stripped iteratively, all the way down.
  ts::Node assignment = p->tree.Root().NamedChild(0).NamedChild(0);
  CHECK(m.Resolve(assignment.Field("right"), 0).AsInt() == 1);
  CHECK(m.TensorKindOf(assignment.Field("right"), 0) == TensorKind::kNotTensor);
  REQUIRE(m.StepLoops().size() == 1);
  CHECK(CallStartingWith(m, "b.item()")->per_step());

  std::string calls;
  for (int i = 0; i < 20000; ++i) calls += "f(";
  for (int i = 0; i < 20000; ++i) calls += ")";
  auto q = Build(calls + "\n");
  CHECK(q->model->Sites().size() == 20000);
}

TEST_CASE("scope lookup") {
  auto p = Build("def f():\n    def g():\n        pass\n    return 1\nclass C:\n    def m(self):\n        pass\n");
  const Model& m = *p->model;
  CHECK(m.Scopes()[static_cast<size_t>(m.ScopeAt(30))].name == "g");
  CHECK(m.Scopes()[static_cast<size_t>(m.ScopeAt(0))].name == "f");
  CHECK(m.ScopeAt(static_cast<uint32_t>(p->file.text().size() - 2)) > 0);
}

TEST_CASE("a call site's Arguments() is its arguments field, read once by the builder") {
  auto built = Build(
      "x = f(1, k=2)\n"
      "y = g(a for a in b)\n"
      "z = obj.m()(3)\n"
      "w = (h)(*args, **kw)\n"
      "if cond(q):\n"
      "    print(f\"{v.item()}\")\n"
      "broken = call(1, 2\n");
  const Model* model = built->model.get();
  uint32_t calls = 0;
  for (const Site& site : model->Sites()) {
    if (site.kind != SiteKind::kCall) {
      CHECK(site.Arguments().IsNull());
      continue;
    }
    ++calls;
    CHECK(site.Arguments() == Field(site.node, FieldName::kArguments));
    CHECK_FALSE(site.Arguments().IsNull());
  }
  CHECK(calls >= 8);
}

TEST_CASE("a callee's canonical name, read from what the builder kept of it, is CanonicalName's") {
  auto p = Build(
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch.nn import functional as F\n"
      "a = torch.nn.functional.relu(x)\n"
      "b = (torch).nn.Linear(1, 2)\n"
      "c = (torch.nn).Conv2d(1, 2, 3)\n"
      "d = (torch.nn.Linear)(1, 2)\n"
      "e = (torch\n     # note\n     .cuda).synchronize()\n"
      "f = F.relu(x).sum().item()\n"
      "g = nn.Linear(1, 2)(x)\n"
      "h = x.view(1)\n"
      "i = torch.Tensor.item(t)\n");
  uint32_t named = 0;
  for (const Site& site : p->model->Sites()) {
    if (site.kind != SiteKind::kCall) continue;
    CHECK(p->model->CalleeCanonical(site) == p->model->CanonicalName(site.callee));
    if (!p->model->CalleeCanonical(site).empty()) ++named;
  }
  CHECK(named >= 7);
  CHECK(p->model->IsCanonical(*CallStartingWith(*p->model, "(torch).nn.Linear"), "torch.nn.Linear"));
  CHECK(p->model->IsCanonical(*CallStartingWith(*p->model, "(torch.nn).Conv2d"), "torch.nn.Conv2d"));
  CHECK(p->model->IsCanonical(*CallStartingWith(*p->model, "torch.nn.functional.relu"), "torch.nn.functional.relu"));
  CHECK(p->model->CalleeCanonical(*CallStartingWith(*p->model, "x.view")).empty());
}

TEST_CASE("the walk's calls and assignments read the same children as the tree's fields") {
  // The walk reads a call's, an assignment's and an augmented assignment's fields from the children it
  // hands out (Builder::Kids), not by field: a comment between a callee and its arguments, a generator
  // argument, a callee that is itself a comprehension, annotated assignments with and without a value,
  // chained and tuple assignments, and broken code must give what the fields give.
  const std::string text =
      "import torch\nx = f(1, 2)\ny = (g  # note\n     (3))\nz = h(a for a in b)\n"
      "w = [c for c in d](e)\nv: int = k(4)\nu: float\np = q = r(5)\ns, t = m(6), n(7)\n"
      "o += torch.ones(8)\nself.l -= j(9)\nprint(x, v, u, p, q, s, o)\nbroken = f(1,\ncount = len(\n";
  auto parsed = Build(text);
  const Model& model = *parsed->model;
  int calls = 0;
  for (const Site& site : model.Sites()) {
    if (site.kind != SiteKind::kCall) continue;
    ++calls;
    CHECK(site.callee == Unparen(Field(site.node, FieldName::kFunction)));
    CHECK(site.Arguments() == Field(site.node, FieldName::kArguments));
  }
  CHECK(calls >= 11);
  // The value reaching each name at `print(...)` is the assignment's `right` field (the last one of a
  // chain; an augmented assignment's operand).
  const Site* print = CallStartingWith(model, "print(");
  REQUIRE(print != nullptr);
  const auto value_of = [&](std::string_view name) {
    for (ts::Node arg : print->Arguments().NamedChildren()) {
      if (model.Text(arg) != name) continue;
      const Model::Binding* binding = model.ReachingBinding(arg, 0);
      return binding == nullptr ? std::string_view("<none>") : model.Text(binding->value);
    }
    return std::string_view("<not an argument>");
  };
  CHECK(value_of("x") == "f(1, 2)");
  CHECK(value_of("v") == "k(4)");
  CHECK(value_of("u") == "<none>");
  CHECK(value_of("p") == "r(5)");
  CHECK(value_of("q") == "r(5)");
  CHECK(value_of("s") == "m(6), n(7)");
  CHECK(value_of("o") == "torch.ones(8)");
}
TEST_CASE("AttributeNameText reads the attribute's own name") {
  // Plain, spaced and nested attributes; inside brackets, a newline, a comment (with a dot of its own)
  // or a line continuation between the dot and the name; non-ASCII names; and broken code, where the
  // name is missing.
  const std::string text =
      "a.b\nx = torch.nn.functional.relu(y)\nz = (p .  q)\nw = (r.\n     s)\n"
      "v = (t.  # a comment. with dots.\n     u)\nm = (n. \\\n o)\nk = modèle.größe\ne = obj.\nf = g.h.\n";
  ts::Parser parser;
  auto tree = parser.Parse(text);
  REQUIRE(tree.ok());
  std::vector<std::string> names;
  ts::Walk(tree->Root(), [&](ts::Node node) {
    if (KindOf(node) != NodeKind::kAttribute) return true;
    names.emplace_back(AttributeNameText(node, text));
    return true;
  });
  CHECK(std::find(names.begin(), names.end(), "functional") != names.end());
  CHECK(std::find(names.begin(), names.end(), "relu") != names.end());
  CHECK(std::find(names.begin(), names.end(), "q") != names.end());
  CHECK(std::find(names.begin(), names.end(), "s") != names.end());
  CHECK(std::find(names.begin(), names.end(), "u") != names.end());
  CHECK(std::find(names.begin(), names.end(), "o") != names.end());
  CHECK(std::find(names.begin(), names.end(), "größe") != names.end());
  CHECK(std::find(names.begin(), names.end(), "b") != names.end());
  CHECK(std::find(names.begin(), names.end(), "nn") != names.end());
  // No name holds a dot, a blank or a comment.
  for (const std::string& name : names) CHECK(name.find_first_of(". \t\n#") == std::string::npos);
  CHECK(names.size() >= 10);
}
}  // namespace
}  // namespace tl::semantic
