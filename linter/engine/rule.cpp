#include "linter/engine/rule.h"

#include <algorithm>
#include <charconv>
#include <mutex>
#include <stdexcept>
#include <fmt/core.h>

namespace tl {
namespace {

struct Registry {
  std::vector<std::unique_ptr<Rule>> owned;
  std::vector<const Rule*> sorted;
};

Registry& GetRegistry() {
  static Registry registry;
  return registry;
}

}  // namespace

namespace detail {
void RegisterRule(std::unique_ptr<Rule> rule) {
  auto& registry = GetRegistry();
  registry.sorted.push_back(rule.get());
  registry.owned.push_back(std::move(rule));
  std::sort(registry.sorted.begin(), registry.sorted.end(),
            [](const Rule* a, const Rule* b) { return a->Meta().code < b->Meta().code; });
}
}  // namespace detail

const std::vector<const Rule*>& AllRules() { return GetRegistry().sorted; }

const Rule* FindRule(std::string_view code) {
  for (const Rule* rule : AllRules()) {
    if (rule->Meta().code == code || rule->Meta().name == code) return rule;
  }
  return nullptr;
}

FoundOption FindRuleOption(std::string_view key) {
  for (const Rule* rule : AllRules()) {
    for (const RuleOptionSpec& spec : rule->Meta().options) {
      if (spec.key == key) return {rule, &spec};
    }
  }
  return {};
}

std::string CheckRuleOption(const RuleOptionSpec& spec, int64_t value) {
  if (value >= spec.min && value <= spec.max) return "";
  return fmt::format("{}: use an integer from {} to {} (default {})", spec.key, spec.min, spec.max, spec.default_value);
}

std::optional<TorchVersion> TorchVersion::Parse(std::string_view text) {
  auto parse_int = [](std::string_view s, int& out) {
    if (s.empty()) return false;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && ptr == s.data() + s.size() && out >= 0 && out < 1000;
  };
  TorchVersion version{0, 0};
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos) {
    if (!parse_int(text, version.major)) return std::nullopt;
    return version;
  }
  if (!parse_int(text.substr(0, dot), version.major)) return std::nullopt;
  std::string_view rest = text.substr(dot + 1);
  size_t end = 0;
  while (end < rest.size() && rest[end] >= '0' && rest[end] <= '9') ++end;
  if (!parse_int(rest.substr(0, end), version.minor)) return std::nullopt;
  return version;
}

std::string TorchVersion::ToString() const { return fmt::format("{}.{}", major, minor); }

}  // namespace tl

namespace tl {

std::string Rule::English(std::string_view id, const MessageArgs& args) const {
  const MessageText* entry = FindMessage(Meta().messages, id);
  if (entry == nullptr) {
    throw std::logic_error(fmt::format("{}: message `{}` is not in the rule's catalog", Meta().code, id));
  }
  return FormatMessage(entry->en, args, Lang::kEnglish);
}

namespace {

// `english` again in `lang` when `ref` names an entry of the rule `code`'s catalog.
std::string Localize(std::string_view code, const MessageRef& ref, const std::string& english, Lang lang) {
  if (lang == Lang::kEnglish || ref.id.empty()) return english;
  if (!ref.catalog.empty()) return LocalizedText(ref, english, lang);
  const Rule* rule = FindRule(code);
  const MessageText* entry = rule == nullptr ? nullptr : FindMessage(rule->Meta().messages, ref.id);
  if (entry == nullptr) return english;
  return FormatMessage(entry->zh, ref.args, lang);
}

}  // namespace

std::string LocalizedMessage(const Diagnostic& diagnostic, Lang lang) {
  return Localize(diagnostic.code, diagnostic.message_ref, diagnostic.message, lang);
}

std::string LocalizedFixTitle(const Diagnostic& diagnostic, Lang lang) {
  if (!diagnostic.fix) return "";
  return Localize(diagnostic.code, diagnostic.fix->title_ref, diagnostic.fix->title, lang);
}

std::string LocalizedRelated(const Diagnostic& diagnostic, const RelatedLocation& related, Lang lang) {
  return Localize(diagnostic.code, related.message_ref, related.message, lang);
}

}  // namespace tl
