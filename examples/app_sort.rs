//! A splatting renderer's frame, reduced to what wgsimd does in it: the application owns the
//! wgpu device, the point buffers and the encoder; a compute pass of its own culls the points
//! against a moving camera and appends the visible ones' depths (and point ids) to a list,
//! counting them in a GPU word; wgsimd then sorts the depths front to back with an index
//! payload, reading the count from that word. 60 frames, nothing created after the first; the
//! last frame is checked against a CPU cull and sort.
//!
//! `cargo run --release --example app_sort [POINTS]` (default 200000). Exits 0 when the last
//! frame is right.

use std::borrow::Cow;

use rand::{Rng, SeedableRng};
use wgsimd::dtype::Dtype;
use wgsimd::sort::{SortConfig, Sorter};
use wgsimd::{BufferRef, Context, Count};

const FRAMES: u32 = 60;

/// The application's cull: points in front of the camera within its field of view append
/// their view depth and id; `count` is the list's length.
const CULL: &str = r#"
struct Camera { eye: vec4<f32>, forward: vec4<f32>, n: u32, _pad0: u32, _pad1: u32, _pad2: u32 }
@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> count: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> depths: array<f32>;
@group(0) @binding(4) var<storage, read_write> ids: array<u32>;

@compute @workgroup_size(256)
fn cull(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= camera.n {
        return;
    }
    let rel = points[i].xyz - camera.eye.xyz;
    let depth = dot(rel, camera.forward.xyz);
    // in front, within a cone of half-angle 17.5 degrees (cos² = 1/1.1)
    if depth > 0.05 && dot(rel, rel) < 1.1 * depth * depth {
        let slot = atomicAdd(&count, 1u);
        depths[slot] = depth;
        ids[slot] = i;
    }
}
"#;

/// The camera of frame `f`: circling the origin, looking at it.
fn camera(f: u32) -> ([f32; 3], [f32; 3]) {
    let a = f as f32 * 0.1;
    let eye = [3.0 * a.cos(), 0.5, 3.0 * a.sin()];
    let len = (eye[0] * eye[0] + eye[1] * eye[1] + eye[2] * eye[2]).sqrt();
    (eye, [-eye[0] / len, -eye[1] / len, -eye[2] / len])
}

/// The CPU's view of point `p` in frame `f`: its depth, and how far inside the cull's test it
/// is (positive: visible; within rounding of 0: on the edge, where GPU and CPU may differ).
fn view(p: &[f32; 4], f: u32) -> (f32, f32) {
    let (eye, fw) = camera(f);
    let rel = [p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]];
    let depth = rel[0] * fw[0] + rel[1] * fw[1] + rel[2] * fw[2];
    let d2 = rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2];
    (depth, (depth - 0.05).min(1.1 * depth * depth - d2))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = match std::env::args().nth(1) {
        Some(a) => a.parse()?,
        None => 200_000,
    };
    run(n)
}

