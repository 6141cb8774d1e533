// File discovery on real temporary trees: *.py only, skipped folders (VCS, virtualenvs, build and
// cache folders), .gitignore from the repository root down, config excludes, symlink loops, dangling
// links, missing paths and explicit files.
#include <sys/stat.h>
#include <unistd.h>
#include <doctest/doctest.h>

#include <algorithm>

#include "engine_test_support.h"
#include "linter/engine/discovery.h"

using tl::DiscoverFiles;
using tl::DiscoveryOptions;
using tl::test::TempDir;

namespace {

std::vector<std::string> Relative(const tl::DiscoveryResult& result, const TempDir& dir) {
  std::vector<std::string> out;
  for (const auto& file : result.files) out.push_back(file.path.lexically_relative(dir.path()).generic_string());
  return out;
}

}  // namespace

TEST_CASE("folders are walked for *.py, in sorted order, skipping what projects never lint") {
  TempDir dir;
  dir.Write("b.py", "");
  dir.Write("a.py", "");
  dir.Write("notes.txt", "");
  dir.Write("pkg/z.py", "");
  dir.Write("pkg/sub/y.py", "");
  dir.Write(".git/hooks/x.py", "");
  dir.Write(".venv/lib/x.py", "");
  dir.Write("venv/lib/x.py", "");
  dir.Write("env/pyvenv.cfg", "home = /usr/bin\n");
  dir.Write("env/lib/x.py", "");
  dir.Write("build/lib/x.py", "");
  dir.Write("node_modules/x.py", "");
  dir.Write("pkg/__pycache__/x.py", "");
  dir.Write("pkg.egg-info/x.py", "");
  const auto result = DiscoverFiles({dir.path().string()}, {});
  CHECK(result.errors.empty());
  CHECK(Relative(result, dir) == std::vector<std::string>{"a.py", "b.py", "pkg/sub/y.py", "pkg/z.py"});
}

TEST_CASE("display paths keep the argument as written") {
  TempDir dir;
  dir.Write("src/train.py", "");
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const auto result = DiscoverFiles({"src/", "."}, {});
  std::filesystem::current_path(cwd);
  REQUIRE(result.files.size() == 1);  // the second argument finds the same file again
  CHECK(result.files[0].display_path == "src/train.py");
}

TEST_CASE(".gitignore files apply from the repository root down, with negation") {
  TempDir dir;
  dir.Write(".git/HEAD", "ref: refs/heads/main\n");
  dir.Write(".gitignore", "generated/\n*_pb2.py\n");
  dir.Write("generated/a.py", "");
  dir.Write("proto/msg_pb2.py", "");
  dir.Write("proto/keep.py", "");
  dir.Write("scripts/.gitignore", "*.py\n!train.py\n");
  dir.Write("scripts/tmp.py", "");
  dir.Write("scripts/train.py", "");
  auto result = DiscoverFiles({dir.path().string()}, {});
  CHECK(Relative(result, dir) == std::vector<std::string>{"proto/keep.py", "scripts/train.py"});

  // Walking a subfolder still honours the root's .gitignore.
  result = DiscoverFiles({(dir / "proto").string()}, {});
  CHECK(Relative(result, dir) == std::vector<std::string>{"proto/keep.py"});

  DiscoveryOptions all;
  all.respect_gitignore = false;
  result = DiscoverFiles({dir.path().string()}, all);
  CHECK(result.files.size() == 5);
}

TEST_CASE("a file named on the command line is read even when ignored, unless --force-exclude") {
  TempDir dir;
  dir.Write("build/gen.py", "");
  auto result = DiscoverFiles({(dir / "build/gen.py").string()}, {});
  CHECK(result.files.size() == 1);

  DiscoveryOptions options;
  options.force_exclude = true;
  options.excluded = [](const std::filesystem::path& path, bool) { return path.filename() == "gen.py"; };
  result = DiscoverFiles({(dir / "build/gen.py").string()}, options);
  CHECK(result.files.empty());
}

TEST_CASE("the config's exclude prunes folders and files during the walk") {
  TempDir dir;
  dir.Write("a.py", "");
  dir.Write("legacy/b.py", "");
  DiscoveryOptions options;
  options.excluded = [](const std::filesystem::path& path, bool is_dir) {
    return is_dir && path.filename() == "legacy";
  };
  const auto result = DiscoverFiles({dir.path().string()}, options);
  CHECK(Relative(result, dir) == std::vector<std::string>{"a.py"});
}

TEST_CASE("symlink loops end the walk and dangling links are one-line errors") {
  TempDir dir;
  dir.Write("pkg/a.py", "");
  std::filesystem::create_directory_symlink(dir.path(), dir / "pkg/loop");
  std::filesystem::create_symlink(dir / "missing.py", dir / "pkg/dangling.py");
  std::filesystem::create_symlink(dir / "self.py", dir / "self.py");
  const auto result = DiscoverFiles({dir.path().string()}, {});
  CHECK(Relative(result, dir) == std::vector<std::string>{"pkg/a.py"});
  REQUIRE(result.errors.size() == 2);
  std::vector<std::string> messages;
  for (const auto& error : result.errors) messages.push_back(error.message);
  std::sort(messages.begin(), messages.end());
  CHECK(messages[0].find("dangling.py: broken symbolic link") != std::string::npos);
  CHECK(messages[1].find("self.py: symbolic link loop") != std::string::npos);
}

TEST_CASE("missing paths and pipes are errors, and the other arguments are still walked") {
  TempDir dir;
  dir.Write("ok.py", "");
  REQUIRE(::mkfifo((dir / "pipe.py").c_str(), 0644) == 0);
  const auto result = DiscoverFiles({(dir / "nope.py").string(), (dir / "pipe.py").string(), (dir / "ok.py").string()},
                                    {});
  REQUIRE(result.errors.size() == 2);
  CHECK(result.errors[0].message.find("nope.py: no such file or folder") != std::string::npos);
  CHECK(result.errors[1].message.find("pipe.py: not a regular file or folder") != std::string::npos);
  CHECK(result.files.size() == 1);
  // A pipe met during a walk is skipped silently rather than opened (which would block).
  const auto walked = DiscoverFiles({dir.path().string()}, {});
  CHECK(walked.errors.empty());
  CHECK(walked.files.size() == 1);
}

TEST_CASE("an unreadable folder is an error for that folder only") {
  if (::geteuid() == 0) {
    MESSAGE("skipped: running as root, which reads folders whatever their permissions");
    return;
  }
  TempDir dir;
  dir.Write("ok.py", "");
  dir.Write("locked/x.py", "");
  std::filesystem::permissions(dir / "locked", std::filesystem::perms::none);
  const auto result = DiscoverFiles({dir.path().string()}, {});
  CHECK(result.files.size() == 1);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].message.find("cannot read the folder") != std::string::npos);
}
