// Top-k by radix select over rows too long for one workgroup, after the rounds (topk/lib/wide):
// every key of a row that reaches its selection's prefix (exactly K of them) goes to the row's
// outputs, value and index, at a place taken from the row's counter in `taken`, in any order
// (wide_order puts them in order). Grid: as wide_count's.

//!include topk/lib/wide

const WG_SIZE: u32 = 256u;

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read> state: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> taken: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> values: array<u32>;
@group(0) @binding(5) var<storage, read_write> indices: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let part = part_of(wid.x, nwg.x, run_rows(count_word));
    let row = part.x;
    if row >= run_rows(count_word) || part.y >= chunks_of_row() {
        return;
    }
    let sel = sel_before(row);
    let base = row * COLS;
    for (var c = part.y; c < chunks_of_row(); c += part.z) {
        let end = min(COLS, (c + 1u) * CHUNK);
        for (var i = c * CHUNK + lid; i < end; i += WG_SIZE) {
            let x = input[base + i];
            if is_selected(sel, to_sortable(x), lo_of(i)) {
                let s = atomicAdd(&taken[row], 1u);
                if s < K {
                    values[row * K + s] = x;
                    indices[row * K + s] = i;
                }
            }
        }
    }
}
