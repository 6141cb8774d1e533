// With `--lang zh` every sentence a person reads is Chinese: the cross-check report (Markdown and HTML),
// `check --trace` (text and concise) and `trace`, on real traces with the scripts that recorded them,
// as tests/support/english_runs.h finds them: no run of three or more English words outside code.
#include <string>
#include <vector>

#include "cli_support.h"
#include "tests/support/english_runs.h"
#include "tests/support/snapshot_pickles.h"

namespace tl::test {
namespace {

TEST_CASE("the English-run checker finds English prose and leaves code alone") {
  // Chinese sentences with the guide's English terms pass.
  CHECK(EnglishRuns("GPU 仅在 step 的 7.0% 时间内活跃；主要空闲原因：kernel 启动开销\n", Markup::kText).empty());
  CHECK(EnglishRuns("使用 torch.compile 做算子融合，或启用 CUDA Graph，减少 Python 调用\n", Markup::kText).empty());
  // An English sentence among them does not.
  const auto runs = EnglishRuns("trace: 已证实 — The GPU is busy only 7.0% of the step\n", Markup::kText);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0] == "The GPU is busy only");
  CHECK(runs[1] == "of the step");
  CHECK(EnglishRuns("注：its events are also explained by TL202", Markup::kText) ==
        std::vector<std::string>{"its events are also explained by"});
  // Code is not prose: backticks, code blocks, <code>, charts, quoted source lines, table columns.
  CHECK(EnglishRuns("没有运行 `set the batch size` 和 `enumerate(DataLoader)#...__next__`\n", Markup::kText).empty());
  CHECK(EnglishRuns("```python\nfor step in range of loader\n```\n", Markup::kMarkdown).empty());
  CHECK(EnglishRuns("<p>运行 <code>for x in loader</code></p><svg><text>Memcpy HtoD (Pageable -> Device)</text></svg>",
                    Markup::kHtml)
            .empty());
  const auto html = EnglishRuns("<p>Memcpy HtoD (Pageable -&gt; Device)</p>", Markup::kHtml);
  CHECK(html == std::vector<std::string>{"Memcpy HtoD (Pageable"});
  CHECK(EnglishRuns("12 |     for step, batch in enumerate(loader):\n   |     ^^^\n", Markup::kText).empty());
  CHECK(EnglishRuns("Self CUDA   CUDA total   Self CPU\n", Markup::kText).empty());
  CHECK(EnglishRuns("the trace has no Python frames", Markup::kMarkdown) ==
        std::vector<std::string>{"the trace has no Python frames"});
}

// What `torchlint` prints for a person, stdout and stderr, in Chinese.
void CheckChinese(const std::vector<std::string>& args, const std::filesystem::path& cwd, Markup markup) {
  const RunResult result = RunTorchlint(args, cwd);
  std::string command;
  for (const auto& a : args) command += a + " ";
  CAPTURE(command);
  CHECK(result.exit_code <= 1);
  if (markup != Markup::kText) CHECK(!result.out.empty());  // `check` prints nothing without findings
  for (const std::string& run : EnglishRuns(result.out, markup)) FAIL_CHECK("English in stdout: " << run);
  for (const std::string& run : EnglishRuns(result.err, Markup::kText)) FAIL_CHECK("English in stderr: " << run);
}

struct Pair {
  std::string trace;                 // under the shared traces
  std::vector<std::string> scripts;  // under the shared traces, or the checkout's examples/
};

TEST_CASE("report, check --trace and trace --lang zh: no English sentence on real traces") {
  auto shared = SharedTraces("the zh rendering of real traces");
  if (!shared) return;
  const std::string examples = (SourceDir() / "examples").string();
  const std::string cpu = (*shared / "cpu").string();
  std::vector<Pair> pairs;
  for (const char* name :
       {"a_baseline", "b_sync_item", "c_workers0", "d_zero_grad_false", "e_unaligned", "f_tiny_ops"}) {
    pairs.push_back(
        {fmt::format("cpu/torch2.14.1/{}.pt.trace.json", name), {fmt::format("{}/scripts/{}.py", cpu, name)}});
  }
  pairs.push_back({"cpu/torch1.13-legacy/c_workers0.pt.trace.json", {cpu + "/scripts/c_workers0.py"}});
  // The T4 pair (fp32 and AMP), a 1.9 trace with call stacks and an H100 one, against the examples.
  for (const char* trace :
       {"real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/fp32.pt.trace.json",
        "real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/amp.pt.trace.json",
        "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
        "real/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz"}) {
    pairs.push_back({trace, {examples}});
  }
  for (const Pair& pair : pairs) {
    const std::filesystem::path trace = *shared / pair.trace;
    if (!std::filesystem::exists(trace)) {
      MESSAGE("skipped: " << pair.trace << " is not in the shared traces");
      continue;
    }
    std::vector<std::string> report = {"report"};
    report.insert(report.end(), pair.scripts.begin(), pair.scripts.end());
    for (const char* a : {"--trace", trace.c_str(), "--lang", "zh"}) report.emplace_back(a);
    CheckChinese(report, SourceDir(), Markup::kMarkdown);
    report.insert(report.end(), {"--format", "html"});
    CheckChinese(report, SourceDir(), Markup::kHtml);
    std::vector<std::string> check = {"check", "--trace", trace.string(), "--lang", "zh"};
    check.insert(check.end(), pair.scripts.begin(), pair.scripts.end());
    CheckChinese(check, SourceDir(), Markup::kText);
    std::vector<std::string> statistics = check;
    statistics.emplace_back("--statistics");
    CheckChinese(statistics, SourceDir(), Markup::kText);
    check.insert(check.end(), {"--output-format", "concise"});
    CheckChinese(check, SourceDir(), Markup::kText);
    CheckChinese({"trace", trace.string(), "--lang", "zh"}, SourceDir(), Markup::kText);
  }
}

