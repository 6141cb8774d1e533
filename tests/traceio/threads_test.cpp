// The reader parses batches of events on worker threads and commits them in file order, so a trace
// must read exactly the same with one thread or many, and with any chunk size. These tests compare a
// digest of everything the store holds (every column, side record, track, flow, memory event, warning
// and count) across thread counts and chunk sizes, on hostile hand-made traces and on the real ones.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/paths.h"
#include "tests/traceio/helpers.h"

using namespace tl::trace;
using namespace tl::trace::testing;

namespace {

// FNV-1a over a canonical text of each record: a mismatch names the first event that differs.
struct Hasher {
  uint64_t h = 1469598103934665603ULL;
  Hasher& operator<<(std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    h ^= 0xff;  // field separator
    h *= 1099511628211ULL;
    return *this;
  }
  Hasher& operator<<(int64_t v) { return *this << std::string_view(fmt::format("{}", v)); }
};

struct Digest {
  std::vector<uint64_t> events;  // one hash per event, in store order
  uint64_t rest = 0;             // tracks, flows, memory, metadata, warnings, stats
  std::string error;
};

Digest DigestOf(const ReadResult& r) {
  Digest d;
  Hasher rest;
  rest << r.error;
  for (const auto& w : r.warnings) rest << w;
  rest << static_cast<int64_t>(r.stats.bytes) << static_cast<int64_t>(r.stats.events)
       << static_cast<int64_t>(r.stats.bad_events) << static_cast<int64_t>(r.stats.skipped_events)
       << static_cast<int64_t>(r.stats.truncated) << static_cast<int64_t>(r.stats.truncated_at)
       << static_cast<int64_t>(r.stats.last_complete);
  if (!r.ok()) {
    d.error = r.error;
    d.rest = rest.h;
    return d;
  }
  const Trace& t = *r.trace;
  const auto& s = t.strings();
  for (uint32_t i = 0; i < t.size(); ++i) {
    Hasher e;
    e << t.ts(i) << t.dur(i) << t.name(i) << std::string_view(KindName(t.kind(i)))
      << static_cast<int64_t>(t.track_index(i)) << static_cast<int64_t>(t.parent(i)) << t.correlation(i)
      << t.external_id(i) << static_cast<int64_t>(t.link(i));
    if (const GpuInfo* g = t.gpu(i)) e << "gpu" << int64_t{g->device} << int64_t{g->stream} << g->bytes;
    if (const PythonFrame* p = t.python(i)) e << "py" << p->python_id << p->parent_id << s.Get(p->call_from);
    if (const OpInfo* o = t.op(i)) {
      e << "op" << s.Get(o->call_stack) << s.Get(o->input_type);
      for (const auto& shape : t.InputDims(i)) {
        e << "shape";
        for (int64_t v : shape) e << v;
      }
    }
    d.events.push_back(e.h);
  }
  for (const Track& tr : t.tracks()) {
    rest << s.Get(tr.pid) << s.Get(tr.tid) << s.Get(tr.thread_name) << int64_t{tr.gpu} << int64_t{tr.device}
         << int64_t{tr.begin} << int64_t{tr.end};
  }
  for (const FlowPoint& f : t.flows()) {
    rest << f.id << f.ts << int64_t{f.track} << int64_t{f.start} << int64_t{f.ac2g};
  }
  for (const MemoryEvent& m : t.memory_events()) {
    rest << m.ts << int64_t{m.device_type} << int64_t{m.device_id} << m.bytes << m.total_allocated.value_or(-7)
         << m.total_reserved.value_or(-7);
  }
  const auto& md = t.metadata();
  rest << md.path << static_cast<int64_t>(md.format) << md.base_time_ns.value_or(-7) << md.pytorch_version
       << md.cuda_runtime_version << md.cuda_driver_version << md.hip_runtime_version << int64_t{md.rank.value_or(-7)}
       << int64_t{md.world_size.value_or(-7)} << md.backend << int64_t{md.record_shapes} << int64_t{md.profile_memory}
       << int64_t{md.with_stack} << int64_t{md.with_flops};
  for (const DeviceProperties& dp : md.devices) {
    rest << "device" << int64_t{dp.id} << dp.name << dp.total_global_mem << int64_t{dp.compute_major}
         << int64_t{dp.compute_minor} << int64_t{dp.num_sms};
  }
  d.rest = rest.h;
  return d;
}

void CheckSame(const Digest& a, const Digest& b, const std::string& what) {
  INFO(what);
  CHECK(a.error == b.error);
  CHECK(a.rest == b.rest);
  REQUIRE(a.events.size() == b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    if (a.events[i] != b.events[i]) {
      FAIL_CHECK("event " << i << " differs");
      break;
    }
  }
}

ReadOptions Options(unsigned threads, size_t chunk) {
  ReadOptions o;
  o.threads = threads;
  o.chunk_bytes = chunk;
  return o;
}

// One thread, the general splitter and the general event parser: the reference every fast path matches.
ReadOptions GeneralOptions(size_t chunk) {
  ReadOptions o = Options(1, chunk);
  o.split_runs = false;
  o.fast_events = false;
  return o;
}

// A trace with every kind of element the reader treats specially, in many chunks' worth of events.
std::string HostileTrace(int repeats) {
  std::vector<std::string> ev;
  ev.push_back(R"({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main \"loop\""}})");
  for (int i = 0; i < repeats; ++i) {
    const std::string ts = fmt::format("{}.{:03d}", 1000 + i * 10, i % 1000);
    ev.push_back(X("cpu_op", fmt::format("op\\\"{}\\u00e9", i), ts, "2.5", "1", "1",
                   fmt::format(R"({{"External id": {}, "Input type": ["float"], "Input Dims": [[{}, 3]]}})", i, i)));
    ev.push_back(X("cpu_op", "aten::mm", ts, "1", "1", "1",
                   R"({"Input Dims": [[8, 50257], [50257, 7]], "Input type": ["c10::Half", "c10::Half"]})"));
    ev.push_back(
        X("python_function", fmt::format("train.py({}): step", i), ts, "3", "1", "\"thread 1\"",
          fmt::format(R"({{"Python id": {}, "Python parent id": {}, "CallFrom": "train.py:{}"}})", i, i - 1, i)));
    ev.push_back(X("kernel", "volta_sgemm_128x64_nn", ts, "4", "0", "7",
                   fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}}})", i)));
    ev.push_back(X("cuda_runtime", "cudaLaunchKernel", ts, "0.5", "1", "1",
                   fmt::format(R"({{"correlation": {}, "external id": {}}})", i, i)));
    ev.push_back(
        fmt::format(R"({{"ph": "s", "id": {}, "pid": 1, "tid": 1, "ts": {}, "cat": "ac2g", "name": "f"}})", i, ts));
    ev.push_back(
        fmt::format(R"({{"ph": "f", "id": {}, "pid": 0, "tid": 7, "ts": {}, "cat": "ac2g", "name": "f"}})", i, ts));
    ev.push_back(fmt::format(
        R"({{"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": {}, "args": {{"Device Type": 1, "Device Id": 0, "Bytes": {}, "Total Allocated": {}, "Total Reserved": 99999}}}})",
        ts, i, i * 4));
    // What the fast event parser gives up on (an escaped key, an escaped number string) beside what it
    // reads (a number as a name, times as strings).
    ev.push_back(fmt::format(
        R"({{"ph": "X", "c\u0061t": "cpu_op", "name": {}, "pid": "1", "tid": 1, "ts": "{}", "dur": "2"}})", i, ts));
    ev.push_back(fmt::format(
        R"({{"ph": "X", "cat": "cpu_op", "name": "n", "pid": 1, "tid": 1, "ts": "{}\u0030", "dur": 2}})", ts));
    // A damaged array inside an event: cut at the event's own '}' by both splitters.
    if (i % 10 == 0) {
      ev.push_back(
          R"({"ph": "X", "cat": "cpu_op", "name": "unclosed", "ts": 1, "dur": 1, "args": {"Input Dims": [[1, 2}})");
    }
    // Brackets, escaped quotes and backslashes inside strings, at every offset within a 64-byte block.
    ev.push_back(
        X("cpu_op", fmt::format("k{}\\\\\\\"{{[}}]\\\\", std::string(static_cast<size_t>(i % 70), 'x')), ts, "1"));
    switch (i % 9) {
      case 0: ev.push_back("[1, 2]"); break;                                           // not an object
      case 1: ev.push_back("\"stray\""); break;                                        // not an object
      case 2: ev.push_back(R"({"ph": "X", "name": "bad", "ts": , "dur": 1})"); break;  // invalid JSON
      case 3:
        ev.push_back("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"bad\xff\xfe utf8\", \"ts\": 5, \"dur\": 1}");
        break;
      case 4: ev.push_back(R"({"ph": "X", "name": "no ts", "dur": 1})"); break;
      case 5: ev.push_back(R"({"ph": "X", "name": "far", "ts": 1e30, "dur": 1})"); break;
      case 6: ev.push_back(X("cpu_op", std::string(20000, 'w'), ts, "1")); break;  // larger than a small chunk
      case 7: ev.push_back(R"({"ph": "B", "name": "begin", "ts": 1})"); break;
      default: ev.push_back(X("cpu_op", "ProfilerStep#" + std::to_string(i), ts, "9", "1", "1", "null")); break;
    }
  }
  return TraceJson(ev, R"("baseTimeNanoseconds": 1000, )");
}

}  // namespace

