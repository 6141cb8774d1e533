// The corpus against its goldens: every script with every template (and C with --stop-after) gives
// exactly tests/instrument/golden/<script>.<variant>.py, or the error in <script>.<variant>.err. On each
// success, --remove gives the original back byte for byte and a second run changes nothing. Set
// TORCHLINT_UPDATE_GOLDENS=1 to rewrite the goldens after a deliberate change (and review the diff).
#include "linter/instrument/instrument.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "linter/core/fix.h"
#include "linter/core/source_file.h"
#include "linter/instrument/markers.h"
#include "linter/instrument/style.h"
#include "linter/ts/ts.h"
#include "tests/instrument/corpus.h"

namespace {

bool Updating() {
  const char* env = std::getenv("TORCHLINT_UPDATE_GOLDENS");
  return env != nullptr && *env != '\0' && std::string(env) != "0";
}

std::string Read(const std::filesystem::path& path) {
  auto text = tl::ReadFile(path);
  return text ? *text : std::string("<missing: ") + path.string() + ">";
}

}  // namespace

TEST_CASE("every corpus script with every template matches its golden, reverts exactly and is idempotent") {
  const auto scripts = tl::test::CorpusScripts();
  REQUIRE(scripts.size() >= 12);
  size_t goldens = 0, successes = 0;
  for (const auto& script : scripts) {
    const std::string original = Read(script);
    // Display paths are relative so the goldens do not depend on the checkout's location.
    const std::string display = "corpus/" + script.filename().string();
    const tl::SourceFile file(display, original);
    for (const auto& variant : tl::test::Variants()) {
      CAPTURE(display);
      CAPTURE(variant.name);
      const auto options = tl::test::OptionsFor(script, variant);
      auto outcome = tl::instrument::Instrument(file, options);
      const auto stem = tl::test::GoldenDir() / (script.stem().string() + "." + variant.name);
      const auto golden_py = std::filesystem::path(stem.string() + ".py");
      const auto golden_err = std::filesystem::path(stem.string() + ".err");
      const std::string actual = outcome ? outcome->text : outcome.error().message + "\n";
      const auto& golden = outcome ? golden_py : golden_err;
      if (Updating()) {
        std::filesystem::remove(golden_py);
        std::filesystem::remove(golden_err);
        REQUIRE(tl::WriteFileAtomically(golden, actual).ok());
      }
      ++goldens;
      CHECK(std::filesystem::exists(golden));
      CHECK(actual == Read(golden));
      if (!outcome) continue;
      ++successes;
      CHECK(outcome->changed);

      // --remove restores the original byte for byte.
      auto removed = tl::instrument::Remove(tl::SourceFile(display, outcome->text));
      REQUIRE(removed.ok());
      CHECK(removed->text == original);

      // Instrumenting again with the same options changes nothing.
      auto again = tl::instrument::Instrument(tl::SourceFile(display, outcome->text), options);
      REQUIRE(again.ok());
      CHECK_FALSE(again->changed);
      CHECK(again->text == outcome->text);
    }
  }
  MESSAGE("goldens checked: " << goldens << ", instrumented: " << successes);
}

TEST_CASE("instrumenting an instrumented file with another template replaces the instrumentation") {
  const auto script = tl::test::CorpusDir() / "epoch_nested.py";
  const tl::SourceFile file("epoch_nested.py", Read(script));
  tl::instrument::Options c, a;
  REQUIRE(tl::instrument::ParseTemplate("C", c).ok());
  REQUIRE(tl::instrument::ParseTemplate("A", a).ok());
  auto with_c = tl::instrument::Instrument(file, c);
  REQUIRE(with_c.ok());
  auto c_then_a = tl::instrument::Instrument(tl::SourceFile("epoch_nested.py", with_c->text), a);
  auto only_a = tl::instrument::Instrument(file, a);
  REQUIRE(c_then_a.ok());
  REQUIRE(only_a.ok());
  CHECK(c_then_a->text == only_a->text);
}

