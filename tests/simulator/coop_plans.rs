//! Where the cooperative-matrix kernels are planned and where the portable kernel runs
//! instead: the shapes a simulated profile offers; subgroups too small for a tile; and Metal,
//! whose reported range of subgroup sizes the kernels are planned for as 32 and guarded against
//! at run time (another width computes nothing and says so; C stays unwritten).

use wgsimd::device::{Backend, CoopShape};
use wgsimd::finding::FindingKind;
use wgsimd::gemm::{self, coop, Format, GemmOptions, Path, PathChoice};
use wgsimd::reference::gemm::rel_frobenius;
use wgsimd::sim::SimConfig;
use wgsimd::{Caps, Context};

use super::coop::{operands, product, reference, run_built, sim, COOP, TOL};

/// A simulator offers the cooperative shapes of its profile that it runs, and only with
/// subgroups.
#[test]
fn cooperative_matrices_come_from_the_profile() {
    let offered = |profile: Caps| SimConfig::for_profile(profile).caps().unwrap();
    let f16 = CoopShape::f16_f32;
    assert_eq!(offered(Caps::h100()).cooperative_matrix, [f16(16)]);
    assert_eq!(offered(Caps::apple_m()).cooperative_matrix, [f16(8)]);
    assert!(offered(Caps::lavapipe()).cooperative_matrix.is_empty());
    let mut other = Caps::h100();
    other.cooperative_matrix = vec![f16(32), f16(16)];
    assert_eq!(offered(other).cooperative_matrix, [f16(16)]);
    assert!(gemm::coop_offered(&offered(Caps::h100())));
    assert!(gemm::coop_offered(&offered(Caps::apple_m())));
    assert!(!gemm::coop_offered(&offered(Caps::lavapipe())));
    assert!(!gemm::coop_offered(&offered(
        Caps::h100().without_subgroups()
    )));
}

/// coop16's tile needs more invocations than 8 subgroups of 4 or 8 lanes give, coop8's more
/// than subgroups of 4: the automatic choice takes the portable kernel, which computes C.
#[test]
fn too_small_a_subgroup_falls_back_to_the_portable_kernel() {
    for (sg, sizes) in [(4, &[16, 8][..]), (8, &[16]), (4, &[8])] {
        let ctx = sim(sg, sizes, None);
        assert!(coop::usable(ctx.caps()).is_err(), "sg {sg} {sizes:?}");
        product(&ctx, Path::Tiled, GemmOptions::default(), (65, 40, 48));
    }
}

/// A forced tile that does not fit the subgroup size (the deep tile stages 8 loads per
/// invocation per operand at subgroups of 16): `Auto` plans the portable kernel, `Coop`
/// refuses.
#[test]
fn a_tile_that_does_not_fit_the_subgroup_size_falls_back() {
    let v = coop::deep_tile();
    let caps = sim(16, &[16], None).caps().clone();
    assert!(coop::usable_variant(&caps, &v, 70, 20).is_err());
    assert!(
        coop::usable_variant(&caps.clone().with_subgroup_size(32).unwrap(), &v, 70, 20).is_ok()
    );
    let auto = GemmOptions {
        coop: Some(v),
        ..GemmOptions::default()
    };
    let built = gemm::plan(&caps, Format::F16, 70, 20, 16, auto).unwrap();
    assert_eq!(built.path, Path::Tiled);
    let forced = GemmOptions {
        path: PathChoice::Coop,
        ..auto
    };
    assert!(gemm::plan(&caps, Format::F16, 70, 20, 16, forced).is_err());
}

/// Metal: wgpu reports subgroups of 4..64 and 8×8 cooperative matrices. The cooperative kernel
/// is planned for 32 (Apple GPUs) and checks the width it meets: at 32 it computes C; at 16
/// every workgroup stops, the guard holds the width, and C is never written (the only
/// finding). A reported range elsewhere (Vulkan) plans no cooperative kernel.
#[test]
fn metal_plans_for_32_and_guards_the_width() {
    let mut caps = Caps::apple_m();
    assert_eq!(caps.backend, Backend::Metal);
    caps.subgroup_min = 4;
    caps.subgroup_max = 64;
    assert_eq!(coop::planned_subgroup(&caps), Some(32));
    let mnk = (65, 40, 48);
    let (m, n, k) = mnk;
    let (a, b) = operands(m, n, k, 21);
    let built = gemm::plan(&caps, Format::F16, m, n, k, GemmOptions::default()).unwrap();
    assert_eq!(built.path, Path::Coop8);
    let on = |sg: u32| {
        let config = SimConfig {
            subgroup_size: sg,
            ..SimConfig::for_profile(Caps::apple_m())
        };
        Context::simulator(config).unwrap()
    };

    let (c, findings, guard) = run_built(&on(32), &built, &a, &b);
    assert!(findings.is_empty(), "{findings:#?}");
    assert_eq!(guard, 0);
    assert!(rel_frobenius(&c, &reference(&a, &b, mnk)) <= TOL);

    let (_, findings, guard) = run_built(&on(16), &built, &a, &b);
    assert_eq!(guard, 16);
    assert!(
        !findings.is_empty()
            && findings
                .iter()
                .all(|f| f.kind == FindingKind::UnwrittenOutput),
        "{findings:#?}"
    );

    let mut vulkan = caps;
    vulkan.backend = Backend::Vulkan;
    vulkan.subgroup_min = 32;
    assert_eq!(coop::planned_subgroup(&vulkan), None);
    let built = gemm::plan(&vulkan, Format::F16, m, n, k, GemmOptions::default()).unwrap();
    assert_eq!(built.path, Path::Tiled);
    let forced = gemm::plan(&vulkan, Format::F16, m, n, k, COOP);
    assert!(forced.is_err());
}
