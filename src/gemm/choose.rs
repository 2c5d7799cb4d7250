//! Which kernel runs, and the plan builders: [`GemmOptions`] and [`PathChoice`] say what the
//! caller asks for; [`plan`] and [`plan_int4`] (and their `_shape` forms for a caller's layout)
//! choose the path (few-rows, cooperative matrices, else register-tiled), build its passes,
//! and add the rounding of C to f16 where no pass of the product rounds it.
//!
//! Rules: `PathChoice::Auto` takes cooperative matrices first, where the adapter offers them
//! and the product fits them ([`coop::usable`], [`coop::fits_layout`]): for f16 from
//! [`COOP_MIN_M`](super::COOP_MIN_M) rows ([`coop_min_m`]: from 8 for weights of 2^24 elements
//! or more, which the few-rows kernel streams once a block of 8 rows, from 2 for 3 · 2^24 or
//! more), for int4 weights (coop16, dequantized to f16 as they are staged) from
//! [`COOP_MIN_M_INT4`]; else the few-rows kernel up to [`GEMV_MAX_M`] rows (int4 weights:
//! [`GEMV_MAX_M_INT4`]); else the register-tiled kernel. A forced split, tile policy or
//! cooperative variant keeps the kernels that cannot take it out.

use super::coop::{self, CoopB};
use super::format::{Format, OutFormat};
use super::gemm_plan::{shape_label, GemmPlan};
use super::gemv::gemv_pass;
use super::layout::{int4_args, resolve, GemmShape, Resolved};
use super::limits::check_dims;
use super::policy::{
    coop_min_m, GemmPolicy, COOP_MIN_M_INT4, COOP_MIN_M_INT4_OTHER_TILES, GEMV_MAX_M,
    GEMV_MAX_M_INT4,
};
use super::tiled::tiled_pass;
use crate::device::Caps;
use crate::error::{Error, Result};
use crate::plan::{BufferInit, Plan};

/// How to choose the kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PathChoice {
    /// Cooperative matrices when offered (f16 inputs from [`coop_min_m`] rows:
    /// [`COOP_MIN_M`](super::COOP_MIN_M), or 8 or 2 for large weights; int4 weights from
    /// [`COOP_MIN_M_INT4`] on coop16's int4 tile, [`COOP_MIN_M_INT4_OTHER_TILES`] on the others),
    /// else the few-rows kernel for M ≤ [`GEMV_MAX_M`] (int4 weights:
    /// [`GEMV_MAX_M_INT4`]), else the register-tiled kernel.
    #[default]
    Auto,
    /// The register-tiled portable kernel.
    Tiled,
    /// Cooperative matrices, or an error when the adapter does not offer them or the product
    /// does not fit them.
    Coop,
    /// The few-rows kernel (`gemm/gemv`) at any M, in blocks of its `MAX_ROWS` (8) rows (its
    /// workgroups, row blocks × column blocks, fold into rows of the dispatch where they are
    /// more than one dimension allows).
    Gemv,
}

/// Options of a GEMM plan.
#[derive(Clone, Copy, Debug, Default)]
pub struct GemmOptions {
    /// Kernel choice.
    pub path: PathChoice,
    /// Portable-kernel policy; `None` picks [`GemmPolicy::for_m`]. `Some` keeps
    /// `PathChoice::Auto` on the register-tiled kernel (no few-rows or cooperative kernel).
    pub policy: Option<GemmPolicy>,
    /// Split K over this many workgroups per tile (the few-rows kernel: per column block; a
    /// forced cooperative kernel: its K slices, evened out so that there may be fewer, where C is
    /// one row of its tiles in the GEMM's own layout, one matrix, in f32 or f16 with N even;
    /// elsewhere more than one is `Error::InvalidInput`); `None` picks
    /// [`split_k`](super::split::split_k) (the few-rows and cooperative kernels: their own
    /// rules). Values are clamped to the number of K tiles (steps). `Some` keeps
    /// `PathChoice::Auto` off the cooperative kernels.
    pub split: Option<u32>,
    /// Cooperative-matrix kernel and tile; `None` picks [`coop::variant_for`]'s. With `Some`,
    /// `PathChoice::Auto` takes it for f16 inputs from [`coop_min_m`] rows and int4 weights
    /// from [`COOP_MIN_M_INT4`] (on coop16's int4 tile; [`COOP_MIN_M_INT4_OTHER_TILES`] on
    /// another) when it runs on the adapter (else, and for f32 or fewer rows,
    /// the register-tiled kernel: a named variant also keeps the few-rows kernel out),
    /// `PathChoice::Coop` requires it.
    pub coop: Option<coop::CoopVariant>,
    /// The dtype of C.
    pub out: OutFormat,
}

