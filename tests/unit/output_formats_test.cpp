// The four output formats on hand-made diagnostics, so these tests pin the formats themselves and do
// not move when a rule's wording changes: the text layout (underline under tabs, multi-byte text and
// invalid UTF-8), JSON fields, SARIF's shape as GitHub code scanning reads it, and GitHub escaping.
#include <stdio.h>  // NOLINT(modernize-deprecated-headers): POSIX open_memstream
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "linter/engine/rule.h"
#include "linter/output/report.h"

using tl::Applicability;
using tl::Diagnostic;
using tl::OutputFormat;
using tl::SourceFile;

namespace {

// Captures what a reporter writes.
class Capture {
 public:
  Capture() : file_(::open_memstream(&buffer_, &size_)) {}
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  ~Capture() {
    if (file_ != nullptr) std::fclose(file_);
    std::free(buffer_);  // NOLINT(cppcoreguidelines-no-malloc): open_memstream allocates it with malloc
  }
  std::FILE* file() { return file_; }
  std::string Text() {
    std::fflush(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

Diagnostic Finding(uint32_t begin, uint32_t end, bool with_fix) {
  Diagnostic d;
  d.code = "TL201";
  d.name = "dataloader-num-workers";
  d.message = "`DataLoader` loads batches in the main process";
  d.range = {begin, end};
  if (with_fix)
    d.fix = tl::Fix{"Add `num_workers=4`", Applicability::kSafe, {tl::Edit{{end - 1, end - 1}, ", num_workers=4"}}};
  return d;
}

std::string Render(OutputFormat format, const SourceFile& source, const std::vector<Diagnostic>& diagnostics,
                   bool with_error = false) {
  Capture capture;
  tl::OutputOptions options;
  options.out = capture.file();
  options.tool_version = "0.1.0";
  auto reporter = tl::MakeReporter(format, options);
  reporter->AddFile(source, diagnostics);
  if (with_error) reporter->AddError("gone.py", "gone.py: no such file or folder; check the path");
  reporter->Finish();
  return capture.Text();
}

}  // namespace

TEST_CASE("text: location line, source line, underline and help") {
  const SourceFile source("train.py", "import torch\nloader = DataLoader(ds)\n");
  const std::string text = tl::RenderText(source, Finding(22, 36, true), false);
  CHECK(text ==
        "train.py:2:10: TL201 `DataLoader` loads batches in the main process\n"
        "  |\n"
        "2 | loader = DataLoader(ds)\n"
        "  |          ^^^^^^^^^^^^^^\n"
        "  = help: Add `num_workers=4`\n");
}

TEST_CASE("text: tabs are expanded and multi-byte text keeps the underline aligned") {
  const SourceFile tabs("t.py", "if x:\n\tloss.item()\n");
  const std::string text = tl::RenderText(tabs, Finding(7, 18, false), false);
  CHECK(text.find("2 |     loss.item()\n  |     ^^^^^^^^^^^\n") != std::string::npos);

  const SourceFile wide("w.py", "s = \"\xC3\xA9\xC3\xA9\"; f(x)\n");  // two é before the call
  const std::string wide_text = tl::RenderText(wide, Finding(12, 16, false), false);
  CHECK(wide_text.find("w.py:1:11:") == 0);
  CHECK(wide_text.find("  |           ^^^^\n") != std::string::npos);

  const SourceFile latin1("l.py", "s = '\xE9'; f(x)\n");  // not UTF-8: shown as U+FFFD
  const std::string latin1_text = tl::RenderText(latin1, Finding(9, 13, false), false);
  CHECK(latin1_text.find("1 | s = '\xEF\xBF\xBD'; f(x)\n") != std::string::npos);
  CHECK(latin1_text.find("  |          ^^^^\n") != std::string::npos);
}

TEST_CASE("text: colour only when asked, CRLF lines and empty ranges") {
  const SourceFile crlf("c.py", "a = 1\r\nloader = DataLoader(ds)\r\n");
  const std::string plain = tl::RenderText(crlf, Finding(16, 16, false), false);
  CHECK(plain.find('\r') == std::string::npos);
  CHECK(plain.find("  |          ^\n") != std::string::npos);
  CHECK(plain.find("\x1b[") == std::string::npos);
  CHECK(tl::RenderText(crlf, Finding(16, 30, false), true).find("\x1b[") != std::string::npos);
}

TEST_CASE("json: the documented fields, 1-based positions, fix edits") {
  const SourceFile source("train.py", "import torch\nloader = DataLoader(ds)\n");
  const auto json = nlohmann::json::parse(Render(OutputFormat::kJson, source, {Finding(22, 36, true)}, true));
  REQUIRE(json.is_array());
  REQUIRE(json.size() == 2);
  const auto& item = json[0];
  CHECK(item["code"] == "TL201");
  CHECK(item["name"] == "dataloader-num-workers");
  CHECK(item["severity"] == "warning");
  CHECK(item["file"] == "train.py");
  CHECK(item["line"] == 2);
  CHECK(item["column"] == 10);
  CHECK(item["end_line"] == 2);
  CHECK(item["end_column"] == 24);
  CHECK(item["fix"]["applicability"] == "safe");
  CHECK(item["fix"]["title"] == "Add `num_workers=4`");
  CHECK(item["fix"]["edits"][0]["content"] == ", num_workers=4");
  CHECK(item["fix"]["edits"][0]["location"] == nlohmann::json{{"row", 2}, {"column", 23}});
  CHECK(item["fix"]["edits"][0]["end_location"] == nlohmann::json{{"row", 2}, {"column", 23}});
  CHECK(json[1]["code"] == "io-error");
  CHECK(json[1]["fix"].is_null());
}

TEST_CASE("json: an empty run is an empty array") {
  const SourceFile source("a.py", "");
  CHECK(Render(OutputFormat::kJson, source, {}) == "[]\n");
}

TEST_CASE("sarif: the shape GitHub code scanning accepts") {
  const SourceFile source("src/my train.py", "import torch\nloader = DataLoader(ds)\n");
  const auto log = nlohmann::json::parse(Render(OutputFormat::kSarif, source, {Finding(22, 36, true)}, true));
  CHECK(log["version"] == "2.1.0");
  CHECK(log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json");
  REQUIRE(log["runs"].size() == 1);
  const auto& run = log["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "torchlint");
  CHECK(run["columnKind"] == "unicodeCodePoints");
  const auto& rules = run["tool"]["driver"]["rules"];
  REQUIRE(rules.size() == tl::AllRules().size());
  for (const auto& rule : rules) {
    CHECK(rule["id"].get<std::string>().starts_with("TL"));
    CHECK_FALSE(rule["name"].get<std::string>().empty());
    CHECK_FALSE(rule["shortDescription"]["text"].get<std::string>().empty());
    CHECK_FALSE(rule["fullDescription"]["text"].get<std::string>().empty());
    CHECK_FALSE(rule["help"]["text"].get<std::string>().empty());
    CHECK_FALSE(rule["help"]["markdown"].get<std::string>().empty());
  }
  REQUIRE(run["results"].size() == 1);
  const auto& result = run["results"][0];
  CHECK(result["ruleId"] == "TL201");
  CHECK(result["level"] == "warning");
  CHECK(result["message"]["text"] == "`DataLoader` loads batches in the main process");
  const auto& physical = result["locations"][0]["physicalLocation"];
  CHECK(physical["artifactLocation"]["uri"] == "src/my%20train.py");
  CHECK(physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%");
  CHECK(physical["region"] == nlohmann::json{{"startLine", 2}, {"startColumn", 10}, {"endLine", 2}, {"endColumn", 24}});
  if (result.contains("ruleIndex")) CHECK(rules[result["ruleIndex"].get<size_t>()]["id"] == "TL201");
  CHECK(result["fixes"][0]["description"]["text"] == "Add `num_workers=4`");
  const auto& notification = run["invocations"][0]["toolExecutionNotifications"][0];
  CHECK(notification["level"] == "error");
  CHECK(notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "gone.py");
}

TEST_CASE("uris: relative paths stay relative, absolute ones become file URIs") {
  CHECK(tl::PathToUri("./a/b.py") == "a/b.py");
  CHECK(tl::PathToUri("/abs/x y.py") == "file:///abs/x%20y.py");
  CHECK(tl::PathToUri("d\xC3\xA9j\xC3\xA0.py") == "d%C3%A9j%C3%A0.py");
}

TEST_CASE("github: one workflow command per finding, escaped") {
  const SourceFile source("a,b:c.py", "import torch\nloader = DataLoader(ds)\n");
  Diagnostic d = Finding(22, 36, false);
  d.message = "100% sure\nreally";
  const std::string text = Render(OutputFormat::kGithub, source, {d}, true);
  CHECK(text ==
        "::warning file=a%2Cb%3Ac.py,line=2,col=10,endLine=2,endColumn=24,"
        "title=TL201 (dataloader-num-workers)::100%25 sure%0Areally\n"
        "::error file=gone.py,title=io-error::gone.py: no such file or folder; check the path\n");
}

TEST_CASE("summary lines") {
  CHECK(tl::FormatSummary({}) == "All checks passed!");
  CHECK(tl::FormatSummary({1, 0, 0, false, false}) == "Found 1 error.");
  CHECK(tl::FormatSummary({3, 2, 0, false, false}) == "Found 3 errors (2 fixable with --fix).");
  CHECK(tl::FormatSummary({1, 0, 3, false, true}) == "Found 4 errors (3 fixed, 1 remaining).");
  CHECK(tl::FormatSummary({0, 0, 2, true, false}) == "Would fix 2 errors.");
  CHECK(tl::FormatSummary({}, tl::Lang::kChinese) == "全部检查通过！");
  CHECK(tl::FormatSummary({3, 2, 0, false, false}, tl::Lang::kChinese) == "发现 3 个问题（2 个可用 --fix 修复）。");
  CHECK(tl::FormatSummary({1, 0, 3, false, true}, tl::Lang::kChinese) == "发现 4 个问题（已修复 3 个，剩余 1 个）。");
  CHECK(tl::FormatSummary({0, 0, 2, true, false}, tl::Lang::kChinese) == "将修复 2 个问题。");
}

TEST_CASE("summary lines name the fixes --unsafe-fixes would enable, in Ruff's words") {
  tl::ReportSummary summary{3, 1, 0, false, false, 2};
  CHECK(tl::FormatSummary(summary) ==
        "Found 3 errors (1 fixable with --fix). 2 hidden fixes can be enabled with the `--unsafe-fixes` option.");
  summary.hidden_fixes = 1;
  summary.fixable = 0;
  CHECK(tl::FormatSummary(summary) == "Found 3 errors. 1 hidden fix can be enabled with the `--unsafe-fixes` option.");
}

TEST_CASE("the Fixed block lists each file's codes with counts, aligned, in first-fixed order") {
  CHECK(tl::FormatFixed({}).empty());
  CHECK(tl::FormatFixed({{"a.py", {}}}).empty());
  const std::vector<tl::FixedFile> files = {
      {"a.py", {{"TL202", "dataloader-pin-memory"}, {"TL101", "sync"}, {"TL202", "dataloader-pin-memory"}}},
      {"b.py", {}},
      {"c.py", {{"TL301", "zero-grad"}}},
  };
  CHECK(tl::FormatFixed(files) ==
        "Fixed 4 errors:\n"
        "- a.py:\n"
        "    2 × TL202 (dataloader-pin-memory)\n"
        "    1 × TL101 (sync)\n"
        "- c.py:\n"
        "    1 × TL301 (zero-grad)\n");
}

namespace {

std::string RenderWith(tl::OutputOptions options, bool statistics, const SourceFile& source,
                       const std::vector<Diagnostic>& diagnostics) {
  Capture capture;
  options.out = capture.file();
  auto reporter = statistics ? tl::MakeStatisticsReporter(options) : tl::MakeReporter(OutputFormat::kConcise, options);
  reporter->AddFile(source, diagnostics);
  reporter->Finish();
  return capture.Text();
}

}  // namespace

TEST_CASE("concise: one line per finding, [*] for what this run can fix, titles with --show-fixes") {
  const SourceFile source("t.py", "loader = DataLoader(ds)\n\tx = DataLoader(ds)\n");
  Diagnostic unsafe = Finding(29, 43, true);
  unsafe.fix->applicability = Applicability::kUnsafe;
  const std::vector<Diagnostic> findings = {Finding(9, 23, true), unsafe, Finding(9, 23, false)};
  tl::OutputOptions options;
  CHECK(RenderWith(options, false, source, findings) ==
        "t.py:1:10: TL201 [*] `DataLoader` loads batches in the main process\n"
        "t.py:2:6: TL201 `DataLoader` loads batches in the main process\n"
        "t.py:1:10: TL201 `DataLoader` loads batches in the main process\n");
  options.fix_level = Applicability::kUnsafe;
  options.show_fixes = true;
  CHECK(RenderWith(options, false, source, {unsafe}) ==
        "t.py:2:6: TL201 [*] `DataLoader` loads batches in the main process (fix: Add `num_workers=4`)\n");
}

TEST_CASE("statistics: counts per code, most frequent first, [*] when one of them is fixable") {
  const SourceFile source("t.py", "loader = DataLoader(ds)\n");
  Diagnostic other = Finding(9, 23, false);
  other.code = "TL101";
  other.name = "sync-in-step-loop";
  const std::vector<Diagnostic> findings = {other, Finding(9, 23, false), Finding(9, 23, true), Finding(9, 23, false)};
  CHECK(RenderWith({}, true, source, findings) ==
        "3\tTL201\t[*] dataloader-num-workers\n"
        "1\tTL101\t[ ] sync-in-step-loop\n");
}
