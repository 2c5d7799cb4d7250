use super::*;

#[test]
fn gemm_kernels_are_built_without_runtime_checks() {
    let coop = CoopKernel::ALL.map(|k| k.stage());
    let portable = [
        crate::stages::gemm::coop16_int4::STAGE,
        crate::stages::gemm::coop8_int4::STAGE,
        crate::stages::gemm::tiled::STAGE,
        crate::stages::gemm::gemv::STAGE,
    ];
    for name in coop.into_iter().chain(portable) {
        let k = name.load(crate::kernel::Flavor::Subgroup).unwrap();
        assert!(crate::gpu::asks_unchecked(&k), "{name}");
    }
}

/// The tiles the policy takes hold the kernels' rules and fit 48 KiB; bad buffer counts
/// and tiles off the kernel's block are refused.
#[test]
fn shipped_tiles_hold_the_kernel_rules() {
    let k16 = coop16::STAGE.load(crate::kernel::Flavor::Subgroup).unwrap();
    for v in [
        CoopKernel::K16.variant(),
        CoopKernel::K8.variant(),
        large_tile(),
        large_tile_edges(),
        deep_tile(),
        rows_tile(16),
        rows_tile(32),
        rows_tile(64),
        rows_tile_int4(),
    ] {
        for k in stages_of(&v) {
            layout_fits(&k, &v.policy, 32).unwrap_or_else(|e| panic!("{v:?}: {e}"));
            assert!(
                workgroup_bytes(&k, &v.policy, false).unwrap() <= 48 << 10,
                "{v:?}"
            );
        }
    }
    let ok = large_tile().policy;
    assert_eq!((ok.bufs, ok.b_bufs), (1, 2));
    for (bufs, b_bufs) in [(2, 1), (1, 3), (2, 3), (0, 1)] {
        let bad = CoopPolicy { bufs, b_bufs, ..ok };
        assert!(check(&k16, &bad, [16 * 32, 1, 1]).is_err(), "{bad:?}");
    }
    let off_block = CoopPolicy { bn: 96 + 8, ..ok };
    assert!(check(&k16, &off_block, [16 * 32, 1, 1]).is_err());
    // the deep tile stages 8 loads per invocation at 32 lanes: at 16 it does not fit
    assert!(layout_fits(&k16, &deep_tile().policy, 16).is_err());
}

/// The stages `v` runs: its kernel's with f16 B, and with int4 weights where its K step divides
/// the group (sub-steps of B take int4 weights alone).
fn stages_of(v: &CoopVariant) -> Vec<std::sync::Arc<Kernel>> {
    [CoopB::F16, CoopB::Int4 { zeros: true }]
        .into_iter()
        .filter_map(|b| b.stage(v).ok())
        .map(|s| s.load(crate::kernel::Flavor::Subgroup).unwrap())
        .collect()
}

/// The driver lays out workgroup variables in an order of its own, and cooperative loads
/// from them need 16-byte alignment: every variable a multiple of 16 bytes keeps every
/// order aligned (a 4-byte `Cs` broke every `EDGES` = 0 product on the H100).
#[test]
fn workgroup_variables_keep_16_byte_alignment_with_and_without_edges() {
    for v in [
        CoopKernel::K16.variant(),
        CoopKernel::K8.variant(),
        large_tile(),
        deep_tile(),
        rows_tile(16),
        rows_tile(32),
        rows_tile(64),
        rows_tile_int4(),
    ] {
        for (k, edges) in stages_of(&v)
            .into_iter()
            .flat_map(|k| [(k.clone(), true), (k, false)])
        {
            let o: Vec<(String, f64)> = overrides(&k, &v.policy, 32, edges)
                .unwrap()
                .iter()
                .map(|(n, x)| (n.to_string(), *x))
                .collect();
            let s = k.specialize(entry::main.name(), &o).unwrap();
            let mut total = 0;
            for (_, g) in s.module.global_variables.iter() {
                if g.space == naga::AddressSpace::WorkGroup {
                    let bytes = s.module.types[g.ty].inner.size(s.module.to_ctx());
                    assert_eq!(bytes % 16, 0, "{v:?} edges {edges}: {:?}", g.name);
                    total += bytes as u64;
                }
            }
            assert_eq!(
                total,
                workgroup_bytes(&k, &v.policy, edges).unwrap(),
                "{v:?}"
            );
        }
    }
}

