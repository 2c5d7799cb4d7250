//! Launch-shape experiment for the reduction's first stage (development, not a test).
use std::sync::Arc;
use wgsimd::exec::grid_2d;
use wgsimd::kernel::{Flavor, Kernel};
use wgsimd::plan::{BufferInit, Plan, Workgroups};
use wgsimd::{Executor, GpuExecutor};

const HEAD: &str = r#"
@group(0) @binding(0) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> partials: array<u32>;
var<workgroup> red: array<u32, 256>;
fn finish(lid: u32, g: u32, acc: u32) {
    red[lid] = acc;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if lid < s { red[lid] = min(red[lid], red[lid + s]); }
        workgroupBarrier();
    }
    if lid == 0u { partials[g] = red[0]; }
}
fn m4(v: vec4<u32>) -> u32 { return min(min(v.x, v.y), min(v.z, v.w)); }
"#;

const GRID1: &str = r#"
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&input);
    var acc = 0xffffffffu;
    for (var i = wid.x * 256u + lid; i < n; i += nwg.x * 256u) { acc = min(acc, m4(input[i])); }
    finish(lid, wid.x, acc);
}"#;

const ONE: &str = r#"
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = wid.x + wid.y * nwg.x;
    let base = g * 1024u + lid;
    let acc = min(min(m4(input[base]), m4(input[base + 256u])), min(m4(input[base + 512u]), m4(input[base + 768u])));
    finish(lid, g, acc);
}"#;

const UNIF: &str = r#"
struct P { n: u32, base: u32 }
@group(0) @binding(2) var<uniform> params: P;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let full = params.n / 4u;
    var acc = 0xffffffffu;
    for (var i = wid.x * 256u + lid; i < full; i += nwg.x * 256u) { acc = min(acc, m4(input[i])); }
    finish(lid, wid.x, acc);
}"#;

const SUBG: &str = r#"
struct Inv {
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) sg_size: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(num_subgroups) n_sg: u32,
}
var<workgroup> slots: array<u32, 64>;
@compute @workgroup_size(256)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&input);
    var acc = 0xffffffffu;
    for (var i = wid.x * 256u + inv.lid; i < n; i += nwg.x * 256u) { acc = min(acc, m4(input[i])); }
    let s = subgroupMin(acc);
    if inv.lane == 0u { slots[inv.sg_id] = s; }
    workgroupBarrier();
    if inv.lid == 0u {
        var r = slots[0];
        for (var k = 1u; k < inv.n_sg; k++) { r = min(r, slots[k]); }
        partials[wid.x] = r;
    }
}"#;

fn main() {
    let g = GpuExecutor::new().unwrap();
    let n: u64 = 1 << 28;
    let data: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) | 1)
        .collect();
    let variants = [
        ("uniform bound 4096", UNIF, 4096u64),
        ("subgroup builtins 4096", SUBG, 4096u64),
        ("grid-stride x1 1056", GRID1, 1056u64),
        ("grid-stride x1 4096", GRID1, 4096),
        ("grid-stride x1 16384", GRID1, 16384),
        ("one tile per wg", ONE, n / 4096),
    ];
    let build = |name: &str, body: &str, groups: u64| {
        let k =
            Arc::new(Kernel::from_source(name, Flavor::Emulated, format!("{HEAD}{body}")).unwrap());
        let mut plan = Plan::new(name);
        // WGSIMD_EXP_ZERO=1: a zeroed input instead of an uploaded one (no 1 GiB host write)
        let input = if std::env::var("WGSIMD_EXP_ZERO").is_ok() {
            plan.buffer("input", n * 4, BufferInit::Zeroed)
        } else {
            plan.upload("input", &data)
        };
        let partials = plan.buffer("partials", groups * 4, BufferInit::Zeroed);
        let params = plan.upload("params", &[n as u32, 0, 0, 0]);
        let pass = plan.pass(
            "stage1",
            &k,
            "main",
            &[],
            &[input, partials, params],
            Workgroups::Direct(grid_2d(groups, 65535)),
        );
        if name.starts_with("uniform") {
            pass.bindings[0].size = Some(n * 4);
        }
        plan.read_back(partials);
        (plan, partials)
    };
    // WGSIMD_EXP_PRECREATE=1: create (and run once) every variant's pipeline in reverse order
    // before timing any, to tell "the first pipelines created are fast" from "the first timed"
    if std::env::var("WGSIMD_EXP_PRECREATE").is_ok() {
        for &(name, body, groups) in variants.iter().rev() {
            g.run(&build(name, body, groups).0).unwrap();
        }
    }
    for (name, body, groups) in variants {
        let (plan, partials) = build(name, body, groups);
        let (out, t) = g.time(&plan, 3, 10).unwrap();
        let p: Vec<u32> = out.get(partials);
        let ok = p.iter().copied().min().is_some();
        println!(
            "{name}: median {:.1} GB/s best {:.1} GB/s ok={ok}",
            4.0 * n as f64 / t.median_ns(),
            4.0 * n as f64 / t.min_ns()
        );
    }
}
