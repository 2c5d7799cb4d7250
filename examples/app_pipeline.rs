//! An inference step's bookkeeping, recorded by wgsimd into one encoder of the application's:
//! a GEMM of activations by weights where the application keeps them (one arena: the
//! activations at rows of K + 4, the weights stored N×K as a linear layer keeps them, both at
//! element offsets no binding alignment asks for) into a column block of a wider output matrix
//! (its other columns the application's, left as they were), the sum of that whole output into
//! a word of the application's stats buffer, and an exclusive scan of token lengths into
//! offsets. One submission; each result checked against the CPU.
//!
//! `cargo run --release --example app_pipeline`. Exits 0 when all three are right.

use rand::{Rng, SeedableRng};
use wgsimd::dtype::Dtype;
use wgsimd::gemm::{Format, Gemm, GemmOptions, GemmShape, MatrixLayout};
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

    // --- the application's layout ---
    // the arena: A (M×K) at element 68, rows of K + 4; then B stored transposed (N×K, the
    // weights as a linear layer holds them), rows of K + 4. The output: an M × W matrix whose
    // columns C0 .. C0 + N are the GEMM's C; the others hold the application's values (1.0).
    let row = k + 4;
    let a_at = 68;
    let b_at = a_at + m * row + 12;
    let (wide, c0) = (n + 40, 16);
    let shape = GemmShape::new(m, n, k)
        .a(MatrixLayout::rows(row).at(a_at))
        .b(MatrixLayout::rows(row).at(b_at))
        .transposed_b()
        .c(MatrixLayout::rows(wide).at(c0));

    // --- wgsimd's objects, made once ---
    let gemm = Gemm::with_shape(&ctx, Format::F32, shape, GemmOptions::default())?;
    let sum = Reducer::new(&ctx, ReduceOp::Sum, Dtype::F32, (m * wide) as u64)?;
    let offsets = Scanner::new(&ctx, false, tokens as u64)?;

    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let a: Vec<f32> = (0..m * k).map(|_| rng.random_range(-1.0..1.0)).collect();
    let b: Vec<f32> = (0..k * n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let lengths: Vec<u32> = (0..tokens).map(|_| rng.random_range(1..64)).collect();
    // the arena's other elements are the application's (NaN here: the GEMM must not read them)
    let mut arena = vec![f32::NAN; b_at + n * row];
    for r in 0..m {
        arena[a_at + r * row..a_at + r * row + k].copy_from_slice(&a[r * k..(r + 1) * k]);
    }
    for j in 0..n {
        for p in 0..k {
            arena[b_at + j * row + p] = b[p * n + j];
        }
    }
    let out_init = vec![1.0f32; m * wide];
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
    let out_bytes = (m * wide * 4) as u64;
    let out_buf = make("output", out_bytes, U::STORAGE | U::COPY_SRC | U::COPY_DST);
    queue.write_buffer(&out_buf, 0, bytemuck::cast_slice(&out_init));
    // the stats buffer: the sum goes to byte 8 (not a binding offset: wgsimd copies it there)
    let stats = make("stats", 16, U::STORAGE | U::COPY_SRC | U::COPY_DST);
    let len_buf = make("lengths", tokens as u64 * 4, U::STORAGE | U::COPY_DST);
    queue.write_buffer(&len_buf, 0, bytemuck::cast_slice(&lengths));
    let off_buf = make("offsets", tokens as u64 * 4, U::STORAGE | U::COPY_SRC);

    // --- one encoder, one submission ---
    let mut enc = device.create_command_encoder(&Default::default());
    let arena_ref = BufferRef::from(&arena_buf);
    // A and B both from the whole arena (their offsets are in the shape)
    gemm.record(&mut enc, &[arena_ref, arena_ref], &out_buf)?;
    sum.record(
        &mut enc,
        &out_buf,
        BufferRef::from(&stats).range(8, 8),
        Count::Host((m * wide) as u32),
    )?;
    offsets.record(&mut enc, &len_buf, &off_buf, Count::Host(tokens as u32))?;
    let readback = make(
        "readback",
        out_bytes + 16 + tokens as u64 * 4,
        U::MAP_READ | U::COPY_DST,
    );
    enc.copy_buffer_to_buffer(&out_buf, 0, &readback, 0, out_bytes);
    enc.copy_buffer_to_buffer(&stats, 0, &readback, out_bytes, 16);
    enc.copy_buffer_to_buffer(&off_buf, 0, &readback, out_bytes + 16, tokens as u64 * 4);
    queue.submit([enc.finish()]);
    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let view = readback.slice(..).get_mapped_range()?;
    let words: Vec<u32> = bytemuck::cast_slice(&view).to_vec();

    // --- check ---
    let out: Vec<f32> = bytemuck::cast_slice(&words[..m * wide]).to_vec();
    let c: Vec<f32> = (0..m)
        .flat_map(|r| out[r * wide + c0..r * wide + c0 + n].to_vec())
        .collect();
    let want = wgsimd::reference::gemm::tiled(&a, &b, m, n, k);
    let err = wgsimd::reference::gemm::rel_frobenius(&c, &want);
    if err > 1e-5 {
        return Err(format!("GEMM relative error {err:e}").into());
    }
    let untouched = (0..m * wide)
        .filter(|i| !(c0..c0 + n).contains(&(i % wide)))
        .all(|i| out[i] == 1.0);
    if !untouched {
        return Err("the GEMM wrote outside its block of the output".into());
    }
    let s = m * wide;
    let got = sum.decode(&words[s + 2..s + 4])?;
    let Scalar::F32(total) = got else {
        return Err(format!("sum came back as {got:?}").into());
    };
    wgsimd::reference::reduce::check_sum_f32(total, &out)?;
    let o = &words[s + 4..s + 4 + tokens];
    if o != wgsimd::reference::scan::scan_u32(&lengths, false) {
        return Err("offsets differ from the CPU's scan".into());
    }
    println!(
        "app_pipeline: GEMM {m}x{n}x{k} into columns {c0}..{} of {wide} (error {err:.1e}), the \
         output's sum {total}, {tokens} offsets: checked",
        c0 + n
    );
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
