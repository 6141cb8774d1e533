// Small CUDA memory snapshots written opcode by opcode, as `torch.cuda.memory._dump_snapshot` pickles them
// (protocol 4 forms), for the tests of the snapshot reader, of TL103's snapshot evidence and of the
// reports' memory section: what the file holds is known byte for byte, so each figure can be asserted.
// Beside them, the shared inputs those tests pair with a snapshot: the real one, and a CPU trace with its
// script made to empty the cache on a line the trace names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "tests/support/paths.h"

namespace tl::test {

// Writes pickle opcodes.
struct Pickle {
  std::string b = std::string("\x80\x04", 2);
  Pickle& Op(uint8_t op) {
    b += static_cast<char>(op);
    return *this;
  }
  Pickle& Str(std::string_view s) {
    Op(0x8c);
    b += static_cast<char>(s.size());
    b += s;
    return *this;
  }
  Pickle& Int(int32_t v) {
    Op('J');
    for (int i = 0; i < 4; ++i) b += static_cast<char>((static_cast<uint32_t>(v) >> (8 * i)) & 0xff);
    return *this;
  }
  Pickle& Key(std::string_view key, int32_t v) { return Str(key).Int(v); }
  Pickle& Raw(std::string_view s) {
    b += s;
    return *this;
  }
  std::string Done() { return b + "."; }
};

struct SnapshotShape {
  bool history = true;
  // The history frees a 2048-byte segment and then allocates one again (empty_cache churn); without it
  // the history holds only the block allocations and frees.
  bool churn = true;
  std::string script = "/home/u/train.py";  // the program's own frame, beside torch's
};

// A snapshot of one device: two segments (one with a live 4096-byte block allocated at SCRIPT:7), and a
// history that allocates 4096 bytes at line 7 and 1000 at line 9, frees the 1000, and (with `churn`)
// frees a segment and allocates one again.
inline std::string SmallSnapshot(const SnapshotShape& shape = {}) {
  Pickle p;
  p.Op('}').Op('(');
  p.Str("segments").Op(']').Op('(');
  // segment 0: 8192 bytes reserved, one live block of 4096
  p.Op('}').Op('(').Key("device", 0).Key("address", 1000000).Key("total_size", 8192);
  p.Str("blocks").Op(']').Op('(');
  p.Op('}').Op('(').Key("address", 1000000).Key("size", 4096).Str("state").Str("active_allocated").Op('u');
  p.Op('}').Op('(').Key("address", 1004096).Key("size", 4096).Str("state").Str("inactive").Op('u');
  p.Op('e').Op('u');
  // segment 1: 2048 reserved, nothing live
  p.Op('}').Op('(').Key("device", 0).Key("address", 2000000).Key("total_size", 2048).Str("blocks").Op(']').Op('u');
  p.Op('e');
  p.Str("device_traces").Op(']').Op('(');
  p.Op(']').Op('(');
  if (shape.history) {
    auto frames = [&](int line) {
      p.Str("frames").Op(']').Op('(');
      p.Op('}').Op('(').Str("filename").Str("/usr/lib/python3/site-packages/torch/nn/modules/linear.py");
      p.Key("line", 125).Str("name").Str("forward").Op('u');
      p.Op('}').Op('(').Str("filename").Str(shape.script).Key("line", line).Str("name").Str("step").Op('u');
      p.Op('e');
    };
    p.Op('}').Op('(').Str("action").Str("alloc").Key("addr", 1000000).Key("size", 4096);
    frames(7);
    p.Op('u');
    p.Op('}').Op('(').Str("action").Str("alloc").Key("addr", 3000000).Key("size", 1000);
    frames(9);
    p.Op('u');
    p.Op('}').Op('(').Str("action").Str("free_requested").Key("addr", 3000000).Key("size", 1000).Op('u');
    p.Op('}').Op('(').Str("action").Str("free_completed").Key("addr", 3000000).Key("size", 1000).Op('u');
    if (shape.churn) {
      p.Op('}').Op('(').Str("action").Str("segment_free").Key("addr", 3000000).Key("size", 2048).Op('u');
      p.Op('}').Op('(').Str("action").Str("segment_alloc").Key("addr", 2000000).Key("size", 2048).Op('u');
    }
  }
  p.Op('e');
  p.Op('e');
  p.Op('u');
  return p.Done();
}

// `text` with the whole of line `line` (1-based) replaced by `with`, so that no other line moves; as it
// is when it has fewer lines.
inline std::string ReplaceLine(std::string text, int line, std::string_view with) {
  size_t begin = 0;
  for (int i = 1; i < line && begin != std::string::npos; ++i) {
    begin = text.find('\n', begin);
    if (begin != std::string::npos) ++begin;
  }
  if (begin == std::string::npos || begin >= text.size()) return text;
  const size_t end = text.find('\n', begin);
  text.replace(begin, end == std::string::npos ? std::string::npos : end - begin, with);
  return text;
}

// The shared CPU trace a_baseline's script (cpu/scripts/a_baseline.py, given as `text`) with its model on
// CUDA and `torch.cuda.empty_cache()` in place of its zero_grad on line 44, a line the trace's CallFrom
// names: TL103 fires there, and on that CPU-only trace only a memory snapshot can say more.
inline std::string EmptyCacheBaseline(std::string text) {
  text = ReplaceLine(std::move(text), 26, "    model = MLP().to(\"cuda\" if torch.cuda.is_available() else \"cpu\")");
  return ReplaceLine(std::move(text), 44, "                torch.cuda.empty_cache()");
}

// The real snapshot and the shared CPU trace a_baseline with its script; nullopt after a `skipped:` line
// where one of them is absent.
struct SharedMemoryInputs {
  std::filesystem::path snapshot, trace, script;
};
inline std::optional<SharedMemoryInputs> FindSharedMemoryInputs() {
  auto snapshot = SharedTrace("memory/assignment2-systems_memory_snapshot.pickle");
  auto trace = SharedTrace("cpu/torch2.14.1/a_baseline.pt.trace.json");
  auto script = SharedTrace("cpu/scripts/a_baseline.py");
  if (!snapshot || !trace || !script) return std::nullopt;
  return SharedMemoryInputs{*snapshot, *trace, *script};
}

}  // namespace tl::test
