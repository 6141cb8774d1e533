// TL401 unaligned-dim: layer dimensions (literals or resolved constants) that are not multiples of 8,
// which keep GEMMs and convolutions off tensor cores or pad them at run time. Display-only suggestion
// of the next multiple of 8.
#include <fmt/core.h>

#include <array>

#include "linter/engine/rule.h"
#include "linter/semantic/model.h"

namespace tl {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Checks the dimensions given to `nn.Linear`, `nn.Embedding`, `nn.Conv1d`/`2d`/`3d`,
`nn.MultiheadAttention`, `nn.LSTM` and `nn.GRU` (as literals or as constants torchlint can resolve:
module and function assignments, argparse defaults, simple arithmetic) and reports those that are
not multiples of 8. Small dims are never reported (below `min-dim`, 64 by default): 3 input
channels or a 10-class head cost nothing worth padding. The file need not mention CUDA: model
definitions often live apart from the training script.

## Why is this bad?
Tensor cores run GEMMs in tiles; with FP16/BF16 they need the reduction (K) and output (N) dimensions
to be multiples of 8 (16 bytes), or cuBLAS falls back to slower kernels or pads at run time. A GPT-2
vocabulary of 50257 makes the output projection, the largest GEMM of the model, unaligned; 50304
(the next multiple of 64, which is also a multiple of 8) is measurably faster.

## Example
```python
lm_head = nn.Linear(768, 50257)
```

## Use instead
```python
lm_head = nn.Linear(768, 50304)  # padded vocabulary; mask or ignore the extra logits
```

## Fix safety
The suggestion (the next multiple of 8) is **display-only**, never applied: a different size changes
the model's parameters, checkpoints no longer load, and padded vocabularies or features must be
handled by the code around the layer.

## Trace evidence
Confirmed when the trace shows the GEMMs or convolutions of this layer (by their shapes in the
`Input Dims` of `aten::mm`/`aten::addmm`/`aten::linear`/`aten::convolution`) with K or N not a multiple
of 8, the device time they take, and whether tensor-core kernels ran for them (kernel names with
`xmma`, `hmma`, `s1688`, `tensorop`, `wgmma` versus plain `sgemm`).

## Options
- `min-dim` (default 64): smaller dimensions are not reported.

## References
- [NVIDIA: Matrix multiplication background: tensor core requirements](https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html)
- [NVIDIA: Linear/fully-connected layers performance guide](https://docs.nvidia.com/deeplearning/performance/dl-performance-fully-connected/index.html)
)md";

struct Layer {
  std::string_view name;
  std::array<std::string_view, 2> params;  // dimension parameters at positions 0 and 1 ("" = none)
};

constexpr std::array<Layer, 8> kLayers = {{
    {"Linear", {"in_features", "out_features"}},
    {"Embedding", {"num_embeddings", "embedding_dim"}},
    {"Conv1d", {"in_channels", "out_channels"}},
    {"Conv2d", {"in_channels", "out_channels"}},
    {"Conv3d", {"in_channels", "out_channels"}},
    {"MultiheadAttention", {"embed_dim", ""}},
    {"LSTM", {"input_size", "hidden_size"}},
    {"GRU", {"input_size", "hidden_size"}},
}};

class UnalignedDim final : public Rule {
 public:
  const RuleMeta& Meta() const override {
    static const RuleMeta meta{"TL401", "unaligned-dim", "compute",
                               "Layer dimension is not a multiple of 8 and misses tensor cores", kDocs,
                               FixAvailability::kAlways, Severity::kWarning};
    return meta;
  }

  void Check(const CheckContext& context, std::vector<Diagnostic>& out) const override {
    const semantic::Model& model = context.model;
    for (const Layer& layer : kLayers) {
      const std::string canonical = fmt::format("torch.nn.{}", layer.name);
      for (uint32_t index : model.CallsNamed(layer.name)) {
        const semantic::Site& call = model.Sites()[index];
        if (!model.IsCanonical(call, canonical)) continue;
        for (int position = 0; position < 2; ++position) {
          const std::string_view param = layer.params[static_cast<size_t>(position)];
          if (param.empty()) continue;
          auto arg = model.FindArgument(call, param, position);
          if (!arg) continue;
          const semantic::Value value = model.Resolve(arg->value, call.scope);
          const auto dim = value.AsInt();
          if (value.kind != semantic::ValueKind::kInt || !dim || *dim < static_cast<int64_t>(context.options.min_dim) ||
              *dim % 8 == 0) {
            continue;
          }
          const int64_t aligned = (*dim + 7) / 8 * 8;
          Diagnostic diagnostic;
          diagnostic.code = std::string(Meta().code);
          diagnostic.name = std::string(Meta().name);
          diagnostic.severity = Meta().severity;
          diagnostic.range = arg->value.Range();
          diagnostic.message = fmt::format("`{}` of `nn.{}` is {}, not a multiple of 8; {} would use tensor cores",
                                           param, layer.name, *dim, aligned);
          // Point the suggestion at the literal that holds the number, wherever it is defined.
          const ts::Node target = value.origin.IsNull() ? arg->value : value.origin;
          diagnostic.fix = Fix{fmt::format("Round `{}` up to {}", param, aligned), Applicability::kDisplayOnly,
                               {Edit{target.Range(), std::to_string(aligned)}}};
          out.push_back(std::move(diagnostic));
        }
      }
    }
  }
};

TL_REGISTER_RULE(UnalignedDim);

}  // namespace
}  // namespace tl
