// `torchlint trace annotate` end to end, through the built binary: the copy holds the input byte for
// byte plus one inserted run of events, parses as JSON, reads back as the same trace, and its markers sit
// on the events that prove each finding (syncs, .item(), DataLoader waits, the kernel each sync waited
// for, the step windows). Bad input leaves one line on stderr, exit code 2 and no file behind.
#include <zlib.h>

#include <map>
#include <set>
#include <tuple>
#include <nlohmann/json.hpp>

#include "cli_support.h"

using tl::test::ReadText;
using tl::test::RunTorchlint;
using tl::test::TempFolder;

namespace {

using nlohmann::json;

// A trace file's decompressed bytes (gzread reads plain files as they are).
std::string ReadTrace(const std::filesystem::path& file) {
  gzFile gz = gzopen(file.string().c_str(), "rb");
  REQUIRE(gz != nullptr);
  std::string out;
  std::vector<char> buffer(size_t{1} << 20);
  for (int n = 0; (n = gzread(gz, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0;)
    out.append(buffer.data(), n);
  gzclose(gz);
  return out;
}

std::string Event(std::string_view cat, std::string_view name, int64_t ts, int64_t dur, int tid,
                  std::string_view args = "{}") {
  return fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": 1, "tid": {}, "ts": {}, "dur": {}, "args": {}}})", cat, name,
      tid, ts, dur, args);
}

// Three ProfilerSteps of 1000 µs (the last partial): per step a DataLoader wait, two kernels (ending at
// +400 and +600 µs), a cudaStreamSynchronize from +500 to +620 µs (so it waited for the second kernel)
// and an aten::item that encloses a DtoH copy and its sync.
std::string SmallTrace() {
  std::vector<std::string> ev;
  int correlation = 1;
  for (int s = 0; s < 3; ++s) {
    const int64_t base = 1000 + s * 1000;
    ev.push_back(Event("user_annotation", fmt::format("ProfilerStep#{}", s), base, 1000, 1));
    ev.push_back(
        Event("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", base + 1, 100, 1));
    for (int64_t start : {200, 450}) {
      ev.push_back(Event("cuda_runtime", "cudaLaunchKernel", base + start - 100, 5, 1,
                         fmt::format(R"({{"correlation": {}}})", correlation)));
      ev.push_back(Event("kernel", fmt::format("gemm_{}", start), base + start, start == 200 ? 200 : 150, 7,
                         fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}}})", correlation)));
      ++correlation;
    }
    ev.push_back(Event("cuda_runtime", "cudaStreamSynchronize", base + 500, 120, 1));
    ev.push_back(Event("cpu_op", "aten::item", base + 700, 60, 1));
    ev.push_back(Event("cpu_op", "aten::_local_scalar_dense", base + 701, 58, 1));
    ev.push_back(Event("cuda_runtime", "cudaMemcpyAsync", base + 705, 40, 1,
                       fmt::format(R"({{"correlation": {}}})", correlation)));
    ev.push_back(Event("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", base + 710, 10, 7,
                       fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}, "bytes": 4}})", correlation)));
    ++correlation;
  }
  std::string out = R"({"schemaVersion": 1, "traceEvents": [)";
  for (size_t i = 0; i < ev.size(); ++i) out += (i ? ",\n" : "\n") + ev[i];
  return out + "\n], \"traceName\": \"small [\\\"]\"}\n";
}

// The output must be the input with one run of bytes inserted; returns that run.
std::string InsertedRun(const std::string& in, const std::string& out) {
  REQUIRE(out.size() > in.size());
  const size_t inserted = out.size() - in.size();
  size_t p = 0;
  while (p < in.size() && in[p] == out[p]) ++p;
  INFO("the copy differs from the input at byte " << p);
  CHECK(out.compare(0, p, in, 0, p) == 0);
  CHECK(out.compare(p + inserted, std::string::npos, in, p, std::string::npos) == 0);
  return out.substr(p, inserted);
}

struct Marked {
  std::vector<json> steps, syncs, items, dataloader, findings;
  std::map<int64_t, json> flow_start, flow_end;
  size_t ours = 0;
};

