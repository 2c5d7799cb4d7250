"""Decode-sized products in PyTorch (a lab yardstick beside ../shared/h100/torch_prims.py, which times only
4096x4096): an LLM generating tokens multiplies M = 1..64 rows of activations by weights it streams once, at
the shapes of a Llama-3-8B layer (K x N = 4096 x 4096, 4096 x 14336 up, 14336 x 4096 down). f16 weights through
`a @ W`, int4 weights (group 128) through torch's tinygemm kernel (`_weight_int4pack_mm`, bf16 activations).
Timing as torch_prims.py: 20 back-to-back calls between two CUDA events, median of 21 runs after 5 warm-ups.
Run on the GPU machine: `python3 lab/yardsticks/torch_decode.py > $OUT/torch_decode.log`.
Output, shapes written as wgsimd's bench labels them (M x N x K), rate in TFLOP/s (2·M·N·K):
RESULT torch | decode f16 (torch.matmul) | MxNxK | <TFLOP/s> TFLOP/s | median <ms> ms | <weight GB/s>"""
import torch

def med(f, reps=21, inner=20):
    for _ in range(5):
        f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(inner):
            f()
        b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) / inner)
    ts.sort()
    return ts[reps // 2]

def report(what, m, n, k, ms, weight_bytes):
    print(f"RESULT torch | {what} | {m}x{n}x{k} | {2 * m * n * k / ms / 1e9:.4f} TFLOP/s | median {ms:.5f} ms | "
          f"{weight_bytes / ms / 1e6:.1f} GB/s of weights", flush=True)

dev = "cuda"
g = torch.Generator(device=dev).manual_seed(7)
print("device", torch.cuda.get_device_name(), "torch", torch.__version__)
ROWS = (1, 2, 4, 8, 16, 32, 64)
for k, n in ((4096, 4096), (4096, 14336), (14336, 4096)):
    w = torch.randn(k, n, device=dev, dtype=torch.float16, generator=g)
    for m in ROWS:
        a = torch.randn(m, k, device=dev, dtype=torch.float16, generator=g)
        report("decode f16 (torch.matmul)", m, n, k, med(lambda: a @ w), k * n * 2)
    del w
    try:
        wq = torch.randint(0, 16, (n, k), device=dev, dtype=torch.int32, generator=g)
        packed = torch._convert_weight_to_int4pack((wq[:, ::2] << 4 | wq[:, 1::2]).to(torch.uint8), 8)
        sz = torch.ones(k // 128, n, 2, device=dev, dtype=torch.bfloat16)
        for m in ROWS:
            a = torch.randn(m, k, device=dev, dtype=torch.bfloat16, generator=g)
            report("decode int4 (tinygemm)", m, n, k, med(lambda: torch._weight_int4pack_mm(a, packed, 128, sz)),
                   k * n // 2)
    except Exception as e:  # the private API moves between torch versions
        print("int4 tinygemm not measured:", type(e).__name__, str(e)[:200], flush=True)
