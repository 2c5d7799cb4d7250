//! Top-k: u32, i32 and f32 values, largest and smallest, k = 1, a few and the row length, one
//! row and several, over keys with ties (all equal, few distinct), extremes (NaNs, ±0, infinities),
//! sorted and reversed rows, against a reference written from the definition (a stable sort of
//! the indices by the total order); outputs poisoned past the rows; what is refused.

use wgsimd::dtype::Dtype;
use wgsimd::plan::POISON_WORD;
use wgsimd::reference::sort::Order;
use wgsimd::topk::{TopK, TopKConfig};

use crate::data::{self, Dist};
use crate::harness::{On, Test};
use crate::targets::Target;
use crate::util;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new("topk::every_configuration", On::Every, every_configuration),
        Test::new("topk::bad_input", On::Once, bad_input),
    ]
}

/// The reference: each row's indices stably sorted by the total order of `dtype`, the first k.
fn reference(dtype: Dtype, row: &[u32], k: usize, smallest: bool) -> Vec<u32> {
    let order = Order::default();
    let rank = |w: u32| -> u32 {
        match dtype {
            Dtype::U32 => order.rank(w),
            Dtype::I32 => order.rank(w as i32),
            _ => order.rank(f32::from_bits(w)),
        }
    };
    let mut idx: Vec<u32> = (0..row.len() as u32).collect();
    if smallest {
        idx.sort_by_key(|&i| rank(row[i as usize]));
    } else {
        idx.sort_by_key(|&i| std::cmp::Reverse(rank(row[i as usize])));
    }
    idx.truncate(k);
    idx
}

fn check(t: &Target, dtype: Dtype, cols: usize, rows: usize, k: u32, smallest: bool, dist: Dist) {
    let ctx = &t.ctx;
    let seed = (cols * 7 + rows + k as usize) as u64;
    let input: Vec<u32> = match dtype {
        Dtype::F32 => data::keys::<f32>(dist, cols * rows, seed)
            .iter()
            .map(|x| x.to_bits())
            .collect(),
        Dtype::I32 => data::keys::<i32>(dist, cols * rows, seed)
            .iter()
            .map(|&x| x as u32)
            .collect(),
        _ => data::keys::<u32>(dist, cols * rows, seed),
    };
    let mut config = TopKConfig::largest(dtype, k, cols as u32);
    if smallest {
        config = config.smallest();
    }
    let tk = TopK::new(ctx, config).unwrap();
    let buf = ctx.upload("input", &input).unwrap();
    let out = k as usize * rows;
    let values = ctx.upload("values", &vec![POISON_WORD; out + 1]).unwrap();
    let indices = ctx.upload("indices", &vec![POISON_WORD; out + 1]).unwrap();
    let mut enc = ctx.encoder();
    tk.record(&mut enc, &buf, &values, &indices, rows as u32)
        .unwrap();
    util::submit(t, enc);
    let (got_v, got_i) = (util::words(t, &values), util::words(t, &indices));
    let at = format!("{dtype} {dist:?}, {rows} rows of {cols}, k {k}, smallest {smallest}");
    for r in 0..rows {
        let row = &input[r * cols..(r + 1) * cols];
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

fn every_configuration(t: &Target) {
    // (dtype, keys, row length, rows, k, smallest): ties, extremes, k = 1 and k = n, one row
    // and several, rows around a tile; the GPU with subgroups adds a long row (without, the
    // sort's workgroup-memory ranking it runs is the sort suite's, at 2^22 keys)
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
    if !t.is_sim() && t.caps().subgroups {
        cases.push((Dtype::F32, Dist::Uniform, 100_003, 1, 50, false));
    }
    for (dtype, dist, cols, rows, k, smallest) in cases {
        check(t, dtype, cols, rows, k, smallest, dist);
    }
    // the host-slice function
    let (v, i) = wgsimd::topk::topk(&t.ctx, &[3i32, -1, 3, 8, 0, 2], 3, 1, true).unwrap();
    assert_eq!((v, i), (vec![-1, 0], vec![1, 1]));
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
