//! The device-neutral description of a GPU computation: [`Plan`], the simulator crate's
//! (`wgsimd_sim::plan`, whose rules hold here), and the passes that fill and invalidate a
//! buffer with wgsimd's own stage (`wgsl/util/words.wgsl`): [`Fills`].

use crate::error::Result;
use crate::kernel::Flavor;
use crate::stages::util::words;

pub use wgsimd_sim::plan::*;

/// Passes over whole buffers made of wgsimd's `util/words` stage (import the trait to call them
/// on a [`Plan`]).
pub trait Fills {
    /// Appends a pass filling all of `buffer` with the word `value` (`wgsl/util/words.wgsl`,
    /// `fill`: a grid of at most 4096 workgroups strides over it).
    fn fill(&mut self, label: impl Into<String>, buffer: BufferId, value: u32)
        -> Result<&mut Pass>;

    /// Appends a pass after which `buffer`'s contents are undefined: every word must be written
    /// again before it is read or read back. The GPU fills it with [`POISON_WORD`] (so a word no
    /// later pass wrote shows in the output); the simulator fills it without running the fill and
    /// reports such words as `uninitialized-read` or `unwritten-output`.
    fn invalidate(&mut self, label: impl Into<String>, buffer: BufferId) -> Result<&mut Pass>;

    /// [`Fills::invalidate`] of only the first `per` × `words` of `buffer`, that count read when
    /// the pass runs from the `WordsParams` block at byte `params_at` of `params` (which a
    /// prepare pass wrote), dispatched as `workgroups`: for a caller's buffer, whose words past
    /// the count belong to the caller (`per` words an element).
    #[allow(clippy::too_many_arguments)]
    fn invalidate_first(
        &mut self,
        label: impl Into<String>,
        buffer: BufferId,
        per: u32,
        params: BufferId,
        params_at: u64,
        workgroups: Workgroups,
    ) -> Result<&mut Pass>;
}

impl Fills for Plan {
    fn fill(
        &mut self,
        label: impl Into<String>,
        buffer: BufferId,
        value: u32,
    ) -> Result<&mut Pass> {
        let k = words::STAGE.load(Flavor::Emulated)?;
        let words = self.buffers[buffer.0].size / 4;
        let params = self.upload("fill params", &[words.min(u32::MAX as u64) as u32, 0, 0, 0]);
        let groups = words.div_ceil(256).clamp(1, 4096) as u32;
        self.pass(
            label,
            &k,
            words::entry::fill,
            &[(words::VALUE, value as f64)],
            &[(words::bind::params, params), (words::bind::dst, buffer)],
            Workgroups::Direct([groups, 1, 1]),
        )
    }

    fn invalidate(&mut self, label: impl Into<String>, buffer: BufferId) -> Result<&mut Pass> {
        let pass = self.fill(label, buffer, POISON_WORD)?;
        pass.invalidates = Some(buffer);
        Ok(pass)
    }

    fn invalidate_first(
        &mut self,
        label: impl Into<String>,
        buffer: BufferId,
        per: u32,
        params: BufferId,
        params_at: u64,
        workgroups: Workgroups,
    ) -> Result<&mut Pass> {
        let k = words::STAGE.load(Flavor::Emulated)?;
        let pass = self
            .pass(
                label,
                &k,
                words::entry::fill,
                &[(words::VALUE, POISON_WORD as f64), (words::PER, per as f64)],
                &[(words::bind::params, params), (words::bind::dst, buffer)],
                workgroups,
            )?
            .range(words::bind::params, params_at, 16)?;
        pass.invalidates = Some(buffer);
        Ok(pass)
    }
}
