// `torchlint --write-share DIR`, which the build runs to generate the man page and the shell completions
// from the command line itself: every command and flag is in them, and a folder it cannot write is one
// line, exit 2. tests/cli/install.sh checks them as installed (groff, bash, zsh, fish).
#include "cli_support.h"

using tl::test::ReadText;
using tl::test::RunTorchlint;
using tl::test::TempFolder;

TEST_CASE("--write-share writes the man page and completions with every command and enumerated value") {
  TempFolder dir;
  auto result = RunTorchlint({"--write-share", "share"}, dir.path());
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.empty());
  CHECK(result.err.empty());
  const std::string man = ReadText(dir.path() / "share/man/man1/torchlint.1");
  const std::string bash = ReadText(dir.path() / "share/bash-completion/completions/torchlint");
  const std::string zsh = ReadText(dir.path() / "share/zsh/site-functions/_torchlint");
  const std::string fish = ReadText(dir.path() / "share/fish/vendor_completions.d/torchlint.fish");
  CHECK(man.find(".TH TORCHLINT 1") != std::string::npos);
  CHECK(zsh.starts_with("#compdef torchlint\n"));
  for (const char* command : {"check", "trace", "instrument", "memory", "rule", "rules", "report", "server"}) {
    CAPTURE(command);
    CHECK(man.find(fmt::format(".SS \"torchlint {} ", command)) != std::string::npos);
    CHECK(bash.find(fmt::format("'{}')", command)) != std::string::npos);
    CHECK(fish.find(fmt::format("-a {} -d", command)) != std::string::npos);
  }
  CHECK(man.find(".SS \"torchlint trace diff ") != std::string::npos);
  // An enumerated option completes to its values, in each shell.
  CHECK(bash.find("--output-format) COMPREPLY=($(compgen -W 'text full concise json sarif github'") !=
        std::string::npos);
  CHECK(zsh.find("(--output-format) compadd -- text full concise json sarif github") != std::string::npos);
  CHECK(fish.find("-l output-format -x -a 'text full concise json sarif github'") != std::string::npos);
  // The hidden flag itself is not documented.
  CHECK(man.find("\\fB\\-\\-write\\-share\\fR") == std::string::npos);
  CHECK(bash.find("--write-share ") == std::string::npos);
}

TEST_CASE("--write-share into a folder it cannot create: one line, exit 2") {
  TempFolder dir;
  dir.Write("file", "a file, not a folder");
  auto result = RunTorchlint({"--write-share", "file/share"}, dir.path());
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK(result.err.starts_with("error: cannot create file/share/man/man1: "));
  CHECK(result.err.find('\n') == result.err.size() - 1);
}
