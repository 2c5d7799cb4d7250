// Run on the H100 machine: nvcc -O3 -arch=sm_90 -o /tmp/mma_peak lab/cuda/mma_peak.cu && /tmp/mma_peak
// (2026-11-23: 643-647 TFLOP/s in the four configurations; docs/gemm.md).
// Peak rate of the legacy warp-level tensor-core instruction (mma.sync m16n8k16, f16 in, f32
// accumulate: SASS HMMA.16816.F32, what NVIDIA's Vulkan driver emits for KHR cooperative
// matrices) with no memory traffic: CH independent accumulator chains per warp.
#include <cstdio>
#include <cuda_runtime.h>
template <int CH>
__global__ void k(float* out, int iters, unsigned seed) {
    unsigned a0 = seed ^ threadIdx.x, a1 = a0 * 3u, a2 = a0 * 5u, a3 = a0 * 7u, b0 = a0 * 11u, b1 = a0 * 13u;
    float c[CH][4];
    for (int i = 0; i < CH; i++) for (int j = 0; j < 4; j++) c[i][j] = 0.f;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int i = 0; i < CH; i++) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(c[i][0]), "+f"(c[i][1]), "+f"(c[i][2]), "+f"(c[i][3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
    }
    float s = 0.f;
    for (int i = 0; i < CH; i++) for (int j = 0; j < 4; j++) s += c[i][j];
    if (s == 123.456f) out[0] = s;
}
template <int CH>
void run(int blocks, int threads, int iters) {
    float* out; cudaMalloc(&out, 4);
    k<CH><<<blocks, threads>>>(out, 10, 1); cudaDeviceSynchronize();
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    k<CH><<<blocks, threads>>>(out, iters, 1);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    double flops = 2.0 * 16 * 8 * 16 * (double)CH * iters * (blocks * (threads / 32));
    printf("mma.sync m16n8k16 f16->f32: %d blocks x %d threads, %d chains: %.1f TFLOP/s\n", blocks, threads, CH, flops / ms / 1e9);
    cudaFree(out);
}
int main() {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    run<4>(sms * 4, 256, 20000);
    run<8>(sms * 4, 256, 20000);
    run<8>(sms * 2, 512, 20000);
    run<16>(sms * 2, 256, 20000);
    return 0;
}