/// Sub-steps of B (int4's 16-row tile): the tile the policy takes holds their rules; f16 B,
/// two buffers, two tiles in flight, a K step other than 32 a sub-step, more sub-steps than
/// prefetch registers, an invocation count other than BN and more than two fragment rows a
/// subgroup are refused.
#[test]
fn sub_steps_of_b_hold_their_rules() {
    let k16 = coop16::STAGE.load(crate::kernel::Flavor::Subgroup).unwrap();
    let v = rows_tile_int4();
    let ok = v.policy;
    assert_eq!((ok.b_sub, ok.bk, ok.bufs, ok.prefetch), (2, 64, 1, 1));
    check(&k16, &ok, [128, 1, 1]).unwrap();
    assert!(CoopB::Int4 { zeros: true }.stage(&v).is_ok());
    let f16 = CoopB::F16.stage(&v).err().map(|e| e.to_string());
    assert!(
        f16.as_deref().is_some_and(|e| e.contains("int4 weights")),
        "{f16:?}"
    );
    for bad in [
        CoopPolicy { bk: 32, ..ok },
        CoopPolicy {
            bufs: 2,
            b_bufs: 2,
            ..ok
        },
        CoopPolicy { prefetch: 2, ..ok },
        CoopPolicy {
            b_sub: 5,
            bk: 160,
            ..ok
        },
        CoopPolicy { bm: 64, ..ok },
    ] {
        assert!(check(&k16, &bad, [128, 1, 1]).is_err(), "{bad:?}");
    }
    // subgroups of 16: 64 invocations for 128 columns
    assert!(check(&k16, &ok, [64, 1, 1]).is_err());
}

/// int4 weights in C of at most 16 rows take the sub-step tile where subgroups are 32 wide (an
/// invocation a column pair), f16 B the 16-row tile, and more rows the tiles of f16.
#[test]
fn int4_few_rows_take_the_sub_step_tile() {
    let mut caps = Caps::h100();
    let int4 = CoopB::Int4 { zeros: false };
    for (m, n, b, want) in [
        (1, 4096, int4, rows_tile_int4()),
        (16, 4096, int4, rows_tile_int4()),
        (16, 4096, CoopB::F16, rows_tile(16)),
        (17, 4096, int4, rows_tile(32)),
        (48, 14336, int4, rows_tile(64)),
        (64, 28672, int4, rows_tile(64)),
        (64, 4096 + 128, int4, deep_tile()),
    ] {
        assert_eq!(
            variant_for_b(&caps, CoopKernel::K16, b, m, n),
            want,
            "{m}×{n} {b:?}"
        );
    }
    assert_eq!(tiles::rows_resident(&rows_tile_int4().policy), Some(528));
    // other widths take f16's tiles: rows_tile(16) at 64, the default at 16 (where the
    // few-rows tile stages more loads an invocation than it has registers for)
    for (width, want) in [(64, rows_tile(16)), (16, CoopKernel::K16.variant())] {
        (caps.subgroup_min, caps.subgroup_max) = (width, width);
        assert_eq!(
            variant_for_b(&caps, CoopKernel::K16, int4, 16, 4096),
            want,
            "subgroups of {width}"
        );
    }
}

