// expect: clean
// workgroups: 8
// bind: 0=u32:iota:256 1=u32:uninit:8 2=u32:zeros:9
// Looks bad, is fine: the ticketed look-back of `ticketed_lookback_without_fallback_bug`, with
// a decoupled fallback. A predecessor silent after SPIN polls is not waited for: the workgroup
// sums that tile's inputs itself and looks further back, so it progresses whether or not the
// predecessor ever runs again (the explored schedules suspend one after its ticket).
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> state: array<atomic<u32>>;

const FLAG: u32 = 0x80000000u;
const SPIN: u32 = 64u;
var<workgroup> tile: u32;
var<workgroup> total: atomic<u32>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        tile = atomicAdd(&state[0], 1u);
    }
    let t = workgroupUniformLoad(&tile);
    atomicAdd(&total, input[t * 32u + lid]);
    // barrier: the tile's sum is complete
    workgroupBarrier();
    if lid == 0u {
        var prefix = 0u;
        // p: the predecessor looked at, tile p - 1 (its prefix at state[p])
        var p = t;
        while p > 0u {
            var s = atomicLoad(&state[p]);
            for (var spin = 0u; spin < SPIN && (s & FLAG) == 0u; spin++) {
                s = atomicLoad(&state[p]);
            }
            if (s & FLAG) != 0u {
                prefix += s & ~FLAG;
                break;
            }
            // the fallback: tile p - 1's sum from its inputs
            for (var j = 0u; j < 32u; j++) {
                prefix += input[(p - 1u) * 32u + j];
            }
            p -= 1u;
        }
        atomicStore(&state[t + 1u], FLAG | (prefix + atomicLoad(&total)));
        output[t] = prefix;
    }
}
