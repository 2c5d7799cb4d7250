//! Upload-bandwidth experiment (development, not a test): the same reduction kernel read 8 times
//! in a row from a fresh plan each, with the input made in different ways, to tell which part
//! of "uploaded from the host" makes later plans read at half speed on the H100.
//! `exp_upload MODE`: upload | zero | fill | upload+fill | zero+dummy. It found the executor's
//! warm-up, not the uploads, to blame (docs/benchmarks.md, item 5).
use std::sync::Arc;
use wgsimd::kernel::{Flavor, Kernel};
use wgsimd::plan::{BufferInit, Plan, Workgroups};
use wgsimd::{Executor, GpuExecutor};

const READ: &str = r#"
@group(0) @binding(0) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> partials: array<u32>;
var<workgroup> slots: array<u32, 64>;
struct Inv {
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(num_subgroups) n_sg: u32,
}
@compute @workgroup_size(256)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&input);
    var acc = 0xffffffffu;
    for (var i = wid.x * 256u + inv.lid; i < n; i += nwg.x * 256u) {
        let v = input[i];
        acc = min(acc, min(min(v.x, v.y), min(v.z, v.w)));
    }
    let s = subgroupMin(acc);
    if inv.lane == 0u { slots[inv.sg_id] = s; }
    workgroupBarrier();
    if inv.lid == 0u {
        var r = slots[0];
        for (var k = 1u; k < inv.n_sg; k++) { r = min(r, slots[k]); }
        partials[wid.x] = r;
    }
}"#;

const FILL: &str = r#"
@group(0) @binding(0) var<storage, read_write> input: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&input);
    for (var i = gid.x; i < n; i += nwg.x * 256u) {
        let b = i * 4u;
        input[i] = vec4<u32>(b, b + 1u, b + 2u, b + 3u) * 2654435761u | vec4<u32>(1u);
    }
}"#;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "upload".into());
    let g = GpuExecutor::new().unwrap();
    let n: u64 = std::env::var("EXP_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1 << 28);
    let data: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) | 1)
        .collect();
    let read = Arc::new(Kernel::from_source("exp/read", Flavor::Subgroup, READ.into()).unwrap());
    let fill = Arc::new(Kernel::from_source("exp/fill", Flavor::Emulated, FILL.into()).unwrap());
    let groups = 4096u64;
    for round in 0..8 {
        let mut plan = Plan::new(format!("read {round}"));
        let input = match mode.as_str() {
            "zero" | "fill" | "zero+dummy" => plan.buffer("input", n * 4, BufferInit::Zeroed),
            _ => plan.upload("input", &data),
        };
        if mode == "zero+dummy" {
            // an upload of the same size that the kernel never reads
            let d = plan.upload("dummy", &data);
            plan.read_back(d);
        }
        let partials = plan.buffer("partials", groups * 4, BufferInit::Zeroed);
        if mode.ends_with("fill") {
            plan.pass(
                "fill",
                &fill,
                "main",
                &[],
                &[input],
                Workgroups::Direct([4096, 1, 1]),
            );
        }
        plan.pass(
            "read",
            &read,
            "main",
            &[],
            &[input, partials],
            Workgroups::Direct([groups as u32, 1, 1]),
        );
        plan.read_back(partials);
        let (out, t) = g.time(&plan, 3, 10).unwrap();
        let p: Vec<u32> = out.get(partials);
        let want = if mode == "zero" || mode == "zero+dummy" {
            0
        } else {
            1
        };
        let ok = p.iter().copied().min() == Some(want);
        let i = t.pass_labels.iter().position(|l| l == "read").unwrap();
        let ns = t.pass_median_ns()[i];
        println!(
            "{mode} round {round}: read {:.1} GB/s ok={ok}",
            4.0 * n as f64 / ns
        );
    }
}