// The torchlint process's events, by track, and the flows (which sit on the trace's own tracks).
Marked Markers(const json& events) {
  Marked m;
  std::optional<int64_t> pid;
  for (const auto& e : events) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name" &&
        e["args"].value("name", "") == "torchlint") {
      pid = e["pid"].get<int64_t>();
    }
  }
  REQUIRE(pid.has_value());
  for (const auto& e : events) {
    if (e.value("cat", "") == "torchlint.sync") {
      CHECK(e["bp"] == "e");
      (e["ph"] == "s" ? m.flow_start : m.flow_end)[e["id"].get<int64_t>()] = e;
      continue;
    }
    if (!e["pid"].is_number() || e["pid"].get<int64_t>() != *pid) continue;
    ++m.ours;
    if (e["ph"] != "X") continue;
    const int64_t tid = e["tid"].get<int64_t>();
    (tid == 1 ? m.steps : tid == 2 ? m.syncs : tid == 3 ? m.items : tid == 4 ? m.dataloader : m.findings).push_back(e);
  }
  return m;
}

using Key = std::tuple<std::string, std::string, double>;  // pid and tid as JSON text, ts
Key KeyOf(const json& e) { return {e["pid"].dump(), e["tid"].dump(), e["ts"].get<double>()}; }
double End(const json& e) { return e["ts"].get<double>() + e["dur"].get<double>(); }

// Checks every marker against the events of the input: slices copy their event's name, ts and dur,
// each flow runs from a sync call to the last kernel that ended by the sync's end.
void CheckMarkers(const json& input, const Marked& m) {
  std::map<Key, json> by_place;
  std::set<std::tuple<std::string, double, double>> slices;
  std::vector<json> kernels;
  std::map<int64_t, json> profiler_steps;
  for (const auto& e : input["traceEvents"]) {
    if (e.value("ph", "") != "X" || !e.contains("ts") || !e.contains("dur")) continue;
    const std::string name = e.value("name", "");
    by_place[KeyOf(e)] = e;
    slices.insert({name, e["ts"].get<double>(), e["dur"].get<double>()});
    if (e.value("cat", "") == "kernel" || e.value("cat", "") == "Kernel") kernels.push_back(e);
    if (name.starts_with("ProfilerStep#")) profiler_steps[std::stoll(name.substr(13))] = e;
  }
  for (const auto* list : {&m.syncs, &m.items, &m.dataloader}) {
    for (const auto& e : *list) {
      INFO(e.dump());
      CHECK(slices.count({e["name"].get<std::string>(), e["ts"].get<double>(), e["dur"].get<double>()}) == 1);
      CHECK(e["args"].contains("code"));
    }
  }
  for (const auto& e : m.syncs) CHECK(e["args"]["code"] == "TL101");
  for (const auto& e : m.items) CHECK(e["args"]["code"] == "TL101");
  for (const auto& e : m.dataloader) CHECK(e["args"]["code"] == "TL201");
  CHECK(m.flow_start.size() == m.flow_end.size());
  for (const auto& start : m.flow_start) {
    const int64_t id = start.first;
    const json& s = start.second;
    INFO("flow " << id);
    REQUIRE(m.flow_end.count(id) == 1);
    const json& f = m.flow_end.at(id);
    CHECK(f["cat"] == s["cat"]);
    REQUIRE(by_place.count(KeyOf(s)) == 1);
    REQUIRE(by_place.count(KeyOf(f)) == 1);
    const json& sync = by_place.at(KeyOf(s));
    const json& kernel = by_place.at(KeyOf(f));
    const std::string sync_name = sync["name"];
    CHECK((sync_name.find("Synchronize") != std::string::npos || sync_name.starts_with("cudaMemcpy")));
    CHECK(slices.count({sync_name, sync["ts"].get<double>(), sync["dur"].get<double>()}) == 1);
    CHECK((kernel.value("cat", "") == "kernel" || kernel.value("cat", "") == "Kernel"));
    CHECK(End(kernel) <= End(sync));
    // No other kernel ended later and still by the sync's end.
    for (const auto& k : kernels) {
      if (End(k) <= End(sync)) CHECK(End(k) <= End(kernel));
    }
  }
  // Each step slice lies over its ProfilerStep: from its start (or the previous window's end) to at least
  // its end (the window takes in the GPU work the step launched).
  for (const auto& e : m.steps) {
    const int64_t n = e["args"]["step"].get<int64_t>();
    if (profiler_steps.count(n) == 0) continue;
    const json& p = profiler_steps.at(n);
    CHECK(e["ts"].get<double>() >= p["ts"].get<double>());
    CHECK(e["ts"].get<double>() <= End(p));
    CHECK(End(e) >= End(p));
    CHECK(e["dur"].get<double>() == doctest::Approx(e["args"]["duration_ms"].get<double>() * 1000.0));
  }
}

