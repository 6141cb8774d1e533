// Runs every rule fixture under tests/rules/. A fixture is a Python file with inline expectations,
// in the manner of clang-tidy's CHECK-MESSAGES and ty's mdtest:
//
//   loader = DataLoader(ds)  # error: [TL201, TL202]
//
// says that exactly these codes start on this line (a code may repeat to expect it twice). Any
// diagnostic nobody expected fails, and so does any expectation that did not fire. Every rule that is
// on by default runs unless the header narrows them; an off-by-default rule (TL502) runs in the
// fixtures whose header selects it, as it would for a user. Header lines set options:
//
//   # torchlint-test: target-torch=1.13 min-dim=32 select=TL3 unsafe-fixes
//
// and `pin=>=1.4,<2` sets the target as a project's torch requirement does: its floor, allowing the newer
// versions the requirement allows.
//
// When fixes apply (safe ones; unsafe ones too under `unsafe-fixes`), `<name>.fixed.py` beside the
// fixture must hold the result of the passes `--fix` makes, and checking that result again must change
// nothing more.
// TORCHLINT_UPDATE_GOLDENS=1 rewrites the goldens instead of comparing them.
#include <doctest/doctest.h>

#include <charconv>
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "linter/core/fix.h"
#include "linter/core/source_file.h"
#include "linter/engine/check.h"
#include "linter/engine/driver.h"
#include "linter/engine/rule.h"
#include "linter/engine/rule_docs.h"
#include "linter/engine/torch_pin.h"
#include "tests/support/paths.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> SplitCodes(std::string_view list) {
  std::vector<std::string> out;
  std::string current;
  for (char c : list) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!current.empty()) out.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

struct Fixture {
  CheckOptions options;
  bool unsafe_fixes = false;
  std::multimap<uint32_t, std::string> expected;  // 1-based line -> code
  std::vector<std::string> errors;                // malformed header or expectation
};

Fixture ParseFixture(const SourceFile& file) {
  Fixture fixture;
  const LineIndex& lines = file.lines();
  for (uint32_t line = 0; line < lines.LineCount(); ++line) {
    const std::string_view text = lines.LineText(line);
    if (const size_t header = text.find("# torchlint-test:"); header != std::string_view::npos) {
      std::istringstream options{std::string(text.substr(header + 17))};
      for (std::string option; options >> option;) {
        const size_t eq = option.find('=');
        const std::string key = option.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : option.substr(eq + 1);
        if (key == "target-torch") {
          if (auto version = TorchVersion::Parse(value)) {
            fixture.options.rule_options.target_torch = *version;
          } else {
            fixture.errors.push_back("bad target-torch " + value);
          }
        } else if (key == "pin") {
          // A project's requirement (`pin=>=1.4`, `pin=>=1.4,<1.7`), as if read from requirements.txt.
          if (auto pin = ParseTorchRequirement("torch" + value)) {
            ApplyTorchPin(*pin, fixture.options.rule_options);
          } else {
            fixture.errors.push_back("bad pin " + value);
          }
        } else if (const FoundOption declared = FindRuleOption(key); declared.spec != nullptr) {
          // Any option a rule declares in its metadata, checked against the declared range.
          int64_t number = 0;
          const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
          if (ec != std::errc() || end != value.data() + value.size() ||
              !CheckRuleOption(*declared.spec, number).empty()) {
            fixture.errors.push_back("bad " + key + " " + value);
          } else {
            fixture.options.rule_options.values[key] = number;
          }
        } else if (key == "select") {
          fixture.options.selection.select = SplitCodes(value);
        } else if (key == "unsafe-fixes") {
          fixture.unsafe_fixes = true;
        } else {
          fixture.errors.push_back("unknown option " + key);
        }
      }
    }
    size_t pos = 0;
    while ((pos = text.find("# error: [", pos)) != std::string_view::npos) {
      const size_t close = text.find(']', pos);
      if (close == std::string_view::npos) {
        fixture.errors.push_back("unclosed expectation on line " + std::to_string(line + 1));
        break;
      }
      for (std::string& code : SplitCodes(text.substr(pos + 10, close - pos - 10))) {
        fixture.expected.emplace(line + 1, std::move(code));
      }
      pos = close;
    }
  }
  return fixture;
}

