// Renders a before/after comparison (traceio/analyses/diff.h) for people, as text or markdown in English
// or Chinese, and for programs as JSON. `torchlint trace diff BEFORE AFTER` prints it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/trace_report_model.h"
#include "traceio/analyses/diff.h"

namespace tl::trace {

// A finding that the BEFORE trace confirmed (`trace diff --check SCRIPT`), with the saving its rule's
// model predicted from BEFORE beside the saving AFTER measured (the diff's drop in step time, the same for
// every finding, so it is not stored here). The measured saving is what the user
// gained: the drop in mean step time. The finding's own cost, measured the same way on both traces
// (the DataLoader time for TL201), is shown beside it, since it can fall further than the step did.
struct SavingCheck {
  std::string code;  // "TL201"
  std::string name;  // "dataloader-num-workers"
  std::string file;
  int line = 0;
  std::string message;                  // in the report's language
  double predicted_saved_ms = 0.0;      // per step, by the rule's model on BEFORE
  double cost_before_ms = 0.0;          // the finding's cost per step on BEFORE
  std::optional<double> cost_after_ms;  // the same on AFTER, when AFTER could measure it
  std::string verdict_after;            // the finding's verdict on AFTER: "refuted" once fixed
  // AFTER shows the finding fixed: refuted or not observed there, or its cost at most half of BEFORE's.
  // Only fixed findings are held against the step's drop; the others were not what changed.
  bool fixed = false;
};

// What `--check` adds to a comparison: the findings, and the scripts that were checked.
struct SavingChecks {
  bool asked = false;  // --check was given (an empty list then says that nothing was confirmed)
  std::vector<std::string> scripts;
  std::vector<SavingCheck> findings;
};

nlohmann::ordered_json DiffToJson(const TraceDiff& diff, const SavingChecks& checks = {});
std::string RenderDiff(const TraceDiff& diff, ReportFormat format, Language language, const SavingChecks& checks = {});
// The comparison as one self-contained HTML page (the same content, with before/after bars).
std::string RenderDiffHtml(const TraceDiff& diff, Language language, const SavingChecks& checks = {});

}  // namespace tl::trace
