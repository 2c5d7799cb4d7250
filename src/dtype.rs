//! Element types the kernels accept, and the bridge from Rust types to them.

use std::fmt;

/// A kernel element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// `u8`, four to a word (histogram samples).
    U8,
    /// `u32`.
    U32,
    /// `i32`.
    I32,
    /// `f32`.
    F32,
    /// IEEE half (`f16`), stored as `u16` bits on the host.
    F16,
    /// `u64`, two words, low first (sort keys).
    U64,
    /// `i64`, two words, low first (sort keys).
    I64,
    /// `f64`, two words, low first (sort keys).
    F64,
}

impl Dtype {
    /// Whether it is one of the 64-bit key types.
    pub fn is_wide(self) -> bool {
        matches!(self, Dtype::U64 | Dtype::I64 | Dtype::F64)
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dtype::U8 => "u8",
            Dtype::U32 => "u32",
            Dtype::I32 => "i32",
            Dtype::F32 => "f32",
            Dtype::F16 => "f16",
            Dtype::U64 => "u64",
            Dtype::I64 => "i64",
            Dtype::F64 => "f64",
        })
    }
}

/// A 32-bit element type a kernel can take.
pub trait Element: bytemuck::Pod + Copy + Send + Sync + 'static {
    /// Its dtype.
    const DTYPE: Dtype;
}

impl Element for u32 {
    const DTYPE: Dtype = Dtype::U32;
}
impl Element for i32 {
    const DTYPE: Dtype = Dtype::I32;
}
impl Element for f32 {
    const DTYPE: Dtype = Dtype::F32;
}
