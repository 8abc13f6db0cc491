// Tensor-core rates of the instruction shapes a group-width-8 kernel could
// use on Hopper: mma.sync m16n8k16 and m16n8k8 (what conv2d-gw8 runs), and
// wgmma m64n8k16 / m64n16k16 with A from registers or shared memory. A
// group's weights are 8 output channels, so N = 8 is the widest mma
// without multiplying zeros. f16 inputs, f32 accumulators.
//
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o mma_rates mma_rates.cu
//   ./mma_rates
//
// Each thread runs independent accumulator chains on constant operands
// (the rate, not the values, is measured); every CUDA call is checked.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err = (call);                                                        \
    if (err != cudaSuccess) {                                                        \
      std::printf("%s failed: %s\n", #call, cudaGetErrorString(err));                \
      return 1;                                                                      \
    }                                                                                \
  } while (0)

constexpr int kIterations = 4096;

template <int Chains, int K>
__global__ void mmaSync(float *out) {
  float d[Chains][4] = {};
  uint32_t a[4] = {threadIdx.x, threadIdx.x * 3, threadIdx.x * 5, threadIdx.x * 7};
  uint32_t b[2] = {threadIdx.x ^ 9, threadIdx.x ^ 3};
  for (int i = 0; i < kIterations; ++i) {
#pragma unroll
    for (int c = 0; c < Chains; ++c) {
      if constexpr (K == 16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      else
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5}, {%6}, {%0,%1,%2,%3};"
                     : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                     : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    }
  }
  float sum = 0;
  for (int c = 0; c < Chains; ++c)
    sum += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/// A shared-memory matrix descriptor without swizzle (the rate does not
/// depend on the layout's meaning).
__device__ uint64_t descriptor(const void *p) {
  uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  return uint64_t((address >> 4) & 0x3fff) | (uint64_t(128 >> 4) << 16) |
         (uint64_t(256 >> 4) << 32);
}

/// wgmma m64nNk16 (N = 8 or 16), A from registers (RS) or shared memory
/// (SS); each warpgroup issues `Chains` wgmma, commits and waits.
template <int Chains, int N, bool SharedA>
__global__ void wgmma(float *out) {
  __shared__ __align__(1024) uint16_t tiles[8192];
  for (int i = threadIdx.x; i < 8192; i += blockDim.x)
    tiles[i] = 0x3c00;
  __syncthreads();
  float d[Chains][N / 2] = {};
  uint32_t a[4] = {threadIdx.x, threadIdx.x * 3, threadIdx.x * 5, threadIdx.x * 7};
  uint64_t b = descriptor(tiles + (threadIdx.x / 128) * 1024);
  uint64_t aTile = descriptor(tiles + 4096 + (threadIdx.x / 128) * 1024);
  for (int i = 0; i < kIterations; ++i) {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int c = 0; c < Chains; ++c) {
      if constexpr (N == 8 && SharedA)
        asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, "
                     "1, 1, 1, 0, 0;"
                     : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                     : "l"(aTile), "l"(b));
      else if constexpr (N == 8)
        asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, %8, 1, 1, 1, 0;"
                     : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
      else
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
                     "{%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1, 1, 1, 0;"
                     : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3]),
                       "+f"(d[c][4]), "+f"(d[c][5]), "+f"(d[c][6]), "+f"(d[c][7])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  float sum = 0;
  for (int c = 0; c < Chains; ++c)
    for (int j = 0; j < N / 2; ++j)
      sum += d[c][j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/// Times `kernel` (best of 5 after a warm-up) and prints a table row.
template <typename Kernel>
int row(const char *name, Kernel kernel, int blocks, int threads, int chains,
        double flopsPerUnit, int unitsPerBlock, float *out) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  kernel<<<blocks, threads>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    CHECK(cudaEventRecord(start));
    kernel<<<blocks, threads>>>(out);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = ms < best ? ms : best;
  }
  double flops = flopsPerUnit * unitsPerBlock * blocks * double(kIterations) * chains;
  std::printf("| %s | %d x %d | %d | %.0f |\n", name, blocks, threads, chains,
              flops / best / 1e9);
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return 0;
}

int main() {
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    std::printf("%s is not a Hopper GPU (sm_%d%d): wgmma needs sm_90a\n", prop.name,
                prop.major, prop.minor);
    return 1;
  }
  float *out;
  CHECK(cudaMalloc(&out, size_t(4) * sms * 2 * 256 * sizeof(float)));
  const double k16 = 2.0 * 16 * 8 * 16, k8 = 2.0 * 16 * 8 * 8;
  const double n8 = 2.0 * 64 * 8 * 16, n16 = 2.0 * 64 * 16 * 16;
  std::printf("%s, %d multiprocessors\n\n| instruction | blocks x threads | chains a "
              "thread | TFLOP/s |\n|---|---|---|---|\n",
              prop.name, sms);
  int failed = 0;
  // Full rate: 2 blocks of 8 warps a multiprocessor, 8 chains a warp.
  failed |= row("mma.sync m16n8k16", mmaSync<8, 16>, 2 * sms, 256, 8, k16, 8, out);
  failed |= row("mma.sync m16n8k8", mmaSync<8, 8>, 2 * sms, 256, 8, k8, 8, out);
  failed |= row("wgmma m64n8k16, A in registers", wgmma<8, 8, false>, 2 * sms, 256, 8, n8, 2, out);
  failed |= row("wgmma m64n8k16, A in shared memory", wgmma<8, 8, true>, 2 * sms, 256, 8, n8, 2, out);
  failed |= row("wgmma m64n16k16, A in registers", wgmma<8, 16, false>, 2 * sms, 256, 8, n16, 2, out);
  // Latency: one warp a multiprocessor, one chain.
  failed |= row("mma.sync m16n8k16, one chain", mmaSync<1, 16>, sms, 32, 1, k16, 1, out);
  failed |= row("mma.sync m16n8k8, one chain", mmaSync<1, 8>, sms, 32, 1, k8, 1, out);
  CHECK(cudaFree(out));
  return failed;
}
