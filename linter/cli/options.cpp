#include "linter/cli/options.h"

#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "linter/engine/config.h"

namespace tl::cli {

int UsageError(const std::string& message) {
  fmt::print(stderr, "error: {}\n", message);
  return 2;
}

bool UseColor(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) != 0;
}

CLI::Option* AddColorOption(CLI::App* app, std::string& color) {
  return app
      ->add_option("--color", color, "Colour the text output: auto (on a terminal, unless NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

void AddSelectorOptions(CLI::App* app, std::vector<std::string>& select, std::vector<std::string>& ignore,
                        const std::string& select_help, const std::string& ignore_help) {
  for (auto [name, values, help] :
       {std::tuple{"--select", &select, &select_help}, {"--ignore", &ignore, &ignore_help}}) {
    app->add_option(name, *values, *help)
        ->delimiter(',')
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
}

Result<std::vector<std::string>> NormalizeSelectors(const std::vector<std::string>& raw, std::string_view flag) {
  std::vector<std::string> out;
  for (const std::string& selector : raw) {
    if (selector.empty()) continue;
    auto normalized = NormalizeSelector(selector);
    if (!normalized.ok()) return Error{fmt::format("{}: {}", flag, normalized.error().message)};
    out.push_back(std::move(*normalized));
  }
  return out;
}

bool WriteOutput(const std::string& path, std::string_view text) {
  if (path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return true;
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!file) {
    fmt::print(stderr, "torchlint: error: cannot write {}: {}; check that its folder exists and is writable\n", path,
               std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace tl::cli
