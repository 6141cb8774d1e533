// What `trace annotate` and `check --annotate` draw for the trace-only findings: a finding about the
// whole loop (launch-bound, low GPU busy, ...), so a slice over the analysed steps on a track of its own.
#pragma once

#include <vector>

#include "linter/core/diagnostic.h"
#include "traceio/annotate.h"

namespace tl::cli {

std::vector<trace::ScriptFinding> TraceOnlyMarkers(const std::vector<TraceFinding>& findings);

}  // namespace tl::cli
