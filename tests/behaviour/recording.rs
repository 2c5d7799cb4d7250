//! What the recording API promises an application: frames recorded on the same buffers create
//! no device object after the first; timestamps bracket each pass; and the whole API runs on a
//! device and encoder the application made with wgpu alone.

use wgsimd::dtype::Dtype;
use wgsimd::gpu::Timestamps;
use wgsimd::reduce::{ReduceOp, Reducer, Scalar};
use wgsimd::reference::sort::{check_pairs, Order};
use wgsimd::scan::Scanner;
use wgsimd::sort::{SortConfig, Sorter};
use wgsimd::{BufferRef, Context, Count};

use crate::data;
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new(
            "recording::nothing_created_after_the_first_frame",
            On::Gpu,
            nothing_created,
        ),
        Test::new(
            "recording::timestamps_bracket_each_pass",
            On::Gpu,
            timestamps,
        ),
        Test::new(
            "recording::on_the_applications_own_device",
            On::Gpu,
            own_device,
        ),
        Test::new(
            "recording::counts_share_a_submission",
            On::Every,
            counts_share_a_submission,
        ),
    ]
}

/// One object recorded three times in one encoder, twice with host counts (each its own copy
/// of the control blocks) and once with a GPU count between them: every recording sees its own
/// count. A sort, a reduction and a scan; words past each count stay as they were.
fn counts_share_a_submission(t: &Target) {
    let ctx = &t.ctx;
    let n = if t.is_sim() { 3000 } else { 300_000 };
    let counts = [n, n / 3 + 7, n / 2 + 1];
    let sorter = Sorter::new(ctx, SortConfig::keys(Dtype::U32, n as u64)).unwrap();
    let reducer = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, n as u64).unwrap();
    let scanner = Scanner::new(ctx, false, n as u64).unwrap();
    let input = data::random_u32(n, 11);
    let keys: Vec<_> = (0..3)
        .map(|_| ctx.upload("keys", &input).unwrap())
        .collect();
    let sums: Vec<_> = (0..3)
        .map(|_| ctx.zeroed("sums", n as u64 * 4).unwrap())
        .collect();
    let totals: Vec<_> = (0..3).map(|_| ctx.zeroed("total", 8).unwrap()).collect();
    let source = ctx.upload("input", &input).unwrap();
    let gpu_count = ctx.upload("count", &[counts[1] as u32]).unwrap();
    let mut enc = ctx.encoder();
    for i in 0..3 {
        let count = |i| match i {
            1 => Count::Gpu(BufferRef::from(&gpu_count)),
            _ => Count::Host(counts[i] as u32),
        };
        sorter.record(&mut enc, &keys[i], None, count(i)).unwrap();
        reducer
            .record(&mut enc, &source, &totals[i], count(i))
            .unwrap();
        scanner
            .record(&mut enc, &source, &sums[i], count(i))
            .unwrap();
    }
    util::submit(t, enc);
    for (i, &c) in counts.iter().enumerate() {
        let mut want = input.clone();
        want[..c].sort_unstable();
        assert!(util::words(t, &keys[i]) == want, "sort {i} of {c} keys");
        let total: u64 = input[..c].iter().map(|&x| x as u64).sum();
        assert_eq!(
            reducer.decode(&util::words(t, &totals[i])[..2]).unwrap(),
            Scalar::U64(total),
            "reduction {i} of {c}"
        );
        let got = util::words(t, &sums[i]);
        let mut acc = 0u32;
        for (j, &x) in input[..c].iter().enumerate() {
            assert_eq!(got[j], acc, "scan {i} of {c}, element {j}");
            acc = acc.wrapping_add(x);
        }
        assert!(got[c..].iter().all(|&w| w == 0), "scan {i} wrote past {c}");
    }
}

/// Three frames of a sort, a reduction and a scan on the same buffers, new contents written
/// through the queue each frame: the first frame makes the bind groups, the others nothing.
fn nothing_created(t: &Target) {
    // a context of its own: the counts are per context, and other tests share the target's
    let g = t.ctx.gpu().expect("a GPU target");
    let own = Context::Gpu(std::sync::Arc::new(g.with_caps(g.caps.clone())));
    let ctx = &own;
    let gpu = ctx.gpu().expect("a GPU target");
    let n = 50_000usize;
    let sorter = Sorter::new(ctx, SortConfig::keys(Dtype::U32, n as u64).with_values()).unwrap();
    let reducer = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, n as u64).unwrap();
    let scanner = Scanner::new(ctx, true, n as u64).unwrap();
    let keys = ctx.zeroed("keys", n as u64 * 4).unwrap();
    let values = ctx.zeroed("values", n as u64 * 4).unwrap();
    let sums = ctx.zeroed("sums", n as u64 * 4).unwrap();
    let total = ctx.zeroed("total", 8).unwrap();
    let mut after_first = None;
    for frame in 0..3u64 {
        let k = data::random_u32(n, frame);
        let v = data::values(n);
        ctx.write_buffer(&BufferRef::from(&keys), bytemuck::cast_slice(&k))
            .unwrap();
        ctx.write_buffer(&BufferRef::from(&values), bytemuck::cast_slice(&v))
            .unwrap();
        let mut enc = ctx.encoder();
        let count = Count::Host(n as u32);
        reducer.record(&mut enc, &keys, &total, count).unwrap();
        scanner.record(&mut enc, &keys, &sums, count).unwrap();
        sorter
            .record(&mut enc, &keys, Some(BufferRef::from(&values)), count)
            .unwrap();
        util::submit(t, enc);
        let created = gpu.created();
        match after_first {
            None => after_first = Some(created),
            Some(first) => assert_eq!(created, first, "frame {frame} created device objects"),
        }
        let got_total = reducer.decode(&util::words(t, &total)[..2]).unwrap();
        assert_eq!(got_total, Scalar::U64(k.iter().map(|&x| x as u64).sum()));
        let scanned = util::words(t, &sums);
        assert_eq!(scanned, wgsimd::reference::scan::scan_u32(&k, true));
        check_pairs(
            &k,
            &v,
            &util::words(t, &keys),
            &util::words(t, &values),
            Order::default(),
        )
        .unwrap();
    }
}

