// expect: forward-progress
// workgroups: 8
// bind: 0=u32:iota:256 1=u32:uninit:8 2=u32:zeros:9
// A single-pass scan of tile sums with tiles from an atomic ticket (the OneSweep and `csdl`
// pattern): each tile's invocation 0 waits for its predecessor's inclusive prefix, with no
// bound. Tickets promise the predecessor started, not that it runs: preempted after taking its
// ticket (as a GPU without forward-progress guarantees between workgroups may leave it), it
// never publishes, and the successor waits forever.
// state: word 0 the ticket counter, word 1 + t tile t's inclusive prefix, flagged by bit 31.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> state: array<atomic<u32>>;

const FLAG: u32 = 0x80000000u;
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
        if t > 0u {
            loop {
                let s = atomicLoad(&state[t]);
                if (s & FLAG) != 0u {
                    prefix = s & ~FLAG;
                    break;
                }
            }
        }
        atomicStore(&state[t + 1u], FLAG | (prefix + atomicLoad(&total)));
        output[t] = prefix;
    }
}
