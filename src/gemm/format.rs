//! The element formats of a GEMM: [`Format`], of an operand as the kernels read it (the
//! `A_FMT` / `B_FMT` overrides and the loads), and [`OutFormat`], of C (f32 as accumulated, or
//! f16 rounded once from it).
//!
//! Rules: a leaf; every other file of the GEMM may import it. How many elements a load holds
//! ([`Format::per_load`]) is the kernels' rule, which the layout and the policies check against.

/// Element format of a GEMM operand as the portable kernel reads it (`A_FMT` / `B_FMT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// f32, 4 per vec4 load.
    F32,
    /// f16 (u16 bits on the host), 8 per vec4 load.
    F16,
    /// int4, 8 per u32 along K (B only).
    Int4,
}

impl Format {
    /// The override value the kernel expects.
    pub fn code(self) -> u32 {
        match self {
            Format::F32 => 0,
            Format::F16 => 1,
            Format::Int4 => 2,
        }
    }
    /// Elements per `vec4<u32>` load (per `u32` for int4).
    pub fn per_load(self) -> u32 {
        match self {
            Format::F32 => 4,
            Format::F16 | Format::Int4 => 8,
        }
    }
}

/// The dtype of C.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutFormat {
    /// f32, as accumulated.
    #[default]
    F32,
    /// f16 (u16 bits on the host), rounded to nearest even from the f32 result.
    F16,
}