// A folder named `*.project` under tests/rules/<CODE>/ is one project: its files are checked together
// through the driver's project pass, each with its own inline expectations, and a finding that points
// at another file must point at a line marked `# related: [CODE]`.
bool InProject(const fs::path& path) {
  for (fs::path p = path.parent_path(); !p.empty() && p != p.parent_path(); p = p.parent_path()) {
    if (p.extension() == ".project") return true;
    if (p.filename() == "rules") break;
  }
  return false;
}

std::vector<fs::path> ProjectFixtures() {
  std::vector<fs::path> out;
  const fs::path root = test::SourceDir() / "tests" / "rules";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_directory() && entry.path().extension() == ".project") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> FixtureFiles() {
  std::vector<fs::path> out;
  const fs::path root = test::SourceDir() / "tests" / "rules";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const fs::path& path = entry.path();
    if (!entry.is_regular_file() || path.extension() != ".py") continue;
    if (path.stem().extension() == ".fixed") continue;
    if (InProject(path)) continue;  // checked together, by "project fixtures"
    out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// What is wrong with how a diagnostic's sentences were made: each must come from its rule's catalog
// (an id the catalog has, whose English is the text the diagnostic carries) and read differently in
// Chinese, so that no fixture can pass with an English-only message, fix title or note.
// Words of letters only, outside `code` spans: "every training step" has 3, "out_channels // 2" none.
size_t ProseWords(std::string_view text) {
  size_t words = 0;
  bool in_code = false;
  std::string word;
  auto flush = [&] {
    if (word.size() > 1 && std::all_of(word.begin(), word.end(), [](char c) { return std::isalpha(c) != 0; })) ++words;
    word.clear();
  };
  for (char c : text) {
    if (c == '`') {
      in_code = !in_code;
      word += '_';  // a word touching a code span is not prose
    } else if (c == ' ') {
      flush();
    } else if (!in_code) {
      word += c;
    }
  }
  flush();
  return words;
}

std::vector<std::string> CatalogFailures(const std::string& where, const Diagnostic& d) {
  std::vector<std::string> failures;
  const Rule* rule = FindRule(d.code);
  if (rule == nullptr) return failures;  // parse-error and io-error notices have no catalog
  auto check = [&](std::string_view what, const MessageRef& ref, const std::string& english) {
    const MessageText* entry = FindMessage(rule->Meta().messages, ref.id);
    if (entry == nullptr) {
      failures.push_back(fmt::format("{}: {} {} `{}` is not from the rule's catalog", where, d.code, what, english));
      return;
    }
    if (FormatMessage(entry->en, ref.args, Lang::kEnglish) != english) {
      failures.push_back(fmt::format("{}: {} {} differs from its catalog entry `{}`", where, d.code, what, ref.id));
    }
    if (FormatMessage(entry->zh, ref.args, Lang::kChinese) == english) {
      failures.push_back(fmt::format("{}: {} {} `{}` reads the same in Chinese", where, d.code, what, ref.id));
    }
    for (const MessageArg& arg : ref.args) {
      if (arg.zh.empty() && ProseWords(arg.en) >= 2) {
        failures.push_back(fmt::format("{}: {} {} `{}`: the value of `{}` is prose with no Chinese form: \"{}\"", where,
                                       d.code, what, ref.id, arg.name, arg.en));
      }
    }
  };
  check("message", d.message_ref, d.message);
  if (d.fix) check("fix title", d.fix->title_ref, d.fix->title);
  for (const RelatedLocation& r : d.related) check("related note", r.message_ref, r.message);
  return failures;
}

// Checks one fixture; returns the failures as lines of text (empty when it passes).
// `safest`: per rule code, the safest applicability of a fix its fixtures made so far.
std::vector<std::string> RunFixture(const fs::path& path, std::map<std::string, int>& counts,
                                    std::map<std::string, Applicability>& safest) {
  std::vector<std::string> failures;
  const std::string display = fs::relative(path, test::SourceDir()).string();
  SourceFile file(display, ReadFile(path));
  Fixture fixture = ParseFixture(file);
  for (const std::string& error : fixture.errors) failures.push_back(display + ": " + error);

  const FileReport report = CheckSource(file, fixture.options);
  std::multimap<uint32_t, std::string> unmatched = fixture.expected;
  for (const Diagnostic& diagnostic : report.diagnostics) {
    const LineColumn at = file.lines().Locate(diagnostic.range.begin);
    for (std::string& failure : CatalogFailures(fmt::format("{}:{}", display, at.line), diagnostic)) {
      failures.push_back(std::move(failure));
    }
    auto range = unmatched.equal_range(at.line);
    auto hit = std::find_if(range.first, range.second, [&](const auto& e) { return e.second == diagnostic.code; });
    if (hit != range.second) {
      unmatched.erase(hit);
      ++counts[diagnostic.code];
      continue;
    }
    failures.push_back(
        fmt::format("{}:{}:{}: unexpected {} {}", display, at.line, at.column, diagnostic.code, diagnostic.message));
  }
  for (const auto& [line, code] : unmatched) {
    failures.push_back(fmt::format("{}:{}: expected {} did not fire", display, line, code));
  }

  // A fix is never more applicable than the rule's metadata says (`torchlint rules` shows that level):
  // enum order is kSafe < kUnsafe < kDisplayOnly.
  for (const Diagnostic& diagnostic : report.diagnostics) {
    const Rule* rule = FindRule(diagnostic.code);
    if (rule == nullptr || !diagnostic.fix) continue;
    auto [seen, first] = safest.emplace(diagnostic.code, diagnostic.fix->applicability);
    if (!first) seen->second = std::min(seen->second, diagnostic.fix->applicability);
    if (rule->Meta().fix == FixAvailability::kNone || diagnostic.fix->applicability < rule->Meta().fix_safety) {
      failures.push_back(fmt::format("{}: {} makes a {} fix, but its RuleMeta says fix {} / {}", display,
                                     diagnostic.code, ToString(diagnostic.fix->applicability),
                                     FixAvailabilityText(rule->Meta().fix), ToString(rule->Meta().fix_safety)));
    }
  }

  // Fixes.
  const Applicability level = fixture.unsafe_fixes ? Applicability::kUnsafe : Applicability::kSafe;
  std::vector<const Fix*> fixes;
  for (const Diagnostic& diagnostic : report.diagnostics) {
    if (diagnostic.fix) fixes.push_back(&*diagnostic.fix);
  }
  FixOutcome outcome = ApplyFixes(file.text(), fixes, level);
  // As `--fix` does, later passes apply the fixes the earlier ones made possible (a loader that now
  // pins its batches gets copies with `non_blocking=True`), up to the driver's bound.
  for (size_t pass = 1; pass < DriverOptions{}.max_fix_passes && outcome.text != file.text(); ++pass) {
    SourceFile next(display, outcome.text);
    const FileReport again = CheckSource(next, fixture.options);
    std::vector<const Fix*> more;
    for (const Diagnostic& diagnostic : again.diagnostics) {
      if (diagnostic.fix) more.push_back(&*diagnostic.fix);
    }
    FixOutcome further = ApplyFixes(next.text(), more, level);
    if (further.text == next.text()) break;
    outcome = std::move(further);
  }
  fs::path golden = path;
  golden.replace_extension(".fixed.py");
  const bool update = std::getenv("TORCHLINT_UPDATE_GOLDENS") != nullptr;
  if (outcome.text != file.text()) {
    if (update) {
      std::ofstream(golden, std::ios::binary) << outcome.text;
    } else if (!fs::exists(golden)) {
      failures.push_back(display + ": fixes change the file but " + golden.filename().string() +
                         " is missing (TORCHLINT_UPDATE_GOLDENS=1 writes it)");
    } else if (ReadFile(golden) != outcome.text) {
      failures.push_back(display + ": fixed text differs from " + golden.filename().string() + ":\n" +
                         UnifiedDiff(golden.filename().string(), ReadFile(golden), outcome.text));
    }
    // Fixes converge: checking the fixed text offers no further applicable change.
    SourceFile fixed(display, outcome.text);
    const FileReport again = CheckSource(fixed, fixture.options);
    std::vector<const Fix*> more;
    for (const Diagnostic& diagnostic : again.diagnostics) {
      if (diagnostic.fix) more.push_back(&*diagnostic.fix);
    }
    if (ApplyFixes(fixed.text(), more, level).text != fixed.text()) {
      failures.push_back(display + ": fixes do not converge (a second pass changes the text again)");
    }
  } else if (fs::exists(golden) && !update) {
    failures.push_back(display + ": no fix applies but " + golden.filename().string() + " exists");
  }
  return failures;
}

TEST_CASE("rule fixtures") {
  const std::vector<fs::path> files = FixtureFiles();
  REQUIRE_MESSAGE(!files.empty(), "no fixtures under tests/rules");
  std::map<std::string, int> counts;
  std::map<std::string, Applicability> safest;
  size_t failed = 0;
  for (const fs::path& path : files) {
    const std::vector<std::string> failures = RunFixture(path, counts, safest);
    for (const std::string& failure : failures) FAIL_CHECK(failure);
    if (!failures.empty()) ++failed;
  }
  // The level `torchlint rules`, the README and SARIF show for a rule's fix is the safest fix its
  // fixtures make: a rule whose fixes are all unsafe must not be listed as safe.
  for (const Rule* rule : AllRules()) {
    const RuleMeta& meta = rule->Meta();
    if (meta.fix == FixAvailability::kNone) continue;
    const auto seen = safest.find(std::string(meta.code));
    if (seen == safest.end()) {
      FAIL_CHECK(fmt::format("{} says it has fixes, but no fixture shows one", meta.code));
    } else {
      CHECK_MESSAGE(seen->second == meta.fix_safety,
                    fmt::format("{}: its RuleMeta says its fixes are {} at best, its fixtures' safest is {}", meta.code,
                                ToString(meta.fix_safety), ToString(seen->second)));
    }
  }
  std::string summary = fmt::format("{} fixtures, {} failed; expectations met:", files.size(), failed);
  for (const auto& [code, count] : counts) summary += fmt::format(" {}={}", code, count);
  MESSAGE(summary);
}

TEST_CASE("project fixtures") {
  const std::vector<fs::path> projects = ProjectFixtures();
  REQUIRE_MESSAGE(!projects.empty(), "no *.project fixtures under tests/rules");
  std::map<std::string, int> counts;
  size_t files_seen = 0;
  for (const fs::path& project : projects) {
    std::vector<FileTask> tasks;
    std::map<std::string, Fixture> fixtures;  // by display path
    std::map<std::string, std::string> texts;
    for (const auto& entry : fs::recursive_directory_iterator(project)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".py") continue;
      const std::string display = fs::relative(entry.path(), test::SourceDir()).generic_string();
      SourceFile file(display, ReadFile(entry.path()));
      Fixture fixture = ParseFixture(file);
      for (const std::string& error : fixture.errors) FAIL_CHECK(std::string(display + ": " + error));
      FileTask task;
      task.display_path = display;
      task.path = entry.path();
      task.options = std::make_shared<CheckOptions>(fixture.options);
      tasks.push_back(std::move(task));
      texts[display] = std::string(file.text());
      fixtures.emplace(display, std::move(fixture));
    }
    std::sort(tasks.begin(), tasks.end(), [](const FileTask& a, const FileTask& b) { return a.path < b.path; });
    files_seen += tasks.size();
    DriverOptions options;
    options.project = true;
    options.project_root = project;
    RunChecks(std::move(tasks), options, [&](FileOutcome&& outcome) {
      REQUIRE_MESSAGE(outcome.source.has_value(), outcome.display_path);
      const SourceFile& file = *outcome.source;
      auto& expected = fixtures.at(outcome.display_path).expected;
      for (const Diagnostic& diagnostic : outcome.diagnostics) {
        const LineColumn at = file.lines().Locate(diagnostic.range.begin);
        auto range = expected.equal_range(at.line);
        auto hit = std::find_if(range.first, range.second, [&](const auto& e) { return e.second == diagnostic.code; });
        if (hit == range.second) {
          FAIL_CHECK(fmt::format("{}:{}: unexpected {} {}", outcome.display_path, at.line, diagnostic.code,
                                 diagnostic.message));
          continue;
        }
        expected.erase(hit);
        ++counts[diagnostic.code];
        for (const RelatedLocation& related : diagnostic.related) {
          if (related.path.empty()) continue;
          auto text = texts.find(related.path);
          std::string line_text;
          if (text != texts.end()) {
            std::istringstream lines(text->second);
            for (uint32_t n = 0; n < related.line && std::getline(lines, line_text); ++n) {
            }
          }
          CHECK_MESSAGE(line_text.find("# related: [" + diagnostic.code + "]") != std::string::npos,
                        fmt::format("{}:{}: {} points at {}:{}, which is not marked `# related: [{}]`",
                                    outcome.display_path, at.line, diagnostic.code, related.path, related.line,
                                    diagnostic.code));
        }
      }
    });
    for (const auto& [display, fixture] : fixtures) {
      for (const auto& [line, code] : fixture.expected) {
        FAIL_CHECK(fmt::format("{}:{}: expected {} did not fire", display, line, code));
      }
    }
  }
  std::string summary = fmt::format("{} projects, {} files; expectations met:", projects.size(), files_seen);
  for (const auto& [code, count] : counts) summary += fmt::format(" {}={}", code, count);
  MESSAGE(summary);
}