#[test]
fn the_offered_shape_picks_the_kernel() {
    let mut caps = Caps {
        cooperative_matrix: vec![],
        ..Caps::h100()
    };
    assert!(usable(&caps).is_err());
    caps.cooperative_matrix = vec![CoopKernel::K8.shape()];
    assert_eq!(usable(&caps).unwrap(), CoopKernel::K8);
    caps.cooperative_matrix.push(CoopKernel::K16.shape());
    assert_eq!(usable(&caps).unwrap(), CoopKernel::K16);
    caps.subgroup_min = 8;
    assert!(usable(&caps).is_err(), "varying subgroup sizes");
    caps.subgroup_min = 32;
    // the edge path is needed where a tile crosses C's right edge or rows are not
    // 16-byte aligned (never for the bottom edge: C's rows are padded)
    let lp = large_tile().policy;
    assert!(!has_edges(&lp, 4096));
    assert!(has_edges(&lp, 4096 + 128), "N not a multiple of 256");
    assert!(has_edges(&lp, 4096 + 258), "N not a multiple of 4");
    assert_eq!(padded_rows(&lp, 4096 + 1), 4096 + 128);
    assert_eq!(padded_rows(&lp, 4096), 4096);
    // large products take the large tile, small ones the deep tile
    assert_eq!(
        variant_for(&caps, CoopKernel::K16, 4096, 4096),
        large_tile()
    );
    assert_eq!(
        variant_for(&caps, CoopKernel::K16, 2048, 2048),
        large_tile(),
        "16 × 8 = 128 workgroups"
    );
    // with tiles across the right edge the second B buffer does not fit beside the
    // squares; across the bottom edge it does (C's rows are padded)
    assert_eq!(
        variant_for(&caps, CoopKernel::K16, 4096, 4096 + 128),
        large_tile_edges()
    );
    assert_eq!(
        variant_for(&caps, CoopKernel::K16, 4096 + 64, 4096),
        large_tile()
    );
    assert!(large_tile().workgroup_bytes(true).unwrap() > 48 << 10);
    assert!(large_tile().workgroup_bytes(false).unwrap() <= 48 << 10);
    assert_eq!(
        variant_for(&caps, CoopKernel::K16, 2048, 1024),
        deep_tile(),
        "16 × 4 = 64 workgroups"
    );
    // few rows take the smallest few-rows tile that holds them, at any width (the 64-row tile
    // with K unsplit too, from 67 of its column tiles); the 64-row tile does not fit beside the
    // edge path's squares
    for (m, n, want) in [
        (1, 4096, rows_tile(16)),
        (16, 4096, rows_tile(16)),
        (17, 4096, rows_tile(32)),
        (32, 14336, rows_tile(32)),
        (33, 4096, rows_tile(64)),
        (64, 4096, rows_tile(64)),
        (64, 86 * 128, rows_tile(64)),
        (48, 14336, rows_tile(64)),
        (64, 14336, rows_tile(64)),
        (64, 17408, rows_tile(64)),
        (64, 28672, rows_tile(64)),
        (64, 4096 + 128, deep_tile()),
        (65, 4096, deep_tile()),
    ] {
        assert_eq!(variant_for(&caps, CoopKernel::K16, m, n), want, "{m}×{n}");
    }
    assert!(rows_tile(64).workgroup_bytes(true).unwrap() > 48 << 10);
    assert!(rows_tile(32).workgroup_bytes(true).unwrap() <= 48 << 10);
    // at subgroups of 16 the deep tile does not fit: the default
    caps.subgroup_min = 16;
    caps.subgroup_max = 16;
    assert_eq!(
        variant_for(&caps, CoopKernel::K16, 1024, 1024),
        CoopKernel::K16.variant()
    );
    caps.subgroup_min = 32;
    caps.subgroup_max = 32;
    assert_eq!(
        variant_for(&caps, CoopKernel::K8, 8192, 8192),
        CoopKernel::K8.variant()
    );
    caps.max_workgroup_storage = 32 << 10;
    assert_eq!(
        usable(&caps).unwrap(),
        CoopKernel::K8,
        "coop16's tile needs 45 KiB"
    );
}

/// coop8 (and coop8_int4) runs on Metal, where naga 30's MSL writer types a cooperative load's
/// pointer as a scalar `half*` and Metal counts the stride in halves: its staged tiles are
/// arrays of f16 (gemm/lib/coop_stage_h.wgsl), while coop16's, for Vulkan, are `vec4<f16>`
/// arrays.
#[test]
fn coop8_stages_in_scalars_for_metal() {
    let element = |stage: crate::stages::Stage, name: &str| {
        let k = stage.load(crate::kernel::Flavor::Subgroup).unwrap();
        let m = &k.module;
        let (_, g) = m
            .global_variables
            .iter()
            .find(|(_, g)| g.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("{stage}: no {name}"));
        match m.types[g.ty].inner {
            naga::TypeInner::Array { base, .. } => m.types[base].inner.clone(),
            ref other => panic!("{stage} {name}: {other:?}"),
        }
    };
    for name in ["As", "Bs"] {
        for stage in [coop8::STAGE, coop8_int4::STAGE] {
            assert!(
                matches!(element(stage, name), naga::TypeInner::Scalar(_)),
                "{stage} {name}"
            );
        }
        for stage in [coop16::STAGE, coop16_int4::STAGE] {
            assert!(
                matches!(element(stage, name), naga::TypeInner::Vector { .. }),
                "{stage} {name}"
            );
        }
    }
}

