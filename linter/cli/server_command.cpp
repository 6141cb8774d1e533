// `torchlint server`: the language server, over stdin and stdout (lsp/server.h). `--stdio` is
// accepted because editors pass it; nothing else is ever written to stdout.
#include <unistd.h>

#include <memory>

#include "linter/cli/command.h"
#include "lsp/server.h"

namespace tl::cli {
namespace {

struct ServerArgs {
  bool stdio = true;
  size_t jobs = 0;
};

Command AddServerCommand(CLI::App& root) {
  auto args = std::make_shared<ServerArgs>();
  CLI::App* app = root.add_subcommand("server", "Run the language server (LSP over stdio) for editors");
  app->alias("lsp");
  app->add_flag("--stdio", args->stdio, "Speak LSP over stdin and stdout (the default and only transport)");
  app->add_option("--jobs,-j", args->jobs, "Threads for reading the project's modules (default: one per CPU)");
  return {app, [args] {
            lsp::FrameReader reader = lsp::FrameReader::ForFd(STDIN_FILENO);
            lsp::FrameWriter writer(STDOUT_FILENO);
            lsp::ServerOptions options;
            options.jobs = args->jobs;
            return lsp::Serve(reader, writer, options);
          }};
}

}  // namespace

TL_REGISTER_COMMAND(35, AddServerCommand);

}  // namespace tl::cli
