//! Accesses through halves bindings (`crate::halves`: a storage or uniform binding whose type
//! holds f16): each leaf of the word-per-leaf layout read from or written to its WGSL place, an
//! f16 as two bytes of its buffer word, and the access events of bindings with their parts.

use super::*;
use crate::halves::place;
use crate::ops::{f16_to_f32, f32_to_f16};

/// The buffer word (absolute) and part (0 whole, 1 low half, 2 high half) of leaf `a`
/// (counted from the binding's start) of halves binding `b` of type `ty`.
#[inline]
pub(super) fn leaf_at(prog: &Program, b: &Bound, ty: Handle<naga::Type>, a: u32) -> (usize, u8) {
    let (w, part) = place(prog.module(), &prog.layouts, ty, a as u64).word_part();
    (b.base + w as usize, part)
}

/// The register word of the leaf at word `w`, part `part`: the word, or the f32 bits of the
/// f16 in the half.
#[inline]
pub(super) fn read_leaf(buf: &[u32], w: usize, part: u8) -> u32 {
    match part {
        1 => f16_to_f32(buf[w] as u16).to_bits(),
        2 => f16_to_f32((buf[w] >> 16) as u16).to_bits(),
        _ => buf[w],
    }
}

/// Stores register word `v` into the leaf at word `w`, part `part` (an f16 half: the f16 of
/// the f32 bits `v`, which hold an f16 value, the other half kept); whether the word changed.
#[inline]
pub(super) fn write_leaf(buf: &mut [u32], w: usize, part: u8, v: u32) -> bool {
    let new = match part {
        1 => buf[w] & 0xffff_0000 | f32_to_f16(f32::from_bits(v)) as u32,
        2 => buf[w] & 0x0000_ffff | (f32_to_f16(f32::from_bits(v)) as u32) << 16,
        _ => v,
    };
    let changed = buf[w] != new;
    buf[w] = new;
    changed
}

impl<'a, 'h> Interp<'a, 'h> {
    /// Reports the access gathered in `scratch` (and `parts`) through binding `b`: a split
    /// binding's whole words as their two halves.
    pub(super) fn emit_bound(
        &mut self,
        b: &Bound,
        space: Space,
        kind: AccessKind,
        atomic: bool,
        span: Span,
    ) {
        if b.split {
            let words = std::mem::take(&mut self.scratch);
            let parts = std::mem::take(&mut self.parts);
            for (i, &(l, a)) in words.iter().enumerate() {
                match parts.get(i).copied().unwrap_or(0) {
                    0 => {
                        self.scratch.extend([(l, a), (l, a)]);
                        self.parts.extend([1, 2]);
                    }
                    p => {
                        self.scratch.push((l, a));
                        self.parts.push(p);
                    }
                }
            }
        }
        self.emit_access(space, b.buffer, kind, atomic, span);
    }

    /// Loads the leaves `map` of the value at each active lane's offset in `offs` (checked;
    /// `BAD` loads 0) through halves binding `b` of type `ty` into registers from `dr`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn load_halves(
        &mut self,
        fi: usize,
        offs: &[u32],
        map: &[u32],
        dr: usize,
        (b, ty): (&Bound, Handle<naga::Type>),
        track: bool,
        active: &Mask,
    ) {
        let (n, prog) = (self.n, self.prog);
        let key = (b.buffer as u64 + 1) << 32;
        let buf = &self.buffers[b.buffer];
        let regs = &mut self.regs[fi];
        let (scratch, parts, spin) = (&mut self.scratch, &mut self.parts, &mut self.spin);
        active.for_each(|l| {
            let o = offs[l];
            for (w, &mw) in map.iter().enumerate() {
                regs[dr + w * n + l] = if o == BAD {
                    0
                } else {
                    let (a, part) = leaf_at(prog, b, ty, o + mw);
                    scratch.push((l as u32, a as u32));
                    parts.push(part);
                    if track {
                        spin.read(key | a as u64, buf[a]);
                    }
                    read_leaf(buf, a, part)
                };
            }
        });
    }

    /// Stores the leaves `map` of the value in registers from `vr` at each active lane's
    /// offset in `offs` (checked; `BAD` stores nothing) through halves binding `b` of type
    /// `ty`; whether a word changed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_halves(
        &mut self,
        fi: usize,
        offs: &[u32],
        map: &[u32],
        vr: usize,
        (b, ty): (&Bound, Handle<naga::Type>),
        active: &Mask,
    ) -> bool {
        let (n, prog) = (self.n, self.prog);
        let buf = &mut self.buffers[b.buffer];
        let regs = &self.regs[fi];
        let (scratch, parts) = (&mut self.scratch, &mut self.parts);
        let mut changed = false;
        active.for_each(|l| {
            let o = offs[l];
            if o != BAD {
                for (w, &mw) in map.iter().enumerate() {
                    let (a, part) = leaf_at(prog, b, ty, o + mw);
                    scratch.push((l as u32, a as u32));
                    parts.push(part);
                    changed |= write_leaf(buf, a, part, regs[vr + w * n + l]);
                }
            }
        });
        changed
    }
}