/// Whether the adapter offers the cooperative-matrix path for f16 × f16.
pub fn coop_offered(caps: &Caps) -> bool {
    coop::usable(caps).is_ok()
}

/// Builds the plan for C = A·B (A M×K, B K×N, both in `fmt`, f32 or f16; C in `opts.out`'s
/// dtype), the operands and C the caller's, in the GEMM's own layout.
pub fn plan(
    caps: &Caps,
    fmt: Format,
    m: usize,
    n: usize,
    k: usize,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    plan_shape(caps, fmt, &GemmShape::new(m, n, k), opts)
}

/// [`plan`] for `shape` with its operands' layout.
pub fn plan_shape(
    caps: &Caps,
    fmt: Format,
    shape: &GemmShape,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    product(caps, fmt, shape, opts)?.with_output(caps, opts.out)
}

/// The product's passes; C f32, or f16 where they round it themselves
/// ([`rounded_c`](super::split::rounded_c)).
fn product(caps: &Caps, fmt: Format, shape: &GemmShape, opts: GemmOptions) -> Result<GemmPlan> {
    let (m, n, k) = (shape.m, shape.n, shape.k);
    check_dims(m, n, k)?;
    if fmt == Format::Int4 {
        return Err(Error::InvalidInput(
            "int4 is a weight format: use the int4 GEMM".into(),
        ));
    }
    let res = resolve(shape, fmt, fmt, opts.out)?;
    let f16 = fmt == Format::F16;
    if opts.path == PathChoice::Coop && !f16 {
        return Err(Error::InvalidInput(
            "the cooperative-matrix GEMM takes f16 inputs".into(),
        ));
    }
    let auto = f16 && m >= coop_min_m(n, k);
    if let Some(v) = coop_choice(caps, &res, opts, (CoopB::F16, auto), &|_| true)? {
        return coop::plan(caps, v, (CoopB::F16, opts.out), &res, opts.split);
    }
    let gemv = takes_gemv(&opts, m, GEMV_MAX_M);
    let kind = if gemv { "gemv" } else { "tiled" };
    let mut plan = Plan::new(format!("gemm {} {fmt:?} {kind}", shape_label(&res)).to_lowercase());
    let a_buf = plan.arg("a", res.a_bytes);
    let b_buf = plan.arg("b", res.b_bytes);
    let dummy = plan.buffer("no scales", 16, BufferInit::Zeroed);
    if gemv {
        return gemv_pass(
            caps,
            &mut plan,
            (fmt, false),
            [a_buf, b_buf, dummy, dummy],
            &res,
            0,
            (opts.split, opts.out),
        )
        .map(|p| p.with_inputs(vec![a_buf, b_buf]));
    }
    let policy = opts.policy.unwrap_or_else(|| GemmPolicy::for_m(m as u64));
    tiled_pass(
        caps,
        &mut plan,
        policy,
        (opts.split, opts.out),
        (fmt, fmt, false),
        [a_buf, b_buf, dummy, dummy],
        &res,
        0,
    )
    .map(|p| p.with_inputs(vec![a_buf, b_buf]))
}

