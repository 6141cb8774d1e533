// The event parser has two paths: FastParse reads events of Kineto's usual shape straight from their
// text, and gives up on anything else, which the general Parse then reads. The general path alone
// defines the result, so these tests parse odd and ordinary events both ways and require the same
// fields, and check which path each event took: an ordinary event that falls back costs speed, an odd
// one that does not may cost correctness.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "traceio/event_parser.h"

using namespace tl::trace;

namespace {

EventBatch BatchOf(const std::vector<std::string>& events) {
  EventBatch b;
  std::string bytes;
  for (const std::string& e : events) {
    Element el;
    el.begin = bytes.size();
    bytes += e;
    el.end = bytes.size();
    el.offset = el.begin;
    b.elements.push_back(el);
    bytes += ",\n";
  }
  b.bytes.assign(bytes.begin(), bytes.end());
  b.bytes.resize(bytes.size() + simdjson::SIMDJSON_PADDING, '\0');
  return b;
}

std::string Opt(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "none"; }

// Every field of a parse, as text, so that a mismatch shows what differs.
std::string Describe(const ParsedEvent& p, const EventBatch& b) {
  const EventFields& f = p.fields;
  std::string dims;
  for (uint32_t i = f.dims_begin; i < f.dims_end; ++i) dims += std::to_string(b.dims[i]) + ",";
  return fmt::format(
      "error={} sanitized={} ph={} cat={}:{} name={}:{} ts={} dur={} pid={} tid={} id={} ext={} corr={} "
      "dev={} stream={} bytes={} stack={} type={} from={} py={}/{} dims={}:{} mem={}/{}/{}/{}/{} meta={}",
      static_cast<int>(p.error), p.sanitized, f.ph == 0 ? '0' : f.ph, f.has_cat, f.cat, f.has_name, f.name, Opt(f.ts),
      Opt(f.dur), f.pid, f.tid, Opt(f.id), f.external_id, f.correlation, f.gpu.device, f.gpu.stream, f.gpu.bytes,
      f.call_stack, f.input_type, f.call_from, f.python_id, f.python_parent_id, f.has_dims, dims, f.memory.device_type,
      f.memory.device_id, f.memory.bytes, Opt(f.memory.total_allocated), Opt(f.memory.total_reserved), f.meta_name);
}

struct Both {
  std::vector<std::string> fast, general;
  uint64_t fast_count = 0;
};

Both ParseBoth(const std::vector<std::string>& events) {
  Both out;
  EventBatch a = BatchOf(events), b = BatchOf(events);
  EventParser fast(true), general(false);
  fast.ParseBatch(a);
  general.ParseBatch(b);
  CHECK(general.fast_count() == 0);
  out.fast_count = fast.fast_count();
  for (size_t i = 0; i < events.size(); ++i) {
    out.fast.push_back(Describe(a.parsed[i], a));
    out.general.push_back(Describe(b.parsed[i], b));
  }
  return out;
}

}  // namespace