TEST_CASE("options are checked") {
  tl::instrument::Options o;
  CHECK(tl::instrument::ParseTemplate("c,f", o).ok());
  CHECK(o.base == tl::instrument::Template::kC);
  CHECK(o.labels);
  CHECK(tl::instrument::ParseTemplate("F", o).ok());
  CHECK(o.base == tl::instrument::Template::kC);
  CHECK(tl::instrument::ParseTemplate("nvtx", o).ok());
  CHECK(o.base == tl::instrument::Template::kNvtx);
  CHECK_FALSE(tl::instrument::ParseTemplate("A,C", o).ok());
  CHECK_FALSE(tl::instrument::ParseTemplate("Z", o).ok());
  CHECK_FALSE(tl::instrument::ParseTemplate("nvtx,F", o).ok());
  tl::instrument::Options bad;
  bad.active = 0;
  CHECK_FALSE(tl::instrument::ValidateOptions(bad).ok());
  bad = {};
  bad.stop_after = true;
  bad.repeat = 0;
  CHECK_FALSE(tl::instrument::ValidateOptions(bad).ok());
}

TEST_CASE("syntax errors in the input are refused with their place") {
  const tl::SourceFile file("bad.py", "for x in loader:\n    y = (\n");
  auto outcome = tl::instrument::Instrument(file, {});
  REQUIRE_FALSE(outcome.ok());
  CHECK(outcome.error().message.find("bad.py:") == 0);
  CHECK(outcome.error().message.find("syntax error") != std::string::npos);
}

TEST_CASE("removal refuses instrumented code that was edited out of shape") {
  const std::string text =
      "with p() as prof:  # torchlint: instrument indent=4\n"
      "for x in y:\n"  // lost the indentation the marker promises
      "    f(x)\n"
      "# torchlint: instrument dedent\n";
  auto removed = tl::instrument::Remove(tl::SourceFile("x.py", text));
  REQUIRE_FALSE(removed.ok());
  CHECK(removed.error().message.find("line 2") != std::string::npos);

  auto unclosed = tl::instrument::Remove(
      tl::SourceFile("x.py", "with p():  # torchlint: instrument indent=4\n    f()\n"));
  CHECK_FALSE(unclosed.ok());
}

TEST_CASE("marker lines parse strictly") {
  using tl::instrument::ParseMarkerLine;
  CHECK(ParseMarkerLine("    prof.step()  # torchlint: instrument").has_value());
  CHECK(ParseMarkerLine("# torchlint: instrument dedent")->dedents == 1);
  auto both = ParseMarkerLine("    with f():  # torchlint: instrument dedent dedent indent=tab");
  REQUIRE(both.has_value());
  CHECK(both->dedents == 2);
  CHECK(*both->indent == "\t");
  CHECK(*ParseMarkerLine("x:  # torchlint: instrument indent=2")->indent == "  ");
  CHECK_FALSE(ParseMarkerLine("x = 1  # torchlint: instrumented").has_value());
  CHECK_FALSE(ParseMarkerLine("x = 1  # torchlint: instrument indent=4 dedent").has_value());
  CHECK_FALSE(ParseMarkerLine("x = 1  # torchlint: instrument indent=0").has_value());
  CHECK_FALSE(ParseMarkerLine("x = 1  ## torchlint: instrument").has_value());
  CHECK_FALSE(ParseMarkerLine("print('nothing here')").has_value());
}

TEST_CASE("a file without instrumentation is left alone by --remove") {
  auto removed = tl::instrument::Remove(tl::SourceFile("x.py", "print(1)\n"));
  REQUIRE(removed.ok());
  CHECK_FALSE(removed->changed);
  CHECK(removed->text == "print(1)\n");
}

TEST_CASE("--loop-line must name a line where a loop starts") {
  const tl::SourceFile file("two.py", Read(tl::test::CorpusDir() / "two_loops.py"));
  tl::instrument::Options options;
  options.loop_line = 3;
  auto outcome = tl::instrument::Instrument(file, options);
  REQUIRE_FALSE(outcome.ok());
  CHECK(outcome.error().message.find("two.py:3: no for or while loop starts on line 3") == 0);
  options.loop_line = 11;
  auto first = tl::instrument::Instrument(file, options);
  REQUIRE(first.ok());
  CHECK(first->loop_line == 11);
}

TEST_CASE("template G's toggles take the indentation of the code, not of the marker comment") {
  const std::string text =
      "for x in loader:\n"
      "    loss = model(x)\n"
      "    loss.backward()\n"
      "            # torchlint: profile-off\n"
      "    f(x)\n"
      "    # torchlint: profile-on\n"
      "    optimizer.step()\n";
  tl::instrument::Options options;
  REQUIRE(tl::instrument::ParseTemplate("G", options).ok());
  auto outcome = tl::instrument::Instrument(tl::SourceFile("g.py", text), options);
  REQUIRE(outcome.ok());
  CHECK(outcome->text.find("\n        if prof.current_action in") != std::string::npos);
  CHECK(outcome->text.find("\n            if prof.current_action") == std::string::npos);
}

