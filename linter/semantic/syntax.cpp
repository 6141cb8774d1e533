#include "linter/semantic/syntax.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <string>

namespace tl::semantic {

using K = NodeKind;
using F = FieldName;

SyntaxTables::SyntaxTables() {
  static constexpr std::pair<std::string_view, K> kNames[] = {
      {"module", K::kModule},
      {"function_definition", K::kFunction},
      {"lambda", K::kLambda},
      {"class_definition", K::kClass},
      {"for_statement", K::kFor},
      {"while_statement", K::kWhile},
      {"if_statement", K::kIf},
      {"elif_clause", K::kElif},
      {"call", K::kCall},
      {"interpolation", K::kInterpolation},
      {"string", K::kString},
      {"assignment", K::kAssignment},
      {"augmented_assignment", K::kAugmented},
      {"import_statement", K::kImport},
      {"import_from_statement", K::kImportFrom},
      {"future_import_statement", K::kImportFrom},
      {"block", K::kBlock},
      {"identifier", K::kIdentifier},
      {"attribute", K::kAttribute},
      {"integer", K::kInteger},
      {"float", K::kFloat},
      {"true", K::kTrue},
      {"false", K::kFalse},
      {"none", K::kNone},
      {"parenthesized_expression", K::kParenthesized},
      {"unary_operator", K::kUnary},
      {"binary_operator", K::kBinary},
      {"comparison_operator", K::kComparison},
      {"not_operator", K::kNot},
      {"boolean_operator", K::kBoolean},
      {"conditional_expression", K::kConditional},
      {"subscript", K::kSubscript},
      {"keyword_argument", K::kKeywordArgument},
      {"dictionary_splat", K::kDictionarySplat},
      {"list_splat", K::kListSplat},
      {"dictionary", K::kDictionary},
      {"pair", K::kPair},
      {"pattern_list", K::kPatternList},
      {"tuple_pattern", K::kTuplePattern},
      {"list_pattern", K::kListPattern},
      {"tuple", K::kTuple},
      {"list", K::kList},
      {"set", K::kSet},
      {"list_comprehension", K::kComprehension},
      {"dictionary_comprehension", K::kComprehension},
      {"set_comprehension", K::kComprehension},
      {"generator_expression", K::kComprehension},
      {"parameters", K::kParameters},
      {"default_parameter", K::kDefaultParameter},
      {"typed_default_parameter", K::kDefaultParameter},
      {"typed_parameter", K::kTypedParameter},
      {"comment", K::kComment},
      {"concatenated_string", K::kConcatenatedString},
      {"decorated_definition", K::kDecorated},
      {"expression_statement", K::kExpressionStatement},
      {"argument_list", K::kArgumentList},
      {"string_content", K::kStringContent},
      {"aliased_import", K::kAliasedImport},
      {"dotted_name", K::kDottedName},
      {"wildcard_import", K::kWildcardImport},
      {"with_statement", K::kWith},
      {"type", K::kType},
      {"expression_list", K::kExpressionList},
      {"decorator", K::kDecorator},
      {"list_splat_pattern", K::kListSplatPattern},
      {"dictionary_splat_pattern", K::kDictionarySplatPattern},
      {"keyword_separator", K::kKeywordSeparator},
      {"positional_separator", K::kPositionalSeparator},
      {"assert_statement", K::kAssert},
      {"return_statement", K::kReturn},
      {"for_in_clause", K::kForInClause},
      {"if_clause", K::kIfClause},
      {"yield", K::kYield},
      {"except_clause", K::kExcept},
      {"try_statement", K::kTry},
  };
  const TSLanguage* language = ts::PythonLanguage();
  const uint32_t count = ts_language_symbol_count(language);
  by_symbol.assign(count, K::kOther);
  for (uint32_t symbol = 0; symbol < count; ++symbol) {
    const auto id = static_cast<TSSymbol>(symbol);
    // Anonymous tokens share names with named nodes ("none" vs the keyword); only named ones count.
    if (ts_language_symbol_type(language, id) != TSSymbolTypeRegular) {
      by_symbol[symbol] = K::kToken;
      continue;
    }
    const std::string_view name = ts_language_symbol_name(language, id);
    for (const auto& [type, kind] : kNames) {
      if (name == type) by_symbol[symbol] = kind;
    }
  }
  for (size_t i = 0; i < kFieldNames.size(); ++i) {
    fields[i] = ts_language_field_id_for_name(language, kFieldNames[i].data(),
                                              static_cast<uint32_t>(kFieldNames[i].size()));
  }
  field_body = ts_language_field_id_for_name(language, "body", 4);
  field_consequence = ts_language_field_id_for_name(language, "consequence", 11);
}

// Strips parentheses: `((x))` -> `x`. Iterative, so deep nesting is fine.
ts::Node Unparen(ts::Node node) {
  while (KindOf(node) == K::kParenthesized) {
    ts::Node inner = node.NamedChildCount() > 0 ? node.NamedChild(0) : ts::Node();
    if (inner.IsNull() || KindOf(inner) == K::kComment) return node;
    node = inner;
  }
  return node;
}

size_t NameCount(std::string_view text, std::string_view name) {
  size_t count = 0;
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if (at > 0 && (IdentifierChar(text[at - 1]) || text[at - 1] == '.')) continue;
    if (end < text.size() && IdentifierChar(text[end])) continue;
    ++count;
  }
  return count;
}

bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < needle.size(); ++k) {
      if (std::tolower(static_cast<unsigned char>(haystack[i + k])) != needle[k]) {
        match = false;
        break;
      }
    }
    if (match) return true;
  }
  return false;
}

// The content of a plain string literal (no f-string, no implicit concatenation): its text between the
// quotes, escapes as written. A plain string is a leaf of the flat tree (ts::FlatTree), so it is read
// from the text.
std::optional<std::string_view> StringContent(ts::Node node, std::string_view source) {
  if (KindOf(node) != K::kString) return std::nullopt;
  const std::string_view text = node.Text(source);
  // Prefixes such as f/b change what the bytes mean; only plain and r-strings are constants.
  size_t quote = 0;
  for (; quote < text.size() && text[quote] != '"' && text[quote] != '\''; ++quote) {
    const char c = text[quote];
    if (c != 'r' && c != 'R' && c != 'u' && c != 'U') return std::nullopt;
  }
  if (quote == text.size()) return std::nullopt;
  const std::string_view quoted = text.substr(quote);
  const std::string_view triple = quoted.substr(0, 3);
  const size_t width = triple.size() == 3 && triple[1] == triple[0] && triple[2] == triple[0] ? 3 : 1;
  const std::string_view body = quoted.substr(width);
  // Unterminated (a parse error): what follows the opening quotes.
  if (body.size() < width || !body.ends_with(quoted.substr(0, width))) return body;
  return body.substr(0, body.size() - width);
}

std::optional<int64_t> ParseIntLiteral(std::string_view text) {
  std::string digits;
  digits.reserve(text.size());
  for (char c : text) {
    if (c != '_') digits.push_back(c);
  }
  int base = 10;
  std::string_view body = digits;
  if (body.size() > 2 && body[0] == '0') {
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(body[1])));
    if (p == 'x') base = 16;
    if (p == 'o') base = 8;
    if (p == 'b') base = 2;
    if (base != 10) body.remove_prefix(2);
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value, base);
  if (ec != std::errc() || ptr != body.data() + body.size()) return std::nullopt;
  return value;
}

}  // namespace tl::semantic