/// The cooperative variant a product of `res`'s shape with B in `b` takes, if any: the one
/// `opts` forces or the shape's (`coop::variant_for`) under `PathChoice::Coop` (an error where
/// it cannot run), and under `Auto` where `auto` (the rows rule of B's format, the fewest rows
/// any tile takes) and `takes` (the rule of the variant chosen) hold and no split or portable
/// policy is asked for, where it runs (else `None`: the portable kernels may take the shape).
fn coop_choice(
    caps: &Caps,
    res: &Resolved,
    opts: GemmOptions,
    (b, auto): (CoopB, bool),
    takes: &dyn Fn(&coop::CoopVariant) -> bool,
) -> Result<Option<coop::CoopVariant>> {
    let edges = |p: &coop::CoopPolicy| coop::edges_for(p, res, opts.out);
    let choose = || -> Result<coop::CoopVariant> {
        let v = match opts.coop {
            Some(v) => coop::usable_variant_edges(caps, &v, edges(&v.policy)).map(|_| v)?,
            None => {
                let kind = coop::usable(caps)?;
                coop::variant_for_edges(caps, kind, b, res.m, res.n, &edges)
            }
        };
        b.stage(&v)?;
        Ok(v)
    };
    Ok(match opts.path {
        PathChoice::Tiled | PathChoice::Gemv => None,
        PathChoice::Auto if auto && opts.split.is_none() && opts.policy.is_none() => choose()
            .ok()
            .filter(|v| takes(v) && coop::fits_layout(caps, v, res, opts.out).is_ok()),
        PathChoice::Auto => None,
        PathChoice::Coop => Some(choose()?),
    })
}

/// Whether a product of `m` rows with `opts` takes the few-rows kernel (`max_m`: its rows at
/// most under `Auto`, [`GEMV_MAX_M`] or, for int4 weights, [`GEMV_MAX_M_INT4`]).
pub(super) fn takes_gemv(opts: &GemmOptions, m: usize, max_m: usize) -> bool {
    match opts.path {
        PathChoice::Gemv => true,
        PathChoice::Auto => {
            m <= max_m && opts.policy.is_none() && opts.split.is_none() && opts.coop.is_none()
        }
        PathChoice::Tiled | PathChoice::Coop => false,
    }
}

/// Builds the plan for C = A·W: A f16 (M×K), W int4 weights (K×N, with or without zero
/// points, [`Int4Weights`](super::int4::Int4Weights)'s layout); C in `opts.out`'s dtype; the
/// operands and C the caller's.
pub fn plan_int4(
    caps: &Caps,
    m: usize,
    k: usize,
    n: usize,
    has_zeros: bool,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    plan_int4_shape(caps, &GemmShape::new(m, n, k), has_zeros, opts)
}

/// [`plan_int4`] for `shape` (A's and C's layout, a batch sharing the weights; B's layout must
/// be the default: the weights keep their packed layout).
pub fn plan_int4_shape(
    caps: &Caps,
    shape: &GemmShape,
    has_zeros: bool,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    product_int4(caps, shape, has_zeros, opts)?.with_output(caps, opts.out)
}