TEST_CASE(
    "event parser: usual events, and odd values it can read, take the fast path and read as the general path reads "
    "them") {
  const std::vector<std::string> usual = {
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::select", "pid": 10564, "tid": 10564,
          "ts": 5172394704053.501, "dur": 1.073
          ,
          "args": {"External id": 1389,"Record function id": 0, "Concrete Inputs": ["", "0", "22"],
                   "Input type": ["float", "Scalar", "Scalar"], "Input Strides": [[256, 16, 1], [], []],
                   "Input Dims": [[32, 16, 16], [], []], "Ev Idx": 1388}})",
      R"({"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 1623142623460111,
          "dur": 12, "args": {"External id": 55, "device": 0, "stream": 7, "correlation": 4096, "bytes": 1024,
          "registers per thread": 128, "grid": [1, 2, 3]}})",
      R"({"ph": "X", "cat": "python_function", "name": "train.py(42): step", "pid": 1, "tid": "thread 1",
          "ts": "17.250", "dur": "3", "args": {"Python id": 7, "Python parent id": 6, "CallFrom": "train.py:41"}})",
      R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 20,
          "args": {"Total Reserved": 2097152, "Total Allocated": 512, "Bytes": -512, "Addr": 94, "Device Id": 0,
          "Device Type": 1}})",
      R"({"ph": "s", "id": 4096, "pid": 1, "tid": 1, "ts": 18, "cat": "ac2g", "name": "ac2g"})",
      R"({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "python3"}})",
      R"({"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
          "args": {"external id": 9, "Call stack": "model.py(12): forward;train.py(40): step"}})",
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 0, "dur": 9,
          "args": null})",
      R"({"ph": "X", "name": 42, "pid": 1, "tid": 1, "ts": -3.5, "dur": 1e3, "args": {"External id": 1.5e3,
          "correlation": "77", "Python id": 18446744073709551615}})",
      R"({"ph": "X", "cat": 7, "name": "n", "ts": 1, "dur": 1, "args": {"name": 3, "Call stack": 5}})",
      R"({"ph": "X", "name": "dup", "name": "dup2", "ts": 1, "ts": 2, "dur": 1})",
  };
  const Both r = ParseBoth(usual);
  CHECK(r.fast_count == usual.size());
  for (size_t i = 0; i < usual.size(); ++i) {
    INFO("event " << i);
    CHECK(r.fast[i] == r.general[i]);
  }
  // And the fields are the right ones, not only the same.
  CHECK(r.fast[0].find("ts=5172394704053501 dur=1073") != std::string::npos);
  CHECK(r.fast[0].find("ext=1389") != std::string::npos);
  CHECK(r.fast[0].find("dims=false:") != std::string::npos);  // not a GEMM: shapes are not kept
  CHECK(r.fast[1].find("corr=4096 dev=0 stream=7 bytes=1024") != std::string::npos);
  CHECK(r.fast[2].find("tid=thread 1") != std::string::npos);
  CHECK(r.fast[2].find("from=train.py:41 py=7/6") != std::string::npos);
  CHECK(r.fast[3].find("mem=1/0/-512/512/2097152") != std::string::npos);
  CHECK(r.fast[4].find("id=4096") != std::string::npos);
  CHECK(r.fast[5].find("meta=python3") != std::string::npos);
  CHECK(r.fast[6].find("stack=model.py(12): forward;train.py(40): step") != std::string::npos);
  CHECK(r.fast[8].find("name=true:42 ts=-3500 dur=1000000") != std::string::npos);
  CHECK(r.fast[8].find("ext=1500 corr=77") != std::string::npos);
  CHECK(r.fast[10].find("name=true:dup2 ts=2000") != std::string::npos);
}

