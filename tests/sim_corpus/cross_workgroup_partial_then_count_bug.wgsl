// expect: cross-workgroup-race
// workgroups: 4
// bind: 0=u32:random:256 1=u32:uninit:4 2=u32:zeros:1 3=u32:uninit:1
// CUDA's "threadfence reduction" ported as written: each workgroup stores its partial sum, counts
// itself in with an atomic, and the one that arrives last adds up everyone's partials. In CUDA a
// __threadfence() between the store and the count makes the partials visible; WGSL's atomics
// are relaxed and it has no device-scope fence, so the last workgroup's plain loads race with
// the other workgroups' plain stores (and may read stale partials on GPUs whose caches are not
// coherent). shared/fold.wgsl publishes partials as tagged atomics instead.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> partials: array<u32>;
@group(0) @binding(2) var<storage, read_write> arrived: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> total: array<u32>;

var<workgroup> last: u32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    if lid == 0u {
        var s = 0u;
        for (var i = 0u; i < 64u; i++) {
            s += input[wid.x * 64u + i];
        }
        partials[wid.x] = s;
        last = select(0u, 1u, atomicAdd(&arrived, 1u) + 1u == nwg.x);
    }
    if workgroupUniformLoad(&last) != 0u && lid == 0u {
        var t = 0u;
        for (var w = 0u; w < nwg.x; w++) {
            t += partials[w];
        }
        total[0] = t;
    }
}