/// Two timestamps per pass, in order, when the device has timestamp queries.
fn timestamps(t: &Target) {
    let ctx = &t.ctx;
    if !t.caps().timestamps {
        return;
    }
    let gpu = ctx.gpu().expect("a GPU target");
    let n = 100_000u32;
    let sorter = Sorter::new(ctx, SortConfig::keys(Dtype::U32, n as u64)).unwrap();
    let passes = sorter.passes().len() as u32;
    let set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("stamps"),
        ty: wgpu::QueryType::Timestamp,
        count: 2 * passes,
    });
    let resolved = wgsimd::Buffer::Gpu(
        gpu.create_buffer(
            "resolved",
            16 * passes as u64,
            wgpu::BufferUsages::QUERY_RESOLVE,
        )
        .unwrap(),
    );
    let keys = ctx
        .upload("keys", &data::random_u32(n as usize, 1))
        .unwrap();
    let mut enc = ctx.encoder();
    let stamps = Timestamps {
        set: &set,
        first: 0,
        whole: false,
    };
    sorter
        .record_timed(&mut enc, &keys, None, Count::Host(n), Some(stamps))
        .unwrap();
    let wgsimd::Encoder::Gpu(e) = &mut enc else {
        panic!("a GPU encoder")
    };
    let wgsimd::Buffer::Gpu(rb) = &resolved else {
        panic!("a GPU buffer")
    };
    e.resolve_query_set(&set, 0..2 * passes, rb, 0);
    util::submit(t, enc);
    let words = util::words(t, &resolved);
    let ticks: Vec<u64> = words
        .chunks(2)
        .map(|w| w[0] as u64 | (w[1] as u64) << 32)
        .collect();
    assert!(ticks.iter().any(|&x| x != 0), "no timestamps written");
    for p in 0..passes as usize {
        assert!(
            ticks[2 * p] <= ticks[2 * p + 1],
            "pass {p} ends before it starts: {ticks:?}"
        );
    }
}

/// An application's own instance, device, buffers and encoder: a sort of its keys with an
/// index payload recorded into its encoder, submitted and read back by it.
fn own_device(_: &Target) {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = wgpu::Backends::PRIMARY;
    // wgsimd's indirect dispatches carry valid arguments: no per-dispatch validation pass
    desc.flags = wgsimd::gpu::instance_flags(desc.flags);
    let instance = wgpu::Instance::new(desc);
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .expect("an adapter (the GPU target exists)");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("application"),
        required_features: adapter.features()
            & (wgsimd::gpu::wanted_features() - wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX),
        required_limits: wgsimd::gpu::wanted_limits(&adapter),
        ..Default::default()
    }))
    .unwrap();
    let ctx = Context::from_wgpu(&adapter, &device, &queue);
    let n = 10_001usize;
    let keys: Vec<f32> = data::keys(data::Dist::Extremes, n, 9);
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let make = |label| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: n as u64 * 4,
            usage,
            mapped_at_creation: false,
        })
    };
    let (kb, ib) = (make("depths"), make("order"));
    queue.write_buffer(&kb, 0, bytemuck::cast_slice(&keys));
    let sorter = Sorter::new(&ctx, SortConfig::keys(Dtype::F32, n as u64).with_index()).unwrap();
    let mut enc = device.create_command_encoder(&Default::default());
    sorter
        .record(
            &mut enc,
            &kb,
            Some(BufferRef::from(&ib)),
            Count::Host(n as u32),
        )
        .unwrap();
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: 2 * n as u64 * 4,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    enc.copy_buffer_to_buffer(&kb, 0, &readback, 0, n as u64 * 4);
    enc.copy_buffer_to_buffer(&ib, 0, &readback, n as u64 * 4, n as u64 * 4);
    queue.submit([enc.finish()]);
    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let view = readback.slice(..).get_mapped_range().unwrap();
    let words: Vec<u32> = bytemuck::cast_slice(&view).to_vec();
    let got: Vec<f32> = bytemuck::cast_slice(&words[..n]).to_vec();
    let iota: Vec<u32> = (0..n as u32).collect();
    check_pairs(&keys, &iota, &got, &words[n..], Order::default()).unwrap();
}