TEST_CASE("event parser: odd events fall back to the general path, which alone defines them") {
  const std::vector<std::string> odd = {
      // Escapes in every kind of string the fast path reads, and in keys.
      R"({"ph": "X", "cat": "cpu_op", "name": "op\"q\u00e9", "ts": 1, "dur": 1})",
      R"({"ph": "X", "c\u0061t": "cpu_op", "n\u0061me": "escaped keys", "ts": 1, "dur": 1})",
      R"({"ph": "\u0058", "cat": "cpu_op", "name": "n", "ts": 1, "dur": 1})",
      R"({"ph": "X", "cat": "cpu\u005fop", "name": "n", "ts": 1, "dur": 1})",
      R"({"ph": "X", "name": "n", "ts": "1\u0032", "dur": 1, "pid": "a\tb", "tid": 1})",
      R"({"ph": "X", "name": "n", "ts": 1, "dur": 1, "args": {"CallFrom": "a\\b.py:3", "External id": "1\u0030"}})",
      R"({"ph": "X", "name": "n", "ts": 1, "dur": 1, "args": {"Ext\u0065rnal id": 5}})",
      R"({"ph": "M", "name": "thread_name", "args": {"name": "bad \q escape"}})",
      // Values of odd types.
      R"({"ph": "X", "name": null, "ts": 1, "dur": 1})",
      R"({"ph": "X", "name": {"a": 1}, "ts": 1, "dur": 1})",
      R"({"ph": "X", "name": "n", "ts": true, "dur": 1})",
      R"({"ph": "X", "name": "n", "ts": 1, "dur": [1]})",
      R"({"ph": "X", "name": "n", "ts": 1, "dur": 1, "pid": null, "tid": false})",
      R"({"ph": "X", "name": "n", "ts": 1, "dur": 1, "args": [1, 2]})",
      R"({"ph": "X", "name": "n", "ts": 1, "dur": 1, "args": "none"})",
      R"({"ph": "X", "name": "n", "ts": 1, "dur": 1, "args": {"External id": null, "device": true}})",
      R"({"ph": "i", "name": "[memory]", "ts": 1, "args": {"Total Allocated": null, "Bytes": [1]}})",
      R"({"ph": "s", "id": null, "ts": 1, "cat": "ac2g", "name": "f"})",
      // GEMM shapes, and shapes whose op name is not known yet.
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 1,
          "args": {"Input Dims": [[8, 50257], [50257, 7]], "Input type": ["c10::Half", "c10::Half"]}})",
      R"({"ph": "X", "cat": "cpu_op", "ts": 1, "dur": 1, "args": {"Input Dims": [[3, 5]]}, "name": "aten::add"})",
      // Invalid JSON and invalid text.
      R"({"ph": "X", "name": "bad", "ts": , "dur": 1})",
      R"({"ph": "X", "name": "n", "ts": 1, "dur": 1,})",
      R"({"ph": "X" "name": "n"})",
      "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"bad\xff\xfe utf8\", \"ts\": 5, \"dur\": 1}",
      "{\"ph\": \"X\", \"name\": \"ctl\x01\", \"ts\": 5, \"dur\": 1}",
  };
  const Both r = ParseBoth(odd);
  CHECK(r.fast_count == 0);
  for (size_t i = 0; i < odd.size(); ++i) {
    INFO("event " << i << ": " << odd[i]);
    CHECK(r.fast[i] == r.general[i]);
  }
  CHECK(r.fast[0].find("name=true:op\"q\u00e9") != std::string::npos);
  CHECK(r.fast[1].find("cat=true:cpu_op name=true:escaped keys") != std::string::npos);
  CHECK(r.fast[4].find("ts=12000") != std::string::npos);
  CHECK(r.fast[18].find("dims=true:2,8,50257,2,50257,7,") != std::string::npos);
  CHECK(r.fast[20].find("error=0") == std::string::npos);
}

TEST_CASE("event parser: a batch mixing both paths keeps each event's own fields") {
  std::vector<std::string> mixed;
  for (int i = 0; i < 200; ++i) {
    mixed.push_back(fmt::format(R"({{"ph": "X", "cat": "cpu_op", "name": "op{}", "ts": {}, "dur": 1,
                                    "args": {{"External id": {}}}}})",
                                i, i, i));
    mixed.push_back(fmt::format(R"({{"ph": "X", "cat": "cpu_op", "name": "esc\"{}", "ts": {}, "dur": 1}})", i, i));
  }
  const Both r = ParseBoth(mixed);
  CHECK(r.fast_count == 200);
  for (size_t i = 0; i < mixed.size(); ++i) {
    INFO("event " << i);
    CHECK(r.fast[i] == r.general[i]);
  }
  CHECK(r.fast[398].find("name=true:op199 ") != std::string::npos);
  CHECK(r.fast[399].find("name=true:esc\"199 ") != std::string::npos);
}

