#include "traceio/analyses/names.h"

#include <algorithm>
#include <array>
#include <string>

namespace tl::trace {

namespace {

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
  return out;
}

}  // namespace

bool IsSyncMemcpyCall(std::string_view n) {
  // cudaMemcpy, cudaMemcpy2D, cudaMemcpyToSymbol ... but not the *Async variants, which only block for
  // pageable memory (counted by the copies analysis instead).
  for (std::string_view prefix : {"cudaMemcpy", "hipMemcpy", "cuMemcpy"}) {
    if (n.starts_with(prefix)) return !Contains(n, "Async");
  }
  return false;
}

bool IsSyncCall(std::string_view n) {
  static constexpr std::array<std::string_view, 8> kSync = {
      "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
      "hipStreamSynchronize",  "hipDeviceSynchronize",  "hipEventSynchronize",  "cuStreamSynchronize"};
  for (auto s : kSync) {
    if (n.starts_with(s)) return true;
  }
  return IsSyncMemcpyCall(n);
}

bool IsLaunchCall(std::string_view n) {
  return Contains(n, "LaunchKernel") || Contains(n, "LaunchCooperativeKernel") || n.starts_with("cudaGraphLaunch") ||
         n.starts_with("cudaMemcpyAsync") || n.starts_with("cudaMemsetAsync") || n.starts_with("hipMemcpyAsync") ||
         n.starts_with("hipMemsetAsync") || n.starts_with("cudaMemcpy2DAsync") || n.starts_with("cuLaunch") ||
         n.starts_with("hipExtModuleLaunchKernel") || n.starts_with("hipModuleLaunchKernel");
}

bool IsCommKernel(std::string_view n) {
  return n.starts_with("nccl") || n.starts_with("rccl") || n.starts_with("hccl") || Contains(n, "ncclKernel") ||
         Contains(n, "ncclDevKernel") || Contains(n, "rcclKernel");
}

bool IsCommOp(std::string_view n) {
  return n.starts_with("nccl:") || n.starts_with("gloo:") || n.starts_with("c10d::") ||
         n.starts_with("record_param_comms");
}

namespace {

// GEMM-family kernels that run on the CUDA cores in plain fp32 although their family usually runs on tensor
// cores: CUTLASS's SIMT op class, cuBLAS/cuDNN kernels built on FFMA, and xmma kernels whose math type is
// f32 (`<A><B>_<math><accumulate>`: `f32f32_f32f32` is fp32 FMA, the TF32 ones read `f32f32_tf32f32`),
// and the classic *sgemm kernels (volta_sgemm, implicit_convolve_sgemm) unless they say tensorop or tf32.
bool IsScalarFp32(const std::string& n) {
  if (Contains(n, "simt") || Contains(n, "ffma")) return true;
  if (Contains(n, "tf32")) return false;
  return (Contains(n, "xmma") && Contains(n, "f32f32_f32f32")) || (Contains(n, "sgemm") && !Contains(n, "tensorop"));
}

// "_mi" followed by a digit: the matrix-instruction tile of a Tensile (hipBLASLt/rocBLAS) kernel,
// Cijk_..._MT128x128x64_MI32x32x8x1_...; kernels without it use the vector ALUs.
bool HasMatrixInstructionTile(std::string_view n) {
  for (size_t at = n.find("_mi"); at != std::string_view::npos; at = n.find("_mi", at + 1)) {
    if (at + 3 < n.size() && n[at + 3] >= '0' && n[at + 3] <= '9') return true;
  }
  return false;
}

}  // namespace

bool IsFp32GemmKernel(std::string_view name) {
  std::string n = Lower(name);
  if (Contains(n, "_tensorop") || Contains(n, "1688") || Contains(n, "16816") || Contains(n, "884")) return false;
  if (Contains(n, "simt_sgemm") || Contains(n, "_simt_") || Contains(n, "gemv2t")) return true;
  return IsScalarFp32(n) && (Contains(n, "gemm") || Contains(n, "conv") || Contains(n, "fprop") ||
                             Contains(n, "dgrad") || Contains(n, "wgrad"));
}

