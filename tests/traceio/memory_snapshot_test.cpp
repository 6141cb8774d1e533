// The restricted pickle reader and the memory snapshot analysis: the real snapshot in
// ../shared/traces/memory (figures computed independently with Python's pickle under a find_class that
// refuses every global), and hostile pickles written here opcode by opcode: every refused opcode, deep
// nesting, huge lengths, memo tricks (cycles, "billion laughs", dangling references), truncation at
// every byte, and seeded random mutations.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/support/paths.h"
#include "tests/support/snapshot_pickles.h"
#include "traceio/memory_snapshot.h"
#include "traceio/pickle_reader.h"

namespace tl::trace {
namespace {

using test::Pickle;
using test::SmallSnapshot;

void CheckRefused(const std::string& bytes, std::string_view words) {
  const PickleResult r = ReadPickle(bytes);
  CHECK_FALSE(r.ok());
  CHECK(r.error.find('\n') == std::string::npos);
  INFO(r.error);
  CHECK(r.error.find(words) != std::string::npos);
}

TEST_CASE("the real snapshot: allocated, reserved, the peak over its history, blocks and sites") {
  auto file = test::SharedTrace("memory/assignment2-systems_memory_snapshot.pickle");
  if (!file) return;
  const SnapshotResult r = ReadMemorySnapshot(file->string(), 5);
  REQUIRE(r.ok());
  REQUIRE(r.snapshot.devices.size() == 1);
  const SnapshotDevice& d = r.snapshot.devices[0];
  CHECK(d.device == 0);
  CHECK(d.allocated_bytes == 1377753600);
  CHECK(d.reserved_bytes == 14180941824);
  CHECK(d.peak_allocated_bytes == 13927832064);
  CHECK(d.history_start_bytes == 1377753600);
  CHECK(d.segments == 216);
  CHECK(d.blocks == 455);
  CHECK(d.events == 5163);
  CHECK(d.allocs == 1721);
  CHECK(d.frees == 1721);
  CHECK(d.segment_frees == 0);
  REQUIRE(d.largest.size() == 5);
  CHECK(d.largest[0].bytes == 327680000);
  CHECK(d.largest[0].site == "model.py:39 (forward)");
  REQUIRE_FALSE(d.sites.empty());
  CHECK(d.sites[0].site == "model.py:39 (forward)");
  CHECK(r.snapshot.has_history);
  // TL103's question: the history allocates and frees blocks, never a segment.
  const SegmentChurn churn = SegmentChurnOf(r.snapshot);
  CHECK(churn.history);
  CHECK(churn.events == 5163);
  CHECK(churn.segment_frees == 0);
  CHECK_FALSE(churn.churn());
  // Its frames (Windows paths) name the benchmarking script, the model and its helpers.
  CHECK(RecordedFrom(r.snapshot, "cs336_systems/benchmarking_script.py") == true);
  CHECK(RecordedFrom(r.snapshot, "train.py") == false);
  CHECK(std::find_if(r.snapshot.frame_files.begin(), r.snapshot.frame_files.end(), [](const std::string& f) {
          return f.find("site-packages") != std::string::npos;
        }) == r.snapshot.frame_files.end());
}

TEST_CASE("a small snapshot: live blocks, fragmentation, churn, and the first frame outside torch") {
  const SnapshotResult r = ParseMemorySnapshot(SmallSnapshot(), "small.pickle");
  REQUIRE(r.ok());
  REQUIRE(r.snapshot.devices.size() == 1);
  const SnapshotDevice& d = r.snapshot.devices[0];
  CHECK(d.allocated_bytes == 4096);
  CHECK(d.reserved_bytes == 8192 + 2048);
  CHECK(d.fragmentation_bytes == 8192 + 2048 - 4096);
  // Undoing the history from 4096 live: before the free 5096, before the allocs 0.
  CHECK(d.peak_allocated_bytes == 5096);
  CHECK(d.history_start_bytes == 0);
  CHECK(d.segment_frees == 1);
  CHECK(d.segment_reallocs == 1);
  REQUIRE(d.largest.size() == 1);
  CHECK(d.largest[0].site == "train.py:7 (step)");
  REQUIRE(d.sites.size() == 2);
  CHECK(d.sites[0].site == "train.py:7 (step)");
  CHECK(d.sites[0].live_bytes == 4096);
  CHECK(d.sites[1].live_bytes == 0);

  const SegmentChurn churn = SegmentChurnOf(r.snapshot);
  CHECK(churn.churn());
  CHECK(churn.segment_freed_bytes == 2048);
  CHECK(FormatBytes(churn.segment_freed_bytes) == "2.0 KiB");
  CHECK(RecordedFrom(r.snapshot, "u/train.py") == true);
  CHECK(RecordedFrom(r.snapshot, "other.py") == false);

  const SnapshotResult calm = ParseMemorySnapshot(SmallSnapshot({.churn = false}), "calm.pickle");
  REQUIRE(calm.ok());
  CHECK(SegmentChurnOf(calm.snapshot).history);
  CHECK(SegmentChurnOf(calm.snapshot).segment_frees == 0);

  const SnapshotResult bare = ParseMemorySnapshot(SmallSnapshot({.history = false}), "bare.pickle");
  REQUIRE(bare.ok());
  CHECK_FALSE(bare.snapshot.has_history);
  CHECK(bare.snapshot.devices[0].peak_allocated_bytes == 4096);
  REQUIRE(bare.snapshot.warnings.size() == 1);
  CHECK(bare.snapshot.warnings[0].find("_record_memory_history") != std::string::npos);
  CHECK_FALSE(SegmentChurnOf(bare.snapshot).history);
  // No frames at all: whose snapshot it is cannot be told.
  CHECK_FALSE(RecordedFrom(bare.snapshot, "train.py").has_value());
}

TEST_CASE("every opcode that names or calls code is refused, and nothing runs") {
  // os.system('touch PWNED') the protocol 0 way, and the protocol 4 way.
  CheckRefused(std::string("cos\nsystem\n(S'touch PWNED'\ntR."), "GLOBAL");
  CheckRefused(Pickle().Str("os").Str("system").Op(0x93).Str("touch PWNED").Op(0x85).Op('R').Done(), "STACK_GLOBAL");
  const std::pair<uint8_t, const char*> refused[] = {
      {'R', "REDUCE"},          {'b', "BUILD"},      {'i', "INST"},      {'o', "OBJ"},
      {0x81, "NEWOBJ"},         {0x92, "NEWOBJ_EX"}, {0x82, "EXT1"},     {0x83, "EXT2"},
      {0x84, "EXT4"},           {'P', "PERSID"},     {'Q', "BINPERSID"}, {0x97, "NEXT_BUFFER"},
      {0x98, "READONLY_BUFFER"}};
  for (const auto& entry : refused) {
    const auto& op = entry.first;
    const auto& name = entry.second;
    INFO(name);
    CheckRefused(Pickle().Op('N').Op('N').Op(op).Done(), name);
  }
  CheckRefused(Pickle().Op(0xff).Done(), "not a pickle opcode");
  CheckRefused(Pickle().Raw("S'x'\n").Done(), "protocol 0");
}

TEST_CASE("deep nesting, huge lengths and wide integers are refused without exhausting anything") {
  std::string deep = "\x80\x04";
  for (int i = 0; i < 100000; ++i) deep += ']';
  for (int i = 0; i < 99999; ++i) deep += 'a';
  deep += '.';
  CheckRefused(deep, "nesting deeper");
  std::string marks = "\x80\x04" + std::string(1000000, '(');
  CheckRefused(marks, "before its STOP");
  CheckRefused(Pickle().Raw(std::string("X\xff\xff\xff\xff", 5)).Done(), "runs past the end");
  CheckRefused(Pickle().Raw(std::string("\x8d\xff\xff\xff\xff\xff\xff\xff\x7f", 9)).Done(), "runs past the end");
  CheckRefused(Pickle().Raw(std::string("\x8a\x09", 2) + std::string(9, '\x01')).Done(), "64 bits");
  // An 8-byte LONG1 of -2 reads back exactly.
  const PickleResult minus_two = ReadPickle(
      Pickle().Raw(std::string("\x8a\x08", 2) + "\xfe" + std::string(7, '\xff')).Done());
  REQUIRE(minus_two.ok());
  CHECK(minus_two.value->Int() == -2);
  const PickleResult one_byte = ReadPickle(Pickle().Raw(std::string("\x8a\x01\xff", 3)).Done());
  REQUIRE(one_byte.ok());
  CHECK(one_byte.value->Int() == -1);
}

TEST_CASE("memo tricks: a cycle, a billion laughs, a dangling reference and an empty stack") {
  // A list appended into itself.
  CheckRefused(Pickle().Op(']').Op(0x94).Raw(std::string("h\x00", 2)).Op('a').Done(), "inside itself");
  // A into B, then B into A: A may not change once it is inside B.
  CheckRefused(Pickle()
                   .Op(']')
                   .Op(0x94)
                   .Op(']')
                   .Op(0x94)
                   .Raw(std::string("h\x00", 2))
                   .Op('a')
                   .Op('0')
                   .Raw("h\x01")
                   .Op('a')
                   .Done(),
               "recursive structure");
  // Each level a list of the previous level twice: 2^40 values as a tree.
  Pickle laughs;
  laughs.Str("lol").Op(0x94);
  for (int level = 0; level < 40; ++level) {
    laughs.Op(']').Op('(');
    laughs.Raw(std::string("j", 1));
    for (int i = 0; i < 4; ++i) laughs.b += static_cast<char>((static_cast<uint32_t>(level) >> (8 * i)) & 0xff);
    laughs.Raw("j");
    for (int i = 0; i < 4; ++i) laughs.b += static_cast<char>((static_cast<uint32_t>(level) >> (8 * i)) & 0xff);
    laughs.Op('e').Op(0x94).Op('0');
  }
  laughs.Raw("j");
  for (int i = 0; i < 4; ++i) laughs.b += static_cast<char>((40u >> (8 * i)) & 0xff);
  CheckRefused(laughs.Done(), "more than");
  CheckRefused(Pickle().Raw("h\x05").Done(), "never stored");
  CheckRefused(Pickle().Op('a').Done(), "empty stack");
  CheckRefused(Pickle().Op('u').Done(), "MARK");
  CheckRefused(std::string("\x80\x04.", 3), "STOP with 0 values");
  CheckRefused(Pickle().Op('N').Op('N').Done(), "STOP with 2 values");
  CheckRefused(Pickle().Op('N').Op('(').Op('N').Op('a').Done(), "without a list");  // APPEND may not reach below a MARK
  CheckRefused(Pickle().Op('}').Op('(').Op('N').Op('u').Done(), "odd number");
}

TEST_CASE("a pickle of plain data that is not a snapshot is a one-line error") {
  const SnapshotResult r = ParseMemorySnapshot(Pickle().Op(']').Done(), "list.pickle");
  CHECK_FALSE(r.ok());
  CHECK(r.error.find("not a memory snapshot") != std::string::npos);
  CHECK(r.error.find('\n') == std::string::npos);
  const SnapshotResult text = ParseMemorySnapshot("{\"segments\": []}", "snapshot.json");
  CHECK_FALSE(text.ok());
  CHECK(text.error.find('\n') == std::string::npos);
}

TEST_CASE("a snapshot cut at every byte is an error or a whole result, never a crash") {
  const std::string full = SmallSnapshot();
  for (size_t cut = 0; cut < full.size(); ++cut) {
    const SnapshotResult r = ParseMemorySnapshot(full.substr(0, cut), "cut.pickle");
    CHECK_FALSE(r.ok());  // the STOP opcode is the last byte
    CHECK(r.error.find('\n') == std::string::npos);
  }
  auto file = test::SharedTrace("memory/assignment2-systems_memory_snapshot.pickle");
  if (!file) return;
  std::ifstream in(*file, std::ios::binary);
  const std::string real((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t cut = 1; cut < real.size(); cut += real.size() / 40) {
    CHECK_FALSE(ParseMemorySnapshot(real.substr(0, cut), "real-cut.pickle").ok());
  }
}

TEST_CASE("seeded random mutations of a snapshot never crash the reader") {
  const std::string base = SmallSnapshot();
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int accepted = 0;
  for (int round = 0; round < 5000; ++round) {
    std::string m = base;
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = next() % m.size();
      switch (next() % 3) {
        case 0: m[at] = static_cast<char>(next()); break;
        case 1: m.insert(at, 1, static_cast<char>(next())); break;
        default: m.erase(at, 1 + next() % 8); break;
      }
      if (m.empty()) m = ".";
    }
    const SnapshotResult r = ParseMemorySnapshot(m, "mutated.pickle");
    if (r.ok()) ++accepted;
    else CHECK(r.error.find('\n') == std::string::npos);
  }
  // Most mutations break the pickle; some leave a readable one (a changed size or string).
  CHECK(accepted > 0);
  CHECK(accepted < 5000);
}

}  // namespace
}  // namespace tl::trace
