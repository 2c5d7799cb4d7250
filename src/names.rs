//! The names of a shipped stage's parts, as the descriptors of [`crate::stages`] give them:
//! newtypes over the WGSL spelling, made only by the generated descriptors (and this crate), so
//! host code cannot spell one by hand. A leaf: it imports nothing of the crate.

macro_rules! name_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(&'static str);

        impl $name {
            pub(crate) const fn new(name: &'static str) -> Self {
                $name(name)
            }
            /// The name as WGSL spells it.
            pub const fn name(self) -> &'static str {
                self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0)
            }
        }
    };
}

name_type!(
    /// A shipped dispatch stage: the path of its file under `wgsl/` without extension.
    Stage
);
name_type!(
    /// An `override` a stage declares (or includes).
    Override
);
name_type!(
    /// A module-scope `const` a stage declares (or includes), read with
    /// [`crate::kernel::Kernel::constant`].
    Constant
);
name_type!(
    /// A resource variable (a binding) of a stage, by its WGSL name.
    Resource
);
name_type!(
    /// An entry point of a stage.
    Entry
);
