#include "linter/core/message.h"

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace tl {

std::string_view ToString(Lang lang) { return lang == Lang::kChinese ? "zh" : "en"; }

std::string FormatMessage(std::string_view pattern, const MessageArgs& args, Lang lang) {
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  for (const MessageArg& arg : args) {
    const std::string& value = lang == Lang::kChinese && !arg.zh.empty() ? arg.zh : arg.en;
    // The store keeps a pointer to the name: `args` outlives the vformat call below.
    store.push_back(fmt::arg(arg.name.c_str(), value));
  }
  return fmt::vformat(pattern, store);
}

std::string Sentence::In(Lang lang) const { return LocalizedText(ref, en, lang); }

Sentence MakeSentence(std::span<const MessageText> catalog, std::string_view id, MessageArgs args) {
  const MessageText* entry = FindMessage(catalog, id);
  if (entry == nullptr) throw std::logic_error(fmt::format("message `{}` is not in its catalog", id));
  std::string en = FormatMessage(entry->en, args, Lang::kEnglish);
  return {std::move(en), MessageRef{std::string(id), std::move(args), catalog}};
}

std::string LocalizedText(const MessageRef& ref, const std::string& english, Lang lang) {
  if (lang == Lang::kEnglish || ref.id.empty()) return english;
  const MessageText* entry = FindMessage(ref.catalog, ref.id);
  if (entry == nullptr) return english;
  return FormatMessage(entry->zh, ref.args, lang);
}

MessageArg SentenceArg(std::string name, const Sentence& sentence) {
  return {std::move(name), sentence.en, sentence.In(Lang::kChinese)};
}

std::vector<std::string> Placeholders(std::string_view pattern) {
  std::set<std::string> names;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '}' && i + 1 < pattern.size() && pattern[i + 1] == '}') {
      ++i;
      continue;
    }
    if (pattern[i] != '{') continue;
    if (i + 1 < pattern.size() && pattern[i + 1] == '{') {
      ++i;
      continue;
    }
    const size_t close = pattern.find('}', i);
    if (close == std::string_view::npos) {
      names.insert("");
      break;
    }
    std::string_view inside = pattern.substr(i + 1, close - i - 1);
    inside = inside.substr(0, inside.find(':'));
    const bool named = !inside.empty() && std::none_of(inside.begin(), inside.end(), [](char c) {
      return !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
    }) && !(inside[0] >= '0' && inside[0] <= '9');
    names.insert(named ? std::string(inside) : std::string());
    i = close;
  }
  return {names.begin(), names.end()};
}

const MessageText* FindMessage(std::span<const MessageText> catalog, std::string_view id) {
  for (const MessageText& entry : catalog) {
    if (entry.id == id) return &entry;
  }
  return nullptr;
}

std::vector<std::string> CheckCatalog(std::span<const MessageText> catalog) {
  std::vector<std::string> problems;
  std::set<std::string_view> seen;
  for (const MessageText& entry : catalog) {
    if (entry.id.empty()) problems.push_back(fmt::format("an entry has no id (\"{}\")", entry.en));
    if (!seen.insert(entry.id).second) problems.push_back(fmt::format("`{}`: the id is declared twice", entry.id));
    if (entry.en.empty()) problems.push_back(fmt::format("`{}`: no English text", entry.id));
    if (entry.zh.empty()) problems.push_back(fmt::format("`{}`: no Chinese text", entry.id));
    const std::vector<std::string> en = Placeholders(entry.en);
    const std::vector<std::string> zh = Placeholders(entry.zh);
    if (en != zh) {
      problems.push_back(
          fmt::format("`{}`: en names {{{}}} and zh names {{{}}}", entry.id, fmt::join(en, ", "), fmt::join(zh, ", ")));
    }
    if (std::find(en.begin(), en.end(), "") != en.end() || std::find(zh.begin(), zh.end(), "") != zh.end()) {
      problems.push_back(fmt::format("`{}`: a placeholder is positional or malformed; name it", entry.id));
    }
  }
  return problems;
}

}  // namespace tl
