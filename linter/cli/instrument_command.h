// What `torchlint instrument` runs, shared with `torchlint check --instrument FILE` (the design's name
// for `torchlint instrument FILE --in-place`), so that both insert, report and write the same way.
#pragma once

#include <cstdint>
#include <string>

#include "linter/instrument/instrument.h"

namespace tl::cli {

struct InstrumentArgs {
  std::string file;
  std::string template_spec = "C";
  instrument::Options options;
  uint32_t loop_line = 0;
  bool remove = false;
  bool diff = false;
  std::string output;
  bool in_place = false;
  bool no_backup = false;
};

// Runs the subcommand on `args` (ParseTemplate fills `args.options`); returns the exit status, 0 done
// or nothing to change, 2 usage or input error (then nothing is written).
int RunInstrument(InstrumentArgs& args);

}  // namespace tl::cli
