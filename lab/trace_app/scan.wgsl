// The exclusive scan of the partial sums, by one invocation, and their total after them.
struct Params {
    n: u32,
    groups: u32,
}

@group(0) @binding(1) var<uniform> params: Params;
@group(1) @binding(0) var<storage, read> partials: array<u32>;
@group(1) @binding(1) var<storage, read_write> offsets: array<u32>;

@compute @workgroup_size(1)
fn scan() {
    var sum = 0u;
    for (var i = 0u; i < params.groups; i++) {
        offsets[i] = sum;
        sum += partials[i];
    }
    offsets[params.groups] = sum;
}
