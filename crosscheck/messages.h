// The cross-check's own sentences, in English and Chinese: what the shared evidence helpers say (a
// missing profiler option, where the evidence was gathered, a code that did not run), how a finding was
// attributed and why a trace is or is not the script's, what materiality and cost sharing add to a
// summary, and the trace-only findings. One catalog (the rules' own sentences are in their RuleMeta), so
// that every summary, however it was composed, renders again in the user's language.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "linter/core/diagnostic.h"
#include "linter/core/message.h"

namespace tl {

std::span<const MessageText> CrossCheckMessages();

// The entry `id` of CrossCheckMessages(); std::logic_error for an id it lacks.
Sentence CrossCheckSentence(std::string_view id, MessageArgs args = {});

// A number as the summaries print it, formatted once so that both languages show the same figure.
MessageArg NumberArg(std::string name, double value, int decimals);
MessageArg NumberArg(std::string name, int64_t value);
// A count with its noun: "1 profiled step", "3 profiled steps", "3 个 step" (`zh_unit` follows the
// number in Chinese, which has no plural).
MessageArg CountArg(std::string name, int64_t count, std::string_view one, std::string_view many,
                    std::string_view zh_unit);

// Sets the evidence's summary (English and its reference) to `summary`.
void SetSummary(Evidence& evidence, Sentence summary);
// Replaces the summary with the cross-check's sentence `id`, whose `{summary}` is the summary so far: the
// clauses that attribution, materiality and sharing add after the rule has spoken.
void ExtendSummary(Evidence& evidence, std::string_view id, MessageArgs args);

}  // namespace tl
