// Target PyTorch inference: the lowest version a pin allows, from requirements*.txt and pyproject.toml
// (PEP 621 and Poetry), the closest folder with a pin winning.
#include <doctest/doctest.h>

#include "engine_test_support.h"
#include "linter/engine/torch_pin.h"

using tl::HighestAllowedVersion;
using tl::LowestAllowedVersion;
using tl::ParseTorchRequirement;
using tl::test::TempDir;

namespace {
std::string Lowest(std::string_view specifiers) {
  auto version = LowestAllowedVersion(specifiers);
  return version ? version->ToString() : "none";
}
std::string Highest(std::string_view specifiers) {
  auto version = HighestAllowedVersion(specifiers);
  return version ? version->ToString() : "none";
}
std::string Pin(std::string_view requirement) {
  auto pin = ParseTorchRequirement(requirement);
  return pin ? pin->version.ToString() : "none";
}
}  // namespace

TEST_CASE("the lowest allowed version of a specifier set") {
  CHECK(Lowest("==1.13.1") == "1.13");
  CHECK(Lowest(">=2.1,<3") == "2.1");
  CHECK(Lowest("~=1.12") == "1.12");
  CHECK(Lowest("~=1.12.1") == "1.12");
  CHECK(Lowest(">2.0") == "2.0");
  CHECK(Lowest("==2.1.*") == "2.1");
  CHECK(Lowest("==2.*") == "2.0");
  CHECK(Lowest("<3,>=2.2,!=2.3.0") == "2.2");
  CHECK(Lowest(">=1.13, >=2.0") == "2.0");  // both must hold
  CHECK(Lowest("==2.2.0rc1") == "2.2");
  CHECK(Lowest("^2.1") == "2.1");  // Poetry
  CHECK(Lowest("~1.13") == "1.13");
  CHECK(Lowest("2.0.1") == "2.0");
  CHECK(Lowest("<2") == "none");
  CHECK(Lowest("") == "none");
}

TEST_CASE("the newest allowed version of a specifier set (any minor is .999)") {
  CHECK(Highest(">=0.4.0") == "none");
  CHECK(Highest(">1.8,!=2.0.1") == "none");
  CHECK(Highest("==1.13.1") == "1.13");
  CHECK(Highest("===2.1.0") == "2.1");
  CHECK(Highest("==2.1.*") == "2.1");
  CHECK(Highest("==2.*") == "2.999");
  CHECK(Highest(">=2.1,<3") == "2.999");
  CHECK(Highest(">=1.8,<2") == "1.999");
  CHECK(Highest(">=1.8,<2.0") == "1.999");
  CHECK(Highest("<2.1") == "2.0");
  CHECK(Highest("<2.1.3") == "2.1");
  CHECK(Highest("<=1.12.1") == "1.12");
  CHECK(Highest("<3,<2.2") == "2.1");  // both must hold
  CHECK(Highest("~=1.12") == "1.999");
  CHECK(Highest("~=1.12.1") == "1.12");
  CHECK(Highest("^2.1") == "2.999");  // Poetry: <3
  CHECK(Highest("^0.4") == "0.4");    // Poetry: <0.5
  CHECK(Highest("~1.13") == "1.13");  // Poetry: <1.14
  CHECK(Highest("2.0.1") == "2.0");   // Poetry: a bare version is ==
  CHECK(Highest("") == "none");
  // Lowest and newest together: the pin a rule reads.
  auto pin = ParseTorchRequirement("torch>=1.4,<1.7");
  REQUIRE(pin);
  CHECK(pin->version.ToString() == "1.4");
  REQUIRE(pin->newest);
  CHECK(pin->newest->ToString() == "1.6");
  tl::RuleOptions options;
  tl::ApplyTorchPin(*pin, options);
  CHECK(options.Allows(tl::TorchVersion{1, 6}));
  CHECK_FALSE(options.Allows(tl::TorchVersion{1, 7}));
  auto open = ParseTorchRequirement("torch>=0.4.0");
  REQUIRE(open);
  CHECK_FALSE(open->newest);
  tl::ApplyTorchPin(*open, options);
  CHECK(options.Allows(tl::TorchVersion{2, 0}));
  tl::RuleOptions exact;  // an explicit target is one version
  exact.target_torch = tl::TorchVersion{1, 13};
  CHECK_FALSE(exact.Allows(tl::TorchVersion{2, 0}));
}

TEST_CASE("requirement lines") {
  CHECK(Pin("torch==1.13.1") == "1.13");
  CHECK(Pin("Torch >= 2.1 ; python_version >= '3.8'  # cuda build") == "2.1");
  CHECK(Pin("torch[opt-einsum]>=2.3") == "2.3");
  CHECK(Pin("torch (>=2.0)") == "2.0");
  CHECK(Pin("torch") == "none");
  CHECK(Pin("torch @ https://download.pytorch.org/whl/torch-2.1.0.whl") == "none");
  CHECK(Pin("torchvision==0.16") == "none");
  CHECK(Pin("pytorch-lightning>=2") == "none");
}

TEST_CASE("pins in pyproject.toml: PEP 621 dependencies, optional groups and Poetry") {
  auto pep621 = tl::FindTorchPinInText("[project]\ndependencies = [\"numpy\", \"torch>=2.1,<3\"]\n",
                                       "/p/pyproject.toml");
  REQUIRE(pep621);
  CHECK(pep621->version.ToString() == "2.1");
  CHECK(pep621->requirement == "torch>=2.1,<3");

  auto optional = tl::FindTorchPinInText("[project.optional-dependencies]\ngpu = [\"torch~=1.12\"]\n",
                                         "/p/pyproject.toml");
  REQUIRE(optional);
  CHECK(optional->version.ToString() == "1.12");

  auto poetry = tl::FindTorchPinInText("[tool.poetry.dependencies]\ntorch = { version = \"^1.13\" }\n",
                                       "/p/pyproject.toml");
  REQUIRE(poetry);
  CHECK(poetry->version.ToString() == "1.13");

  CHECK_FALSE(tl::FindTorchPinInText("not toml [", "/p/pyproject.toml"));
}

TEST_CASE("requirements files: comments and options are skipped") {
  auto pin = tl::FindTorchPinInText("# pinned\n-r base.txt\n--extra-index-url x\nnumpy\ntorch==1.13.1\n",
                                    "/p/requirements.txt");
  REQUIRE(pin);
  CHECK(pin->version.ToString() == "1.13");
}

TEST_CASE("the closest folder with a pin wins, searching upwards") {
  TempDir dir;
  dir.Write("requirements.txt", "torch>=2.1\n");
  dir.Write("legacy/requirements-gpu.txt", "torch==1.13.1\n");
  dir.Write("unpinned/requirements.txt", "torch\n");
  tl::TorchPinResolver resolver;
  auto root = resolver.ForDirectory(dir / "src/models");
  REQUIRE(root);
  CHECK(root->version.ToString() == "2.1");
  CHECK(root->source == dir / "requirements.txt");
  auto legacy = resolver.ForDirectory(dir / "legacy");
  REQUIRE(legacy);
  CHECK(legacy->version.ToString() == "1.13");
  // A bare `torch` pins nothing, so the search goes on to the parent.
  auto unpinned = resolver.ForDirectory(dir / "unpinned");
  REQUIRE(unpinned);
  CHECK(unpinned->version.ToString() == "2.1");
}
