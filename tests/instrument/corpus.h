// The instrumenter's test corpus: our own scripts, one per loop shape and text style, and the
// templates every one of them is instrumented with. Shared by the golden, CLI and end-to-end tests.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "linter/core/fs.h"
#include "linter/instrument/instrument.h"
#include "tests/support/paths.h"

namespace tl::test {

inline std::filesystem::path CorpusDir() { return SourceDir() / "tests" / "instrument" / "corpus"; }
inline std::filesystem::path GoldenDir() { return SourceDir() / "tests" / "instrument" / "golden"; }

// Every corpus script, sorted by name.
inline std::vector<std::filesystem::path> CorpusScripts() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(CorpusDir())) {
    if (entry.path().extension() == ".py") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Variant {
  std::string name;  // golden suffix: "C", "F", "C-stop", ...
  std::string spec;  // --template
  bool stop_after = false;
};

inline std::vector<Variant> Variants() {
  return {{"A", "A", false}, {"B", "B", false}, {"C", "C", false},       {"D", "D", false},    {"E", "E", false},
          {"F", "F", false}, {"G", "G", false}, {"nvtx", "nvtx", false}, {"C-stop", "C", true}};
}

// The options a corpus script is instrumented with: defaults, plus --loop-line where a script has two
// candidate loops.
inline instrument::Options OptionsFor(const std::filesystem::path& script, const Variant& variant) {
  instrument::Options options;
  (void)instrument::ParseTemplate(variant.spec, options);
  options.stop_after = variant.stop_after;
  if (script.stem() == "two_loops") options.loop_line = 18;
  return options;
}

}  // namespace tl::test
