//! Top-k: u32, i32 and f32 values, largest and smallest, k = 1, a few and the row length, one
//! row and several, over keys with ties (all equal, few distinct, many equal to the k-th value),
//! extremes (NaNs, ±0, infinities, i32 negatives), sorted and reversed rows, rows of different
//! contents, against a reference written from the definition (a stable sort of the indices by
//! the total order); outputs poisoned past the rows; what is refused. Both select plans (a
//! workgroup per row, and the wide rounds with a small policy: steps of 64 elements, odd
//! workgroup counts, rows of 1 and a step ± 1, rows past the wide plan's), the same object run
//! twice (the wide plan's scratch is left as it found it), the switch to the sort past
//! `select_max_k`.

use rand::Rng;
use wgsimd::dtype::Dtype;
use wgsimd::plan::POISON_WORD;
use wgsimd::reference::topk::topk_indices;
use wgsimd::topk::{TopK, TopKConfig, TopKPolicy};

use crate::data::{self, Dist};
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new("topk::every_configuration", On::Every, every_configuration),
        Test::new(
            "topk::select_ties_and_rows",
            On::Every,
            select_ties_and_rows,
        ),
        Test::new("topk::wide_select", On::Every, wide_select),
        Test::new("topk::bad_input", On::Once, bad_input),
    ]
}

/// The reference (`wgsimd::reference::topk`) of a row of `dtype` words.
fn reference(dtype: Dtype, row: &[u32], k: usize, smallest: bool) -> Vec<u32> {
    match dtype {
        Dtype::U32 => topk_indices(row, k, smallest),
        Dtype::I32 => topk_indices::<i32>(bytemuck::cast_slice(row), k, smallest),
        _ => topk_indices::<f32>(bytemuck::cast_slice(row), k, smallest),
    }
}

/// `n` words of `dtype` values of `dist`.
fn input(dtype: Dtype, dist: Dist, n: usize, seed: u64) -> Vec<u32> {
    match dtype {
        Dtype::F32 => data::keys::<f32>(dist, n, seed)
            .iter()
            .map(|x| x.to_bits())
            .collect(),
        Dtype::I32 => data::keys::<i32>(dist, n, seed)
            .iter()
            .map(|&x| x as u32)
            .collect(),
        _ => data::keys::<u32>(dist, n, seed),
    }
}

fn check(t: &Target, dtype: Dtype, cols: usize, rows: usize, k: u32, smallest: bool, dist: Dist) {
    let seed = (cols * 7 + rows + k as usize) as u64;
    let words = input(dtype, dist, cols * rows, seed);
    let at = format!("{dtype} {dist:?}");
    check_words(t, dtype, cols, &words, k, smallest, None, &at);
}

/// The top-k of the rows of `cols` in `words` (`dtype` values) on `t`, with `policy` (or the
/// default), against the reference; outputs poisoned, one word past them left so. Returns the
/// object (for a second run).
#[allow(clippy::too_many_arguments)]
fn check_words(
    t: &Target,
    dtype: Dtype,
    cols: usize,
    words: &[u32],
    k: u32,
    smallest: bool,
    policy: Option<TopKPolicy>,
    what: &str,
) -> TopK {
    let mut config = TopKConfig::largest(dtype, k, cols as u32);
    if smallest {
        config = config.smallest();
    }
    let tk = TopK::with_policy(&t.ctx, config, policy.unwrap_or_default()).unwrap();
    run(t, &tk, dtype, cols, words, k, smallest, what);
    tk
}

/// One run of `tk` on `words`, checked.
#[allow(clippy::too_many_arguments)]
fn run(
    t: &Target,
    tk: &TopK,
    dtype: Dtype,
    cols: usize,
    words: &[u32],
    k: u32,
    smallest: bool,
    what: &str,
) {
    let ctx = &t.ctx;
    let rows = words.len() / cols;
    let buf = ctx.upload("input", words).unwrap();
    let out = k as usize * rows;
    let values = ctx.upload("values", &vec![POISON_WORD; out + 1]).unwrap();
    let indices = ctx.upload("indices", &vec![POISON_WORD; out + 1]).unwrap();
    let mut enc = ctx.encoder();
    tk.record(&mut enc, &buf, &values, &indices, rows as u32)
        .unwrap();
    util::submit(t, enc);
    let (got_v, got_i) = (util::words(t, &values), util::words(t, &indices));
    let at = format!("{what}, {rows} rows of {cols}, k {k}, smallest {smallest}");
    for r in 0..rows {
        let row = &words[r * cols..(r + 1) * cols];
        let want = reference(dtype, row, k as usize, smallest);
        let got = &got_i[r * k as usize..(r + 1) * k as usize];
        assert_eq!(got, &want[..], "{at}: row {r}'s indices");
        let want_v: Vec<u32> = want.iter().map(|&i| row[i as usize]).collect();
        assert_eq!(
            &got_v[r * k as usize..(r + 1) * k as usize],
            &want_v[..],
            "{at}: row {r}'s values"
        );
    }
    assert_eq!(
        (got_v[out], got_i[out]),
        (POISON_WORD, POISON_WORD),
        "{at}: written past"
    );
}