TEST_CASE("threads: a hostile trace reads the same with 1, 2, 3 and 8 threads and any chunk size") {
  const std::string json = HostileTrace(600);
  const Digest serial = DigestOf(ReadString(json, Options(1, 4096)));
  REQUIRE(serial.error.empty());
  CHECK(serial.events.size() > 3000);
  for (unsigned threads : {2u, 3u, 8u}) {
    for (size_t chunk : {size_t{4096}, size_t{65536}, size_t{1} << 20}) {
      CheckSame(serial, DigestOf(ReadString(json, Options(threads, chunk))),
                fmt::format("threads {} chunk {}", threads, chunk));
    }
  }
  CheckSame(serial, DigestOf(ReadString(json, Options(1, 1 << 20))), "serial, 1 MiB chunks");
  // The fast run splitter and the fast event parser give exactly what the general ones give.
  for (size_t chunk : {size_t{4096}, size_t{65536}}) {
    CheckSame(serial, DigestOf(ReadString(json, GeneralOptions(chunk))),
              fmt::format("general splitter and parser, chunk {}", chunk));
  }
}

TEST_CASE("threads: the figures of the hostile trace are right, not only the same") {
  const std::string json = HostileTrace(90);
  for (unsigned threads : {1u, 4u}) {
    INFO("threads " << threads);
    ReadResult r = ReadString(json, Options(threads, 4096));
    REQUIRE(r.ok());
    // 10 of each bad kind (i % 9 == 0..5): two not-objects, invalid JSON, no ts, ts too far; the bad UTF-8
    // event is repaired, not dropped. And 9 events with an unclosed '[' (i % 10 == 0).
    CHECK(r.stats.bad_events == 59);
    CHECK(r.stats.truncated == false);
    bool sanitized_warning = false, begin_end_warning = false;
    for (const auto& w : r.warnings) {
      sanitized_warning |= w.find("10 events held invalid UTF-8") != std::string::npos;
      begin_end_warning |= w.find("ignored 10 B/E") != std::string::npos;
    }
    CHECK(sanitized_warning);
    CHECK(begin_end_warning);
    const Trace& t = *r.trace;
    // Escaped names are decoded, each its own (the arena keeps them past the next event's parse).
    for (int i : {0, 1, 45, 89}) CHECK(Find(t, fmt::format("op\"{}\u00e9", i)) != kNoIndex);
    CHECK(t.tracks().front().thread_name != 0);
    CHECK(t.strings().Get(t.tracks().front().thread_name) == "main \"loop\"");
    // GEMM shapes are kept with their dtype; other ops' shapes are not.
    uint32_t mm = Find(t, "aten::mm");
    REQUIRE(mm != kNoIndex);
    REQUIRE(t.op(mm) != nullptr);
    CHECK(t.strings().Get(t.op(mm)->input_type) == "c10::Half");
    CHECK(t.InputDims(mm) == std::vector<std::vector<int64_t>>{{8, 50257}, {50257, 7}});
    CHECK(t.op(Find(t, "op\"0\u00e9")) == nullptr);
    CHECK(t.memory_events().size() == 90);
    CHECK(t.flows().size() == 180);
  }
}

