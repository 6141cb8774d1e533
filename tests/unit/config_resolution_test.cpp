// Configuration: parsing [tool.torchlint] and torchlint.toml, errors that name the file, line and key,
// the closest config winning (torchlint.toml over pyproject.toml in one folder), per-file-ignores,
// exclude, and the command line overriding the file.
#include <doctest/doctest.h>

#include "engine_test_support.h"
#include "linter/engine/config.h"

using tl::CliOverrides;
using tl::Config;
using tl::ConfigResolver;
using tl::ParseConfig;
using tl::test::TempDir;

TEST_CASE("pyproject.toml: [tool.torchlint] with every key") {
  auto parsed = ParseConfig(R"(
[project]
name = "demo"

[tool.torchlint]
select = ["TL1", "tl2"]
ignore = ["TL202"]
target-torch = "1.13"
min-dim = 128
exclude = ["legacy/", "*_pb2.py"]

[tool.torchlint.per-file-ignores]
"tests/**" = ["TL201"]
"conftest.py" = ["TL1"]
)",
                            "/proj/pyproject.toml");
  REQUIRE(parsed.ok());
  REQUIRE(parsed->has_value());
  const Config& config = **parsed;
  CHECK(config.root == "/proj");
  CHECK(*config.select == std::vector<std::string>{"TL1", "TL2"});
  CHECK(config.ignore == std::vector<std::string>{"TL202"});
  CHECK(config.target_torch->ToString() == "1.13");
  CHECK(config.rule_options.at("min-dim") == 128);
  CHECK(config.Excludes("/proj/legacy/old.py", false));
  CHECK(config.Excludes("/proj/api/msg_pb2.py", false));
  CHECK_FALSE(config.Excludes("/proj/api/msg.py", false));
  CHECK(config.IgnoresFor("/proj/tests/unit/test_a.py") == std::vector<std::string>{"TL201"});
  CHECK(config.IgnoresFor("/proj/sub/conftest.py") == std::vector<std::string>{"TL1"});
  CHECK(config.IgnoresFor("/proj/train.py").empty());
}

TEST_CASE("a pyproject.toml without [tool.torchlint] is not a config") {
  auto parsed = ParseConfig("[project]\nname = \"x\"\n", "/p/pyproject.toml");
  REQUIRE(parsed.ok());
  CHECK_FALSE(parsed->has_value());
}

TEST_CASE("errors name the file, the position and the key") {
  auto unknown = ParseConfig("selct = [\"TL1\"]\n", "/p/torchlint.toml");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("/p/torchlint.toml:1:") == 0);
  CHECK(unknown.error().message.find("unknown key `selct`") != std::string::npos);

  auto bad_code = ParseConfig("select = [\"TL8\"]\n", "/p/torchlint.toml");
  REQUIRE_FALSE(bad_code.ok());
  CHECK(bad_code.error().message.find("unknown rule selector `TL8`") != std::string::npos);

  auto bad_type = ParseConfig("min-dim = \"big\"\n", "/p/torchlint.toml");
  REQUIRE_FALSE(bad_type.ok());
  CHECK(bad_type.error().message.find("`min-dim` must be a positive integer") != std::string::npos);

  auto bad_toml = ParseConfig("select = [\n", "/p/torchlint.toml");
  REQUIRE_FALSE(bad_toml.ok());
  CHECK(bad_toml.error().message.find("invalid TOML") != std::string::npos);
}

TEST_CASE("selectors: codes, prefixes, ALL, any case") {
  CHECK(*tl::NormalizeSelector("tl101") == "TL101");
  CHECK(*tl::NormalizeSelector("TL1") == "TL1");
  CHECK(*tl::NormalizeSelector("ALL") == "TL");
  CHECK_FALSE(tl::NormalizeSelector("TL999").ok());
  CHECK_FALSE(tl::NormalizeSelector("E501").ok());
}

TEST_CASE("the closest config wins, torchlint.toml first in one folder") {
  TempDir dir;
  dir.Write("pyproject.toml", "[tool.torchlint]\nselect = [\"TL1\"]\n");
  dir.Write("sub/pyproject.toml", "[project]\nname = \"no table here\"\n");
  dir.Write("other/pyproject.toml", "[tool.torchlint]\nselect = [\"TL2\"]\n");
  dir.Write("other/torchlint.toml", "select = [\"TL3\"]\n");
  ConfigResolver resolver;
  auto root = resolver.ForDirectory(dir.path());
  REQUIRE(root.ok());
  CHECK(*(*root)->select == std::vector<std::string>{"TL1"});
  auto sub = resolver.ForDirectory(dir / "sub/deeper");
  REQUIRE(sub.ok());
  CHECK((*sub)->path == dir / "pyproject.toml");
  auto other = resolver.ForDirectory(dir / "other");
  REQUIRE(other.ok());
  CHECK(*(*other)->select == std::vector<std::string>{"TL3"});
}

TEST_CASE("--config applies one file everywhere") {
  TempDir dir;
  dir.Write("sub/torchlint.toml", "select = [\"TL3\"]\n");
  Config forced;
  forced.select = std::vector<std::string>{"TL2"};
  ConfigResolver resolver(forced);
  auto sub = resolver.ForDirectory(dir / "sub");
  REQUIRE(sub.ok());
  CHECK(*(*sub)->select == std::vector<std::string>{"TL2"});
}

TEST_CASE("an invalid config is an error for the folders it governs") {
  TempDir dir;
  dir.Write("torchlint.toml", "select = 3\n");
  ConfigResolver resolver;
  auto result = resolver.ForDirectory(dir / "a/b");
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message.find("`select` must be a list of strings") != std::string::npos);
}

TEST_CASE("the command line overrides the config") {
  Config config;
  config.root = "/p";
  config.select = std::vector<std::string>{"TL2"};
  config.ignore = {"TL202"};
  config.per_file_ignores.push_back({*tl::PathPattern::Parse("tests/"), {"TL201"}});

  CliOverrides none;
  auto selection = tl::ResolveSelection(config, none, "/p/train.py");
  CHECK(selection.select == std::vector<std::string>{"TL2"});
  CHECK(selection.ignore == std::vector<std::string>{"TL202"});

  CliOverrides extra_ignore;
  extra_ignore.ignore = {"TL201"};
  selection = tl::ResolveSelection(config, extra_ignore, "/p/train.py");
  CHECK(selection.ignore == std::vector<std::string>{"TL202", "TL201"});

  // A --select replaces the config's select and its ignores, as in Ruff.
  CliOverrides select;
  select.select = std::vector<std::string>{"TL202"};
  selection = tl::ResolveSelection(config, select, "/p/train.py");
  CHECK(selection.select == std::vector<std::string>{"TL202"});
  CHECK(selection.ignore.empty());

  // per-file-ignores still apply.
  selection = tl::ResolveSelection(config, select, "/p/tests/test_x.py");
  CHECK(selection.ignore == std::vector<std::string>{"TL201"});
}
