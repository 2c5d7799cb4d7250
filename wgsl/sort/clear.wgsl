// Radix sort, OneSweep stage 0: the state of this run's count cleared (the global counts, the
// tickets and every digit pass's status words; sort/lib/control says how many). A grid-stride
// loop over the (indirect or capped) grid. In the control block of GPU counts (word MARK holds
// DERIVE_MARK) the first invocation also writes the run's params and dispatch arguments, the
// prepare stage's work: a 2^20-key sort's GPU count then costs no pass of its own.

//!include sort/lib/keys
//!include sort/lib/control

@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read_write> state: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    // (every invocation reads words 0 and 1; the first writes from word 4 on)
    let n = run_count();
    if gid.x == 0u && control[MARK] == DERIVE_MARK {
        write_blocks(n);
    }
    let words = min(state_words(tiles_of(n)), arrayLength(&state));
    let stride = nwg.x * 256u;
    for (var i = gid.x; i < words; i += stride) {
        state[i] = 0u;
    }
}