/// The application with `n` points.
fn run(n: usize) -> Result<(), Box<dyn std::error::Error>> {
    // --- the application's device, created with wgpu alone ---
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = wgpu::Backends::PRIMARY;
    // wgsimd's indirect dispatches carry valid arguments: no per-dispatch validation pass
    desc.flags = wgsimd::gpu::instance_flags(desc.flags);
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("app"),
        // what wgsimd's kernels use where the adapter has it (cooperative matrices are
        // experimental and only for f16 GEMM: not requested here)
        required_features: adapter.features()
            & wgsimd::gpu::wanted_features()
            & !wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
        required_limits: wgsimd::gpu::wanted_limits(&adapter),
        ..Default::default()
    }))?;
    println!("app_sort: {} points on {}", n, adapter.get_info().name);

    // --- the application's buffers and cull pipeline ---
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let points: Vec<[f32; 4]> = (0..n)
        .map(|_| {
            let mut p = [0f32; 4];
            for c in &mut p[..3] {
                *c = rng.random_range(-1.0..1.0);
            }
            p
        })
        .collect();
    let buffer = |label, size: u64, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    use wgpu::BufferUsages as U;
    let point_buf = buffer("points", n as u64 * 16, U::STORAGE | U::COPY_DST);
    queue.write_buffer(&point_buf, 0, bytemuck::cast_slice(&points));
    let camera_buf = buffer("camera", 48, U::UNIFORM | U::COPY_DST);
    // the count is read by the sort through a copy: COPY_SRC
    let count_buf = buffer("count", 4, U::STORAGE | U::COPY_SRC | U::COPY_DST);
    let list = U::STORAGE | U::COPY_SRC;
    let depth_buf = buffer("depths", n as u64 * 4, list);
    let id_buf = buffer("ids", n as u64 * 4, list);
    let order_buf = buffer("order", n as u64 * 4, list);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("cull"),
        source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(CULL)),
    });
    let cull = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("cull"),
        layout: None,
        module: &module,
        entry_point: Some("cull"),
        compilation_options: Default::default(),
        cache: None,
    });
    let cull_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("cull"),
        layout: &cull.get_bind_group_layout(0),
        entries: &[
            (0, &camera_buf),
            (1, &point_buf),
            (2, &count_buf),
            (3, &depth_buf),
            (4, &id_buf),
        ]
        .map(|(binding, b)| wgpu::BindGroupEntry {
            binding,
            resource: b.as_entire_binding(),
        }),
    });

    // --- wgsimd on the application's device: one sorter, made once ---
    let ctx = Context::from_wgpu(&adapter, &device, &queue);
    let sorter = Sorter::new(&ctx, SortConfig::keys(Dtype::F32, n as u64).with_index())?;
    let gpu = ctx.gpu().expect("a wgpu context");

    let mut after_first = None;
    for f in 0..FRAMES {
        let (eye, fw) = camera(f);
        let mut cam = [0u32; 12];
        cam[..3].copy_from_slice(&eye.map(f32::to_bits));
        cam[4..7].copy_from_slice(&fw.map(f32::to_bits));
        cam[8] = n as u32;
        queue.write_buffer(&camera_buf, 0, bytemuck::cast_slice(&cam));
        let mut enc = device.create_command_encoder(&Default::default());
        enc.clear_buffer(&count_buf, 0, None);
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&cull);
            pass.set_bind_group(0, &cull_group, &[]);
            pass.dispatch_workgroups((n as u32).div_ceil(256), 1, 1);
        }
        // front to back, by the count the cull left on the GPU
        sorter.record(
            &mut enc,
            &depth_buf,
            Some(BufferRef::from(&order_buf)),
            Count::Gpu(BufferRef::from(&count_buf)),
        )?;
        queue.submit([enc.finish()]);
        match after_first {
            None => after_first = Some(gpu.created()),
            Some(first) => {
                if gpu.created() != first {
                    return Err(format!("frame {f} created device objects").into());
                }
            }
        }
    }

    // --- check the last frame ---
    let read = |b: &wgpu::Buffer, bytes: u64| -> Vec<u32> {
        let staging = buffer("readback", bytes.max(4), U::MAP_READ | U::COPY_DST);
        let mut enc = device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(b, 0, &staging, 0, bytes.max(4));
        queue.submit([enc.finish()]);
        staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        let view = staging.slice(..).get_mapped_range().expect("mapped");
        bytemuck::cast_slice(&view).to_vec()
    };
    let count = read(&count_buf, 4)[0] as usize;
    let depths: Vec<f32> =
        bytemuck::cast_slice(&read(&depth_buf, count as u64 * 4)[..count]).to_vec();
    let order = &read(&order_buf, count as u64 * 4)[..count];
    let ids = read(&id_buf, n as u64 * 4);
    // the sort: front to back, stable (equal depths keep the cull's append order)
    if depths.windows(2).any(|w| w[0] > w[1]) {
        return Err("depths out of order".into());
    }
    if (1..count).any(|j| depths[j - 1] == depths[j] && order[j - 1] > order[j]) {
        return Err("equal depths out of their input order".into());
    }
    // through the index payload and the cull's ids, each entry is a distinct visible point
    // with its own depth, and every point clearly inside the view is there
    let eps = 1e-4;
    let mut seen = vec![false; n];
    for j in 0..count {
        let id = ids[order[j] as usize] as usize;
        let (depth, inside) = view(&points[id], FRAMES - 1);
        if seen[id] || inside < -eps || (depth - depths[j]).abs() > eps {
            return Err(
                format!("entry {j}: point {id} (depth {depth}, {inside} inside) is wrong").into(),
            );
        }
        seen[id] = true;
    }
    if let Some(i) = (0..n).find(|&i| !seen[i] && view(&points[i], FRAMES - 1).1 > eps) {
        return Err(format!("visible point {i} is missing").into());
    }
    println!(
        "app_sort: {FRAMES} frames, {count} visible points in the last, sorted front to back and \
         checked; nothing created after the first frame"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The example as CI runs it (on lavapipe); without an adapter it says so and passes,
    /// unless `WGSIMD_REQUIRE_GPU=1`.
    #[test]
    fn sixty_frames() {
        if wgsimd::Context::open_gpu().is_err()
            && std::env::var("WGSIMD_REQUIRE_GPU").as_deref() != Ok("1")
        {
            eprintln!("skipped: no GPU adapter");
            return;
        }
        super::run(50_000).unwrap();
    }
}
