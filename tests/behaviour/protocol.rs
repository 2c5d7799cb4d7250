//! The recording protocol's promises, through every algorithm: a GPU count is clamped to what
//! the caller's ranges hold; any number of host-count recordings per submission is right or a
//! typed error before anything is recorded; aliasing is either handled (scans and reductions in
//! place) or a typed error at record time on every target, never a validation error at
//! submission; GPU counts on CPU devices run grids sized by the count; and the rough edges of
//! the API (copyable counts, open-ended ranges, one-line errors naming their buffer, checked
//! decoding).

use wgsimd::dtype::Dtype;
use wgsimd::gemm::{Format, Gemm, GemmOptions};
use wgsimd::reduce::{ReduceOp, Reducer, Scalar};
use wgsimd::reference::sort::{check_pairs, Order};
use wgsimd::scan::Scanner;
use wgsimd::sim::SimConfig;
use wgsimd::sort::{SortConfig, Sorter};
use wgsimd::{BufferRef, Caps, Context, Count, Error};

use crate::data;
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new(
            "protocol::gpu_counts_are_clamped_to_the_ranges_bound",
            On::Every,
            gpu_counts_clamped,
        ),
        Test::new(
            "protocol::host_counts_past_the_ring",
            On::Every,
            past_the_ring,
        ),
        Test::new("protocol::in_place", On::Every, in_place),
        Test::new(
            "protocol::aliasing_that_cannot_work_is_refused",
            On::Every,
            aliasing_refused,
        ),
        Test::new(
            "protocol::gpu_counts_on_cpu_devices_size_their_grids",
            On::Once,
            cpu_grids,
        ),
        Test::new("protocol::rough_edges", On::Once, rough_edges),
        Test::new(
            "protocol::errors_name_their_buffers",
            On::Every,
            errors_name_buffers,
        ),
        Test::new(
            "protocol::ranges_past_their_buffers",
            On::Every,
            ranges_past_their_buffers,
        ),
    ]
}

/// A GPU count past what the caller's ranges hold runs on as many elements as every range
/// holds: a pairs sort whose keys range holds 1000 keys and values range 700, with a count of
/// 2000, sorts the first 700 pairs and leaves every other word alone; a reduction sums what
/// its input range holds; a scan writes no further than its output range.
fn gpu_counts_clamped(t: &Target) {
    let ctx = &t.ctx;
    let max = 4096u64;
    let keys: Vec<u32> = data::random_u32(2000, 3);
    let values = data::values(2000);
    let count = ctx.upload("count", &[2000u32, 0, 0, 0]).unwrap();
    let kb = ctx.upload("keys", &keys).unwrap();
    let vb = ctx.upload("values", &values).unwrap();
    let sorter = Sorter::new(ctx, SortConfig::keys(Dtype::U32, max).with_values()).unwrap();
    let reducer = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, max).unwrap();
    let scanner = Scanner::new(ctx, true, max).unwrap();
    let input = ctx.upload("input", &keys).unwrap();
    let total = ctx.zeroed("total", 8).unwrap();
    let sums = ctx.upload("sums", &vec![7u32; 2000]).unwrap();
    let mut enc = ctx.encoder();
    let gpu = Count::Gpu(count.slice(0, 4));
    sorter
        .record(&mut enc, kb.slice(0, 4000), Some(vb.slice(0, 2800)), gpu)
        .unwrap();
    reducer
        .record(&mut enc, input.slice(0, 4000), &total, gpu)
        .unwrap();
    scanner
        .record(&mut enc, input.slice(0, 4000), sums.slice(0, 2400), gpu)
        .unwrap();
    util::submit(t, enc);
    let (got_k, got_v) = (util::words(t, &kb), util::words(t, &vb));
    check_pairs(
        &keys[..700],
        &values[..700],
        &got_k[..700],
        &got_v[..700],
        Order::default(),
    )
    .unwrap();
    assert_eq!(got_k[700..], keys[700..], "keys past the values' range");
    assert_eq!(got_v[700..], values[700..], "values past their range");
    let want: u64 = keys[..1000].iter().map(|&k| k as u64).sum();
    assert_eq!(
        reducer.decode(&util::words(t, &total)).unwrap(),
        Scalar::U64(want)
    );
    let got = util::words(t, &sums);
    let want = wgsimd::reference::scan::scan_u32(&keys[..600], true);
    assert_eq!(got[..600], want[..], "the scan within its output range");
    assert!(
        got[600..].iter().all(|&w| w == 7),
        "the scan wrote past its output range"
    );
}

