// A checker for renderings meant to be Chinese (`--lang zh`): the runs of three or more English words in
// their prose, outside code (backticks, code blocks, <code>, the HTML charts whose labels are event
// names, the source lines `check` quotes) and outside table columns. English terms the PyTorch profiler
// guide keeps (step, kernel, trace, DataLoader, GPU) never make such a run on their own in a Chinese
// sentence, so any run found is a sentence left untranslated.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tl::test {

enum class Markup { kText, kMarkdown, kHtml };

// `text` with every `open`...`close` span (both included) replaced by a separator.
inline std::string EraseBetween(std::string text, std::string_view open, std::string_view close) {
  for (size_t at = text.find(open); at != std::string::npos; at = text.find(open, at)) {
    const size_t end = text.find(close, at + open.size());
    if (end == std::string::npos) break;
    text.replace(at, end + close.size() - at, " | ");
  }
  return text;
}

inline std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// The prose of a rendering: code, markup and the quoted source lines taken out.
inline std::string Prose(std::string text, Markup markup) {
  if (markup == Markup::kHtml) {
    for (const auto& [open, close] : std::array<std::pair<std::string_view, std::string_view>, 4>{
             {{"<style>", "</style>"}, {"<svg", "</svg>"}, {"<code>", "</code>"}, {"<td class=\"name\">", "</td>"}}}) {
      text = EraseBetween(std::move(text), open, close);
    }
    text = EraseBetween(std::move(text), "<", ">");
    for (const auto& [entity, c] : std::array<std::pair<std::string_view, std::string_view>, 5>{
             {{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}}}) {
      text = ReplaceAll(std::move(text), entity, c);
    }
  }
  if (markup != Markup::kText) text = EraseBetween(std::move(text), "```", "```");
  // `check`'s quoted source: "12 |     loader = ..." and the gutter lines around it.
  std::string kept;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = std::string_view(text).substr(start, end - start);
    size_t i = line.find_first_not_of(' ');
    if (i != std::string_view::npos) {
      while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
      if (i < line.size() && line[i] == ' ') ++i;
    }
    if (markup != Markup::kText || i == std::string_view::npos || i >= line.size() || line[i] != '|') {
      kept.append(line);
      kept += '\n';
    }
    start = end + 1;
  }
  // Code spans, one line at most.
  std::string out;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i] == '`') {
      const size_t close = kept.find_first_of("`\n", i + 1);
      if (close != std::string::npos && kept[close] == '`') {
        out += " | ";
        i = close;
        continue;
      }
    }
    out += kept[i];
  }
  return out;
}

// An English word: letters, with an inner apostrophe ("trace's"). Hyphenated names ("trace-low-gpu-busy",
// "not-observed") are codes, numbers and dotted or underscored names are code or figures.
inline bool IsWord(std::string_view token) {
  while (!token.empty() && std::string_view("(),;:.!?\"'").find(token.front()) != std::string_view::npos)
    token.remove_prefix(1);
  while (!token.empty() && std::string_view("(),;:.!?\"'").find(token.back()) != std::string_view::npos)
    token.remove_suffix(1);
  if (token.empty()) return false;
  for (size_t i = 0; i < token.size(); ++i) {
    const char c = token[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!letter && !(c == '\'' && i > 0 && i + 1 < token.size())) return false;
  }
  return true;
}

// Runs of three or more English words in the prose of `text`. A run ends at anything that is not an
// ASCII word between single spaces: a Chinese character or punctuation mark, a line break, a column gap
// of two spaces, a table or markup separator, a figure.
inline std::vector<std::string> EnglishRuns(const std::string& text, Markup markup) {
  const std::string prose = Prose(text, markup);
  std::vector<std::string> runs;
  std::vector<std::string_view> run;
  auto close = [&] {
    if (run.size() >= 3) {
      std::string joined;
      for (std::string_view w : run) joined += (joined.empty() ? "" : " ") + std::string(w);
      runs.push_back(std::move(joined));
    }
    run.clear();
  };
  size_t i = 0;
  while (i < prose.size()) {
    const auto c = static_cast<unsigned char>(prose[i]);
    if (c >= 0x80 || c == '\n' || std::string_view("|<>[]{}=").find(static_cast<char>(c)) != std::string_view::npos) {
      close();
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t') {
      size_t j = i;
      while (j < prose.size() && (prose[j] == ' ' || prose[j] == '\t')) ++j;
      if (j - i >= 2) close();
      i = j;
      continue;
    }
    size_t j = i;
    while (j < prose.size() && static_cast<unsigned char>(prose[j]) < 0x80 && prose[j] != ' ' && prose[j] != '\t' &&
           prose[j] != '\n' && std::string_view("|<>[]{}=").find(prose[j]) == std::string_view::npos) {
      ++j;
    }
    const std::string_view token = std::string_view(prose).substr(i, j - i);
    if (IsWord(token)) {
      run.push_back(token);
    } else {
      close();
    }
    // A word glued to a Chinese character or a separator ends the run there.
    if (j < prose.size() && prose[j] != ' ' && prose[j] != '\t') close();
    i = j;
  }
  close();
  return runs;
}

}  // namespace tl::test
