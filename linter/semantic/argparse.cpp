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
  for (uint32_t index : option_calls_) {
    const Site& site = m_.sites_[index];
    const ts::Node call_args = site.Arguments();
    if (call_args.IsNull()) continue;
    if (site.name.starts_with("DEFINE_")) {
      ReadAbslFlag(site);
      continue;
    }
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
    // A device option that defaults to the CPU but offers CUDA (`--device`, default "cpu", with "cuda"
    // in its choices or its help: "examples: cpu|cuda|cuda:2|mps") is chosen per run: not known to be
    // the CPU, and the script can run on CUDA.
    bool offers_cuda = ChoicesNameCuda(site);
    if (ContainsIgnoreCase(dest, "device") && value.kind == ValueKind::kString && value.string_value == "cpu") {
      const auto help = m_.FindArgument(site, "help", -1);
      const auto text = help ? StringContent(Unparen(help->value), m_.source_) : std::nullopt;
      offers_cuda = offers_cuda || (text && ContainsIgnoreCase(*text, "cuda"));
      if (offers_cuda) value = Value{};
    }
    AddOption(site, dest, value, offers_cuda);
  }
}

void Builder::ReadAbslFlag(const Site& site) {
  // absl's `flags.DEFINE_integer("num_workers", 4, "help")` (also through `tf.compat.v1.flags`): the name
  // and the default, positional or by keyword; the values are read as `FLAGS.num_workers`, as argparse's.
  constexpr std::string_view kDefine = ".flags.DEFINE_";
  const std::string canonical = m_.CanonicalName(site.callee);
  const size_t at = canonical.find(kDefine);
  if (at == std::string::npos || !(canonical.starts_with("absl.") || canonical.starts_with("tensorflow."))) return;
  const std::string_view kind = std::string_view(canonical).substr(at + kDefine.size());
  ts::Node name_node;
  ts::Node default_node;
  uint32_t position = 0;
  for (ts::Node arg : site.Arguments().NamedChildren()) {
    if (KindOf(arg) == K::kComment) continue;
    if (KindOf(arg) == K::kKeywordArgument) {
      const std::string_view key = m_.Text(Field(arg, F::kName));
      if (key == "name") name_node = Field(arg, F::kValue);
      if (key == "default") default_node = Field(arg, F::kValue);
      continue;
    }
    if (position == 0 && name_node.IsNull()) name_node = arg;
    if (position == 1 && default_node.IsNull()) default_node = arg;
    ++position;
  }
  const auto name = name_node.IsNull() ? std::nullopt : StringContent(name_node, m_.source_);
  if (!name || name->empty()) return;
  Value value = default_node.IsNull() ? Value{} : m_.Resolve(default_node, site.scope);
  // The kind must agree with the flag's: anything else (a `None` default, a computed one) is unknown.
  const bool agrees = (kind == "integer" && value.kind == ValueKind::kInt) ||
                      (kind == "float" && (value.kind == ValueKind::kFloat || value.kind == ValueKind::kInt)) ||
                      ((kind == "bool" || kind == "boolean") && value.kind == ValueKind::kBool) ||
                      ((kind == "string" || kind == "enum") && value.kind == ValueKind::kString);
  if (!agrees) value = Value{};
  AddOption(site, std::string(*name), value, false);
}

void Builder::AddOption(const Site& site, const std::string& dest, const Value& value, bool choices_name_cuda) {
  // A flag that turns CUDA on (`--cuda`, `--gpu`, `--accel`), or a device option whose default or
  // choices name CUDA (`--device cuda`, `--backend gpu`): the script runs on CUDA when asked to.
  if (ContainsIgnoreCase(dest, "cuda") || ContainsIgnoreCase(dest, "gpu") || dest == "accel" ||
      (value.kind == ValueKind::kString && NamesCuda(value.string_value)) || choices_name_cuda) {
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

const Model::ArgparseDefault* Model::FindArgparse(std::string_view dest) const {
  for (const ArgparseDefault& d : argparse_) {
    if (d.dest == dest) return &d;
  }
  return nullptr;
}

}  // namespace tl::semantic