/// 300 reductions of one reducer with 300 different host counts in one submission: every
/// recording the protocol takes gives its own count's sum, and a recording it cannot take is
/// refused with a typed error before anything is recorded.
fn past_the_ring(t: &Target) {
    let ctx = &t.ctx;
    let n = 300usize;
    let input: Vec<u32> = (1..=n as u32).collect();
    let reducer = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, n as u64).unwrap();
    let data = ctx.upload("input", &input).unwrap();
    // each total at its own binding-aligned offset
    let out = ctx.zeroed("totals", 256 * n as u64).unwrap();
    let mut enc = ctx.encoder();
    let mut taken = Vec::new();
    for c in 1..=n {
        let r = reducer.record(
            &mut enc,
            &data,
            out.slice(256 * (c as u64 - 1), 8),
            Count::Host(c as u32),
        );
        match r {
            Ok(()) => taken.push(c),
            Err(e) => {
                util::refused("a recording past the ring", Err::<(), _>(e));
            }
        }
    }
    util::submit(t, enc);
    assert!(taken.len() >= 256, "only {} recordings taken", taken.len());
    let words = util::words(t, &out);
    for c in taken {
        let got = reducer
            .decode(&words[64 * (c - 1)..64 * (c - 1) + 2])
            .unwrap();
        let want = (c * (c + 1) / 2) as u64;
        assert_eq!(got, Scalar::U64(want), "the sum of the first {c}");
    }
}

/// A scan in place (input and output the same range), a scan between two ranges of one buffer,
/// and a reduction whose result lies in its input's buffer: each right, on every target (wgpu
/// forbids one buffer bound read-only and read-write in one dispatch; the protocol routes
/// around it).
fn in_place(t: &Target) {
    let ctx = &t.ctx;
    let n = 3000usize;
    let input = data::random_u32(n, 5);
    let scanner = Scanner::new(ctx, false, 4096).unwrap();
    let reducer = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, 4096).unwrap();
    let same = ctx.upload("data", &input).unwrap();
    // [input | output] in one buffer, the output at a binding-aligned offset
    let half = 4096u64 * 4;
    let mut arena_words = input.clone();
    arena_words.resize(2 * 4096, 9);
    let arena = ctx.upload("arena", &arena_words).unwrap();
    // the sum into a binding-aligned word past the input, in the input's buffer
    let mut with_total = input.clone();
    with_total.resize(4096, 0);
    let reduced = ctx.upload("input and total", &with_total).unwrap();
    let mut enc = ctx.encoder();
    let count = Count::Host(n as u32);
    scanner.record(&mut enc, &same, &same, count).unwrap();
    scanner
        .record(
            &mut enc,
            arena.slice(0, half),
            arena.slice(half, half),
            count,
        )
        .unwrap();
    reducer
        .record(
            &mut enc,
            reduced.slice(0, 4 * n as u64),
            reduced.slice(half - 256, 8),
            count,
        )
        .unwrap();
    util::submit(t, enc);
    let want = wgsimd::reference::scan::scan_u32(&input, false);
    assert_eq!(util::words(t, &same)[..n], want[..], "in place");
    let a = util::words(t, &arena);
    assert_eq!(a[..n], input[..], "the arena's input");
    assert_eq!(a[4096..4096 + n], want[..], "the arena's output");
    let r = util::words(t, &reduced);
    let sum: u64 = input.iter().map(|&x| x as u64).sum();
    assert_eq!(reducer.decode(&r[4032..4034]).unwrap(), Scalar::U64(sum));
}