/// Rows of `cols` of different contents, one after another: uniform, all equal, 16 distinct,
/// extremes, a few values (many tied at the k-th), sorted, reversed.
fn mixed_rows(dtype: Dtype, cols: usize, rows: usize, seed: u64) -> Vec<u32> {
    let dists = [
        Dist::Uniform,
        Dist::AllEqual,
        Dist::Distinct16,
        Dist::Extremes,
        Dist::HighByte,
        Dist::LowByte,
        Dist::Sorted,
        Dist::Reversed,
    ];
    (0..rows)
        .flat_map(|r| input(dtype, dists[r % dists.len()], cols, seed + r as u64))
        .collect()
}

/// A row where most values tie with the k-th: three values, the middle one at most places, so
/// the k-th largest (and smallest) sits in a long run of equals and the index decides.
fn tied_row(cols: usize, seed: u64) -> Vec<u32> {
    let mut r = data::rng(seed);
    (0..cols)
        .map(|_| match r.random_range(0..10) {
            0 => 0xc000_0000u32, // -2.0 as f32, a negative i32, a large u32
            1 => 0x4000_0000,    // 2.0, a positive i32
            _ => 0x3f80_0000,    // 1.0
        })
        .collect()
}

fn every_configuration(t: &Target) {
    // (dtype, keys, row length, rows, k, smallest): ties, extremes, k = 1 and k = n, one row
    // and several; the GPU adds a long row
    let mut cases = vec![
        (Dtype::F32, Dist::Extremes, 257, 3, 3, false),
        (Dtype::F32, Dist::Extremes, 257, 3, 3, true),
        (Dtype::U32, Dist::AllEqual, 257, 2, 257, false),
        (Dtype::I32, Dist::Distinct16, 4097, 2, 3, true),
        (Dtype::I32, Dist::Extremes, 5, 3, 2, false),
        (Dtype::U32, Dist::Reversed, 5, 3, 1, false),
        (Dtype::F32, Dist::Sorted, 5, 1, 5, true),
        (Dtype::U32, Dist::Uniform, 1, 4, 1, false),
        (Dtype::F32, Dist::Extremes, 4097, 1, 1, false),
    ];
    if !t.is_sim() {
        cases.push((Dtype::F32, Dist::Uniform, 100_003, 1, 50, false));
    }
    for (dtype, dist, cols, rows, k, smallest) in cases {
        check(t, dtype, cols, rows, k, smallest, dist);
    }
    // the host-slice function
    let (v, i) = wgsimd::topk::topk(&t.ctx, &[3i32, -1, 3, 8, 0, 2], 3, 1, true).unwrap();
    assert_eq!((v, i), (vec![-1, 0], vec![1, 1]));
}

fn select_ties_and_rows(t: &Target) {
    // the workgroup-per-row select: ties at the k-th value (the index's digits decide), rows of
    // different contents, rows of one, k = 1 and k = the row, every type, both directions
    for (dtype, smallest) in [
        (Dtype::F32, false),
        (Dtype::F32, true),
        (Dtype::I32, false),
        (Dtype::U32, true),
    ] {
        let tied = [tied_row(300, 1), tied_row(300, 2)].concat();
        for k in [7, 300] {
            check_words(t, dtype, 300, &tied, k, smallest, None, "tied");
        }
        let rows = mixed_rows(dtype, 97, 8, 3);
        for k in [1, 10] {
            check_words(t, dtype, 97, &rows, k, smallest, None, "mixed rows");
        }
        let ones = input(dtype, Dist::Extremes, 5, 4);
        check_words(t, dtype, 1, &ones, 1, smallest, None, "rows of one");
    }
    // the switch to the sort: k = select_max_k selects, one more sorts, both right
    let words = tied_row(1100, 5);
    let tk = check_words(
        t,
        Dtype::F32,
        1100,
        &words,
        1024,
        false,
        None,
        "k at the switch",
    );
    assert!(tk.selects());
    let policy = TopKPolicy {
        select_max_k: 40,
        ..Default::default()
    };
    let sorts = check_words(
        t,
        Dtype::F32,
        1100,
        &words,
        41,
        false,
        Some(policy),
        "past it",
    );
    assert!(!sorts.selects());
    check_words(
        t,
        Dtype::F32,
        1100,
        &words,
        40,
        false,
        Some(policy),
        "at it",
    );
}