TEST_CASE("report and check --trace --lang zh: no English sentence on the end-to-end traces") {
  // The checkout's own small traces, each recorded from its script: confirmed and refuted verdicts.
  for (const char* name : {"pin_memory", "sync_item", "unaligned", "workers0", "zero_grad_false", "sync_item_fixed"}) {
    CAPTURE(name);
    const std::string script = fmt::format("tests/e2e/scripts/{}.py", name);
    const std::string trace = fmt::format("tests/e2e/traces/{}.pt.trace.json.gz", name);
    CheckChinese({"report", script, "--trace", trace, "--lang", "zh"}, SourceDir(), Markup::kMarkdown);
    CheckChinese({"report", script, "--trace", trace, "--lang", "zh", "--format", "html"}, SourceDir(), Markup::kHtml);
    CheckChinese({"check", script, "--trace", trace, "--lang", "zh"}, SourceDir(), Markup::kText);
  }
}

TEST_CASE("report goldens in English and Chinese on the end-to-end traces") {
  // A confirmed finding (workers0) and refuted, not-observed and unverifiable ones (sync_item): the same
  // report in both languages, each reviewed as a whole; the Chinese one also passes the checker.
  for (const char* name : {"workers0", "sync_item"}) {
    CAPTURE(name);
    const std::string script = fmt::format("tests/e2e/scripts/{}.py", name);
    const std::string trace = fmt::format("tests/e2e/traces/{}.pt.trace.json.gz", name);
    const RunResult en = RunTorchlint({"report", script, "--trace", trace}, SourceDir());
    const RunResult zh = RunTorchlint({"report", script, "--trace", trace, "--lang", "zh"}, SourceDir());
    CHECK(en.exit_code == 0);
    CHECK(zh.exit_code == 0);
    CHECK(EnglishRuns(zh.out, Markup::kMarkdown).empty());
    CheckGolden(fmt::format("report_{}_en.md.txt", name), en.Transcript());
    CheckGolden(fmt::format("report_{}_zh.md.txt", name), zh.Transcript());
  }
}

TEST_CASE("report, check and trace --memory --lang zh: no English sentence, with the real snapshot and small ones") {
  const auto shared = FindSharedMemoryInputs();
  if (!shared) return;
  TempFolder dir;
  dir.Write("a_baseline.py", EmptyCacheBaseline(ReadText(shared->script)));
  dir.Write("churn.pickle", SmallSnapshot({.script = "a_baseline.py"}));
  dir.Write("calm.pickle", SmallSnapshot({.churn = false, .script = "a_baseline.py"}));
  dir.Write("bare.pickle", SmallSnapshot({.history = false}));
  dir.Write("other.pickle", SmallSnapshot({.script = "other.py"}));
  for (const std::string& memory : {shared->snapshot.string(), std::string("churn.pickle"), std::string("calm.pickle"),
                                    std::string("bare.pickle"), std::string("other.pickle")}) {
    CAPTURE(memory);
    const std::vector<std::string> report = {"report",   "a_baseline.py", "--trace", shared->trace.string(),
                                             "--memory", memory,          "--lang",  "zh"};
    CheckChinese(report, dir.path(), Markup::kMarkdown);
    std::vector<std::string> html = report;
    html.insert(html.end(), {"--format", "html"});
    CheckChinese(html, dir.path(), Markup::kHtml);
    CheckChinese({"check", "a_baseline.py", "--trace", shared->trace.string(), "--memory", memory, "--lang", "zh"},
                 dir.path(), Markup::kText);
    CheckChinese({"trace", shared->trace.string(), "--memory", memory, "--lang", "zh"}, dir.path(), Markup::kText);
    CheckChinese({"memory", memory, "--lang", "zh"}, dir.path(), Markup::kText);
  }
}

}  // namespace
}  // namespace tl::test

namespace tl::test {
namespace {

TEST_CASE("a truncated trace's warning is Chinese with --lang zh, for trace, report and check --trace") {
  // Our own trace (tests/e2e), cut inside its events: the reader warns where it was cut.
  const std::string whole = ReadText(SourceDir() / "tests" / "e2e" / "traces" / "sync_item.pt.trace.json.gz");
  REQUIRE(whole.size() > 1000);
  TempFolder dir;
  const auto cut = dir.Write("cut.pt.trace.json.gz", whole.substr(0, whole.size() * 2 / 3));
  dir.Write("sync_item.py", ReadText(SourceDir() / "tests" / "e2e" / "scripts" / "sync_item.py"));
  const std::vector<std::vector<std::string>> commands = {{"trace", cut.string()},
                                                          {"report", "sync_item.py", "--trace", cut.string()},
                                                          {"check", "sync_item.py", "--trace", cut.string()}};
  for (const auto& base : commands) {
    CAPTURE(base[0]);
    const RunResult en = RunTorchlint(base, dir.path());
    CHECK(en.err.find("truncated at byte") != std::string::npos);
    std::vector<std::string> zh_args = base;
    zh_args.insert(zh_args.end(), {"--lang", "zh"});
    const RunResult zh = RunTorchlint(zh_args, dir.path());
    CHECK(zh.err.find("torchlint：警告：") != std::string::npos);
    CHECK(zh.err.find("字节处被截断") != std::string::npos);
    for (const std::string& run : EnglishRuns(zh.err, Markup::kText)) FAIL_CHECK("English in stderr: " << run);
  }
}

}  // namespace
}  // namespace tl::test