/// The int4 product's passes; C as in [`product`].
fn product_int4(
    caps: &Caps,
    shape: &GemmShape,
    has_zeros: bool,
    opts: GemmOptions,
) -> Result<GemmPlan> {
    let (m, n, k) = (shape.m, shape.n, shape.k);
    check_dims(m, n, k)?;
    let res = resolve(shape, Format::F16, Format::Int4, opts.out)?;
    let b = CoopB::Int4 { zeros: has_zeros };
    // coop16's int4 tile from COOP_MIN_M_INT4 rows, any other from COOP_MIN_M_INT4_OTHER_TILES
    let takes =
        |v: &coop::CoopVariant| *v == coop::rows_tile_int4() || m >= COOP_MIN_M_INT4_OTHER_TILES;
    if let Some(v) = coop_choice(caps, &res, opts, (b, m >= COOP_MIN_M_INT4), &takes)? {
        return coop::plan(caps, v, (b, opts.out), &res, opts.split);
    }
    let gemv = takes_gemv(&opts, m, GEMV_MAX_M_INT4);
    let kind = if gemv { "gemv" } else { "tiled" };
    let mut plan = Plan::new(format!("gemm {} int4 {kind}", shape_label(&res)));
    let a_buf = plan.arg("a", res.a_bytes);
    let w = int4_args(&mut plan, k, n, has_zeros)?;
    let [b_buf, s_buf, z_buf] = w.bufs;
    let inputs = [vec![a_buf], w.inputs].concat();
    let bufs = [a_buf, b_buf, s_buf, z_buf];
    let b_rows = w.rows;
    let built = if gemv {
        gemv_pass(
            caps,
            &mut plan,
            (Format::Int4, has_zeros),
            bufs,
            &res,
            b_rows,
            (opts.split, opts.out),
        )?
    } else {
        let policy = opts.policy.unwrap_or_else(|| GemmPolicy::for_m(m as u64));
        tiled_pass(
            caps,
            &mut plan,
            policy,
            (opts.split, opts.out),
            (Format::F16, Format::Int4, has_zeros),
            bufs,
            &res,
            b_rows,
        )?
    };
    Ok(built.with_inputs(inputs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::gemm_plan::Path;

    /// Shapes whose element counts overflow (a crafted .npy header with no data) are errors,
    /// not panics or wrapped lengths that match empty operands.
    #[test]
    fn shapes_past_usize_are_errors() {
        let caps = Caps::h100();
        let big = 1usize << 32;
        for (m, n, k) in [
            (big, big, big),
            (1 << 63, 2, 2),
            (2, 2, 1 << 63),
            (4, 4, 1 << 62),
            (1 << 31, 1 << 31, 1),
        ] {
            for fmt in [Format::F32, Format::F16] {
                let r = plan(&caps, fmt, m, n, k, GemmOptions::default());
                assert!(
                    matches!(r, Err(Error::TooLarge(_) | Error::InvalidInput(_))),
                    "{m}x{n}x{k}: {:?}",
                    r.err()
                );
            }
        }
        assert!(plan_int4(
            &caps,
            1 << 32,
            1 << 32,
            1 << 39,
            false,
            GemmOptions::default()
        )
        .is_err());
    }

    /// Tiles of zero size are policy errors before any kernel is specialized (a zero-length
    /// workgroup array would fail naga's validation as a shader error instead).
    #[test]
    fn zero_tiles_are_policy_errors() {
        let caps = Caps::h100();
        let base = GemmPolicy::for_m(64);
        for bad in [
            GemmPolicy { bk: 0, ..base },
            GemmPolicy { bm: 0, ..base },
            GemmPolicy { bn: 0, ..base },
        ] {
            let opts = GemmOptions {
                path: PathChoice::Tiled,
                policy: Some(bad),
                ..Default::default()
            };
            let r = plan(&caps, Format::F32, 64, 64, 64, opts);
            assert!(
                matches!(r, Err(Error::InvalidInput(_))),
                "{bad:?}: {:?}",
                r.err()
            );
        }
        let mut v = coop::CoopKernel::K16.variant();
        v.policy.bk = 0;
        let mut offered = caps.clone();
        (offered.f16, offered.subgroups) = (true, true);
        (offered.subgroup_min, offered.subgroup_max) = (32, 32);
        offered.cooperative_matrix = vec![v.kernel.shape()];
        let r = coop::usable_variant(&offered, &v, 256, 256);
        assert!(matches!(r, Err(Error::InvalidInput(_))), "{:?}", r.err());
    }

    /// The simulator's H100 profile offering coop16 (f16, subgroups of 32, 48 KiB).
    fn coop_caps() -> Caps {
        let mut caps = Caps::h100();
        (caps.f16, caps.subgroups) = (true, true);
        (caps.subgroup_min, caps.subgroup_max) = (32, 32);
        caps.max_workgroup_storage = 48 << 10;
        caps.cooperative_matrix = vec![coop::CoopKernel::K16.shape()];
        caps
    }

    /// Where the cooperative kernel is offered, `Auto` takes it for f16, unless a split or a
    /// portable policy is forced: those ask for the portable kernel.
    #[test]
    fn a_forced_split_or_policy_keeps_the_cooperative_kernel_out() {
        let caps = coop_caps();
        let path = |opts| plan(&caps, Format::F16, 64, 64, 64, opts).unwrap().path;
        assert_eq!(path(GemmOptions::default()), Path::Coop16);
        let split = GemmOptions {
            split: Some(2),
            ..Default::default()
        };
        assert_eq!(path(split), Path::Tiled);
        let policy = GemmOptions {
            policy: Some(GemmPolicy::for_m(64)),
            ..Default::default()
        };
        assert_eq!(path(policy), Path::Tiled);
    }

    /// Large weights take cooperative matrices from 8 rows, huge ones (3 · 2^24 elements) from
    /// 2, smaller ones from `COOP_MIN_M`; the few-rows kernel below (plans only: nothing runs).
    #[test]
    fn large_weights_take_cooperative_matrices_from_fewer_rows() {
        use crate::gemm::COOP_MIN_M;
        let caps = coop_caps();
        let path = |m, n, k| {
            plan(&caps, Format::F16, m, n, k, GemmOptions::default())
                .unwrap()
                .path
        };
        assert_eq!(path(8, 14336, 4096), Path::Coop16);
        assert_eq!(path(16, 4096, 4096), Path::Coop16);
        assert_eq!(path(7, 4096, 4096), Path::Gemv);
        assert_eq!(path(16, 4096, 4095), Path::Gemv);
        assert_eq!(path(COOP_MIN_M, 4096, 4095), Path::Coop16);
        assert_eq!(path(2, 14336, 4096), Path::Coop16);
        assert_eq!(path(2, 4096, 14336), Path::Coop16);
        assert_eq!(path(1, 14336, 4096), Path::Gemv);
        assert_eq!(path(2, 4096, 4096), Path::Gemv);
        assert_eq!(coop_min_m(4096, 4096), 8);
        assert_eq!(coop_min_m(14336, 4096), 2);
        assert_eq!(coop_min_m(3 << 12, 1 << 12), 2);
        assert_eq!(coop_min_m((3 << 12) - 1, 1 << 12), 8);
        assert_eq!(coop_min_m(4096, 4095), COOP_MIN_M);
    }

    /// The few-rows kernel's K slices for int4 weights: all of K (to 16384) in one pass for
    /// weights up to 8192 columns wide, slices of 4096 and the split-K sum for wider weights; K
    /// past 16384 in slices and the sum again (plans only: nothing runs).
    #[test]
    fn int4_few_rows_take_long_k_slices_on_narrow_weights() {
        let caps = coop_caps();
        let passes = |m, n, k| {
            // (plan_int4 takes K before N)
            let p = plan_int4(&caps, m, k, n, false, GemmOptions::default()).unwrap();
            assert_eq!(p.path, Path::Gemv, "{m}x{n}x{k}");
            p.plan.pass_labels().len()
        };
        for (m, n, k) in [
            (1, 4096, 14336),
            (2, 4096, 14336),
            (4, 4096, 14336),
            (1, 8192, 8192),
            (2, 8192, 8192),
            (4, 4096, 16384),
        ] {
            assert_eq!(passes(m, n, k), 1, "{m}x{n}x{k}");
        }
        for (m, n, k) in [
            (1, 14336, 14336),
            (2, 14336, 14336),
            (1, 4096, 32768),
            (2, 4096, 32768),
        ] {
            assert_eq!(passes(m, n, k), 2, "{m}x{n}x{k}");
        }
        // K within one slice of 4096 stays one pass either way
        assert_eq!(passes(2, 4096, 4096), 1);
    }

    /// The int4 dequantization takes K's bit 31 as 0 (`float_2p23` in gemm/gemv.wgsl and
    /// gemm/lib/coop_b_int4.wgsl): K = 2^31 is refused on both paths, A's f16 row past what a
    /// binding holds, even on an adapter that binds more (plans only: nothing runs).
    #[test]
    fn int4_k_stays_below_2_to_the_31() {
        let mut caps = coop_caps();
        caps.max_storage_binding = u64::MAX;
        // one row takes the few-rows kernel, COOP_MIN_M_INT4 rows coop16's stash (K within
        // 4 GiB of A's rows)
        for (m, path, fits) in [
            (1, Path::Gemv, 1 << 30),
            (COOP_MIN_M_INT4, Path::Coop16, 1 << 27),
        ] {
            let plan = |k| plan_int4(&caps, m, k, 1, false, GemmOptions::default());
            let refused = plan(1 << 31).err().map(|e| e.to_string());
            assert!(
                refused
                    .as_deref()
                    .is_some_and(|e| e.contains("gemm A needs")),
                "{m} rows: {refused:?}"
            );
            let p = plan(fits);
            assert!(
                p.as_ref().is_ok_and(|p| p.path == path),
                "{m} rows: {:?}",
                p.as_ref().map(|p| p.path)
            );
        }
    }

    /// int4 weights take cooperative matrices from `COOP_MIN_M_INT4` rows on coop16's int4 tile
    /// and from `COOP_MIN_M_INT4_OTHER_TILES` on the others, where they are offered (coop16's
    /// tiles and coop8's, whose K steps divide the quantization group), the few-rows kernel
    /// below; a tile whose K step does not divide the group is refused.
    #[test]
    fn int4_weights_take_coop16_from_their_rows() {
        use crate::gemm::coop::{CoopKernel, CoopVariant};
        let caps = coop_caps();
        let path =
            |caps: &Caps, m, opts| plan_int4(caps, m, 4096, 4096, false, opts).map(|p| p.path);
        let auto = GemmOptions::default();
        assert_eq!(path(&caps, COOP_MIN_M_INT4, auto).unwrap(), Path::Coop16);
        assert_eq!(path(&caps, 64, auto).unwrap(), Path::Coop16);
        assert_eq!(path(&caps, COOP_MIN_M_INT4 - 1, auto).unwrap(), Path::Gemv);
        let coop = GemmOptions {
            path: PathChoice::Coop,
            ..Default::default()
        };
        assert_eq!(path(&caps, 1, coop).unwrap(), Path::Coop16);
        // a K step that is not a whole part of the group of 128: fine for f16, not for int4
        let odd = GemmOptions {
            coop: Some(CoopVariant::new(CoopKernel::K16, 128, 128, 48).one_buf()),
            ..coop
        };
        let f16 = plan(&caps, Format::F16, 16, 4096, 4096, odd).unwrap();
        assert_eq!(f16.path, Path::Coop16);
        let e = path(&caps, 16, odd).unwrap_err();
        assert!(e.to_string().contains("group of 128"), "{e}");
        let mut k8 = caps.clone();
        k8.cooperative_matrix = vec![CoopKernel::K8.shape()];
        assert_eq!(path(&k8, 16, coop).unwrap(), Path::Coop8);
        assert_eq!(path(&k8, 16, auto).unwrap(), Path::Coop8);
        // other tiles from COOP_MIN_M_INT4_OTHER_TILES: coop8, and coop16 at subgroups of 64
        // (rows_tile(16), the int4 tile needing 128 invocations of 32)
        let mut wide = caps.clone();
        (wide.subgroup_min, wide.subgroup_max) = (64, 64);
        for c in [&k8, &wide] {
            let below = COOP_MIN_M_INT4_OTHER_TILES - 1;
            assert_eq!(path(c, COOP_MIN_M_INT4, auto).unwrap(), Path::Gemv);
            assert_eq!(path(c, below, auto).unwrap(), Path::Gemv);
            assert_ne!(
                path(c, COOP_MIN_M_INT4_OTHER_TILES, auto).unwrap(),
                Path::Gemv
            );
        }
    }
}
