// argparse: the defaults of `parser.add_argument(...)`, read back as `args.name`.
#include "linter/semantic/builder.h"

#include <algorithm>
#include <string>

namespace tl::semantic {

namespace {
bool NamesCuda(std::string_view device) {
  return device == "cuda" || device == "gpu" || (device.starts_with("cuda:") && device.size() > 5);
}
}  // namespace

bool Builder::ChoicesNameCuda(const Site& site) const {
  const auto choices = m_.FindArgument(site, "choices", -1);
  if (!choices) return false;
  ts::Node list = Unparen(choices->value);
  const K k = KindOf(list);
  if (k != K::kList && k != K::kTuple && k != K::kSet) return false;
  for (uint32_t i = 0; i < list.NamedChildCount(); ++i) {
    if (const auto s = StringContent(list.NamedChild(i), m_.source_); s && NamesCuda(*s)) return true;
  }
  return false;
}

void Builder::ReadArgparse() {
  for (uint32_t index : add_argument_calls_) {
    const Site& site = m_.sites_[index];
    const ts::Node call_args = site.Arguments();
    if (call_args.IsNull()) continue;
    std::string dest;
    std::string_view first_long, first_short, positional;
    ts::Node default_node;
    std::string_view action, type;
    bool has_dest = false;
    for (ts::Node arg : call_args.NamedChildren()) {
      if (KindOf(arg) == K::kKeywordArgument) {
        const std::string_view key = m_.Text(Field(arg, F::kName));
        ts::Node value = Field(arg, F::kValue);
        if (key == "default") default_node = value;
        if (key == "dest") {
          if (auto s = StringContent(value, m_.source_)) {
            dest = std::string(*s);
            has_dest = true;
          }
        }
        if (key == "action") {
          if (auto s = StringContent(value, m_.source_)) action = *s;
        }
        if (key == "type") type = m_.Text(value);
        continue;
      }
      if (auto s = StringContent(arg, m_.source_)) {
        if (s->starts_with("--")) {
          if (first_long.empty()) first_long = s->substr(2);
        } else if (s->starts_with("-")) {
          if (first_short.empty()) first_short = s->substr(1);
        } else if (positional.empty()) {
          positional = *s;
        }
      }
    }
    if (!has_dest) {
      const std::string_view raw = !first_long.empty() ? first_long : !first_short.empty() ? first_short : positional;
      if (raw.empty()) continue;
      dest = std::string(raw);
      std::replace(dest.begin(), dest.end(), '-', '_');
    }
    Value value;
    if (!default_node.IsNull()) {
      value = m_.Resolve(default_node, site.scope);
      // argparse passes string defaults through `type`.
      if (value.kind == ValueKind::kString && type == "int") {
        if (auto parsed = ParseIntLiteral(value.string_value)) {
          value.kind = ValueKind::kInt;
          value.int_value = *parsed;
        } else {
          value = Value{};
        }
      }
    } else if (action == "store_true") {
      value.kind = ValueKind::kBool;
      value.int_value = 0;
    } else if (action == "store_false") {
      value.kind = ValueKind::kBool;
      value.int_value = 1;
    }
    // A flag that turns CUDA on (`--cuda`, `--gpu`, `--accel`), or a device option whose default or
    // choices name CUDA (`--device cuda`, `--backend gpu`): the script runs on CUDA when asked to.
    if (ContainsIgnoreCase(dest, "cuda") || ContainsIgnoreCase(dest, "gpu") || dest == "accel" ||
        (value.kind == ValueKind::kString && NamesCuda(value.string_value)) || ChoicesNameCuda(site)) {
      if (m_.cuda_evidence_.IsNull()) m_.cuda_evidence_ = site.node;
    }
    auto existing = std::find_if(m_.argparse_.begin(), m_.argparse_.end(),
                                 [&](const Model::ArgparseDefault& d) { return d.dest == dest; });
    if (existing == m_.argparse_.end()) {
      m_.argparse_.push_back({dest, value, false});
    } else if (!(existing->value.kind == value.kind && existing->value.int_value == value.int_value &&
                 existing->value.string_value == value.string_value &&
                 existing->value.float_value == value.float_value)) {
      existing->conflicting = true;  // sub-parsers with different defaults: no single answer
      existing->value = Value{};
    }
  }
}

const Model::ArgparseDefault* Model::FindArgparse(std::string_view dest) const {
  for (const ArgparseDefault& d : argparse_) {
    if (d.dest == dest) return &d;
  }
  return nullptr;
}

}  // namespace tl::semantic
