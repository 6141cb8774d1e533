// `trace diff BEFORE AFTER --check SCRIPT`: the findings BEFORE confirms, with their rule's predicted
// saving beside the saving AFTER measured, on our own A/B pairs (tests/e2e: a script and its fixed
// twin, each profiled with a real PyTorch). Negative cases: a pair in which nothing is confirmed, a
// script checked against the traces of another script, a pair in which the finding stays unfixed.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli_support.h"

using tl::test::RunTorchlint;
using tl::test::SourceDir;

namespace {

const std::string kTraces = "tests/e2e/traces/";
const std::string kScripts = "tests/e2e/scripts/";

nlohmann::json DiffJson(const std::string& before, const std::string& after, const std::string& script,
                        const std::string& after_script = "") {
  std::vector<std::string> args = {"trace",    "diff", kTraces + before, kTraces + after,
                                   "--format", "json", "--check",        kScripts + script};
  if (!after_script.empty()) {
    args.push_back("--after-script");
    args.push_back(kScripts + after_script);
  }
  auto r = RunTorchlint(args, SourceDir());
  INFO(r.Transcript());
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("trace diff --check: TL201 on the num_workers pair is fixed in AFTER, predicted beside measured") {
  const auto j = DiffJson("workers0.pt.trace.json.gz", "workers0_fixed.pt.trace.json.gz", "workers0.py",
                          "workers0_fixed.py");
  const double before = j["before"]["step_ms"].get<double>();
  const double after = j["after"]["step_ms"].get<double>();
  CHECK(before > after);
  REQUIRE(j["findings"].is_array());
  const nlohmann::json* tl201 = nullptr;
  for (const auto& f : j["findings"]) {
    CHECK(f["predicted_saved_ms_per_step"].get<double>() > 0.0);  // only confirmed findings are listed
    if (f["code"] == "TL201") tl201 = &f;
  }
  REQUIRE(tl201 != nullptr);
  const auto& f = *tl201;
  CHECK(f["file"] == kScripts + "workers0.py");
  CHECK(f["line"] == 55);
  CHECK(f["measured_saved_ms_per_step"].get<double>() == doctest::Approx(before - after));
  CHECK(f["cost_after_ms_per_step"].get<double>() < 0.5 * f["cost_before_ms_per_step"].get<double>());
  CHECK(f["verdict_after"] == "refuted");  // the fixed twin's loader has workers
  CHECK(f["fixed_in_after"] == true);

  auto text = RunTorchlint({"trace", "diff", kTraces + "workers0.pt.trace.json.gz",
                            kTraces + "workers0_fixed.pt.trace.json.gz", "--check", kScripts + "workers0.py",
                            "--after-script", kScripts + "workers0_fixed.py"},
                           SourceDir());
  INFO(text.Transcript());
  CHECK(text.out.find("Predicted and measured savings") != std::string::npos);
  CHECK(text.out.find("TL201 dataloader-num-workers at tests/e2e/scripts/workers0.py:55") != std::string::npos);
  CHECK(text.out.find("finding(s) fixed in AFTER predicted") != std::string::npos);
}

TEST_CASE("trace diff --check: TL201's model lands within 1.5x of the step's drop on the CPU-bound decode pair") {
  // decode0's loading computes, as decoding does, so the workers compete with the training process for
  // the CPU and only part of the loader's time comes back (docs/crosscheck.md). The model's factor was
  // read off the ResNet50 pair, not this one.
  const auto j = DiffJson("decode0.pt.trace.json.gz", "decode0_fixed.pt.trace.json.gz", "decode0.py",
                          "decode0_fixed.py");
  const nlohmann::json* tl201 = nullptr;
  for (const auto& f : j["findings"]) {
    if (f["code"] == "TL201") tl201 = &f;
  }
  REQUIRE(tl201 != nullptr);
  const double predicted = (*tl201)["predicted_saved_ms_per_step"].get<double>();
  const double measured = (*tl201)["measured_saved_ms_per_step"].get<double>();
  INFO("predicted " << predicted << " ms, measured " << measured << " ms");
  CHECK((*tl201)["fixed_in_after"] == true);
  REQUIRE(measured > 0.0);
  CHECK(predicted / measured <= 1.5);
  CHECK(predicted / measured >= 1.0 / 1.5);
  // The loader's own time fell much further than the step did: the point of showing both.
  CHECK((*tl201)["cost_before_ms_per_step"].get<double>() - (*tl201)["cost_after_ms_per_step"].get<double>() >
        1.5 * measured);
}

TEST_CASE("trace diff --check: the same trace on both sides leaves every finding unfixed, with no ratio") {
  const auto j = DiffJson("workers0.pt.trace.json.gz", "workers0.pt.trace.json.gz", "workers0.py");
  REQUIRE_FALSE(j["findings"].empty());
  for (const auto& f : j["findings"]) {
    CHECK(f["measured_saved_ms_per_step"].get<double>() == doctest::Approx(0.0));
    CHECK(f["fixed_in_after"] == false);
    CHECK(f["verdict_after"] == "confirmed");
  }
  auto text = RunTorchlint({"trace", "diff", kTraces + "workers0.pt.trace.json.gz",
                            kTraces + "workers0.pt.trace.json.gz", "--check", kScripts + "workers0.py"},
                           SourceDir());
  CHECK(text.out.find("AFTER still shows all") != std::string::npos);
  CHECK(text.out.find("predicted / measured") == std::string::npos);
}

TEST_CASE("trace diff --check: another script's traces confirm nothing of this one") {
  // zero_grad_false.py's TL301 cannot be tied to the num_workers pair: its lines never ran there.
  const auto j = DiffJson("workers0.pt.trace.json.gz", "workers0_fixed.pt.trace.json.gz", "zero_grad_false.py");
  for (const auto& f : j["findings"]) CHECK(f["code"] != "TL301");
  // A script whose findings the trace cannot confirm at all: the section says so.
  auto text = RunTorchlint({"trace", "diff", kTraces + "sync_item.pt.trace.json.gz",
                            kTraces + "sync_item_fixed.pt.trace.json.gz", "--check", "examples/clean_loop.py"},
                           SourceDir());
  INFO(text.Transcript());
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("confirmed no finding of the checked scripts") != std::string::npos);
}

TEST_CASE("trace diff --check: without --after-script, AFTER of a differently named twin cannot judge the finding") {
  const auto j = DiffJson("workers0.pt.trace.json.gz", "workers0_fixed.pt.trace.json.gz", "workers0.py");
  REQUIRE_FALSE(j["findings"].empty());
  for (const auto& f : j["findings"]) {
    CHECK(f["fixed_in_after"] == false);
    CHECK(f["cost_after_ms_per_step"].is_null());
  }
}

TEST_CASE("trace diff --check: HTML and Chinese carry the same section; a missing script is one error, exit 2") {
  auto html = RunTorchlint({"trace", "diff", kTraces + "workers0.pt.trace.json.gz",
                            kTraces + "workers0_fixed.pt.trace.json.gz", "--format", "html", "--lang", "zh", "--check",
                            kScripts + "workers0.py", "--after-script", kScripts + "workers0_fixed.py"},
                           SourceDir());
  INFO(html.Transcript());
  REQUIRE(html.exit_code == 0);
  CHECK(html.out.starts_with("<!DOCTYPE html>"));
  CHECK(html.out.find("<section id=\"savings\">") != std::string::npos);
  CHECK(html.out.find("预计节省与实测节省") != std::string::npos);
  CHECK(html.out.find("class=\"chart paired\"") != std::string::npos);
  CHECK(html.out.find("rect class=\"bar after\"") != std::string::npos);
  CHECK(html.out.find("<script") == std::string::npos);  // self-contained, nothing to run or fetch
  CHECK(html.out.find("http") == std::string::npos);

  auto missing = RunTorchlint({"trace", "diff", kTraces + "workers0.pt.trace.json.gz",
                               kTraces + "workers0_fixed.pt.trace.json.gz", "--check", "no/such/script.py"},
                              SourceDir());
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no/such/script.py") != std::string::npos);
  CHECK(missing.out.empty());
}

TEST_CASE("trace diff: ops of a 1.8-1.9 trace are the ops under ProfilerStep, not the step ranges") {
  auto b = tl::test::SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  auto a = tl::test::SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz");
  if (!b || !a) return;  // SharedTrace printed the skipped: line
  auto r = RunTorchlint({"trace", "diff", b->string(), a->string(), "--format", "json"}, SourceDir());
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE_FALSE(j["ops"].empty());
  for (const auto& op : j["ops"]) CHECK(op["name"].get<std::string>().rfind("ProfilerStep#", 0) != 0);
}
