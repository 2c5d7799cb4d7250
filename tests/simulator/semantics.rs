//! Interpreter semantics, word for word: `tests/sim_corpus/semantics/kitchen_sink.wgsl` (control
//! flow, structs, vectors, a matrix product, bit builtins, subgroup ballots and exclusive
//! products, atomics, i32 division and shifts) at subgroup sizes 4 to 64 against the same
//! computation written in Rust.

use wgsimd::sim::check::{check, CheckRequest};
use wgsimd::sim::SimConfig;

fn classify(x: u32) -> u32 {
    match x % 5 {
        0 | 1 => 10,
        2 if x > 10 => 20,
        2 => 40,
        _ => 30,
    }
}

/// The eight words invocation `lid` writes at subgroup size `s`.
fn expected(lid: u32, s: u32) -> [u32; 8] {
    let mut acc = 0;
    let mut i = 0;
    loop {
        i += 1;
        if i % 3 != 0 {
            acc += i;
        }
        if i > lid % 7 {
            break;
        }
    }
    let lane = lid % s;
    let v_y = 2.0 * lid as f32 + 4.0;
    let p = lid + lid * 2 + lid * 3 + 1 + v_y as u32;
    let bits = 7 + lid + lid.count_ones() + ((lid >> 1) & 7) + (lid + 64).trailing_zeros();
    let ex: u32 = (0..lane).map(|l| if l < 3 { 2 } else { 1 }).product();
    let ballot = s.div_ceil(2);
    let first = lid - lane;
    let si = lid as i32 - 32;
    let arith = si / 5 + si % 5 + (si >> 2) + si.abs();
    [
        acc,
        classify(lid),
        p,
        bits,
        ballot + ex * 100,
        first,
        7,
        arith as u32,
    ]
}

#[test]
fn kitchen_sink_matches_cpu() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/sim_corpus/semantics/kitchen_sink.wgsl"
    );
    let source = std::fs::read_to_string(path).unwrap();
    for s in [4u32, 8, 16, 32, 64] {
        let req = CheckRequest {
            name: "kitchen_sink.wgsl".into(),
            source: source.clone(),
            entry: "main".into(),
            workgroups: [1, 1, 1],
            binds: vec![
                "0=u32:uninit:512".parse().unwrap(),
                "1=u32:zeros:1".parse().unwrap(),
            ],
            overrides: vec![],
            config: SimConfig {
                subgroup_size: s,
                ..Default::default()
            },
        };
        let r = check(&req).unwrap();
        assert!(r.findings.is_empty(), "sg{s}: {:?}", r.findings);
        let out = &r.buffers[&0].1;
        for lid in 0..64u32 {
            let got = &out[lid as usize * 8..lid as usize * 8 + 8];
            assert_eq!(got, expected(lid, s), "sg{s} lid {lid}");
        }
        assert_eq!(r.buffers[&1].1, vec![64]);
    }
}