bool IsTensorCoreKernel(std::string_view name) {
  // Our own list: the TensorBoard plugin's (from PyProf) misses cuBLASLt, CUTLASS 3, Hopper (wgmma/gmma,
  // nvjet), Blackwell (sm100/sm120, tcgen05), flash attention and AMD's matrix-core kernels.
  std::string n = Lower(name);
  if (IsScalarFp32(n)) return false;
  static constexpr std::string_view kPatterns[] = {
      // Volta mma.884 (volta_h884gemm, volta_fp16_s884gemm, s884cudnn), Turing/Ampere mma shapes.
      "hmma", "h884", "s884", "884gemm", "884cudnn", "1688", "16816", "i8816", "imma",
      // cuBLAS/cuDNN xmma, Hopper warpgroup MMA (wgmma, gmma), CUTLASS's tensor-op class. "tensorop" alone
      // would also match MIOpen's SubTensorOp* pointwise kernels.
      "xmma", "wgmma", "gmma", "_tensorop", "opclasstensorop", "wmma", "tcgen05", "nvjet", "sm80_", "sm86_", "sm89_",
      "sm90_", "sm100_", "sm120_", "cutlass_80", "cutlass_90", "flash_fwd", "flash_bwd", "fmha",
      // AMD: MFMA instructions, composable_kernel's XDL ops (kernel_gemm_xdl_cshuffle, *_xdlops_*,
      // DeviceGemmXdl), matrix-instruction tiles in CK/MIOpen names.
      "mfma", "_xdl", "xdlops", "gemmxdl", "_mi32x32", "_mi16x16",
      // From PyProf's list (cuDNN kernels named by their algorithm, which only exist as tensor-core ones).
      "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group"};
  for (auto p : kPatterns) {
    if (Contains(n, p)) return true;
  }
  if (Contains(n, "bf16gemm") || Contains(n, "fp16gemm")) return true;
  // cutlass kernels name their arch and op class; without "simt" (excluded above) they are tensor-core
  // ones, including the Volta forms that write the mma shape as a plain 884.
  if (Contains(n, "cutlass") && (Contains(n, "gemm") || Contains(n, "conv"))) return true;
  // hipBLASLt / Tensile: Cijk_..._MI<m>x<n>x<k>...
  if (n.starts_with("cijk_") && HasMatrixInstructionTile(n)) return true;
  // MIOpen's implicit-GEMM assembly kernels: igemm_{fwd,bwd,wrw}_gtcx* are the xdlops (MFMA) variants;
  // igemm_*_gtc_* without the x and igemm_v4r1_dynamic use the vector ALUs.
  if (n.starts_with("igemm_") && Contains(n, "_gtcx")) return true;
  return false;
}

bool IsElementwiseKernel(std::string_view name) {
  return Contains(name, "elementwise") || Contains(name, "vectorized_") || Contains(name, "reduce_kernel") ||
         Contains(name, "Reduce") || Contains(name, "unrolled_elementwise") || Contains(name, "copy_kernel") ||
         Contains(name, "CatArrayBatchedCopy") || Contains(name, "fill_kernel") || Contains(name, "FillFunctor") ||
         Contains(name, "softmax") || Contains(name, "layer_norm") || Contains(name, "LayerNorm") ||
         Contains(name, "batch_norm") || Contains(name, "index_elementwise") || Contains(name, "triton_poi") ||
         Contains(name, "triton_red") || Contains(name, "triton_per");
}

bool IsDataLoaderName(std::string_view n) {
  return n.starts_with("enumerate(DataLoader)#") || n.starts_with("enumerate(DataPipe)#");
}

bool IsGemmOpName(std::string_view n) {
  return n == "aten::mm" || n == "aten::addmm" || n == "aten::bmm" || n == "aten::linear" || n == "aten::matmul" ||
         n == "aten::baddbmm" || n == "aten::addbmm";
}

bool IsTensorCoreEligibleOp(std::string_view n) {
  static constexpr std::array<std::string_view, 22> kOps = {"aten::_convolution",
                                                            "aten::conv1d",
                                                            "aten::conv2d",
                                                            "aten::conv3d",
                                                            "aten::conv_tbc",
                                                            "aten::conv_transpose1d",
                                                            "aten::conv_transpose2d",
                                                            "aten::conv_transpose3d",
                                                            "aten::convolution",
                                                            "aten::cudnn_convolution",
                                                            "aten::cudnn_convolution_transpose",
                                                            "aten::addmm",
                                                            "aten::addmv",
                                                            "aten::matmul",
                                                            "aten::mm",
                                                            "aten::mv",
                                                            "aten::linear",
                                                            "aten::addbmm",
                                                            "aten::baddbmm",
                                                            "aten::bmm",
                                                            "aten::_scaled_dot_product_flash_attention",
                                                            "aten::_scaled_dot_product_efficient_attention"};
  for (auto o : kOps) {
    if (n == o) return true;
  }
  return n.starts_with("aten::convolution_backward") || n.starts_with("aten::cudnn_convolution_backward");
}

}  // namespace tl::trace