/// What cannot work is a typed error when recording, on the simulator as on a device: a
/// sort whose values overlap its keys, a GEMM whose C shares a buffer with A. The encoder is
/// left as it was: a later recording in it still runs.
fn aliasing_refused(t: &Target) {
    let ctx = &t.ctx;
    let sorter = Sorter::new(ctx, SortConfig::keys(Dtype::U32, 1024).with_values()).unwrap();
    let buf = ctx.upload("keys and values", &[1u32; 1024]).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "values overlapping the keys",
        sorter.record(
            &mut enc,
            buf.slice(0, 2048),
            Some(buf.slice(1024, 2048)),
            Count::Host(256),
        ),
    );
    let g = Gemm::new(ctx, Format::F32, 4, 4, 4, GemmOptions::default()).unwrap();
    let l = g.layout();
    let arena = ctx.zeroed("arena", 8192).unwrap();
    let b = ctx.zeroed("b", 4096).unwrap();
    util::refused(
        "C in A's buffer",
        g.record(
            &mut enc,
            &[arena.slice(0, l.a_bytes), BufferRef::from(&b)],
            arena.slice(4096, l.c_bytes),
        ),
    );
    // nothing of the refused recordings reached the encoder
    let keys = ctx.upload("keys", &[3u32, 1, 2, 0]).unwrap();
    let values = ctx.upload("values", &[0u32, 1, 2, 3]).unwrap();
    sorter
        .record(
            &mut enc,
            &keys,
            Some(BufferRef::from(&values)),
            Count::Host(4),
        )
        .unwrap();
    util::submit(t, enc);
    assert_eq!(util::words(t, &keys), [0, 1, 2, 3]);
    assert_eq!(util::words(t, &values), [3, 1, 2, 0]);
}

/// On a CPU device (the lavapipe profile) a GPU count runs grids sized by the count, not by
/// the object's maximum: a reduction and a pairs sort made for 2^16 elements run on a count of
/// 1000 with about the workgroups a host count of 1000 takes (the prepare passes' one each
/// more), far fewer than the maximum's.
fn cpu_grids(_: &Target) {
    let mut config = SimConfig::for_profile(Caps::lavapipe());
    config.schedules = vec![wgsimd::sim::Schedule::Lockstep];
    let ctx = Context::simulator(config).unwrap();
    let sim = ctx.sim().unwrap().clone();
    let max = 1u64 << 16;
    let n = 1000u32;
    let reducer = Reducer::new(&ctx, ReduceOp::Sum, Dtype::U32, max).unwrap();
    let sorter = Sorter::new(&ctx, SortConfig::keys(Dtype::U32, max).with_values()).unwrap();
    let keys = ctx
        .upload("keys", &data::random_u32(max as usize, 1))
        .unwrap();
    let values = ctx.upload("values", &data::values(max as usize)).unwrap();
    let total = ctx.zeroed("total", 8).unwrap();
    let count = ctx.upload("count", &[n]).unwrap();
    let workgroups = |c: Count| {
        let before = sim.stats().workgroups;
        let mut enc = ctx.encoder();
        reducer.record(&mut enc, &keys, &total, c).unwrap();
        sorter
            .record(&mut enc, &keys, Some(BufferRef::from(&values)), c)
            .unwrap();
        ctx.submit(enc).unwrap().clean("the run").unwrap();
        sim.stats().workgroups - before
    };
    let host = workgroups(Count::Host(n));
    let gpu = workgroups(Count::Gpu(BufferRef::from(&count)));
    assert!(
        gpu <= host + 8,
        "a GPU count of {n} ran {gpu} workgroups, a host count {host}"
    );
    // OneSweep, whose first stage writes the control block it would be dispatched from, keeps
    // the grids of its limit there (one dispatch may not use a buffer both ways)
    let onesweep = SortConfig::keys(Dtype::U32, 4096).strategy(wgsimd::sort::Strategy::OneSweep);
    let sorter = Sorter::new(&ctx, onesweep).unwrap();
    let input = data::random_u32(4096, 8);
    let kb = ctx.upload("keys", &input).unwrap();
    let mut enc = ctx.encoder();
    sorter
        .record(&mut enc, &kb, None, Count::Gpu(BufferRef::from(&count)))
        .unwrap();
    ctx.submit(enc).unwrap().clean("the sort").unwrap();
    let mut want = input.clone();
    want[..n as usize].sort_unstable();
    assert_eq!(ctx.read::<u32>(&kb).unwrap(), want);
}

