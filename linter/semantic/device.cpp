// Device: whether the script runs on CUDA, and the first piece of evidence for it.
#include "linter/semantic/builder.h"

#include <string>

namespace tl::semantic {

void Builder::FindCudaEvidence() {
  if (!m_.cuda_evidence_.IsNull()) return;
  for (const Site& site : m_.sites_) {
    if (site.kind != SiteKind::kCall) continue;
    if (site.Receiver().IsNull()) {
      // Accelerate's `Accelerator()` places the model on the GPU by default, as do `GradScaler()` and a
      // Lightning `Trainer(accelerator="gpu")`. Only these names pay for the canonical name.
      if (site.name == "Accelerator" || site.name == "GradScaler" || site.name == "Trainer") {
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
    // torch.cuda.anything(...), torch.cuda.amp.GradScaler(...), torch.accelerator.is_available() (PyTorch
    // >= 2.6): only calls whose receiver is spelled `...cuda`, `...amp` or `...accelerator` pay for the
    // canonical name.
    ts::Node receiver = Unparen(site.Receiver());
    const K rk = KindOf(receiver);
    const std::string_view last = rk == K::kAttribute    ? m_.Text(Field(receiver, F::kAttribute))
                                  : rk == K::kIdentifier ? m_.Text(receiver)
                                                         : "";
    if (last != "cuda" && last != "accelerator" && last != "amp" && last != "pl" && last != "L") continue;
    const std::string canonical = m_.CanonicalName(receiver);
    if (canonical == "torch.cuda" || canonical == "torch.accelerator" || IsDeviceCall(site)) {
      m_.cuda_evidence_ = site.node;
      return;
    }
  }
}

bool Builder::IsDeviceCall(const Site& site) const {
  const std::string canonical = m_.CanonicalName(site.callee);
  if (canonical == "accelerate.Accelerator") return true;
  if (canonical == "torch.cuda.amp.GradScaler") return true;
  if (canonical.ends_with(".Trainer") &&
      (canonical.starts_with("lightning.") || canonical.starts_with("pytorch_lightning."))) {
    if (auto arg = m_.FindArgument(site, "accelerator", -1)) {
      const Value value = m_.Resolve(arg->value, site.scope);
      return value.kind == ValueKind::kString &&
             (value.string_value == "gpu" || value.string_value == "cuda" || value.string_value == "auto");
    }
  }
  return false;
}

}  // namespace tl::semantic