TEST_CASE(
    "threads: a trace cut anywhere reads the same with 1 and 3 threads, and with the general splitter and parser") {
  const std::string json = HostileTrace(120);
  for (size_t cut : {json.size() / 7, json.size() / 3, json.size() / 2 + 1, json.size() - 2}) {
    const std::string part = json.substr(0, cut);
    const Digest serial = DigestOf(ReadString(part, Options(1, 4096)));
    CheckSame(serial, DigestOf(ReadString(part, Options(3, 4096))), fmt::format("cut at {}", cut));
    CheckSame(serial, DigestOf(ReadString(part, GeneralOptions(4096))),
              fmt::format("cut at {}, general splitter and parser", cut));
    ReadResult r = ReadString(part, Options(3, 4096));
    REQUIRE(r.ok());
    CHECK(r.stats.truncated);
    CHECK(r.stats.last_complete <= cut);
  }
}

TEST_CASE("threads: every shared real and CPU trace reads the same serially and in parallel") {
  auto dir = tl::test::SharedTraces("serial/parallel equality on the shared traces");
  if (!dir) return;
  int compared = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(*dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string path = entry.path().string();
    if (!path.ends_with(".json") && !path.ends_with(".json.gz")) continue;
    const Digest serial = DigestOf(ReadTraceFile(path, Options(1, 1 << 20)));
    CheckSame(serial, DigestOf(ReadTraceFile(path, Options(3, 65536))), path);
    CheckSame(serial, DigestOf(ReadTraceFile(path, GeneralOptions(1 << 20))), path + " (general splitter and parser)");
    ++compared;
  }
  CHECK(compared >= 20);
  MESSAGE("compared " << compared << " shared traces");
}