/// The few-rows tiles split K into as many workgroups as are resident at once on the H200 (two
/// of the 16- and 32-row tiles an SM, with one staging buffer; one of the 64-row tile), never
/// more: a second, partial wave costs a whole slice's steps. A split asked for is taken at most
/// one slice a K step, evened out; where C cannot be split, more than one is refused.
#[test]
fn rows_tiles_split_k_into_the_resident_workgroups() {
    use crate::gemm::{plan, plan_int4, Format, GemmOptions, PathChoice};
    use crate::plan::Workgroups;
    let caps = Caps::h100();
    assert_eq!(
        (rows_tile(16).policy.bufs, rows_tile(16).policy.b_bufs),
        (1, 1)
    );
    assert_eq!(
        (rows_tile(32).policy.bufs, rows_tile(32).policy.b_bufs),
        (1, 1)
    );
    assert_eq!(
        (rows_tile(64).policy.bufs, rows_tile(64).policy.b_bufs),
        (2, 2)
    );
    let slices = |built: crate::Result<crate::gemm::GemmPlan>| {
        let built = built.unwrap();
        let pass = &built.plan.passes[0];
        assert!(
            pass.kernel.name.starts_with("gemm/coop16"),
            "{}",
            pass.label
        );
        match pass.workgroups {
            Workgroups::Direct([_, _, z]) => z,
            ref other => panic!("{other:?}"),
        }
    };
    let coop = |split| GemmOptions {
        path: PathChoice::Coop,
        split,
        ..GemmOptions::default()
    };
    // (M, N, K, slices): 56 column tiles of 128 K steps: 4 (264 / 56, rounded down); 16 of 448:
    // 16; the 64-row tile, one resident an SM: 132 / 16 = 8
    for (m, n, k, want) in [
        (16, 14336, 4096, 4),
        (8, 14336, 4096, 4),
        (16, 4096, 14336, 16),
        (16, 4096, 4096, 16),
        (32, 14336, 4096, 4),
        (32, 4096, 14336, 16),
        (64, 4096, 4096, 8),
        (64, 4096, 14336, 8),
    ] {
        assert_eq!(
            slices(plan(&caps, Format::F16, m, n, k, coop(None))),
            want,
            "{m}×{n}×{k}"
        );
    }
    // int4's 16-row tile aims for 528: 112 column tiles of 14336, 4; 32 of 4096, 16
    for (m, k, n, want) in [
        (16, 4096, 14336, 4),
        (8, 14336, 4096, 16),
        (16, 4096, 4096, 16),
    ] {
        assert_eq!(
            slices(plan_int4(&caps, m, k, n, false, coop(None))),
            want,
            "int4 {m}×{n}×{k}"
        );
    }
    // from 2 slices: 74 column tiles (N = 18944) take 3 (264 / 74), 132 take 2; the 64-row
    // tile's 43 (N = 11008) 3 (132 / 43), 67 none
    for (m, n, want) in [
        (16, 18944, 3),
        (16, 132 * 256, 2),
        (64, 11008, 3),
        (64, 67 * 256, 1),
    ] {
        assert_eq!(
            slices(plan(&caps, Format::F16, m, n, 4096, coop(None))),
            want,
            "{m}×{n}"
        );
    }
    // forced: at most one slice a K step (128 of 32), evened out
    assert_eq!(
        slices(plan(&caps, Format::F16, 16, 4096, 4096, coop(Some(5)))),
        5
    );
    assert_eq!(
        slices(plan(&caps, Format::F16, 16, 4096, 4096, coop(Some(1000)))),
        128
    );
    assert_eq!(
        slices(plan(&caps, Format::F16, 16, 4096, 4096, coop(Some(1)))),
        1
    );
    // evened: 100 slices of 128 steps are 64 of 2
    assert_eq!(
        slices(plan(&caps, Format::F16, 16, 4096, 4096, coop(Some(100)))),
        64
    );
    // C of two rows of tiles, or f16 C with N odd: not split, and a split asked for is refused
    let f16_odd = GemmOptions {
        out: crate::gemm::OutFormat::F16,
        ..coop(Some(4))
    };
    for (m, n, opts) in [(200, 4096, coop(Some(4))), (16, 4095, f16_odd)] {
        let r = plan(&caps, Format::F16, m, n, 4096, opts);
        assert!(matches!(r, Err(crate::Error::InvalidInput(_))), "{m}×{n}");
        let unsplit = GemmOptions {
            split: Some(1),
            ..opts
        };
        assert_eq!(
            slices(plan(&caps, Format::F16, m, n, 4096, unsplit)),
            1,
            "{m}×{n}"
        );
    }
}
