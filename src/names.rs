//! The name of a shipped stage, as the descriptors of [`crate::stages`] give it: a newtype over
//! its path, made only by the generated descriptors, so host code cannot spell one by hand (the
//! names of a stage's parts are the simulator crate's, [`wgsimd_sim::names`]). A leaf: it
//! imports nothing of the crate.

/// A shipped dispatch stage: the path of its file under `wgsl/` without extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Stage(&'static str);

impl Stage {
    pub(crate) const fn new(name: &'static str) -> Self {
        Stage(name)
    }
    /// The path as the `wgsl/` tree spells it, without extension.
    pub const fn name(self) -> &'static str {
        self.0
    }
}

/// A shipped helper file (include-only, under `wgsl/shared/` or an algorithm's `lib/`): the
/// path of its file under `wgsl/` without extension. Host code names one to compose a stage
/// with a caller's text in its place (an operator, a predicate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Helper(&'static str);

impl Helper {
    pub(crate) const fn new(name: &'static str) -> Self {
        Helper(name)
    }
    /// The path as the `wgsl/` tree spells it, without extension.
    pub const fn name(self) -> &'static str {
        self.0
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}
