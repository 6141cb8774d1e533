// The hand-off to Nsight Compute: the kernels picked on real traces, their class, the exact command for a
// known kernel, regexes checked with std::regex against the names they were built from and against
// NVIDIA's spelling of the same kernels (the nsys exports keep both the mangled name, which GNU's
// demangler turns into Kineto's spelling, and NVIDIA's demangled one), shell quoting checked by a real
// shell, the Chinese rendering, and no section for CPU-only or ROCm traces.
#include <cxxabi.h>
#include <sqlite3.h>
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "report/html_report.h"
#include "report/trace_report.h"
#include "tests/support/english_runs.h"
#include "tests/support/paths.h"
#include "tests/traceio/helpers.h"
#include "traceio/analyses/window.h"
#include "traceio/analysis.h"
#include "traceio/nsys_reader.h"
#include "traceio/reader.h"

namespace tl::trace {
namespace {

bool Search(const NcuNamePattern& p, const std::string& name) {
  return std::regex_search(name, std::regex(p.regex, std::regex::ECMAScript));
}

struct Loaded {
  ReadResult read;
  TraceAnalysis analysis;
};

std::optional<Loaded> Load(const std::string& relative) {
  auto path = test::SharedTrace(relative);
  if (!path) return std::nullopt;
  Loaded l;
  l.read = ReadTraceFile(path->string());
  REQUIRE_MESSAGE(l.read.ok(), l.read.error);
  l.analysis = Analyze(*l.read.trace);
  return l;
}

// What a POSIX shell makes of `line`: its words, one per line, as printf prints them.
std::vector<std::string> ShellWords(const std::string& line) {
  const std::string script = "printf '%s\\n' " + line;
  const std::string command = "sh -c " + ShellQuote(script);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe.get())) out.append(buf, n);
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t nl = out.find('\n'); nl != std::string::npos; nl = out.find('\n', start)) {
    words.push_back(out.substr(start, nl - start));
    start = nl + 1;
  }
  return words;
}

// The GNU demangler's spelling (Kineto's) of a mangled name.
std::string GnuDemangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : std::string();
}

