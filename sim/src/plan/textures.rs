//! A plan's textures checked against its kernels ([`Plan::validate`](super::Plan::validate)):
//! a texture declaration's shape and contents, and each binding's kind (a texture to a texture
//! variable, whole; a buffer to any other).

use super::{Binding, BufferDecl, BufferInit, Pass};
use crate::error::{Error, Result};
use crate::texture::TextureDesc;

/// An [`Error::Plan`] for a texture declaration whose shape is out of range or whose contents
/// do not cover its texels exactly.
pub(super) fn check_decl(b: &BufferDecl, desc: &TextureDesc) -> Result<()> {
    desc.check()
        .map_err(|e| Error::Plan(format!("texture {}: {e}", b.label)))?;
    let bytes = desc.words() * 4;
    let given = match &b.init {
        BufferInit::Bytes(data) => Some(data.len() as u64),
        _ => None,
    };
    if b.size != bytes || b.slots > 1 || given.is_some_and(|g| g != bytes) {
        return Err(Error::Plan(format!(
            "texture {}: {} bytes of texels given; a {} {} texture of {} holds {bytes} ({} \
             channel word(s) a texel)",
            b.label,
            given.unwrap_or(b.size),
            desc.format,
            desc.dim.name(),
            desc.size_text(),
            desc.format.channels()
        )));
    }
    Ok(())
}

/// An [`Error::Plan`] where `binding` of `pass` binds a texture to a buffer variable, a buffer
/// to a texture variable, or part of a texture.
pub(super) fn check_binding(pass: &Pass, binding: &Binding, decl: &BufferDecl) -> Result<()> {
    let module = &pass.kernel.module;
    let texture_var = module.global_variables.iter().any(|(_, g)| {
        g.binding
            .as_ref()
            .is_some_and(|r| (r.group, r.binding) == (binding.group, binding.binding))
            && matches!(module.types[g.ty].inner, naga::TypeInner::Image { .. })
    });
    let why = match (texture_var, decl.texture.is_some()) {
        (false, true) => format!(
            "`{}` is not a texture variable; {} is a texture",
            binding.name, decl.label
        ),
        (true, false) => format!(
            "`{}` is a texture variable; {} is a buffer (Plan::texture declares textures)",
            binding.name, decl.label
        ),
        (true, true) if binding.offset != 0 || binding.size.is_some() => format!(
            "`{}` binds part of texture {}; a texture is bound whole",
            binding.name, decl.label
        ),
        _ => return Ok(()),
    };
    Err(Error::Plan(format!("pass {}: {why}", pass.label)))
}
