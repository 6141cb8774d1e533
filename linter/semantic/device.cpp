// Device: whether the script runs on CUDA, and the first piece of evidence for it.
#include "linter/semantic/builder.h"

#include <string>

namespace tl::semantic {

void Builder::FindCudaEvidence() {
  for (const Site& site : m_.sites_) {
    if (site.kind == SiteKind::kCall && site.name == "set_default_device") m_.sets_default_device_ = true;
  }
  if (!m_.cuda_evidence_.IsNull()) return;
  for (const Site& site : m_.sites_) {
    if (site.kind != SiteKind::kCall) continue;
    if (ReceiverOf(site).IsNull()) {
      // DistributedDataParallel(model, device_ids=[local_rank]): one GPU per process.
      if (site.name == "DistributedDataParallel" || site.name == "DDP") {
        if (const auto ids = m_.FindArgument(site, "device_ids", -1);
            ids && KindOf(Unparen(ids->value)) == K::kList && Unparen(ids->value).NamedChildCount() > 0) {
          m_.cuda_evidence_ = site.node;
          return;
        }
      }
      // Accelerate's `Accelerator()` places the model on the GPU by default, as do `GradScaler()` and a
      // Lightning `Trainer(accelerator="gpu")`. Only these names pay for the canonical name.
      if (site.name == "Accelerator" || site.name == "GradScaler" || site.name == "Trainer" || site.name == "Fabric" ||
          site.name == "LightningCLI") {
        if (IsDeviceCall(site)) {
          m_.cuda_evidence_ = site.node;
          return;
        }
      }
      continue;
    }
    if (site.name == "cuda") {  // x.cuda(), model.cuda()
      m_.cuda_evidence_ = site.node;
      return;
    }
    if (site.name == "to" && MovesToGpuIndex(site)) {  // model.to(local_rank)
      m_.cuda_evidence_ = site.node;
      return;
    }
    // torch.cuda.anything(...), torch.cuda.amp.GradScaler(...), torch.accelerator.is_available() (PyTorch
    // >= 2.6): only calls whose receiver is spelled `...cuda`, `...amp` or `...accelerator` pay for the
    // canonical name.
    const ts::Node receiver = ReceiverOf(site);
    const K rk = KindOf(receiver);
    const std::string_view last = rk == K::kAttribute    ? AttributeNameText(receiver, m_.source_)  // see CanonicalName
                                  : rk == K::kIdentifier ? m_.Text(receiver)
                                                         : "";
    if (last != "cuda" && last != "accelerator" && last != "amp" && last != "pl" && last != "L" && last != "fabric" &&
        last != "lightning") {
      continue;
    }
    const std::string canonical = m_.CanonicalName(receiver);
    // Seeding the CUDA generators (`torch.cuda.manual_seed(42)`, under `if torch.cuda.is_available():`
    // or not) runs on any machine and puts nothing on the GPU: not by itself a CUDA script.
    if (canonical == "torch.cuda" && IsCudaSeeding(site)) continue;
    if (canonical == "torch.cuda" || canonical == "torch.accelerator" || IsDeviceCall(site)) {
      m_.cuda_evidence_ = site.node;
      return;
    }
  }
}

bool Builder::IsCudaSeeding(const Site& site) const {
  const auto seeds = [](std::string_view name) {
    return name == "manual_seed" || name == "manual_seed_all" || name == "seed" || name == "seed_all";
  };
  if (seeds(site.name)) return true;
  // `if torch.cuda.is_available():` around seeding only: the condition of a guard whose block does nothing
  // else.
  if (site.name != "is_available" || site.kind != SiteKind::kCall) return false;
  for (const Guard& guard : m_.guards_) {
    if (guard.condition.IsNull() || guard.block.IsNull() || !guard.condition.Range().Contains(site.node.Range())) {
      continue;
    }
    for (const ts::Node statement : guard.block.NamedChildren()) {
      if (KindOf(statement) == K::kComment) continue;
      const ts::Node call = KindOf(statement) == K::kExpressionStatement ? Unparen(FirstChild(statement)) : ts::Node();
      const Site* inner = KindOf(call) == K::kCall ? m_.SiteOf(call) : nullptr;
      if (inner == nullptr || !seeds(inner->name)) return false;
    }
    return true;
  }
  return false;
}

bool Builder::MovesToGpuIndex(const Site& site) const {
  // `.to(rank)`, `.to(local_rank)`, `.to(gpu_id)`: an integer device is a CUDA device index.
  const auto arg = m_.FindArgument(site, "device", 0);
  if (!arg) return false;
  ts::Node value = Unparen(arg->value);
  const K k = KindOf(value);
  if (k != K::kIdentifier && k != K::kAttribute) return false;
  const std::string_view last = LastSegment(m_.Text(value));
  return last == "rank" || last == "local_rank" || last == "gpu" || last == "gpu_id" || last == "device_id" ||
         last == "gpu_rank";
}

bool Builder::IsDeviceCall(const Site& site) const {
  const std::string_view canonical = m_.CalleeCanonical(site);
  if (canonical == "accelerate.Accelerator") return true;
  if (canonical == "torch.cuda.amp.GradScaler") return true;
  const bool lightning = canonical.starts_with("lightning.") || canonical.starts_with("pytorch_lightning.");
  if (!lightning) return false;
  // Lightning's Trainer, Fabric and LightningCLI take `accelerator="auto"` by default: the GPU when
  // there is one. Only an explicit CPU (or TPU, IPU...) accelerator keeps the script off CUDA.
  if (canonical.ends_with(".LightningCLI")) return true;
  if (!canonical.ends_with(".Trainer") && !canonical.ends_with(".Fabric")) return false;
  const auto arg = m_.FindArgument(site, "accelerator", -1);
  if (!arg) return !m_.HasStarArgs(site) && m_.KwargsLookupIn(site, "accelerator").presence == KeyPresence::kAbsent;
  const Value value = m_.Resolve(arg->value, site.scope);
  return value.kind == ValueKind::kString &&
         (value.string_value == "gpu" || value.string_value == "cuda" || value.string_value == "auto");
}

}  // namespace tl::semantic