// (mangled, NVIDIA-demangled) kernel names of an nsys export, read with SQLite.
std::vector<std::pair<std::string, std::string>> NsysKernelNames(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> out;
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  const char* sql =
      "SELECT DISTINCT m.value, d.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds m ON k.mangledName = m.id "
      "JOIN StringIds d ON k.demangledName = d.id";
  REQUIRE(sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                     reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

const NcuKernel* FindKernel(const NcuHandoff& n, std::string_view prefix) {
  for (const auto& k : n.kernels) {
    if (k.name.starts_with(prefix)) return &k;
  }
  return nullptr;
}

// The part of a rendering from the hand-off's title to the next section.
std::string NcuSection(const std::string& text, std::string_view title, std::string_view next) {
  const size_t at = text.find(title);
  if (at == std::string::npos) return {};
  const size_t end = text.find(next, at + title.size());
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

TEST_CASE("ncu: plain and mangled names match exactly, with their base") {
  const NcuNamePattern triton = NcuPatternFor("triton_poi_fused_add_0");
  CHECK(triton.base == NameBase::kFunction);
  CHECK(triton.regex == "^triton_poi_fused_add_0$");
  CHECK(Search(triton, "triton_poi_fused_add_0"));
  CHECK_FALSE(Search(triton, "triton_poi_fused_add_01"));

  const std::string mangled =
      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_";
  const NcuNamePattern m = NcuPatternFor(mangled);
  CHECK(m.base == NameBase::kMangled);
  CHECK(Search(m, mangled));
  CHECK_FALSE(Search(m, mangled + "x"));

  // `.` and `$` are the metacharacters a plain name can hold: escaped, they match only themselves.
  const NcuNamePattern clone = NcuPatternFor("kernel$1.clone");
  CHECK(clone.regex == R"(^kernel\$1\.clone$)");
  CHECK(Search(clone, "kernel$1.clone"));
  CHECK_FALSE(Search(clone, "kernel$1Xclone"));
}

TEST_CASE("ncu: a demangled name with every regex metacharacter is matched by its own pattern") {
  const std::string name = R"(void ns::k<a*, b+, c?, d|e, f[1], g{2}, h$, i^, j\, (k.l), 'm'>(int, float*))";
  const NcuNamePattern p = NcuPatternFor(name);
  CHECK(p.base == NameBase::kDemangled);
  CHECK(Search(p, name));
  // A different word, or an extra template argument, is another kernel.
  CHECK_FALSE(Search(p, R"(void ns::k<a*, b+, c?, d|x, f[1], g{2}, h$, i^, j\, (k.l), 'm'>(int, float*))"));
  CHECK_FALSE(Search(p, R"(void ns::k<a*, b+, c?, d|e, f[1], g{2}, h$, i^, j\, (k.l), 'm', n>(int, float*))"));
  CHECK(NcuPatternMatches(p, name));
  // The command holds it as one shell word, whatever it contains.
  const std::vector<std::string> words = ShellWords(ShellQuote("regex:" + p.regex));
  REQUIRE(words.size() == 1);
  CHECK(words[0] == "regex:" + p.regex);
}

TEST_CASE("ncu: shell quoting survives a quote in the text") {
  for (const std::string text : {"it's", "'", "a'b'c", "$(rm -rf x) `y` \"z\" \\ ; | &", ""}) {
    INFO(text);
    const std::vector<std::string> words = ShellWords(ShellQuote(text));
    REQUIRE(words.size() == 1);
    CHECK(words[0] == text);
  }
  CHECK(ShellQuote("it's") == R"('it'\''s')");
}

TEST_CASE("ncu: hostile names: megabytes long, deeply nested, unclosed") {
  const std::string long_plain(1 << 20, 'k');
  const NcuNamePattern plain = NcuPatternFor(long_plain);
  CHECK(plain.regex.size() == long_plain.size() + 2);
  CHECK_FALSE(NcuPatternMatches(plain, long_plain));  // too long to search, and no crash
  const std::string nested = "void f<" + std::string(100000, '<') + std::string(100000, '(') + ">";
  CHECK(NcuPatternFor(nested).regex.size() < 200);
  const std::string words = "void f<" + std::string(200000, 'a') + ", b, c>(int)";
  CHECK(NcuPatternFor(words).base == NameBase::kDemangled);
  // A trace whose only kernel has such a name still gets its command, and the analysis ends.
  std::vector<std::string> ev = {
      testing::X("user_annotation", "ProfilerStep#3", "0", "1000"),
      testing::X("cuda_runtime", "cudaLaunchKernel", "1", "5", "1", "1", R"({"correlation": 1})"),
      testing::X("kernel", long_plain, "10", "100", "0", "7", R"({"device": 0, "stream": 7, "correlation": 1})"),
      testing::X("user_annotation", "ProfilerStep#4", "1000", "10")};
  auto r = testing::ReadString(testing::TraceJson(ev));
  REQUIRE(r.ok());
  const TraceAnalysis a = Analyze(*r.trace);
  REQUIRE(a.ncu.kernels.size() == 1);
  CHECK(a.ncu.kernels[0].launch_skip == 3);
  CHECK(a.ncu.kernels[0].matched_names == 1);
}

TEST_CASE("ncu: kernel classes") {
  CHECK(ClassifyKernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)") == KernelClass::kCollective);
  CHECK(ClassifyKernel("triton_poi_fused_add_0") == KernelClass::kTriton);
  CHECK(ClassifyKernel("triton__0d1d2d") == KernelClass::kTriton);
  CHECK(ClassifyKernel("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_"
                       "alignc4_execute_kernel__5x_cublas") == KernelClass::kGemm);
  CHECK(ClassifyKernel("volta_sgemm_128x64_nn") == KernelClass::kGemm);
  CHECK(ClassifyKernel("void cudnn::cnn::conv2d_grouped_direct_kernel<float>(int)") == KernelClass::kConvolution);
  CHECK(ClassifyKernel("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw") ==
        KernelClass::kConvolution);
  CHECK(ClassifyKernel("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >(int)") ==
        KernelClass::kReduction);
  CHECK(ClassifyKernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                       "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)") ==
        KernelClass::kElementwise);
  CHECK(ClassifyKernel("my_stencil_kernel") == KernelClass::kOther);
}

TEST_CASE("ncu: a pattern built from Kineto's spelling matches NVIDIA's spelling of the same kernel (nsys exports)") {
  for (const char* file :
       {"nsys/nsys-ai_h100_2gpu_1s.sqlite", "nsys/nsys-ai_mfu_2gpu_before.sqlite", "nsys/nsys-ai_mock.sqlite"}) {
    auto path = test::SharedTrace(file);
    if (!path) continue;
    INFO(file);
    const auto names = NsysKernelNames(path->string());
    REQUIRE(names.size() >= 2);
    size_t checked = 0, unique = 0;
    for (const auto& spellings : names) {
      const std::string& mangled = spellings.first;
      const std::string& nvidia = spellings.second;
      const std::string gnu = GnuDemangle(mangled);
      if (gnu.empty() || gnu == mangled) continue;  // C linkage: one spelling
      INFO("GNU: " << gnu);
      INFO("NVIDIA: " << nvidia);
      const NcuNamePattern p = NcuPatternFor(gnu);
      CHECK(p.base == NameBase::kDemangled);
      CHECK(Search(p, gnu));
      CHECK(Search(p, nvidia));
      CHECK(Search(NcuPatternFor(nvidia), nvidia));
      CHECK(Search(NcuPatternFor(mangled), mangled));
      size_t matched = 0;
      for (const auto& other : names) matched += Search(p, other.second) ? 1 : 0;
      unique += matched == 1 ? 1 : 0;
      ++checked;
    }
    MESSAGE(std::string(file) << ": " << checked << " C++ kernels, " << unique << " matched by their pattern alone");
    CHECK(checked >= 1);
    // Kernels that differ only in their parameters share a pattern; in these exports none do.
    CHECK(unique == checked);
  }
}

TEST_CASE("ncu: the A100 DDP rank (control): collectives listed without a command, the exact command for add") {
  auto l = Load("real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz");
  if (!l) return;
  const NcuHandoff& n = l->analysis.ncu;
  REQUIRE(n.kernels.size() == 7);
  CHECK(n.basis == SkipBasis::kProfilerStepNumber);
  CHECK(n.steps_before == l->analysis.steps.analysed.front().number);
  CHECK(n.steps_before == 1009);
  // The hottest kernel is NCCL's send/receive, 28.5% of kernel time: no ncu command for it.
  CHECK(n.kernels[0].kind == KernelClass::kCollective);
  CHECK(n.kernels[0].share_of_kernel_time == doctest::Approx(0.285).epsilon(0.01));
  CHECK(n.kernels[0].command.empty());
  CHECK(n.kernels[0].sections.empty());
  size_t profiled = 0;
  for (const auto& k : n.kernels) {
    INFO(k.name);
    if (k.kind == KernelClass::kCollective) continue;
    ++profiled;
    CHECK(Search(k.pattern, k.name));
    CHECK(k.matched_names == 1);
    CHECK(k.command.starts_with("ncu --kernel-name-base demangled --kernel-name 'regex:^(void )?"));
  }
  CHECK(profiled == kNcuMaxKernels);

  const NcuKernel* add = FindKernel(
      n, "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>");
  REQUIRE(add != nullptr);
  CHECK(add->kind == KernelClass::kElementwise);
  // Its launches per analysed step, counted here from the trace.
  const Trace& t = *l->read.trace;
  int64_t launches = 0;
  for (uint32_t g : t.gpu_events()) {
    if (t.kind(g) == EventKind::kKernel && t.name(g) == add->name && StepOfGpuEvent(t, l->analysis.steps, g) >= 0)
      ++launches;
  }
  const auto steps = static_cast<int64_t>(l->analysis.steps.count());
  REQUIRE(steps > 0);
  CHECK(launches % steps == 0);
  CHECK(add->launch_skip == n.steps_before * launches / steps);
  CHECK(
      add->command ==
      R"(ncu --kernel-name-base demangled --kernel-name 'regex:^(void )?\W*at\W*native\W*vectorized_elementwise_kernel\W*(void )?([a-z ]+\)|instance )?-?4[uUlL]*\W*(void )?at\W*native\W*CUDAFunctor_add\W*(void )?float\W*(void )?at\W*detail\W*Array\W*(void )?char\W*(void )?([a-z ]+\)|instance )?-?3[uUlL]*[^\w(]*>[^\w(]*\(' --launch-skip 126125 --launch-count 1 --section SpeedOfLight --section SpeedOfLight_RooflineChart --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables -o ncu_kernel3 python train.py)");
  ;
  // NVIDIA's spelling of the same kernel, as ncu prints it, is matched too.
  CHECK(Search(add->pattern,
               "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, "
               "at::detail::Array<char *, (int)3>>(int, T2, T3)"));
  // And a shell hands ncu the regex unchanged.
  const std::vector<std::string> words = ShellWords(add->command);
  REQUIRE(words.size() >= 5);
  CHECK(words[3] == "--kernel-name");
  CHECK(words[4] == "regex:" + add->pattern.regex);
}

TEST_CASE("ncu: H100 bert: GEMMs first, a plain cuBLAS name matched by its function name") {
  auto l = Load("real/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
  if (!l) return;
  const NcuHandoff& n = l->analysis.ncu;
  REQUIRE(n.kernels.size() == 5);
  CHECK(n.kernels[0].name.starts_with("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm"));
  CHECK(n.kernels[0].kind == KernelClass::kGemm);
  CHECK(n.kernels[0].share_of_kernel_time == doctest::Approx(0.321).epsilon(0.01));
  const NcuKernel* flash = FindKernel(n, "void pytorch_flash::flash_fwd_kernel<");
  REQUIRE(flash != nullptr);
  CHECK(flash->kind == KernelClass::kGemm);
  CHECK(Search(flash->pattern, flash->name));
  const NcuKernel* cublas = FindKernel(n, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
  REQUIRE(cublas != nullptr);
  CHECK(cublas->pattern.base == NameBase::kFunction);
  CHECK(cublas->pattern.regex == "^" + cublas->name + "$");
  CHECK(cublas->sections == std::vector<std::string_view>{"SpeedOfLight", "SpeedOfLight_RooflineChart",
                                                          "ComputeWorkloadAnalysis", "WarpStateStats"});
  const NcuKernel* norm = FindKernel(n, "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<");
  REQUIRE(norm != nullptr);
  CHECK(norm->kind == KernelClass::kReduction);
}

TEST_CASE("ncu: an nsys export without steps: --launch-skip 0, and the report says to raise it") {
  auto path = test::SharedTrace("nsys/nsys-ai_h100_2gpu_1s.sqlite");
  if (!path) return;
  NsysRead read = ReadNsysFile(path->string());
  REQUIRE(read.ok());
  const Trace& t = *read.processes[0].read.trace;
  const TraceAnalysis a = Analyze(t);
  REQUIRE(a.steps.source == StepSource::kWholeTrace);
  const NcuHandoff& n = a.ncu;
  REQUIRE(n.kernels.size() == kNcuMaxKernels);
  CHECK(n.basis == SkipBasis::kNoSteps);
  CHECK(n.steps_before == 0);
  // cuBLAS's fp32 GEMM, 69.4% of kernel time: a plain name, matched whole by its function name.
  CHECK(n.kernels[0].name.starts_with("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8"));
  CHECK(n.kernels[0].share_of_kernel_time == doctest::Approx(0.694).epsilon(0.01));
  CHECK(n.kernels[0].kind == KernelClass::kGemm);
  CHECK(n.kernels[0].pattern.base == NameBase::kFunction);
  for (const auto& k : n.kernels) {
    INFO(k.name);
    CHECK(Search(k.pattern, k.name));
    CHECK(k.launch_skip == 0);
  }
  const NcuKernel* reduce = FindKernel(n, "void at::native::reduce_kernel<(int)512, (int)1,");
  REQUIRE(reduce != nullptr);
  CHECK(reduce->kind == KernelClass::kReduction);
  CHECK(reduce->pattern.base == NameBase::kDemangled);
  const std::string text = RenderReport(BuildReport(t, a, Language::kEnglish), ReportFormat::kText);
  CHECK(text.find("the trace has no steps, so --launch-skip is 0") != std::string::npos);
}

TEST_CASE("ncu: NVTX train_step ranges: 16 steps assumed before the trace, the launches of all matched kernels") {
  // Two steps, each launching `my_kernel` twice and `my_kernel_2` once.
  std::vector<std::string> ev;
  int correlation = 1;
  for (int s = 0; s < 2; ++s) {
    const int base = s * 1000;
    ev.push_back(testing::X("user_annotation", "train_step", std::to_string(base), "900"));
    for (const char* kernel : {"my_kernel", "my_kernel", "my_kernel_2"}) {
      const int at = base + 10 + correlation * 50;
      ev.push_back(testing::X("cuda_runtime", "cudaLaunchKernel", std::to_string(at), "5", "1", "1",
                              fmt::format(R"({{"correlation": {}}})", correlation)));
      ev.push_back(testing::X("kernel", kernel, std::to_string(at + 10), "20", "0", "7",
                              fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}}})", correlation)));
      ++correlation;
    }
  }
  auto r = testing::ReadString(testing::TraceJson(ev));
  REQUIRE(r.ok());
  const TraceAnalysis a = Analyze(*r.trace);
  REQUIRE(a.steps.source == StepSource::kNamedRange);
  REQUIRE(a.ncu.kernels.size() == 2);
  CHECK(a.ncu.basis == SkipBasis::kAssumedSchedule);
  CHECK(a.ncu.steps_before == kAssumedStepsBeforeTrace);
  const NcuKernel& k = a.ncu.kernels[0];
  CHECK(k.name == "my_kernel");
  CHECK(k.kind == KernelClass::kOther);
  CHECK(k.matched_names == 1);  // ^my_kernel$ leaves my_kernel_2 out
  CHECK(k.matched_launches_per_step == doctest::Approx(2.0));
  CHECK(k.launch_skip == 32);
  CHECK(a.ncu.kernels[1].launch_skip == 16);
  const std::string text = RenderReport(BuildReport(*r.trace, a, Language::kEnglish), ReportFormat::kText);
  CHECK(text.find("--launch-skip skips each kernel's launches in 16 steps") != std::string::npos);
}

TEST_CASE("ncu: no hand-off for a CPU-only trace, nor for a ROCm one") {
  auto cpu = Load("real/HolisticTraceAnalysis/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  if (cpu) {
    CHECK(cpu->analysis.ncu.empty());
    CHECK(AnalysisToJson(*cpu->read.trace, cpu->analysis)["ncu"].empty());
    for (Language lang : {Language::kEnglish, Language::kChinese}) {
      const TraceReport r = BuildReport(*cpu->read.trace, cpu->analysis, lang);
      CHECK(r.ncu.empty());
      CHECK(RenderReport(r, ReportFormat::kText).find("Nsight Compute") == std::string::npos);
      CHECK(RenderHtmlReport(r, cpu->analysis, {}).find("id=\"ncu\"") == std::string::npos);
    }
  }
  auto rocm = Load("real/TraceLens/tests/traces/torch_compile_triton/trace.json.gz");
  if (rocm) {
    CHECK(rocm->analysis.kernels.has_kernels());
    CHECK(rocm->analysis.ncu.empty());
  }
}

TEST_CASE("ncu: rendered after the kernel figures, in text, Markdown, HTML and JSON; Chinese without English runs") {
  auto l = Load("real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz");
  if (!l) return;
  const Trace& t = *l->read.trace;
  const auto j = AnalysisToJson(t, l->analysis);
  REQUIRE(j["ncu"].size() == l->analysis.ncu.kernels.size());
  CHECK(j["ncu"][0]["class"] == "collective");
  CHECK(j["ncu"][0]["command"].is_null());
  CHECK(j["ncu"][1]["command"] == l->analysis.ncu.kernels[1].command);
  CHECK(j["ncu"][1]["share_of_kernel_time"].get<double>() ==
        doctest::Approx(l->analysis.ncu.kernels[1].share_of_kernel_time));
  CHECK(j["ncu"][1]["steps_skipped_basis"] == "profiler_step_number");

  const TraceReport en = BuildReport(t, l->analysis, Language::kEnglish);
  const std::string text = RenderReport(en, ReportFormat::kText);
  const size_t gpu = text.find("GPU utilisation"), ncu = text.find("Hand-off to Nsight Compute"),
               memory = text.find("\nMemory\n");
  REQUIRE(ncu != std::string::npos);
  CHECK(gpu < ncu);
  CHECK(ncu < memory);
  // The command stands on a line of its own, as it is to be pasted.
  CHECK(text.find("\n   " + l->analysis.ncu.kernels[1].command + "\n") != std::string::npos);
  const std::string markdown = RenderReport(en, ReportFormat::kMarkdown);
  CHECK(markdown.find("   ```sh\n   " + l->analysis.ncu.kernels[1].command + "\n   ```\n") != std::string::npos);

  const TraceReport zh = BuildReport(t, l->analysis, Language::kChinese);
  const std::string zh_text = RenderReport(zh, ReportFormat::kText);
  const std::string zh_md = RenderReport(zh, ReportFormat::kMarkdown);
  const std::string zh_html = RenderHtmlReport(zh, l->analysis, {});
  for (const auto& section :
       {std::pair{NcuSection(zh_text, "交给 Nsight Compute", "\n显存分析"), test::Markup::kText},
        std::pair{NcuSection(zh_md, "交给 Nsight Compute", "\n## "), test::Markup::kMarkdown},
        std::pair{NcuSection(zh_html, "<section id=\"ncu\">", "</section>"), test::Markup::kHtml}}) {
    const std::string& rendering = section.first;
    const test::Markup markup = section.second;
    REQUIRE_FALSE(rendering.empty());
    CHECK(rendering.find("关注") != std::string::npos);
    const auto runs = test::EnglishRuns(rendering, markup);
    INFO(rendering);
    CHECK(runs.empty());
    for (const auto& run : runs) MESSAGE(run);
  }
}

}  // namespace tl::trace
