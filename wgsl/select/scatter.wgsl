// Runs of equal keys (src/runs.rs), stage 3 (after the heads' marks and their exclusive scan,
// `places`): each run's head to its place, in input order. The run count goes to `selected[0]`
// (written by the last element's invocation, or for an empty run by the first), where a later
// recording may read it as its count.

//!include shared/grid

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read> marks: array<u32>;
@group(0) @binding(3) var<storage, read> places: array<u32>;
@group(0) @binding(4) var<storage, read_write> output: array<u32>;
@group(0) @binding(5) var<storage, read_write> selected: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    if n == 0u {
        if wid.x == 0u && lid == 0u {
            selected[0] = 0u;
        }
        return;
    }
    // the selected count: the last element's place and mark (written by the passes before)
    let total = places[n - 1u] + marks[n - 1u];
    for (var i = wid.x * WG_SIZE + lid; i < n; i += grid * WG_SIZE) {
        let place = places[i];
        if marks[i] != 0u {
            output[place] = input[i];
        }
        if i == n - 1u {
            selected[0] = total;
        }
    }
}
