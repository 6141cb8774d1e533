// Messages in two languages. A rule declares its sentences once, in its metadata, as a catalog of
// MessageText entries (an id, the English and the Chinese pattern with the same named fmt placeholders,
// `{param}`); a diagnostic keeps the id and the arguments it was made with (MessageRef) next to the
// English text, so that the machine formats (JSON, SARIF, LSP, the summary cache) keep reading English
// while the human-facing renderers ask for the sentence in the user's language.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tl {

enum class Lang : uint8_t { kEnglish, kChinese };

// "en" | "zh"
std::string_view ToString(Lang lang);

// One sentence of a rule's catalog. Patterns use named placeholders only ("`{param}` of `nn.{layer}`");
// both languages name the same set. Code stays in backticks, untranslated, in both.
struct MessageText {
  std::string_view id;  // "missing", "explicit-false": unique within the rule
  std::string_view en;
  std::string_view zh;
};

// A value for a placeholder. Code, names and numbers read the same in both languages (`zh` empty);
// a value that is itself prose carries its Chinese form.
struct MessageArg {
  std::string name;
  std::string en;
  std::string zh;  // empty: the same as `en`
};
using MessageArgs = std::vector<MessageArg>;

// Which sentence of the rule's catalog a text was made from, and with what. Empty `id`: the text was
// not made from a catalog (a parse-error notice), and renderers show it as it is.
struct MessageRef {
  std::string id;
  MessageArgs args;
  // The catalog `id` belongs to, when it is not the diagnostic's rule's: a rule's trace evidence, the
  // cross-check's shared sentences, the trace-only findings. Catalogs are static, so the span stays valid.
  std::span<const MessageText> catalog = {};
};

// A sentence made from a catalog: its English text and the reference that makes it again in another
// language. What a helper returns when its caller will put the sentence into a bigger one.
struct Sentence {
  std::string en;
  MessageRef ref;
  std::string In(Lang lang) const;
};

// The pattern with its placeholders replaced by the arguments in `lang`. A placeholder without an
// argument, or a malformed pattern, throws fmt::format_error: catalogs are tested, so it is a bug.
std::string FormatMessage(std::string_view pattern, const MessageArgs& args, Lang lang);
// The entry `id` of `catalog` formatted with `args`, in English and with its reference. Throws
// std::logic_error for an id the catalog lacks: a caller's bug, which the tests catch.
Sentence MakeSentence(std::span<const MessageText> catalog, std::string_view id, MessageArgs args = {});
// `english` again in `lang` from the catalog `ref` names; `english` itself when the language is English,
// when `ref` names no catalog or no entry of it (a text made without a catalog).
std::string LocalizedText(const MessageRef& ref, const std::string& english, Lang lang);
// A sentence as a prose argument of a bigger one: its English and its Chinese form.
MessageArg SentenceArg(std::string name, const Sentence& sentence);
// The names of a pattern's placeholders, sorted and unique; nullopt-like empty vector when none. A
// positional or empty placeholder ("{}") is returned as "" so that checks can reject it.
std::vector<std::string> Placeholders(std::string_view pattern);
// The entry `id` of a catalog, or null.
const MessageText* FindMessage(std::span<const MessageText> catalog, std::string_view id);
// What is wrong with a catalog, one line each: a duplicate id, an empty or missing Chinese text, en
// and zh naming different placeholders, a positional placeholder. Empty when it is sound.
std::vector<std::string> CheckCatalog(std::span<const MessageText> catalog);

}  // namespace tl
