//! f16 in storage and uniform buffers: the interpreter's word-per-leaf layout of a type holding
//! f16 ([`crate::layout`]) mapped onto the type's WGSL bytes, which are what the host and the
//! GPU see.
//!
//! Rules:
//! - A binding whose type holds an f16 leaf is a **halves binding**
//!   ([`crate::events::Bound::halves`]). Pointers into it are offsets in the word-per-leaf
//!   layout, as everywhere in the interpreter; each access translates the leaf it touches to
//!   its WGSL place ([`place`]): a 2-byte half of a 32-bit buffer word (an f16) or a whole word
//!   (a 32-bit leaf). A load of an f16 reads its two bytes and widens them to the f32 bits the
//!   registers hold; a store writes its two bytes and leaves the other half of the word alone.
//!   Nothing is copied before or after a pass: the buffer's words are the WGSL bytes throughout.
//! - The bound range is measured in leaves ([`leaves`]): the leaves whose bytes lie inside it
//!   (whole elements of a runtime-sized array, so `arrayLength` counts elements of the real
//!   stride); the bounds check and `arrayLength` count leaves.
//! - Access events name buffer words with a **part** ([`crate::events::MemAccess::parts`]):
//!   0 the whole word, 1 its low half (bytes 0..2), 2 its high half (bytes 2..4). An f16 is
//!   one half, so two invocations storing the two halves of one word do not race (WGSL's f16
//!   stores are two bytes), and a half never written is uninitialized whatever the other half
//!   holds. A binding of a buffer whose range overlaps a halves binding of the same pass reports
//!   its words as their two halves ([`crate::events::Bound::split`]), so the checkers compare
//!   like with like.
//! - The layout is the WGSL one naga records: struct member offsets, array strides, a matrix's
//!   column stride (`vec3<f16>` columns 8 bytes, like `vec4<f16>`).

use naga::{Handle, Module, Type, TypeInner};

use crate::layout::{runtime_sized, Layouts};

/// Where a leaf (a word of the word-per-leaf layout) sits in a type's WGSL bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Its first byte, from the start of the type.
    pub byte: u64,
    /// Two bytes (an f16), else four.
    pub half: bool,
    /// A value's leaf, not padding of the word-per-leaf layout (a 3-row matrix column's
    /// fourth word, an array element's words past its value within the stride, a gap between
    /// the members of a struct without f16): padding is never loaded or stored, and is placed
    /// where it would lie, so that places grow with the index.
    pub data: bool,
}

impl Place {
    /// The byte after its last.
    pub fn end(self) -> u64 {
        self.byte + if self.half { 2 } else { 4 }
    }

    /// Its buffer word (counted from the type's start) and part: 0 the whole word, 1 the low
    /// half, 2 the high half.
    pub fn word_part(self) -> (u64, u8) {
        let part = if self.half {
            1 + (self.byte % 4 / 2) as u8
        } else {
            0
        };
        (self.byte / 4, part)
    }
}

/// The place of leaf `i` of `ty` (past the end of a runtime-sized array, its elements go on).
pub fn place(module: &Module, layouts: &Layouts, ty: Handle<Type>, i: u64) -> Place {
    let word = |i: u64, data: bool| Place {
        byte: i * 4,
        half: false,
        data,
    };
    match module.types[ty].inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => Place {
            byte: i * s.width as u64,
            half: s.width == 2,
            data: i == 0,
        },
        TypeInner::Vector { size, scalar } => Place {
            byte: i * scalar.width as u64,
            half: scalar.width == 2,
            data: i < size as u64,
        },
        TypeInner::Matrix { rows, scalar, .. } => {
            let rows = rows as u64;
            let w = scalar.width as u64;
            // column words in memory, and the column's WGSL stride (a vec3's alignment is a
            // vec4's)
            let cs = if rows == 3 { 4 } else { rows };
            let (c, r) = (i / cs, i % cs);
            Place {
                byte: c * cs * w + r * w,
                half: w == 2,
                data: r < rows,
            }
        }
        TypeInner::CooperativeMatrix { scalar, .. } => Place {
            byte: i * scalar.width as u64,
            half: scalar.width == 2,
            data: true,
        },
        TypeInner::Array { base, stride, .. } => {
            let ew = layouts.elem_words(base, stride) as u64;
            let (e, r) = (i / ew, i % ew);
            let inner = if r < layouts.get(base).mem_words as u64 {
                place(module, layouts, base, r)
            } else {
                // (a whole-word element's stride beyond it)
                word(r, false)
            };
            Place {
                byte: e * stride as u64 + inner.byte,
                ..inner
            }
        }
        TypeInner::Struct { ref members, .. } => {
            let last = members.len().saturating_sub(1);
            for (k, m) in members.iter().enumerate() {
                let first = layouts.member_offset(module, ty, k as u32) as u64;
                let words = layouts.get(m.ty).mem_words as u64;
                if i < first {
                    // a gap between members of a struct laid out by its offsets
                    return word(i, false);
                }
                let tail = k == last && runtime_sized(module, m.ty);
                if i < first + words || tail {
                    let inner = place(module, layouts, m.ty, i - first);
                    return Place {
                        byte: m.offset as u64 + inner.byte,
                        ..inner
                    };
                }
            }
            // (past the last member: the struct's trailing padding)
            word(i, false)
        }
        _ => word(i, true),
    }
}

