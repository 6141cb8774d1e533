// Name patterns the analyses share: which runtime calls block the host, which launch work, which
// kernels are communication or use tensor cores, which annotations mark the DataLoader or the optimizer.
// Kept in one place so that the report, the bottleneck verdicts and the evidence queries agree.
#pragma once

#include <string_view>

namespace tl::trace {

// cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, synchronous cudaMemcpy* (and hip*).
bool IsSyncCall(std::string_view name);
// Synchronous memcpy calls only (a subset of IsSyncCall).
bool IsSyncMemcpyCall(std::string_view name);
// cudaLaunchKernel, cuLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync, hipLaunchKernel, ...
bool IsLaunchCall(std::string_view name);
// nccl / rccl / hccl kernels.
bool IsCommKernel(std::string_view name);
// nccl:all_reduce, gloo:... and c10d ops on the CPU side.
bool IsCommOp(std::string_view name);
// Kernel names that run on tensor cores (Volta to Blackwell, and AMD matrix cores).
bool IsTensorCoreKernel(std::string_view name);
// FP32 GEMM kernels that explicitly do not use tensor cores (volta_sgemm, *_simt_*).
bool IsFp32GemmKernel(std::string_view name);
// Pointwise / reduction / copy kernels: the memory-bound kind.
bool IsElementwiseKernel(std::string_view name);
// enumerate(DataLoader)#...__next__ and enumerate(DataPipe)#...
bool IsDataLoaderName(std::string_view name);
bool IsGemmOpName(std::string_view name);
// Ops that TensorBoard counts as tensor-core eligible (GEMMs and convolutions).
bool IsTensorCoreEligibleOp(std::string_view name);

}  // namespace tl::trace
