// Trace-only findings (what no line can be blamed for) on the shared GPU traces, and `torchlint report`
// in markdown (English and the PyTorch profiler guide's Chinese titles) and JSON, with the findings ranked.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "linter/engine/rule.h"

#include "tests/crosscheck/support.h"
#include "tests/support/english_runs.h"

namespace tl::test {
namespace {

const TraceFinding* FindTraceOnly(const std::vector<TraceFinding>& findings, std::string_view code) {
  for (const auto& f : findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

double Figure(const TraceFinding& f, std::string_view metric) {
  for (const auto& fig : f.figures) {
    if (fig.metric == metric) return fig.value;
  }
  return -1.0;
}

TEST_CASE("H100 bert-small: launch-bound and low GPU busy, with their figures") {
  auto trace = SharedTrace("real/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
  if (!trace) return;
  auto cc = LoadTrace(*trace);
  REQUIRE(cc);
  const auto found = cc->TraceOnly();
  const TraceFinding* launch = FindTraceOnly(found, "trace-launch-bound");
  REQUIRE(launch != nullptr);
  CHECK(Figure(*launch, "gpu.short_kernel_share") == doctest::Approx(0.967).epsilon(0.03));  // 97% under 10 µs
  CHECK(Figure(*launch, "gpu.busy_share") == doctest::Approx(0.07).epsilon(0.15));           // busy 7%
  CHECK(launch->level == Priority::kHigh);
  CHECK(launch->recommendation.find("CUDA Graph") != std::string::npos);
  CHECK(launch->saved_ms_per_step > 0.0);
  const TraceFinding* busy = FindTraceOnly(found, "trace-low-gpu-busy");
  REQUIRE(busy != nullptr);
  CHECK(Figure(*busy, "gpu.busy_share") < 0.10);
  CHECK(FindTraceOnly(found, "trace-no-tensor-cores") == nullptr);  // 77% tensor-core time
  // In Chinese, the PyTorch profiler guide's own recommendation, and the finding's own sentences.
  const std::string recommendation_zh = LocalizedRecommendation(*launch, Lang::kChinese);
  CHECK(recommendation_zh.find("CUDA Graph") != std::string::npos);
  CHECK(recommendation_zh.find("torch.compile") != std::string::npos);
  CHECK(recommendation_zh != launch->recommendation);
  CHECK(LocalizedTitle(*launch, Lang::kChinese) == "启动开销瓶颈（Launch-bound）");
  CHECK(LocalizedMessage(*launch, Lang::kChinese).find("的 kernel 短于 10 µs") != std::string::npos);
  CHECK(LocalizedMessage(*launch, Lang::kEnglish) == launch->message);
}

TEST_CASE("T4 fp32: no tensor-core kernel at all on a GPU that has them; its AMP twin uses them") {
  auto fp32 = SharedTrace("real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/fp32.pt.trace.json");
  auto amp = SharedTrace("real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/amp.pt.trace.json");
  if (!fp32 || !amp) return;
  auto cc = LoadTrace(*fp32);
  REQUIRE(cc);
  const auto found = cc->TraceOnly();
  const TraceFinding* tc = FindTraceOnly(found, "trace-no-tensor-cores");
  REQUIRE(tc != nullptr);
  CHECK(tc->message.find("Tesla T4") != std::string::npos);
  CHECK(Figure(*tc, "gpu.fp32_gemm_ms_per_step") > 0.0);
  CHECK(tc->saved_ms_per_step == doctest::Approx(0.5 * Figure(*tc, "gpu.fp32_gemm_ms_per_step")));
  const TraceFinding* busy = FindTraceOnly(found, "trace-low-gpu-busy");
  REQUIRE(busy != nullptr);
  CHECK(Figure(*busy, "gpu.busy_share") == doctest::Approx(0.237).epsilon(0.15));  // busy ~24% over the steps

  auto cc_amp = LoadTrace(*amp);
  REQUIRE(cc_amp);
  const auto amp_found = cc_amp->TraceOnly();
  CHECK(FindTraceOnly(amp_found, "trace-no-tensor-cores") == nullptr);
}

TEST_CASE("HTA trace_diff/control (A100 DDP): communication-bound") {
  auto trace = SharedTrace("real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz");
  if (!trace) return;
  auto cc = LoadTrace(*trace);
  REQUIRE(cc);
  const auto found = cc->TraceOnly();
  const TraceFinding* comm = FindTraceOnly(found, "trace-communication-bound");
  REQUIRE(comm != nullptr);
  CHECK(Figure(*comm, "communication.share") == doctest::Approx(0.366).epsilon(0.1));  // NCCL 37% of kernel time
}

constexpr std::string_view kResnetScript = R"py(import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader


def main(trainset):
    model = torchvision.models.resnet50().cuda()
    loader = DataLoader(trainset, batch_size=32, shuffle=True)
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    model.train()
    for step, (inputs, labels) in enumerate(loader):
        inputs, labels = inputs.cuda(), labels.cuda()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
)py";

TEST_CASE("torchlint report --lang zh: the PyTorch profiler guide's sections, findings ranked by the time saved") {
  auto trace = SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  if (!trace) return;
  TempFolder dir;
  dir.Write("resnet50_profiler_api.py", kResnetScript);
  RunResult r = RunTorchlint({"report", "resnet50_profiler_api.py", "--trace", trace->string(), "--lang", "zh"},
                             dir.path());
  CHECK(r.exit_code == 0);
  for (std::string_view title : {"# PyTorch 性能分析报告", "## 环境信息", "## Top 10 耗时算子", "## GPU 利用率概览",
                                 "## 显存分析", "## 瓶颈诊断", "## 优化建议（按优先级）"}) {
    CAPTURE(title);
    CHECK(r.out.find(title) != std::string::npos);
  }
  // The 1.9 trace sets the version for TL301, and says so, in Chinese too.
  CHECK(r.err.find("目标 PyTorch 版本 1.9") != std::string::npos);
  // Every sentence is Chinese: the confirmed findings' evidence, the trace-only findings, the notes.
  for (const std::string& run : EnglishRuns(r.out, Markup::kMarkdown)) FAIL_CHECK("English in the report: " << run);
  for (const std::string& run : EnglishRuns(r.err, Markup::kText)) FAIL_CHECK("English on stderr: " << run);
  // 优化建议: the DataLoader fix comes first, with its expected gain and the source line.
  const size_t recs = r.out.find("## 优化建议（按优先级）");
  REQUIRE(recs != std::string::npos);
  const std::string rec_section = r.out.substr(recs);
  const size_t first = rec_section.find("\n1. ");
  REQUIRE(first != std::string::npos);
  const std::string first_item = rec_section.substr(first, rec_section.find("\n2. ") - first);
  CHECK(first_item.find("TL201") != std::string::npos);
  CHECK(first_item.find("预期收益") != std::string::npos);
  CHECK(first_item.find("resnet50_profiler_api.py:9") != std::string::npos);
  CHECK(rec_section.find("TL301") != std::string::npos);
  CHECK(rec_section.find("TL202") != std::string::npos);
  CHECK(r.out.find("已证实") != std::string::npos);
}

// The English fragments of every rule's catalog that are prose (two words or more once the `code`
// spans and placeholders are taken out): none may appear in a Chinese report.
std::vector<std::string> EnglishFragments() {
  std::vector<std::string> out;
  for (const Rule* rule : AllRules()) {
    for (const MessageText& entry : rule->Meta().messages) {
      std::string_view en = entry.en;
      size_t start = 0;
      while (start <= en.size()) {
        const size_t open = std::min(en.find('{', start), en.size());
        const std::string fragment(en.substr(start, open - start));
        std::string prose;  // the fragment without its code spans
        bool in_code = false;
        for (char c : fragment) {
          if (c == '`') in_code = !in_code;
          else if (!in_code) prose += c;
        }
        size_t words = 0;
        for (size_t i = 0; i < prose.size(); ++i) {
          if (std::isalpha(static_cast<unsigned char>(prose[i])) && (i == 0 || prose[i - 1] == ' ')) ++words;
        }
        if (words >= 2) out.push_back(fragment);
        if (open == en.size()) break;
        start = en.find('}', open);
        if (start == std::string_view::npos) break;
        ++start;
      }
    }
  }
  return out;
}

TEST_CASE("torchlint report --lang zh: no rule message or fix title is left in English (markdown and HTML)") {
  auto trace = SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  if (!trace) return;
  TempFolder dir;
  dir.Write("resnet50_profiler_api.py", kResnetScript);
  const std::vector<std::string> fragments = EnglishFragments();
  REQUIRE(fragments.size() > 40);
  for (std::string_view format : {"markdown", "html"}) {
    CAPTURE(format);
    RunResult zh = RunTorchlint({"report", "resnet50_profiler_api.py", "--trace", trace->string(), "--lang", "zh",
                                 "--format", std::string(format)},
                                dir.path());
    RunResult en = RunTorchlint(
        {"report", "resnet50_profiler_api.py", "--trace", trace->string(), "--format", std::string(format)},
        dir.path());
    REQUIRE(zh.exit_code == 0);
    REQUIRE(en.exit_code == 0);
    size_t in_english = 0;
    for (const std::string& fragment : fragments) {
      CAPTURE(fragment);
      if (en.out.find(fragment) != std::string::npos) ++in_english;
      CHECK(zh.out.find(fragment) == std::string::npos);
    }
    // The check can fail: the English report of the same run does show the rules' sentences.
    CHECK(in_english >= 2);
    // TL201's fix, confirmed by this trace, in Chinese.
    CHECK(zh.out.find("添加 `num_workers=4`") != std::string::npos);
  }
}

TEST_CASE("torchlint report --format json: ranked findings with evidence, and the trace's own object") {
  auto trace = SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  if (!trace) return;
  TempFolder dir;
  dir.Write("resnet50_profiler_api.py", kResnetScript);
  RunResult r = RunTorchlint({"report", "resnet50_profiler_api.py", "--trace", trace->string(), "--format", "json"},
                             dir.path());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  // TL201, TL202, TL301, and the fp32 ResNet's TL402 (confirmed by its fp32 conv kernels) and TL404
  // (convolutions ran; whether cuDNN benchmarked is not in a trace).
  REQUIRE(j["findings"].size() == 5);
  CHECK(j["findings"][0]["code"] == "TL201");
  CHECK(j["findings"][1]["code"] == "TL402");
  CHECK(j["findings"][1]["evidence"]["verdict"] == "confirmed");
  CHECK(j["findings"][4]["code"] == "TL404");
  CHECK(j["findings"][4]["evidence"]["verdict"] == "unverifiable");
  CHECK(j["findings"][0]["rank"] == 1);
  CHECK(j["findings"][0]["evidence"]["verdict"] == "confirmed");
  CHECK(j["findings"][0]["evidence"]["share_of_step"].get<double>() == doctest::Approx(0.35).epsilon(0.2));
  double previous = 1e9;
  for (const auto& f : j["findings"]) {
    const double saved = f["evidence"]["saved_ms_per_step"].get<double>();
    CHECK(saved <= previous);
    previous = saved;
  }
  CHECK(j["trace"]["dataloader"]["iterator"] == "single");
  CHECK(j["trace_findings"].is_array());
}

TEST_CASE("torchlint report --format text: the same report for a terminal, coloured only when asked for") {
  auto trace = SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  if (!trace) return;
  TempFolder dir;
  dir.Write("resnet50_profiler_api.py", kResnetScript);
  const std::vector<std::string> base = {"report", "resnet50_profiler_api.py", "--trace", trace->string(), "--format",
                                         "text"};
  RunResult plain = RunTorchlint(base, dir.path());
  REQUIRE(plain.exit_code == 0);
  // Text headings are underlined, not Markdown; the findings are a numbered list with their verdicts.
  CHECK(plain.out.find("## ") == std::string::npos);
  CHECK(plain.out.find("|---|") == std::string::npos);
  CHECK(plain.out.find("Findings in the code, ranked by the time their fix would save\n---") != std::string::npos);
  CHECK(plain.out.find(" 1. TL201 dataloader-num-workers resnet50_profiler_api.py:") != std::string::npos);
  CHECK(plain.out.find("[confirmed]") != std::string::npos);
  CHECK(plain.out.find("\x1b[") == std::string::npos);  // stdout is a file: no colour on auto
  std::vector<std::string> always = base;
  always.insert(always.end(), {"--color", "always"});
  RunResult colored = RunTorchlint(always, dir.path());
  REQUIRE(colored.exit_code == 0);
  CHECK(colored.out.find("\x1b[1;31mconfirmed\x1b[0m") != std::string::npos);
  CHECK(colored.out.find("\x1b[1mTL201\x1b[0m") != std::string::npos);
  // Markdown never takes colour, whatever --color says.
  RunResult md = RunTorchlint({"report", "resnet50_profiler_api.py", "--trace", trace->string(), "--color", "always"},
                              dir.path());
  REQUIRE(md.exit_code == 0);
  CHECK(md.out.find("\x1b[") == std::string::npos);
  CHECK(md.out.find("## ") != std::string::npos);
}

TEST_CASE("torchlint report --select TL2 train.py: the script after a selector stays a script") {
  auto trace = SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  if (!trace) return;
  TempFolder dir;
  dir.Write("train.py", kResnetScript);
  RunResult r = RunTorchlint({"report", "--select", "TL2", "train.py", "--trace", trace->string(), "--format", "json"},
                             dir.path());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["findings"].size() == 2);  // TL201 and TL202; TL301 is not selected
  for (const auto& f : j["findings"]) CHECK(f["code"].get<std::string>().starts_with("TL2"));
}

TEST_CASE("torchlint report: an unreadable trace is a one-line error and exit 2") {
  TempFolder dir;
  dir.Write("train.py", kResnetScript);
  dir.Write("bad.json", "{\"traceEvents\": [ {\"ph\": ");
  RunResult r = RunTorchlint({"report", "train.py", "--trace", "missing.json"}, dir.path());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--trace") != std::string::npos);
}

}  // namespace
}  // namespace tl::test