TEST_CASE("only a continue of the step loop itself calls for try/finally") {
  auto instrumented = [](const std::string& body) {
    const std::string text = "for x in loader:\n    loss = model(x)\n    loss.backward()\n" + body;
    auto outcome = tl::instrument::Instrument(tl::SourceFile("c.py", text), {});
    REQUIRE(outcome.ok());
    return outcome->text;
  };
  const std::string nested = instrumented("    for p in params:\n        if p is None:\n            continue\n");
  CHECK(nested.find("try:") == std::string::npos);
  CHECK(nested.find("\n        prof.step()  # torchlint: instrument\n") != std::string::npos);
  const std::string own = instrumented("    if x is None: continue\n");
  CHECK(own.find("\n        try:  # torchlint: instrument indent=4\n") != std::string::npos);
  CHECK(own.find("\n        finally:  # torchlint: instrument dedent\n            prof.step()") != std::string::npos);
  const std::string via_else = instrumented("    for p in params:\n        pass\n    else:\n        continue\n");
  CHECK(via_else.find("try:") != std::string::npos);
  const std::string in_def = instrumented("    def skip():\n        for q in y:\n            continue\n");
  CHECK(in_def.find("try:") == std::string::npos);
}

TEST_CASE("the nvtx template names each range after the lines it holds in the instrumented script") {
  // Each `with tl_nvtx("NAME FILE:A-B"):` is checked against the instrumented script's own parse: a phase's
  // range holds exactly its with-block's body, the step's range the whole loop statement around it.
  const std::regex label(R"re(tl_nvtx\("(\w+) ([^":]+):(\d+)-(\d+)"\))re");
  size_t phases = 0, steps = 0;
  for (const auto& script : tl::test::CorpusScripts()) {
    const std::string display = "corpus/" + script.filename().string();
    const auto options = tl::test::OptionsFor(script, {"nvtx", "nvtx", false});
    auto outcome = tl::instrument::Instrument(tl::SourceFile(display, Read(script)), options);
    if (!outcome) continue;
    CAPTURE(display);
    const std::string& text = outcome->text;
    auto tree = tl::instrument::ParsePython(text);
    REQUIRE(tree.ok());
    auto line_of = [&](uint32_t byte) {
      return static_cast<int>(std::count(text.begin(), text.begin() + byte, '\n')) + 1;
    };
    // The last line of code in `n`: its last token that is not a comment (a block's trailing comments,
    // the marker lines among them, belong to the block in the tree but hold no code).
    auto last_code_line = [&](tl::ts::Node n) {
      int last = 0;
      std::vector<tl::ts::Node> todo = {n};
      while (!todo.empty()) {
        const tl::ts::Node k = todo.back();
        todo.pop_back();
        if (k.Is("comment")) continue;
        if (k.ChildCount() == 0 && k.EndByte() > k.StartByte()) last = std::max(last, line_of(k.EndByte() - 1));
        for (const auto& child : k.Children()) todo.push_back(child);
      }
      return last;
    };
    std::vector<tl::ts::Node> stack = {tree->Root()};
    while (!stack.empty()) {
      const tl::ts::Node node = stack.back();
      stack.pop_back();
      for (const auto& child : node.NamedChildren()) stack.push_back(child);
      if (!node.Is("with_statement")) continue;
      const std::string head(node.Text(text).substr(0, node.Text(text).find('\n')));
      std::smatch m;
      if (!std::regex_search(head, m, label)) continue;
      CAPTURE(head);
      CHECK(m[2].str() == script.filename().string());
      const int first = std::stoi(m[3].str()), last = std::stoi(m[4].str());
      if (m[1].str() == "train_step") {
        ++steps;
        const tl::ts::Node loop = node.Parent().Parent();
        REQUIRE((loop.Is("for_statement") || loop.Is("while_statement")));
        CHECK(first == line_of(loop.StartByte()));
        CHECK(last == last_code_line(loop));
      } else {
        ++phases;
        const tl::ts::Node body = node.Field("body");
        CHECK(first == line_of(node.StartByte()) + 1);
        CHECK(first == line_of(body.StartByte()));
        CHECK(last == last_code_line(body));
      }
    }
  }
  MESSAGE("step ranges: " << steps << ", phase ranges: " << phases);
  CHECK(steps >= 10);
  CHECK(phases >= 30);
}