json TraceJson(const std::filesystem::path& file) {
  auto r = RunTorchlint({"trace", "--format", "json", file.string()}, tl::test::SourceDir());
  REQUIRE(r.exit_code <= 1);
  return json::parse(r.out);
}

// Runs annotate and checks that nothing but the output (no temp file) appeared in its folder.
tl::test::RunResult Annotate(const std::filesystem::path& in, const std::filesystem::path& out) {
  return RunTorchlint({"trace", "annotate", in.string(), "-o", out.string()}, tl::test::SourceDir());
}

size_t FilesIn(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("trace annotate: a small trace gets its markers on the right events") {
  TempFolder dir;
  const auto in = dir.Write("small.json", SmallTrace());
  const auto out = dir.path() / "small.annotated.json";
  auto r = Annotate(in, out);
  INFO(r.Transcript());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("2 step slices, 2 syncs, 2 .item() calls, 2 DataLoader waits, 2 flows") != std::string::npos);
  CHECK(FilesIn(dir.path()) == 2);
  const std::string input = ReadText(in);
  const std::string output = ReadText(out);
  const std::string run = InsertedRun(input, output);
  CHECK(run.starts_with(",\n{"));
  REQUIRE(json::accept(output));
  const json annotated = json::parse(output);
  CHECK(annotated["traceName"] == "small [\"]");
  const Marked m = Markers(annotated["traceEvents"]);
  CHECK(m.steps.size() == 2);
  CHECK(m.syncs.size() == 2);
  CHECK(m.items.size() == 2);
  CHECK(m.dataloader.size() == 2);
  CHECK(m.flow_start.size() == 2);
  CheckMarkers(json::parse(input), m);
  // The exact places: step 0 is 1000-2000 µs, its sync 1500-1620, the kernel it waited for gemm_450.
  CHECK(m.steps[0]["ts"] == 1000);
  CHECK(m.steps[0]["dur"] == 1000);
  CHECK(m.steps[1]["ts"] == 2000);
  CHECK(m.syncs[0]["ts"] == 1500);
  CHECK(m.syncs[0]["dur"] == 120);
  CHECK(m.syncs[0]["args"]["waited_for"] == "gemm_450");
  CHECK(m.flow_end.begin()->second["ts"] == 1450);
  CHECK(m.flow_end.begin()->second["tid"] == 7);
  CHECK(m.items[0]["args"]["syncs"] == true);
  // What the trace alone shows: the GPU is busy 350 of each 1000 µs, so a low-GPU-busy finding, drawn
  // over the analysed steps on a track of its own.
  REQUIRE_FALSE(m.findings.empty());
  bool low_busy = false;
  for (const auto& f : m.findings) {
    INFO(f.dump());
    CHECK(f["args"]["verdict"] == "trace-only");
    CHECK(f["ts"] == m.steps.front()["ts"]);
    CHECK(End(f) == doctest::Approx(End(m.steps.back())));
    low_busy = low_busy || f["args"]["code"] == "trace-low-gpu-busy";
  }
  CHECK(low_busy);
  CHECK(r.out.find(fmt::format("{} trace findings", m.findings.size())) != std::string::npos);
  // Read back by our own reader: the same steps.
  CHECK(TraceJson(out)["steps"]["count"] == TraceJson(in)["steps"]["count"]);
  // An output named .gz is the same copy, deflated.
  const auto gz = dir.path() / "small.annotated.json.gz";
  REQUIRE(Annotate(in, gz).exit_code == 0);
  CHECK(ReadText(gz).starts_with("\x1f\x8b"));
  CHECK(ReadTrace(gz) == output);
}