TEST_CASE("event parser: random events and random damage read the same on both paths") {
  // A fixed seed: the same 20000 events every run. Each is built from Kineto's keys with values drawn
  // from odd and usual forms, in random order, sometimes repeated, sometimes with a key escaped, and
  // one in four has a byte replaced, inserted or removed.
  std::mt19937 rng(20261130);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  const std::vector<std::string> keys = {"ph", "cat", "name", "ts", "dur", "pid", "tid", "id", "args", "s", "bp"};
  const std::vector<std::string> arg_keys = {
      "External id", "external id", "correlation",      "device",          "stream",
      "bytes",       "name",        "Input Dims",       "Input type",      "Call stack",
      "CallFrom",    "Python id",   "Python parent id", "Total Allocated", "Total Reserved",
      "Bytes",       "Device Id",   "Device Type",      "Ev Idx",          "Concrete Inputs"};
  const std::vector<std::string> values = {"\"X\"",
                                           "\"i\"",
                                           "\"s\"",
                                           "\"M\"",
                                           "\"\"",
                                           "\"cpu_op\"",
                                           "\"kernel\"",
                                           "\"aten::mm\"",
                                           "\"aten::add\"",
                                           "\"a\\\"b\"",
                                           "\"\\u0041\"",
                                           "\"x\\q\"",
                                           "\"\\ud800\"",
                                           "\"12.5\"",
                                           "\"1\\u0032\"",
                                           "0",
                                           "-0",
                                           "7",
                                           "-3",
                                           "12.345",
                                           "5172394704053.501",
                                           "1623142623460111",
                                           "1e3",
                                           "-1.5e-2",
                                           "18446744073709551615",
                                           "99999999999999999999999",
                                           "true",
                                           "false",
                                           "null",
                                           "[]",
                                           "[[1, 2], [3]]",
                                           "[\"float\", \"int\"]",
                                           "{}",
                                           "{\"a\": [1, {\"b\": null}]}",
                                           "\"N/A\"",
                                           "\"train.py:41\""};
  auto value_of = [&](const std::string& key) {
    if (key == "args" && rng() % 4 != 0) {
      std::string args = "{";
      const int n = static_cast<int>(rng() % 6);
      for (int i = 0; i < n; ++i) {
        if (i > 0) args += ", ";
        std::string k = pick(arg_keys);
        if (rng() % 20 == 0) k[0] == 'E' ? k.replace(0, 1, "\\u0045") : k.insert(0, "\\u0020");
        args += "\"" + k + "\": " + pick(values);
      }
      return args + "}";
    }
    return pick(values);
  };
  std::vector<std::string> events;
  for (int e = 0; e < 20000; ++e) {
    std::string ev = "{";
    const int n = 1 + static_cast<int>(rng() % 9);
    for (int i = 0; i < n; ++i) {
      if (i > 0) ev += rng() % 8 == 0 ? ",\n   " : ", ";
      std::string k = pick(keys);
      if (rng() % 30 == 0) k = "n\\u0061me";
      ev += "\"" + k + "\": " + value_of(k);
    }
    ev += "}";
    if (rng() % 4 == 0) {
      const size_t at = rng() % ev.size();
      const char junk[] = {'"', '\\', '{', '}', '[', ']', ',', ':', ' ', 'x', '1', '\x01', '\xff'};
      switch (rng() % 3) {
        case 0: ev[at] = junk[rng() % sizeof(junk)]; break;
        case 1: ev.insert(at, 1, junk[rng() % sizeof(junk)]); break;
        default: ev.erase(at, 1); break;
      }
    }
    events.push_back(ev);
  }
  const Both r = ParseBoth(events);
  size_t mismatches = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (r.fast[i] != r.general[i] && ++mismatches <= 5) {
      FAIL_CHECK("event " << i << ": " << events[i] << "\n fast:    " << r.fast[i] << "\n general: " << r.general[i]);
    }
  }
  CHECK(mismatches == 0);
  // Both paths were exercised.
  MESSAGE("fast path took " << r.fast_count << " of " << events.size());
  CHECK(r.fast_count > 2000);
  CHECK(r.fast_count < events.size() - 2000);
}