TEST_CASE("TL401 suggests the next aligned size") {
  const std::string text =
      "from torch import nn\nhead = nn.Linear(768, 50257)\nmid = nn.Linear(100, 300)\nbig = nn.Linear(9999, 64)\n";
  SourceFile file("t.py", text);
  CheckOptions options;
  options.selection.select = {"TL401"};
  const FileReport report = CheckSource(file, options);
  std::vector<std::string> suggestions;
  for (const Diagnostic& diagnostic : report.diagnostics) {
    REQUIRE(diagnostic.fix);
    CHECK(diagnostic.fix->applicability == Applicability::kDisplayOnly);
    suggestions.push_back(diagnostic.fix->edits.at(0).replacement);
  }
  CHECK(suggestions == std::vector<std::string>{"50304", "104", "304", "10048"});
}

TEST_CASE("fixture expectations parse") {
  SourceFile file("x.py",
                  "# torchlint-test: target-torch=1.13 min-dim=32 select=TL3 unsafe-fixes\n"
                  "x = 1  # error: [TL101, TL202]\n"
                  "y = 2  # error: [TL101] # error: [TL101]\n");
  const Fixture fixture = ParseFixture(file);
  CHECK(fixture.errors.empty());
  CHECK(fixture.options.rule_options.target_torch == TorchVersion{1, 13});
  CHECK(fixture.options.rule_options.values.at("min-dim") == 32);
  CHECK(fixture.unsafe_fixes);
  REQUIRE(fixture.options.selection.select.size() == 1);
  CHECK(fixture.options.selection.select[0] == "TL3");
  CHECK(fixture.expected.count(2) == 2);
  CHECK(fixture.expected.count(3) == 2);
}

}  // namespace
}  // namespace tl
