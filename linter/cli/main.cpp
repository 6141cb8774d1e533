// The torchlint executable: parses the command line with CLI11 and runs the chosen subcommand.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string_view>

#include <fmt/core.h>

#include "linter/cli/app_text.h"
#include "linter/cli/command.h"

namespace tl::cli {

namespace {
constexpr const char* kVersion = "torchlint 0.1.0";
}  // namespace

std::vector<CommandRegistration>& CommandRegistry() {
  static std::vector<CommandRegistration> registry;
  return registry;
}

}  // namespace tl::cli

// NOLINTNEXTLINE(bugprone-exception-escape): what escapes here is out of memory; terminating is right
int main(int argc, char** argv) {
  CLI::App app{"torchlint: find PyTorch performance anti-patterns in code and confirm them on profiler traces"};
  app.set_version_flag("--version", std::string(tl::cli::kVersion));
  app.require_subcommand(1);

  auto registrations = tl::cli::CommandRegistry();
  std::stable_sort(registrations.begin(), registrations.end(),
                   [](const auto& a, const auto& b) { return a.order < b.order; });
  std::vector<tl::cli::Command> commands;
  commands.reserve(registrations.size());
  for (const auto& registration : registrations) commands.push_back(registration.factory(app));

  // The build writes the man page and the shell completions from this same App (CMakeLists.txt); the
  // flag is not in --help since it is for packaging, not for users.
  if (argc == 3 && std::string_view(argv[1]) == "--write-share") {
    if (auto written = tl::cli::WriteShareFiles(app, tl::cli::kVersion, argv[2]); !written.ok()) {
      fmt::print(stderr, "error: {}\n", written.error().message);
      return 2;
    }
    return 0;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors are exit 2, whatever CLI11's own code is. A mistyped command or flag gets the nearest
    // name instead of CLI11's "not expected".
    if (auto unknown = tl::cli::UnknownNameError(app, argc, argv)) {
      fmt::print(stderr, "error: {}\n", *unknown);
      return 2;
    }
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
