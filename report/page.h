// What the small reports (trace diff, memory) share to render in text or markdown, English or Chinese:
// the words in the chosen language, and section and page titles in the chosen format.
#pragma once

#include <string>

#include <fmt/core.h>

#include "report/trace_report_model.h"

namespace tl::trace {

class Page {
 public:
  Page(ReportFormat format, Language language)
      : md_(format == ReportFormat::kMarkdown), zh_(language == Language::kChinese) {}
  bool zh() const { return zh_; }
  bool md() const { return md_; }
  std::string T(const char* en, const char* cn) const { return zh_ ? cn : en; }
  std::string Heading(const std::string& title) const {
    return md_ ? fmt::format("\n## {}\n\n", title) : fmt::format("\n{}\n{}\n", title, std::string(title.size(), '-'));
  }
  std::string Title(const std::string& title) const {
    return md_ ? fmt::format("# {}\n\n", title) : fmt::format("{}\n{}\n\n", title, std::string(title.size(), '='));
  }

 private:
  bool md_;
  bool zh_;
};

}  // namespace tl::trace
