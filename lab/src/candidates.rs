//! The candidate cooperative-matrix kernels of `lab/wgsl/`, and how a plan runs one: a GEMM plan
//! of the library (`wgsimd::gemm::plan`, public, with `PathChoice::Coop` and a
//! `coop::CoopVariant` of the tile the candidate was written for) whose `gemm/coop*` pass gets
//! the candidate's kernel ([`swap_kernel`]). Editing a kernel is the same: compose its text,
//! change it, `Kernel::from_source` ([`edited`]).
//!
//! Candidates store straight to C in f32 and handle full tiles only (M, N multiples of the tile,
//! K of BK), so [`Candidate::takes`] says which products they may run.

use std::sync::Arc;

use wgsimd::gemm::coop::{CoopKernel, CoopVariant};
use wgsimd::kernel::{self, Flavor, Kernel};
use wgsimd::plan::Plan;

/// A candidate kernel file and the tiles it was written for.
pub struct Candidate {
    /// The file's stem in `lab/wgsl/`.
    pub name: &'static str,
    /// Its text (`//!include` lines resolved against the library's `wgsl/` when loaded).
    pub text: &'static str,
    /// The tiles it runs on, by name (as the coop16 plan's variant).
    pub tiles: Vec<(&'static str, CoopVariant)>,
    /// Whether it needs as many A as B staging buffers (one index for both).
    pub same_bufs: bool,
}

impl Candidate {
    /// Whether it may run an `m × n × k` product on `v` (full tiles only, its buffer rule).
    pub fn takes(&self, v: &CoopVariant, [m, n, k]: [usize; 3]) -> bool {
        let p = v.policy;
        m % p.bm as usize == 0
            && n % p.bn as usize == 0
            && k % p.bk as usize == 0
            && (!self.same_bufs || p.bufs == p.b_bufs)
    }

    /// Its kernel: the text composed (includes from the library's `wgsl/`) and validated, named
    /// `lab/NAME` (a name of its own: the GPU context caches shader modules by name).
    pub fn kernel(&self, flavor: Flavor) -> wgsimd::Result<Arc<Kernel>> {
        let name = format!("lab/{}", self.name);
        let text = kernel::compose_text(&name, self.text, flavor)?;
        Ok(Arc::new(Kernel::from_source(&name, flavor, text)?))
    }
}

/// Every candidate of `lab/wgsl/` with its tiles (the file headers say why these).
pub fn all() -> Vec<Candidate> {
    let k16 = |bm, bn, bk| CoopVariant::new(CoopKernel::K16, bm, bn, bk);
    vec![
        Candidate {
            name: "coop16_direct",
            text: include_str!("../wgsl/coop16_direct.wgsl"),
            tiles: vec![
                ("128x128x32", k16(128, 128, 32)),
                ("128x256x32 1buf", k16(128, 256, 32).one_buf()),
            ],
            same_bufs: false,
        },
        Candidate {
            name: "coop16_dist",
            text: include_str!("../wgsl/coop16_dist.wgsl"),
            tiles: vec![
                ("128x128x32", k16(128, 128, 32)),
                ("128x256x32 1buf", k16(128, 256, 32).one_buf()),
                ("256x128x32 1buf", k16(256, 128, 32).one_buf()),
            ],
            same_bufs: true,
        },
        Candidate {
            name: "coop16_fp",
            text: include_str!("../wgsl/coop16_fp.wgsl"),
            tiles: vec![
                ("128x256x16", k16(128, 256, 16)),
                ("128x128x16", k16(128, 128, 16)),
            ],
            same_bufs: true,
        },
        Candidate {
            name: "coop16w_fp",
            text: include_str!("../wgsl/coop16w_fp.wgsl"),
            tiles: vec![
                ("128x256x16", k16(128, 256, 16)),
                ("256x128x16", k16(256, 128, 16)),
            ],
            same_bufs: true,
        },
    ]
}

/// `k` with its composed text replaced by `text`, validated, named `NAME+edit` (its own name:
/// the GPU context caches shader modules by name).
pub fn edited(k: &Kernel, text: String) -> wgsimd::Result<Arc<Kernel>> {
    let name = format!("{}+edit", k.name);
    Ok(Arc::new(Kernel::from_source(&name, k.flavor, text)?))
}

/// The names of the `override` declarations of `k`.
pub fn override_names(k: &Kernel) -> Vec<String> {
    k.module
        .overrides
        .iter()
        .filter_map(|(_, o)| o.name.clone())
        .collect()
}

/// Puts `with` into every pass of `plan` whose kernel's name starts with `prefix`: the pass keeps
/// its entry point, grid and buffers; its overrides are those `with` declares (naga refuses
/// others) and its bindings those `with` declares, renumbered from `with`'s reflection. Returns
/// how many passes changed.
pub fn swap_kernel(plan: &mut Plan, prefix: &str, with: &Arc<Kernel>) -> usize {
    let declared = override_names(with);
    let mut changed = 0;
    for pass in plan
        .passes
        .iter_mut()
        .filter(|p| p.kernel.name.starts_with(prefix))
    {
        pass.overrides.retain(|(k, _)| declared.contains(k));
        pass.bindings
            .retain_mut(|b| match with.binding_of(&b.name) {
                Some(n) => {
                    b.binding = n;
                    true
                }
                None => false,
            });
        pass.kernel = with.clone();
        changed += 1;
    }
    changed
}