TEST_CASE("trace annotate: an empty traceEvents array gets no leading comma") {
  TempFolder dir;
  const auto in = dir.Write("empty.json", R"({"traceEvents": [ ], "x": 1})");
  const auto out = dir.path() / "out.json";
  auto r = Annotate(in, out);
  INFO(r.Transcript());
  REQUIRE(r.exit_code == 0);
  const std::string output = ReadText(out);
  InsertedRun(ReadText(in), output);
  REQUIRE(json::accept(output));
  CHECK(json::parse(output)["x"] == 1);

  // The legacy export, a bare list of events: the markers go at its end.
  const auto list = dir.Write("list.json", R"([{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 2}])");
  const auto list_out = dir.path() / "list.out.json";
  REQUIRE(Annotate(list, list_out).exit_code == 0);
  const std::string copy = ReadText(list_out);
  CHECK(InsertedRun(ReadText(list), copy).starts_with(",\n{"));
  REQUIRE(json::accept(copy));
  CHECK(json::parse(copy).is_array());
  CHECK(json::parse(copy)[0]["name"] == "aten::add");
}

TEST_CASE("trace annotate: a real GPU trace with syncs over several steps") {
  auto file = tl::test::SharedTrace("real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz");
  if (!file) return;
  TempFolder dir;
  const auto out = dir.path() / "control.annotated.json";
  auto r = Annotate(*file, out);
  INFO(r.Transcript());
  REQUIRE(r.exit_code == 0);
  const std::string input = ReadTrace(*file);
  const std::string output = ReadText(out);
  InsertedRun(input, output);
  REQUIRE(json::accept(output));
  const json in_json = json::parse(input);
  const json annotated = json::parse(output);
  const Marked m = Markers(annotated["traceEvents"]);
  CHECK(annotated["traceEvents"].size() == in_json["traceEvents"].size() + m.ours + 2 * m.flow_start.size());
  // Measured: 5 analysed steps, 10 sync calls and 5 .item() calls a step, one DataLoader call a step.
  CHECK(m.steps.size() == 5);
  CHECK(m.syncs.size() == 50);
  CHECK(m.items.size() == 25);
  CHECK(m.dataloader.size() == 5);
  CHECK(m.flow_start.size() == 50);
  CheckMarkers(in_json, m);
  const json before = TraceJson(*file);
  const json after = TraceJson(out);
  CHECK(after["steps"]["count"] == before["steps"]["count"]);
  CHECK(after["syncs"] == before["syncs"]);
}

TEST_CASE("trace annotate: bad input is one line, exit code 2 and no file") {
  TempFolder dir;
  const std::string good = SmallTrace();
  struct Case {
    std::string name;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"truncated.json", good.substr(0, good.size() / 2)},
      {"binary.json", std::string("\x7f\x45LF\x02\x01\x01\0\0\0\xff\xfe", 12)},
      {"no_events.json", R"({"schemaVersion": 1, "deviceProperties": []})"},
      {"malformed.json", R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}]]]})"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const auto in = dir.Write("in/" + c.name, c.text);
    const auto out = dir.path() / "out" / c.name;
    std::filesystem::create_directories(out.parent_path());
    auto r = Annotate(in, out);
    INFO(r.Transcript());
    CHECK(r.exit_code == 2);
    CHECK(r.err.starts_with("torchlint: error: "));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(FilesIn(out.parent_path()) == 0);
  }
  const auto in = dir.Write("good.json", good);
  for (const auto& out : {dir.path() / "missing" / "out.json", in, dir.path()}) {
    INFO(out.string());
    auto r = Annotate(in, out);
    INFO(r.Transcript());
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(!std::filesystem::exists(dir.path() / "missing"));
    CHECK(ReadText(in) == good);
  }
  // A folder of ranks: one file at a time.
  auto r = Annotate(dir.path() / "in", dir.path() / "folder.json");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("give one rank's file") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.path() / "folder.json"));
}
