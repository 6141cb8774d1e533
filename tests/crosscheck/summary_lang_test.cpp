// The evidence summaries' references say what their English says: on the checkout's own traces, each
// summary made again from its catalog entry and arguments is the English summary to the letter (after
// the cross-check's clauses, materiality and shared costs, are added to it), and its Chinese form is
// another sentence with the same figures.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "crosscheck/ranking.h"
#include "tests/crosscheck/support.h"

namespace tl::test {
namespace {

// The figures of a sentence (the runs of digits), which both languages print the same.
std::vector<std::string> Figures(const std::string& text) {
  std::vector<std::string> out;
  std::string run;
  for (char c : text) {
    if ((c >= '0' && c <= '9') || (c == '.' && !run.empty())) {
      run += c;
    } else if (!run.empty()) {
      out.push_back(run);
      run.clear();
    }
  }
  if (!run.empty()) out.push_back(run);
  return out;
}

TEST_CASE("every evidence summary is its catalog sentence, in English to the letter and in Chinese") {
  int summaries = 0;
  for (const char* name : {"pin_memory", "sync_item", "unaligned", "workers0", "zero_grad_false", "sync_item_fixed"}) {
    CAPTURE(name);
    auto cc = LoadTrace(E2eTrace(std::string(name) + ".pt.trace.json.gz"));
    REQUIRE(cc);
    // The script of another trace too: the cross-check's own unverifiable sentences.
    for (const char* script : {name, "workers0"}) {
      Checked checked = CheckAgainst(E2eScriptPath(std::string(script) + ".py"), E2eScript(std::string(script) + ".py"),
                                     *cc);
      std::vector<RankedFinding> ranked;
      for (auto& d : checked.diagnostics) ranked.push_back({checked.file.get(), d});
      std::vector<TraceFinding> trace_only = cc->TraceOnly();
      SettleCosts(ranked, trace_only);
      for (const RankedFinding& f : ranked) {
        if (!f.diagnostic.evidence) continue;
        const Evidence& e = *f.diagnostic.evidence;
        CAPTURE(f.diagnostic.code);
        CAPTURE(e.summary);
        ++summaries;
        REQUIRE(!e.summary_ref.id.empty());
        const MessageText* entry = FindMessage(e.summary_ref.catalog, e.summary_ref.id);
        REQUIRE(entry != nullptr);
        CHECK(FormatMessage(entry->en, e.summary_ref.args, Lang::kEnglish) == e.summary);
        CHECK(LocalizedSummary(e, Lang::kEnglish) == e.summary);
        const std::string zh = LocalizedSummary(e, Lang::kChinese);
        CHECK(zh != e.summary);
        std::vector<std::string> en_figures = Figures(e.summary), zh_figures = Figures(zh);
        std::sort(en_figures.begin(), en_figures.end());
        std::sort(zh_figures.begin(), zh_figures.end());
        CHECK(en_figures == zh_figures);
      }
      for (const TraceFinding& t : trace_only) {
        CHECK(LocalizedTitle(t, Lang::kEnglish) == t.title);
        CHECK(LocalizedMessage(t, Lang::kChinese) != t.message);
      }
    }
  }
  CHECK(summaries > 20);
}

}  // namespace
}  // namespace tl::test
