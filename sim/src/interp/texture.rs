//! Texture operations of the interpreter: `textureLoad`, `textureStore`, `textureDimensions`
//! and `textureNumLevels` on a texture bound as a range of texel words ([`crate::texture`]:
//! `channels` words a texel, row after row, in the shader-visible type).
//!
//! Rules:
//! - A coordinate past its side, a negative one, or a mip level other than 0 (a texture has
//!   one level) is reported as out of bounds, once per lane: a load there gives 0 in every
//!   channel (one of the results WGSL allows), a store writes nothing (WGSL: no texel
//!   changes), `textureDimensions` at such a level gives 0.
//! - Texel words go through the access events as buffer words do (the race, initialization
//!   and spin tracking see them); a store converts the value to the format first.

use super::*;
use crate::texture::TextureDesc;

/// The pointer root of the texture global `g`: its binding. Samplers are not simulated.
pub(super) fn root(prog: &Program, g: Handle<naga::GlobalVariable>) -> Result<Root> {
    let var = &prog.module().global_variables[g];
    match prog.module().types[var.ty].inner {
        TypeInner::Image { .. } => Ok(Root::Binding(g.index() as u32)),
        _ => Err(Error::Sim(format!(
            "the simulator does not support samplers (global `{}`)",
            var.name.as_deref().unwrap_or("?")
        ))),
    }
}

/// Which coordinate, for messages.
const AXES: [&str; 3] = ["x", "y", "z"];

impl<'a, 'h> Interp<'a, 'h> {
    /// The texture `image` names: its global's index, bound range and shape.
    fn texture(&self, fi: usize, image: Handle<Expression>) -> Result<(usize, Bound, TextureDesc)> {
        let Root::Binding(g) = self.roots[fi][image.index()] else {
            return Err(Error::Sim("a texture operation on no texture".into()));
        };
        let b = self.bound[g as usize]
            .ok_or_else(|| Error::Sim("a texture operation on an unbound texture".into()))?;
        let desc = b
            .texture
            .ok_or_else(|| Error::Sim("a texture variable bound to a buffer".into()))?;
        Ok((g as usize, b, desc))
    }

    /// The texture variable's name, for messages.
    fn texture_name(&self, g: usize) -> &str {
        let m = self.prog.module();
        m.global_variables
            .iter()
            .nth(g)
            .and_then(|(_, v)| v.name.as_deref())
            .unwrap_or("?")
    }

    /// Lane `l`'s value of the scalar or vector component `c` of `h`: `None` where it is a
    /// negative i32.
    fn lane_index(&self, fi: usize, h: Handle<Expression>, c: usize, l: usize) -> Option<u64> {
        let m = self.prog.funcs[fi].exprs[h.index()];
        let v = self.regs[fi][(m.reg as usize + c) * self.n + l];
        (m.kind != Kind::I32 || (v as i32) >= 0).then_some(v as u64)
    }

    /// Whether lane `l`'s `level` is 0; reports it as out of bounds where it is not.
    fn level_ok(
        &mut self,
        fi: usize,
        g: usize,
        level: Option<Handle<Expression>>,
        l: usize,
        span: Span,
    ) -> bool {
        let Some(level) = level else { return true };
        match self.lane_index(fi, level, 0, l) {
            Some(0) => true,
            v => {
                let what = format!("the mip levels of texture `{}`", self.texture_name(g));
                self.oob(l, v.unwrap_or(u64::MAX), 1, &what, span);
                false
            }
        }
    }

    /// Each active lane's first word of its texel (from the range's start), or `BAD` where the
    /// coordinates or level are out of range (reported).
    #[allow(clippy::too_many_arguments)]
    fn texel_offsets(
        &mut self,
        fi: usize,
        (g, b, desc): (usize, Bound, TextureDesc),
        coordinate: Handle<Expression>,
        level: Option<Handle<Expression>>,
        span: Span,
        active: &Mask,
    ) -> Vec<u32> {
        let mut offs = vec![BAD; self.n];
        let ch = desc.format.channels() as u64;
        let mut lanes = Vec::new();
        active.for_each(|l| lanes.push(l));
        for l in lanes {
            let mut at = 0u64;
            let mut ok = true;
            for c in (0..desc.dim.coordinates()).rev() {
                let side = desc.size[c] as u64;
                match self.lane_index(fi, coordinate, c, l) {
                    Some(v) if v < side => at = at * side + v,
                    v => {
                        let what = format!(
                            "the {} coordinates of texture `{}`",
                            AXES[c],
                            self.texture_name(g)
                        );
                        self.oob(l, v.unwrap_or(u64::MAX), side, &what, span);
                        ok = false;
                        break;
                    }
                }
            }
            if !ok || !self.level_ok(fi, g, level, l, span) {
                continue;
            }
            // (a caller's range shorter than the texture: its texels past the range's end)
            if (at + 1) * ch > b.len as u64 {
                self.oob(
                    l,
                    (at + 1) * ch - 1,
                    b.len as u64,
                    "binding range (words)",
                    span,
                );
                continue;
            }
            offs[l] = (at * ch) as u32;
        }
        offs
    }

