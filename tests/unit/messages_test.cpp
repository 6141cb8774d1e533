// The rules' message catalogs: every sentence a rule can emit exists in English and Chinese with the
// same placeholders and the same code spans, and formatting follows the language asked for.
#include <doctest/doctest.h>
#include <fmt/core.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "crosscheck/evidence.h"
#include "crosscheck/messages.h"
#include "linter/core/message.h"
#include "linter/engine/rule.h"

namespace tl {
namespace {

// The `code` spans of a pattern, sorted: they must read the same in both languages.
std::vector<std::string> CodeSpans(std::string_view text) {
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = text.find('`', at)) != std::string_view::npos) {
    const size_t end = text.find('`', at + 1);
    if (end == std::string_view::npos) break;
    out.emplace_back(text.substr(at, end - at + 1));
    at = end + 1;
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool HasCjk(std::string_view text) {
  // U+4E00..U+9FFF are encoded as E4 B8 80 .. E9 BF BF.
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b >= 0xE4 && b <= 0xE9;
  });
}

TEST_CASE("FormatMessage fills named placeholders in the language asked for") {
  const MessageArgs args{{"param", "in_features", {}}, {"cadence", "every training step", "每个训练步"}};
  CHECK(FormatMessage("`{param}` on {cadence}", args, Lang::kEnglish) == "`in_features` on every training step");
  CHECK(FormatMessage("{cadence}的 `{param}`", args, Lang::kChinese) == "每个训练步的 `in_features`");
  CHECK_THROWS(FormatMessage("{missing}", args, Lang::kEnglish));
}

TEST_CASE("Placeholders names each placeholder once and flags positional ones") {
  CHECK(Placeholders("{b} and {a:>4} and {b} {{literal}}") == std::vector<std::string>{"a", "b"});
  CHECK(Placeholders("no placeholder") == std::vector<std::string>{});
  CHECK(Placeholders("{} and {0}") == std::vector<std::string>{""});
  CHECK(Placeholders("unclosed {name") == std::vector<std::string>{""});
}

TEST_CASE("CheckCatalog rejects a missing Chinese text, mismatched placeholders and duplicate ids") {
  constexpr MessageText kBad[] = {
      {"one", "Slow", ""},
      {"two", "`{x}` is slow", "`{y}` 很慢"},
      {"two", "again", "又一次"},
      {"three", "{} positional", "{} 位置参数"},
  };
  const std::vector<std::string> problems = CheckCatalog(kBad);
  REQUIRE(problems.size() == 4);
  CHECK(problems[0] == "`one`: no Chinese text");
  CHECK(problems[1] == "`two`: en names {x} and zh names {y}");
  CHECK(problems[2] == "`two`: the id is declared twice");
  CHECK(problems[3] == "`three`: a placeholder is positional or malformed; name it");
  constexpr MessageText kGood[] = {{"ok", "Add `pin_memory=True`", "添加 `pin_memory=True`"}};
  CHECK(CheckCatalog(kGood).empty());
}

TEST_CASE("every rule declares its sentences in English and Chinese") {
  REQUIRE(!AllRules().empty());
  for (const Rule* rule : AllRules()) {
    const RuleMeta& meta = rule->Meta();
    CAPTURE(meta.code);
    CHECK(!meta.messages.empty());
    for (const std::string& problem : CheckCatalog(meta.messages)) FAIL_CHECK(meta.code, ": ", problem);
    for (const MessageText& entry : meta.messages) {
      CAPTURE(entry.id);
      MessageArgs args;
      for (const std::string& name : Placeholders(entry.en)) args.push_back({name, "x", "x"});
      CHECK_NOTHROW(FormatMessage(entry.en, args, Lang::kEnglish));
      CHECK_NOTHROW(FormatMessage(entry.zh, args, Lang::kChinese));
      CHECK(HasCjk(entry.zh));
      CHECK(!HasCjk(entry.en));
      CHECK(CodeSpans(entry.en) == CodeSpans(entry.zh));  // code stays untranslated
    }
  }
}

TEST_CASE("LocalizedMessage renders a rule's diagnostic from its catalog, English by default") {
  const Rule* rule = FindRule("TL202");
  REQUIRE(rule != nullptr);
  const MessageText* entry = FindMessage(rule->Meta().messages, "missing");
  REQUIRE(entry != nullptr);
  Diagnostic d;
  d.code = "TL202";
  d.message = std::string(entry->en);
  d.message_ref = MessageRef{"missing", {}};
  CHECK(LocalizedMessage(d, Lang::kEnglish) == d.message);
  CHECK(LocalizedMessage(d, Lang::kChinese) == entry->zh);
  // A notice made without a catalog, or an id the catalog lacks, keeps its text.
  Diagnostic notice;
  notice.code = "parse-error";
  notice.message = "train.py:3:1: invalid syntax";
  CHECK(LocalizedMessage(notice, Lang::kChinese) == notice.message);
  d.message_ref.id = "no-such-id";
  CHECK(LocalizedMessage(d, Lang::kChinese) == d.message);
  CHECK(LocalizedFixTitle(d, Lang::kChinese).empty());
}

