//! The names of a stage's parts, as wgsimd's generated stage descriptors (`wgsimd::stages`)
//! give them: newtypes over the WGSL spelling, made by those descriptors, so host code does not
//! spell one by hand; a kernel of one's own is named by strings instead
//! ([`Plan::pass_named`](crate::plan::Plan::pass_named)). A leaf: it imports nothing of the
//! crate.

macro_rules! name_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(&'static str);

        impl $name {
            /// The name `name` (for wgsimd's generated descriptors).
            #[doc(hidden)]
            pub const fn new(name: &'static str) -> Self {
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
    /// An `override` a stage declares (or includes).
    Override
);
name_type!(
    /// A module-scope `const` a stage declares (or includes), read with
    /// [`Kernel::constant`](crate::kernel::Kernel::constant).
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