/// Counts are `Copy`; a range may run to the end of its buffer; an error about a buffer is one
/// line naming it; `decode` takes exactly the result's words; a keys-only sorter's messages
/// speak of keys only.
fn rough_edges(t: &Target) {
    let ctx = &t.ctx;
    let count = Count::Host(3);
    let (a, b) = (count, count);
    assert!(matches!((a, b), (Count::Host(3), Count::Host(3))));
    let buf = ctx.upload("numbers", &[0u32; 16]).unwrap();
    let tail = BufferRef::from(&buf).range_from(16);
    assert_eq!((tail.offset(), tail.len()), (16, 48));
    let r = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, 100).unwrap();
    for words in [&[1u32][..], &[1, 2, 3]] {
        assert!(
            matches!(r.decode(words), Err(Error::InvalidInput(_))),
            "decode of {} words",
            words.len()
        );
    }
    let keys_only = Sorter::new(ctx, SortConfig::keys(Dtype::U32, 1000)).unwrap();
    let kb = ctx.upload("my keys", &[1u32; 10]).unwrap();
    let mut enc = ctx.encoder();
    let m = util::refused(
        "11 of 10 keys",
        keys_only.record(&mut enc, &kb, None, Count::Host(11)),
    );
    assert!(!m.contains("values") && !m.contains('\n'), "{m}");
    assert!(m.contains("keys"), "{m}");
    let m = util::refused(
        "keys at an unaligned offset",
        keys_only.record(&mut enc, kb.slice(4, 36), None, Count::Host(9)),
    );
    assert!(m.contains("keys") && !m.contains('\n'), "{m}");
    assert!(!m.contains("Buffer {"), "{m}");
}

/// An error about a caller's buffer is one line that names it by its role (and size), never a
/// dump of the wgpu object: a GPU count in a buffer without `COPY_SRC`.
fn errors_name_buffers(t: &Target) {
    let ctx = &t.ctx;
    let Some(gpu) = ctx.gpu() else { return };
    let count = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("visible count"),
        size: 16,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let r = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, 100).unwrap();
    let input = ctx.upload("input", &[1u32; 100]).unwrap();
    let total = ctx.zeroed("total", 8).unwrap();
    let mut enc = ctx.encoder();
    let m = util::refused(
        "a count without COPY_SRC",
        r.record(
            &mut enc,
            &input,
            &total,
            Count::Gpu(BufferRef::from(&count)),
        ),
    );
    assert!(!m.contains('\n') && !m.contains("Buffer {"), "{m}");
    assert!(m.contains("count") && m.contains("16"), "{m}");
}

/// A range that runs past the end of its buffer is refused wherever it goes (a result copied
/// into place, a GPU count, a scan's input copied for a scan in place), and the encoder is left
/// as it was: a later recording in it runs.
fn ranges_past_their_buffers(t: &Target) {
    let ctx = &t.ctx;
    let r = Reducer::new(ctx, ReduceOp::Sum, Dtype::U32, 64).unwrap();
    let s = Scanner::new(ctx, false, 64).unwrap();
    let input = ctx.upload("input", &[1u32; 16]).unwrap();
    let stats = ctx.zeroed("stats", 64).unwrap();
    let count = ctx.upload("count", &[4u32; 4]).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "a result past the end of its buffer",
        r.record(
            &mut enc,
            &input,
            BufferRef::from(&stats).range(60, 8),
            Count::Host(16),
        ),
    );
    util::refused(
        "a GPU count past the end of its buffer",
        r.record(&mut enc, &input, &stats, Count::Gpu(count.slice(12, 8))),
    );
    let past = BufferRef::from(&input).range(32, 64);
    util::refused(
        "a scan in place past the end of its buffer",
        s.record(&mut enc, past, past, Count::Gpu(count.slice(0, 4))),
    );
    r.record(&mut enc, &input, &stats, Count::Host(16)).unwrap();
    util::submit(t, enc);
    let words = util::words(t, &stats);
    assert_eq!(r.decode(&words[..2]).unwrap(), Scalar::U64(16));
}