// The words of a pattern outside its placeholders and code spans: "{summary} [{path}]" has none, "the
// DataLoader" two. Such short patterns are fragments (a term the guide keeps in English, a clause that
// only joins two sentences) and need no Chinese character of their own.
int OwnWords(std::string_view text) {
  int words = 0;
  bool in_word = false, in_code = false, in_placeholder = false;
  for (char c : text) {
    if (c == '`') in_code = !in_code;
    if (!in_code && c == '{') in_placeholder = true;
    const bool letter = !in_code && !in_placeholder && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
    if (letter && !in_word) ++words;
    in_word = letter;
    if (c == '}') in_placeholder = false;
  }
  return words;
}

// Each entry of a catalog as the tests of the rules' catalogs check them: sound, both languages filled in
// and formatting with the same arguments, Chinese text in the Chinese pattern, the same code spans.
void CheckEntries(std::span<const MessageText> catalog) {
  for (const std::string& problem : CheckCatalog(catalog)) FAIL_CHECK(problem);
  for (const MessageText& entry : catalog) {
    CAPTURE(entry.id);
    CHECK(!entry.zh.empty());
    MessageArgs args;
    for (const std::string& name : Placeholders(entry.en)) args.push_back({name, "x", "x"});
    CHECK_NOTHROW(FormatMessage(entry.en, args, Lang::kEnglish));
    CHECK_NOTHROW(FormatMessage(entry.zh, args, Lang::kChinese));
    CHECK(!HasCjk(entry.en));
    if (OwnWords(entry.en) > 2) CHECK(HasCjk(entry.zh));
    CHECK(CodeSpans(entry.en) == CodeSpans(entry.zh));
  }
}

TEST_CASE("the cross-check's shared catalog is sound, with every sentence in Chinese") {
  REQUIRE(!CrossCheckMessages().empty());
  CheckEntries(CrossCheckMessages());
  CHECK(OwnWords("{recommendation}") == 0);
  CHECK(OwnWords("{summary} [{path}]") == 0);
  CHECK(OwnWords("under `{function}` ({how})") == 1);
  CHECK(OwnWords("The loop at line {line}") == 4);
}

TEST_CASE("every rule with trace evidence words its summaries in its own catalog, in both languages") {
  int with_evidence = 0;
  for (const Rule* rule : AllRules()) {
    const RuleMeta& meta = rule->Meta();
    if (FindRuleEvidence(meta.code) == nullptr) continue;
    CAPTURE(meta.code);
    ++with_evidence;
    const auto evidence_entries = std::count_if(meta.messages.begin(), meta.messages.end(),
                                                [](const MessageText& m) { return m.id.starts_with("ev-"); });
    CHECK(evidence_entries > 0);
    CheckEntries(meta.messages);
  }
  CHECK(with_evidence == static_cast<int>(AllRules().size()));
}

TEST_CASE("a summary extended by the cross-check renders again in Chinese, English unchanged") {
  const Rule* rule = FindRule("TL202");
  REQUIRE(rule != nullptr);
  Evidence e;
  SetSummary(e, MakeSentence(rule->Meta().messages, "ev-all-pinned", {{"copies", "12", {}}}));
  CHECK(e.summary == "The 12 host-to-device copies in the trace are all from pinned memory");
  CHECK(LocalizedSummary(e, Lang::kEnglish) == e.summary);
  CHECK(LocalizedSummary(e, Lang::kChinese) == "trace 中的 12 次主机到设备拷贝都来自锁页内存");
  ExtendSummary(e, "of-trace", {{"path", "rank0.json", {}}});
  CHECK(e.summary == "The 12 host-to-device copies in the trace are all from pinned memory [rank0.json]");
  CHECK(LocalizedSummary(e, Lang::kChinese) == "trace 中的 12 次主机到设备拷贝都来自锁页内存（trace：rank0.json）");
  // A count carries its noun in each language.
  const MessageArg one = CountArg("steps", 1, "profiled step", "profiled steps", "个 step");
  const MessageArg many = CountArg("steps", 3, "profiled step", "profiled steps", "个 step");
  CHECK(one.en == "1 profiled step");
  CHECK(many.en == "3 profiled steps");
  CHECK(many.zh == "3 个 step");
  CHECK(NumberArg("ms", 1.23456, 2).en == "1.23");
  // An id the catalog lacks is a bug of its caller.
  CHECK_THROWS_AS(CrossCheckSentence("no-such-id"), std::logic_error);
}

}  // namespace
}  // namespace tl