/// The leaves of `ty` whose bytes lie within the first `bytes` bytes: a runtime-sized array's
/// whole elements only (as `arrayLength` counts them), else every leaf up to the first that
/// does not fit (places grow with the index).
pub fn leaves(module: &Module, layouts: &Layouts, ty: Handle<Type>, bytes: u64) -> u64 {
    if runtime_sized(module, ty) {
        // the tail array: its first leaf, its first byte, and its element's leaves and stride
        let (first, offset, array) = match module.types[ty].inner {
            TypeInner::Struct { ref members, .. } => {
                let k = members.len() - 1;
                (
                    layouts.member_offset(module, ty, k as u32) as u64,
                    members[k].offset as u64,
                    members[k].ty,
                )
            }
            _ => (0, 0, ty),
        };
        let TypeInner::Array { base, stride, .. } = module.types[array].inner else {
            return 0;
        };
        if bytes >= offset {
            let elements = (bytes - offset) / stride.max(1) as u64;
            return first + elements * layouts.elem_words(base, stride) as u64;
        }
        return fitting(module, layouts, ty, first, bytes);
    }
    let all = layouts.get(ty).mem_words as u64;
    let size = module.types[ty].inner.size(module.to_ctx()) as u64;
    if bytes >= size {
        return all;
    }
    fitting(module, layouts, ty, all, bytes)
}

/// How many of the first `hi` leaves of `ty` end within `bytes` bytes.
fn fitting(module: &Module, layouts: &Layouts, ty: Handle<Type>, hi: u64, bytes: u64) -> u64 {
    let (mut lo, mut hi) = (0u64, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if place(module, layouts, ty, mid).end() <= bytes {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Whether `ty` holds an f16 leaf.
pub fn holds_f16(module: &Module, ty: Handle<Type>) -> bool {
    match module.types[ty].inner {
        TypeInner::Scalar(s)
        | TypeInner::Vector { scalar: s, .. }
        | TypeInner::Matrix { scalar: s, .. } => s.kind == naga::ScalarKind::Float && s.width == 2,
        TypeInner::Array { base, .. } => holds_f16(module, base),
        TypeInner::Struct { ref members, .. } => members.iter().any(|m| holds_f16(module, m.ty)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module of `src` (with `enable f16;`), its layouts and the type of global `name`.
    fn setup(src: &str) -> (Module, Layouts) {
        let module = naga::front::wgsl::parse_str(&format!("enable f16;\n{src}")).unwrap();
        let layouts = Layouts::new(&module).unwrap();
        (module, layouts)
    }

    fn ty_of(module: &Module, name: &str) -> Handle<Type> {
        module
            .global_variables
            .iter()
            .find(|(_, g)| g.name.as_deref() == Some(name))
            .unwrap()
            .1
            .ty
    }

    /// The (byte, half) of every data leaf of the first `n` leaves.
    fn data(src: &str, n: u64) -> Vec<(u64, bool)> {
        let (m, l) = setup(src);
        let ty = ty_of(&m, "v");
        (0..n)
            .map(|i| place(&m, &l, ty, i))
            .filter(|p| p.data)
            .map(|p| (p.byte, p.half))
            .collect()
    }

    #[test]
    fn leaves_sit_at_their_wgsl_offsets() {
        // array<f16>: stride 2
        assert_eq!(
            data("@group(0) @binding(0) var<storage> v: array<f16>;", 3),
            [(0, true), (2, true), (4, true)]
        );
        // vec3<f16> in an array: stride 8, the fourth half padding
        assert_eq!(
            data("@group(0) @binding(0) var<storage> v: array<vec3<f16>>;", 6),
            [
                (0, true),
                (2, true),
                (4, true),
                (8, true),
                (10, true),
                (12, true)
            ]
        );
        // a struct's f16 at offset 2, its f32 at 4, vec4<f16> at 8
        assert_eq!(
            data(
                "struct S { a: f16, b: f16, c: f32, d: vec4<f16> }\n\
                 @group(0) @binding(0) var<storage> v: S;",
                7
            ),
            [
                (0, true),
                (2, true),
                (4, false),
                (8, true),
                (10, true),
                (12, true),
                (14, true)
            ]
        );
        // mat3x3<f16>: columns of 8 bytes, the fourth half of each padding
        assert_eq!(
            data("@group(0) @binding(0) var<storage> v: mat3x3<f16>;", 8),
            [
                (0, true),
                (2, true),
                (4, true),
                (8, true),
                (10, true),
                (12, true)
            ]
        );
        // a u32 array inside a struct with an f16: its words by their stride
        assert_eq!(
            data(
                "struct S { h: f16, a: array<vec3<u32>, 2> }\n\
                 @group(0) @binding(0) var<storage> v: S;",
                9
            ),
            [
                (0, true),
                (16, false),
                (20, false),
                (24, false),
                (32, false),
                (36, false),
                (40, false)
            ]
        );
    }

    #[test]
    fn a_range_holds_the_leaves_that_fit() {
        let (m, l) = setup(
            "struct T { n: f16, data: array<f16> }\n\
             @group(0) @binding(0) var<storage> v: T;\n\
             @group(0) @binding(1) var<storage> w: array<vec3<f16>>;\n\
             struct S { a: f16, b: f32, c: vec4<f16> }\n\
             @group(0) @binding(2) var<storage> s: S;",
        );
        // 12 bytes: n, then 5 elements of data
        assert_eq!(leaves(&m, &l, ty_of(&m, "v"), 12), 6);
        // 20 bytes of vec3<f16>: 2 whole elements of 3 leaves
        assert_eq!(leaves(&m, &l, ty_of(&m, "w"), 20), 6);
        // S is 16 bytes: a (0..2), b (4..8), c (8..16, 2 bytes a leaf)
        let s = ty_of(&m, "s");
        assert_eq!(leaves(&m, &l, s, 16), 6);
        assert_eq!(leaves(&m, &l, s, 12), 4);
        assert_eq!(leaves(&m, &l, s, 10), 3);
        assert_eq!(leaves(&m, &l, s, 8), 2);
        assert_eq!(leaves(&m, &l, s, 4), 1);
    }
}
