// expect: clean
// workgroups: 1
// bind: 0=u32:iota:64 1=u32:uninit:64
// Looks bad, is fine: shifts by data-dependent amounts, each masked below 32 or a constant,
// and the full-width case handled apart, or the shift's result dropped by a select where its
// amount is 32.
@group(0) @binding(0) var<storage, read> widths: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let width = widths[lid] % 33u;
    let mask = select((1u << (width & 31u)) - 1u, 0xffffffffu, width == 32u);
    let low = select(0xffffffffu >> (32u - width), 0u, width == 0u);
    output[lid] = mask ^ low ^ (widths[lid] >> 3u) ^ (widths[lid] << (lid % 32u));
}
