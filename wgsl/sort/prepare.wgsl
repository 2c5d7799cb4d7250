// Radix sort, stage 0: this run's key count (control[0], copied there before this pass from the
// host's count or the caller's GPU buffer) turned into the passes' params and workgroup
// counts (sort/lib/control). One invocation.

//!include sort/lib/keys
//!include sort/lib/control

@group(0) @binding(0) var<storage, read_write> control: array<u32>;
// reduce-then-scan: the appended scan's control, whose word 0 is the histogram's length
@group(0) @binding(1) var<storage, read_write> scan_control: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let n = run_count();
    write_blocks(n);
    if ONESWEEP == 0u {
        scan_control[0] = RADIX * tiles_of(n);
    }
}
