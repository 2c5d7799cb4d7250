// expect: clean
// workgroups: 4
// bind: 0=u32:random:256 1=u32:zeros:4 2=u32:zeros:1 3=u32:uninit:1
// The partial-then-count reduction done the WGSL way (as shared/fold.wgsl does): each partial is
// published as an atomic word carrying a tag bit, and the last workgroup re-reads a slot until
// its tag shows. Every cross-workgroup access is atomic, so nothing races, and the wait is only
// for stores that workgroups which have already arrived have already issued.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> partials: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> arrived: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> total: array<u32>;

const TAG: u32 = 0x80000000u;

var<workgroup> last: u32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    if lid == 0u {
        var s = 0u;
        for (var i = 0u; i < 64u; i++) {
            s += input[wid.x * 64u + i];
        }
        atomicStore(&partials[wid.x], TAG | (s & ~TAG));
        last = select(0u, 1u, atomicAdd(&arrived, 1u) + 1u == nwg.x);
    }
    if workgroupUniformLoad(&last) != 0u && lid == 0u {
        var t = 0u;
        for (var w = 0u; w < nwg.x; w++) {
            var p = atomicLoad(&partials[w]);
            while (p & TAG) == 0u {
                p = atomicLoad(&partials[w]);
            }
            t += p & ~TAG;
        }
        total[0] = t;
    }
}