    /// `textureLoad`: the texel's four channels, 0 where the coordinates are out of range.
    pub(super) fn image_load(
        &mut self,
        fi: usize,
        h: Handle<Expression>,
        [image, coordinate]: [Handle<Expression>; 2],
        [array_index, sample, level]: [Option<Handle<Expression>>; 3],
        span: Span,
        active: &Mask,
    ) -> Result<()> {
        if array_index.is_some() || sample.is_some() {
            return Err(Error::Sim(
                "texture arrays and multisampled textures are not simulated".into(),
            ));
        }
        let tex = self.texture(fi, image)?;
        let (_, b, desc) = tex;
        let offs = self.texel_offsets(fi, tex, coordinate, level, span, active);
        let n = self.n;
        let ch = desc.format.channels() as usize;
        let dm = self.prog.funcs[fi].exprs[h.index()];
        let dr = dm.reg as usize * n;
        let words = (dm.words as usize).min(4);
        let track = self.tracking() && !b.read_only;
        let key = (b.buffer as u64 + 1) << 32;
        let buf = &self.buffers[b.buffer];
        let regs = &mut self.regs[fi];
        let scratch = &mut self.scratch;
        let spin = &mut self.spin;
        active.for_each(|l| {
            let o = offs[l];
            let texel = if o == BAD {
                [0; 4]
            } else {
                let first = b.base + o as usize;
                for a in first..first + ch {
                    scratch.push((l as u32, a as u32));
                    if track {
                        spin.read(key | a as u64, buf[a]);
                    }
                }
                desc.format.decode(&buf[first..first + ch])
            };
            for (w, &v) in texel.iter().enumerate().take(words) {
                regs[dr + w * n + l] = v;
            }
        });
        self.emit_access(Space::Storage, b.buffer, AccessKind::Load, false, span);
        Ok(())
    }

    /// `textureStore`: the value converted to the format, written where the coordinates are
    /// in range.
    pub(super) fn image_store(
        &mut self,
        fi: usize,
        [image, coordinate, value]: [Handle<Expression>; 3],
        array_index: Option<Handle<Expression>>,
        span: Span,
        active: &Mask,
    ) -> Result<()> {
        if array_index.is_some() {
            return Err(Error::Sim("texture arrays are not simulated".into()));
        }
        let tex = self.texture(fi, image)?;
        let (_, b, desc) = tex;
        let offs = self.texel_offsets(fi, tex, coordinate, None, span, active);
        let n = self.n;
        let ch = desc.format.channels() as usize;
        let vr = self.prog.funcs[fi].exprs[value.index()].reg as usize * n;
        let buf = &mut self.buffers[b.buffer];
        let regs = &self.regs[fi];
        let scratch = &mut self.scratch;
        let mut changed = false;
        active.for_each(|l| {
            let o = offs[l];
            if o != BAD {
                for c in 0..ch {
                    let a = b.base + o as usize + c;
                    let v = desc.format.encode(regs[vr + c * n + l]);
                    scratch.push((l as u32, a as u32));
                    changed |= buf[a] != v;
                    buf[a] = v;
                }
            }
        });
        if self.tracking() && changed {
            self.spin.wrote();
        }
        self.emit_access(Space::Storage, b.buffer, AccessKind::Store, false, span);
        Ok(())
    }

    /// `textureDimensions` (the size at level 0; 0 at a level out of range) and
    /// `textureNumLevels` (1).
    pub(super) fn image_query(
        &mut self,
        fi: usize,
        h: Handle<Expression>,
        image: Handle<Expression>,
        query: naga::ImageQuery,
        span: Span,
        active: &Mask,
    ) -> Result<()> {
        let (g, _, desc) = self.texture(fi, image)?;
        let n = self.n;
        let dm = self.prog.funcs[fi].exprs[h.index()];
        let dr = dm.reg as usize * n;
        let words = dm.words as usize;
        let level = match query {
            naga::ImageQuery::Size { level } => level,
            naga::ImageQuery::NumLevels => None,
            naga::ImageQuery::NumLayers | naga::ImageQuery::NumSamples => {
                return Err(Error::Sim(
                    "texture arrays and multisampled textures are not simulated".into(),
                ))
            }
        };
        let mut lanes = Vec::new();
        active.for_each(|l| lanes.push(l));
        for l in lanes {
            let ok = self.level_ok(fi, g, level, l, span);
            for w in 0..words {
                let v = match query {
                    naga::ImageQuery::NumLevels => 1,
                    _ if ok => desc.size[w.min(2)],
                    _ => 0,
                };
                self.regs[fi][dr + w * n + l] = v;
            }
        }
        Ok(())
    }
}