fn wide_select(t: &Target) {
    // the wide plan on short rows: steps of 64 elements, 5 workgroups over the rows (odd
    // counts a row: 5, 3, 2 ...), at most 3 rows (more take the workgroup per row)
    let policy = TopKPolicy {
        wide_cols: 1,
        wide_max_rows: 3,
        chunk: 64,
        wide_workgroups: 5,
        ..Default::default()
    };
    for (dtype, smallest) in [(Dtype::F32, false), (Dtype::I32, true), (Dtype::U32, false)] {
        for (cols, k) in [(1, 1), (63, 63), (64, 1), (65, 22), (333, 50)] {
            let mut config = TopKConfig::largest(dtype, k, cols as u32);
            config.smallest = smallest;
            let tk = TopK::with_policy(&t.ctx, config, policy).unwrap();
            for rows in [1, 2, 3, 4] {
                let words = mixed_rows(dtype, cols, rows, (cols + rows) as u64);
                run(t, &tk, dtype, cols, &words, k, smallest, "wide");
            }
        }
        // every round keeps everything (all equal), and long ties at the k-th
        for (what, words) in [
            ("all equal", input(dtype, Dist::AllEqual, 2 * 333, 9)),
            ("tied", [tied_row(333, 10), tied_row(333, 11)].concat()),
            ("extremes", input(dtype, Dist::Extremes, 2 * 333, 12)),
        ] {
            for k in [20, 333] {
                let tk = check_words(t, dtype, 333, &words, k, smallest, Some(policy), what);
                // again, on what the first run left of its scratch
                let other = input(dtype, Dist::Distinct16, 2 * 333, 13);
                run(t, &tk, dtype, 333, &other, k, smallest, "the second run");
            }
        }
    }
    // a caller's step past the row (u32::MAX would wrap the stages' step count): the row's
    let huge = TopKPolicy {
        chunk: u32::MAX,
        ..policy
    };
    let words = mixed_rows(Dtype::U32, 65, 2, 17);
    check_words(
        t,
        Dtype::U32,
        65,
        &words,
        22,
        false,
        Some(huge),
        "a step past the row",
    );
    // a long row and several on a GPU, the default policy (the wide plan)
    if !t.is_sim() {
        let words = input(Dtype::F32, Dist::Uniform, 3 * 100_003, 14);
        check_words(t, Dtype::F32, 100_003, &words, 50, false, None, "long rows");
        let words = [tied_row(70_001, 15), tied_row(70_001, 16)].concat();
        check_words(
            t,
            Dtype::F32,
            70_001,
            &words,
            16,
            true,
            None,
            "long tied rows",
        );
    }
}

fn bad_input(t: &Target) {
    let ctx = &t.ctx;
    for (what, c) in [
        ("k = 0", TopKConfig::largest(Dtype::U32, 0, 10)),
        ("k > n", TopKConfig::largest(Dtype::U32, 11, 10)),
        ("u8 values", TopKConfig::largest(Dtype::U8, 1, 10)),
    ] {
        util::refused(what, TopK::new(ctx, c).map(|_| ()));
    }
    let tk = TopK::new(ctx, TopKConfig::largest(Dtype::U32, 2, 8)).unwrap();
    let input = ctx.upload("input", &[1u32; 16]).unwrap();
    let out = ctx.zeroed("out", 64).unwrap();
    let short = ctx.zeroed("short", 8).unwrap();
    let mut enc = ctx.encoder();
    util::refused(
        "3 rows of an input of 2",
        tk.record(&mut enc, &input, out.slice(0, 32), out.slice(32, 32), 3),
    );
    util::refused(
        "outputs too short for 2 rows",
        tk.record(&mut enc, &input, &short, out.slice(32, 32), 2),
    );
    util::refused(
        "values over the input",
        tk.record(&mut enc, &input, input.slice(32, 16), out.slice(32, 32), 2),
    );
    util::refused(
        "values over the indices",
        tk.record(&mut enc, &input, out.slice(0, 32), out.slice(16, 32), 2),
    );
    util::refused(
        "rows that do not divide",
        wgsimd::topk::topk(ctx, &[1u32, 2, 3], 2, 1, false),
    );
}
