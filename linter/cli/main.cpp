// The torchlint executable: parses the command line with CLI11 and runs the chosen subcommand.
#include <algorithm>
#include <cstdio>
#include <exception>

#include <fmt/core.h>

#include "linter/cli/command.h"

namespace tl::cli {

std::vector<CommandRegistration>& CommandRegistry() {
  static std::vector<CommandRegistration> registry;
  return registry;
}

}  // namespace tl::cli

// NOLINTNEXTLINE(bugprone-exception-escape): what escapes here is out of memory; terminating is right
int main(int argc, char** argv) {
  CLI::App app{"torchlint: find PyTorch performance anti-patterns in code and confirm them on profiler traces"};
  app.set_version_flag("--version", std::string("torchlint 0.1.0"));
  app.require_subcommand(1);

  auto registrations = tl::cli::CommandRegistry();
  std::stable_sort(registrations.begin(), registrations.end(),
                   [](const auto& a, const auto& b) { return a.order < b.order; });
  std::vector<tl::cli::Command> commands;
  commands.reserve(registrations.size());
  for (const auto& registration : registrations) commands.push_back(registration.factory(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors are exit 2, whatever CLI11's own code is.
    app.exit(e);
    return 2;
  }

  for (const auto& command : commands) {
    if (command.app != nullptr && command.app->parsed()) {
      try {
        return command.run();
      } catch (const std::exception& e) {
        fmt::print(stderr, "torchlint: internal error: {}\n", e.what());
        return 2;
      }
    }
  }
  return 2;
}
