//! A kernel of one's own, then a wgsimd sort of what it wrote, in one submission on simulated
//! lanes: a pass that gives every point its squared distance from the eye as a sort key, and
//! the sort of those keys with the points' indices, nearest first. The findings of the
//! submission come back as values; the result is checked against the CPU.
//!
//! `cargo run --example own_kernel`. Exits 0 when the order is right and the run is clean. The
//! same calls record into a wgpu device's encoder with a context from `Context::from_wgpu`.

use std::sync::Arc;

use wgsimd::dtype::Dtype;
use wgsimd::kernel::{Flavor, Kernel};
use wgsimd::plan::{Plan, Workgroups};
use wgsimd::sim::SimConfig;
use wgsimd::sort::{SortConfig, Sorter};
use wgsimd::{BufferRef, Context, Count};

/// The application's kernel: one invocation per point, its key the squared distance from the
/// eye, whole numbers so the order is exact.
const DEPTH: &str = "
@group(0) @binding(0) var<storage, read> points: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> depth: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if i >= arrayLength(&depth) {
        return;
    }
    let p = points[i].xyz;
    depth[i] = dot(p, p);
}
";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: u32 = 3000;
    let ctx = Context::simulator(SimConfig::default())?;

    // the application's points (x, y, z below 1000; w unused) and the indices sorted with them
    let mut state = 0x2545_f491_u32;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state % 1000
    };
    let points: Vec<[u32; 4]> = (0..n).map(|_| [next(), next(), next(), 0]).collect();
    let points_buf = ctx.upload("points", &points)?;
    let depth_buf = ctx.zeroed("depth", n as u64 * 4)?;
    let index: Vec<u32> = (0..n).collect();
    let index_buf = ctx.upload("index", &index)?;

    // once: the kernel as a plan over the caller's buffers, and the sorter
    let kernel = Arc::new(Kernel::from_source(
        "depth",
        Flavor::Subgroup,
        DEPTH.into(),
    )?);
    let mut plan = Plan::new("depth keys");
    let p = plan.arg("points", n as u64 * 16);
    let d = plan.arg("depth", n as u64 * 4);
    plan.pass_named(
        "depth",
        &kernel,
        "main",
        &[],
        &[("points", p), ("depth", d)],
        Workgroups::Direct([n.div_ceil(64), 1, 1]),
    )?;
    let depth_pass = ctx.prepare(plan)?;
    let sorter = Sorter::new(&ctx, SortConfig::keys(Dtype::U32, n as u64).with_values())?;

    // the frame: the kernel, then the sort of what it wrote, one submission
    let mut enc = ctx.encoder();
    let args = [
        (p, BufferRef::from(&points_buf)),
        (d, BufferRef::from(&depth_buf)),
    ];
    depth_pass.record((&mut enc).into(), &args, None)?;
    sorter.record(
        &mut enc,
        &depth_buf,
        Some(BufferRef::from(&index_buf)),
        Count::Host(n),
    )?;
    let report = ctx.submit(enc)?;
    for f in &report.findings {
        println!("{f}");
    }
    if !report.findings.is_empty() {
        return Err(format!("{} findings", report.findings.len()).into());
    }

    // the CPU's order: by depth, ties in index order (the sort is stable)
    let key = |q: &[u32; 4]| q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
    let mut want: Vec<u32> = (0..n).collect();
    want.sort_by_key(|&i| key(&points[i as usize]));
    let got = ctx.read::<u32>(&index_buf)?;
    let keys = ctx.read::<u32>(&depth_buf)?;
    if got != want
        || keys
            .iter()
            .zip(&want)
            .any(|(&k, &i)| k != key(&points[i as usize]))
    {
        return Err("the order differs from the CPU's".into());
    }
    println!("own_kernel: {n} points sorted by the kernel's keys, no findings");
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The example as CI runs it: on the simulator, so on every machine.
    #[test]
    fn sorts_the_kernels_keys() {
        super::main().unwrap();
    }
}
