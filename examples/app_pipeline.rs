//! An inference step's bookkeeping, recorded by wgsimd into one encoder of the application's:
//! a GEMM of activations by weights that live at offsets in the application's own buffers (rows
//! at the strides [`Gemm::layout`] asks for), the sum of the product into a word of the
//! application's stats buffer, and an exclusive scan of token lengths into offsets. One
//! submission; each result checked against the CPU.
//!
//! `cargo run --release --example app_pipeline`. Exits 0 when all three are right.

use rand::{Rng, SeedableRng};
use wgsimd::dtype::Dtype;
use wgsimd::gemm::{Format, Gemm, GemmOptions};
use wgsimd::reduce::{ReduceOp, Reducer, Scalar};
use wgsimd::scan::Scanner;
use wgsimd::{BufferRef, Context, Count};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (m, n, k) = (48, 200, 300);
    let tokens = 5000;

    // --- the application's device and buffers ---
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = wgpu::Backends::PRIMARY;
    // wgsimd's indirect dispatches carry valid arguments: no per-dispatch validation pass
    desc.flags = wgsimd::gpu::instance_flags(desc.flags);
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("app"),
        required_features: adapter.features()
            & wgsimd::gpu::wanted_features()
            & !wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
        required_limits: wgsimd::gpu::wanted_limits(&adapter),
        ..Default::default()
    }))?;
    println!("app_pipeline on {}", adapter.get_info().name);
    let ctx = Context::from_wgpu(&adapter, &device, &queue);
    let align = wgsimd::context::binding_alignment(ctx.caps());

    // --- wgsimd's objects, made once ---
    let gemm = Gemm::new(&ctx, Format::F32, m, n, k, GemmOptions::default())?;
    let layout = gemm.layout();
    let sum = Reducer::new(&ctx, ReduceOp::Sum, Dtype::F32, (m * n) as u64)?;
    let offsets = Scanner::new(&ctx, false, tokens as u64)?;

    // activations and weights share one arena: A at `align`, B after it, rows at the layout's
    // strides (the padding is the application's, zeroed)
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let a: Vec<f32> = (0..m * k).map(|_| rng.random_range(-1.0..1.0)).collect();
    let b: Vec<f32> = (0..k * n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let lengths: Vec<u32> = (0..tokens).map(|_| rng.random_range(1..64)).collect();
    let a_at = align;
    let a_bytes = (m * layout.a_row * 4) as u64;
    let b_at = (a_at + a_bytes).div_ceil(align) * align;
    let b_bytes = (k * layout.b_row * 4) as u64;
    let mut arena = vec![0f32; ((b_at + b_bytes) / 4) as usize];
    for r in 0..m {
        let at = (a_at / 4) as usize + r * layout.a_row;
        arena[at..at + k].copy_from_slice(&a[r * k..(r + 1) * k]);
    }
    for r in 0..k {
        let at = (b_at / 4) as usize + r * layout.b_row;
        arena[at..at + n].copy_from_slice(&b[r * n..(r + 1) * n]);
    }
    use wgpu::BufferUsages as U;
    let make = |label, size: u64, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let arena_buf = make("arena", arena.len() as u64 * 4, U::STORAGE | U::COPY_DST);
    queue.write_buffer(&arena_buf, 0, bytemuck::cast_slice(&arena));
    let c_buf = make("c", layout.c_bytes, U::STORAGE | U::COPY_SRC);
    // the stats buffer: the sum goes to byte 8 (not a binding offset: wgsimd copies it there)
    let stats = make("stats", 16, U::STORAGE | U::COPY_SRC | U::COPY_DST);
    let len_buf = make("lengths", tokens as u64 * 4, U::STORAGE | U::COPY_DST);
    queue.write_buffer(&len_buf, 0, bytemuck::cast_slice(&lengths));
    let off_buf = make("offsets", tokens as u64 * 4, U::STORAGE | U::COPY_SRC);

    // --- one encoder, one submission ---
    let mut enc = device.create_command_encoder(&Default::default());
    let arena_ref = BufferRef::from(&arena_buf);
    let inputs = [
        arena_ref.clone().range(a_at, a_bytes),
        arena_ref.range(b_at, b_bytes),
    ];
    gemm.record(&mut enc, &inputs, &c_buf)?;
    sum.record(
        &mut enc,
        BufferRef::from(&c_buf).range(0, (m * n * 4) as u64),
        BufferRef::from(&stats).range(8, 8),
        Count::Host((m * n) as u32),
    )?;
    offsets.record(&mut enc, &len_buf, &off_buf, Count::Host(tokens as u32))?;
    let readback = make(
        "readback",
        layout.c_bytes + 16 + tokens as u64 * 4,
        U::MAP_READ | U::COPY_DST,
    );
    enc.copy_buffer_to_buffer(&c_buf, 0, &readback, 0, layout.c_bytes);
    enc.copy_buffer_to_buffer(&stats, 0, &readback, layout.c_bytes, 16);
    enc.copy_buffer_to_buffer(
        &off_buf,
        0,
        &readback,
        layout.c_bytes + 16,
        tokens as u64 * 4,
    );
    queue.submit([enc.finish()]);
    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let view = readback.slice(..).get_mapped_range()?;
    let words: Vec<u32> = bytemuck::cast_slice(&view).to_vec();

    // --- check ---
    let c: Vec<f32> = bytemuck::cast_slice(&words[..m * n]).to_vec();
    let want = wgsimd::reference::gemm::tiled(&a, &b, m, n, k);
    let err = wgsimd::reference::gemm::rel_frobenius(&c, &want);
    if err > 1e-5 {
        return Err(format!("GEMM relative error {err:e}").into());
    }
    let s = (layout.c_bytes / 4) as usize;
    let got = sum.decode(&words[s + 2..s + 4])?;
    let Scalar::F32(total) = got else {
        return Err(format!("sum came back as {got:?}").into());
    };
    wgsimd::reference::reduce::check_sum_f32(total, &c)?;
    let o = &words[s + 4..s + 4 + tokens];
    if o != wgsimd::reference::scan::scan_u32(&lengths, false) {
        return Err("offsets differ from the CPU's scan".into());
    }
    println!("app_pipeline: GEMM {m}x{n}x{k} (error {err:.1e}), its sum {total}, {tokens} offsets: checked");
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The example as CI runs it (on lavapipe); without an adapter it says so and passes,
    /// unless `WGSIMD_REQUIRE_GPU=1`.
    #[test]
    fn one_submission() {
        if wgsimd::Context::open_gpu().is_err()
            && std::env::var("WGSIMD_REQUIRE_GPU").as_deref() != Ok("1")
        {
            eprintln!("skipped: no GPU adapter");
            return;
        }
        super::main().unwrap();
    }
}
