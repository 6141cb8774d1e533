// How subcommands plug into the torchlint executable. Each subcommand lives in its own file under
// linter/cli/ and registers itself with TL_REGISTER_COMMAND, so adding one never edits main.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tl::cli {

// What a subcommand gives main: the CLI11 node its options were declared on, and what to run when it
// was chosen. `run` returns the process exit code (0 clean, 1 findings or warnings, 2 usage or input error).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

using CommandFactory = Command (*)(CLI::App& root);

// Registration order decides the order in `torchlint --help`; `order` sorts it (lower first).
struct CommandRegistration {
  int order;
  CommandFactory factory;
};

std::vector<CommandRegistration>& CommandRegistry();

struct CommandRegistrar {
  CommandRegistrar(int order, CommandFactory factory) { CommandRegistry().push_back({order, factory}); }
};

}  // namespace tl::cli

#define TL_CLI_CONCAT_INNER(a, b) a##b
#define TL_CLI_CONCAT(a, b) TL_CLI_CONCAT_INNER(a, b)
#define TL_REGISTER_COMMAND(order, factory) \
  static const ::tl::cli::CommandRegistrar TL_CLI_CONCAT(tl_command_registrar_, __LINE__)((order), (factory))
