//! The contents the tools give a kernel's buffers, as the command line spells them: an element
//! type ([`ElemType`]: four bytes an element, or two for f16, packed two to a word low half
//! first, so an even count of them: a buffer is whole 4-byte words, as WebGPU binds storage)
//! and what the buffer starts as ([`InitSpec`]: zeros, seeded random
//! values, 0, 1, 2, ..., host-uninitialized, a list, or a file of raw little-endian words), of
//! at most [`MAX_ELEMENTS`] elements; a texture's contents in the type of its channels
//! ([`InitSpec::texture_contents`], [`parse_texture_init`]); and how a binding `[G:]I` is spelt
//! ([`parse_slot`], [`slot_name`]). `check`, `pipeline` and `replay` share them.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::ops::{f16_to_f32, f32_to_f16};
use crate::plan::BufferInit;
use crate::texture::{SampleType, TexelFormat, TextureDesc};

/// Element type of a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// u32.
    U32,
    /// i32.
    I32,
    /// f32.
    F32,
    /// f16: two bytes an element.
    F16,
}

impl ElemType {
    /// An element of this type as text (an f16's bits in the low 16 bits).
    pub fn format(self, w: u32) -> String {
        match self {
            ElemType::U32 => w.to_string(),
            ElemType::I32 => (w as i32).to_string(),
            ElemType::F32 => f32::from_bits(w).to_string(),
            ElemType::F16 => f16_to_f32(w as u16).to_string(),
        }
    }

    /// The value of an element of a float type (`None` for an integer type).
    pub fn float(self, w: u32) -> Option<f32> {
        match self {
            ElemType::F32 => Some(f32::from_bits(w)),
            ElemType::F16 => Some(f16_to_f32(w as u16)),
            _ => None,
        }
    }

    /// Its WGSL name.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::U32 => "u32",
            ElemType::I32 => "i32",
            ElemType::F32 => "f32",
            ElemType::F16 => "f16",
        }
    }

    /// Bytes an element takes: 2 for f16, else 4.
    pub fn bytes(self) -> u64 {
        match self {
            ElemType::F16 => 2,
            _ => 4,
        }
    }

    /// The elements buffer words hold: a word each, or two f16 each (low half first, its bits
    /// in the low 16 bits of the element).
    pub fn elements_of(self, words: &[u32]) -> Vec<u32> {
        match self {
            ElemType::F16 => words.iter().flat_map(|&w| [w & 0xffff, w >> 16]).collect(),
            _ => words.to_vec(),
        }
    }

    /// The bytes of `elements`, padded with zeros to a whole number of words.
    pub fn bytes_of(self, elements: &[u32]) -> Vec<u8> {
        let mut bytes: Vec<u8> = match self {
            ElemType::F16 => elements
                .iter()
                .flat_map(|&e| (e as u16).to_le_bytes())
                .collect(),
            _ => bytemuck::cast_slice(elements).to_vec(),
        };
        bytes.resize(bytes.len().next_multiple_of(4), 0);
        bytes
    }

    /// The bytes of a buffer of `n` elements (a whole number of words).
    pub fn size_of(self, n: u64) -> Option<u64> {
        n.checked_mul(self.bytes()).map(|b| b.next_multiple_of(4))
    }

    /// Why `n` elements do not make whole words (an odd count of f16), if they do not.
    pub fn odd(self, n: u64) -> Option<String> {
        (self == ElemType::F16 && n % 2 == 1).then(|| {
            format!(
                "{n} f16 elements: they come two to a 4-byte word, so a buffer holds an even                  count"
            )
        })
    }

    /// The type of a texture's channel words: by the format's sample type.
    pub fn of_texels(format: TexelFormat) -> ElemType {
        match format.sample_type() {
            SampleType::Float => ElemType::F32,
            SampleType::Sint => ElemType::I32,
            SampleType::Uint => ElemType::U32,
        }
    }

    /// The word of a value written as text (`1.5`, `-3`, `inf`), if it is one of this type.
    pub fn parse_value(self, s: &str) -> Option<u32> {
        let s = s.trim();
        match self {
            ElemType::U32 => s.parse::<u32>().ok(),
            ElemType::I32 => s.parse::<i32>().ok().map(|v| v as u32),
            ElemType::F32 => s.parse::<f32>().ok().map(f32::to_bits),
            ElemType::F16 => s.parse::<f32>().ok().map(|v| f32_to_f16(v) as u32),
        }
    }
}

impl std::str::FromStr for ElemType {
    type Err = Error;
    /// `u32`, `i32`, `f32` or `f16`.
    fn from_str(s: &str) -> Result<ElemType> {
        match s.trim() {
            "u32" => Ok(ElemType::U32),
            "i32" => Ok(ElemType::I32),
            "f32" => Ok(ElemType::F32),
            "f16" => Ok(ElemType::F16),
            other => Err(Error::InvalidInput(format!(
                "unknown element type {other:?} (u32, i32, f32 or f16)"
            ))),
        }
    }
}

/// Initial contents of a binding.
#[derive(Clone, Debug, PartialEq)]
pub enum InitSpec {
    /// N zeros.
    Zeros(usize),
    /// N seeded random values.
    Random(usize),
    /// 0, 1, ..., N-1.
    Iota(usize),
    /// N host-uninitialized elements.
    Uninit(usize),
    /// These elements (an f16's bits in the low 16 bits of each).
    Values(Vec<u32>),
    /// The raw little-endian contents of a file: whole 4-byte words (two f16 each), read when
    /// the check runs.
    File(PathBuf),
}

/// Most elements a binding may have: 2^30, 4 GiB of 32-bit ones. The device simulated may
/// allow less ([`crate::check`] says so before making the contents).
pub const MAX_ELEMENTS: u64 = 1 << 30;

impl InitSpec {
    /// Parses `INIT` (`zeros:N`, `random:N`, `iota:N`, `uninit:N`, `[v,...]` or `file:PATH`)
    /// for elements of `ty`; the error says what is wrong.
    pub fn parse(ty: ElemType, init: &str) -> std::result::Result<InitSpec, String> {
        let init = init.trim();
        if let Some(path) = init.strip_prefix("file:") {
            if path.is_empty() {
                return Err("no file name after `file:`".into());
            }
            return Ok(InitSpec::File(PathBuf::from(path)));
        }
        let spec = if let Some(list) = init.strip_prefix('[') {
            let list = list.strip_suffix(']').ok_or("unclosed `[`")?;
            let vals: Option<Vec<u32>> = list
                .split(',')
                .filter(|v| !v.trim().is_empty())
                .map(|v| ty.parse_value(v))
                .collect();
            let vals = vals.ok_or("a value does not parse as TYPE")?;
            if vals.len() as u64 > MAX_ELEMENTS {
                return Err("more values than a binding may have".into());
            }
            InitSpec::Values(vals)
        } else {
            let (k, n) = init.split_once(':').ok_or("no count")?;
            let n: u64 = n.trim().parse().map_err(|_| "count is not a number")?;
            if n > MAX_ELEMENTS {
                return Err(format!(
                    "{n} elements is more than the {MAX_ELEMENTS} a binding may have"
                ));
            }
            let n = n as usize;
            match k {
                "zeros" => InitSpec::Zeros(n),
                "random" => InitSpec::Random(n),
                "iota" => InitSpec::Iota(n),
                "uninit" => InitSpec::Uninit(n),
                _ => return Err("unknown INIT".into()),
            }
        };
        if spec.elements() == Some(0) {
            return Err("a binding needs at least one element".into());
        }
        if let Some(why) = spec.elements().and_then(|n| ty.odd(n as u64)) {
            return Err(why);
        }
        Ok(spec)
    }

    /// Elements; `None` for a file, whose size is known when it is read.
    pub fn elements(&self) -> Option<usize> {
        match self {
            InitSpec::Values(v) => Some(v.len()),
            InitSpec::Zeros(n) | InitSpec::Random(n) | InitSpec::Iota(n) | InitSpec::Uninit(n) => {
                Some(*n)
            }
            InitSpec::File(_) => None,
        }
    }

    /// The buffer's size in bytes and its initial contents, for elements of `ty` (random
    /// values from `seed`), after checking the size against `max_bytes` (the simulated
    /// device's largest buffer) before anything is allocated or read. `what` names the buffer
    /// in errors.
    pub fn contents(
        &self,
        ty: ElemType,
        seed: u64,
        max_bytes: u64,
        what: &str,
    ) -> Result<(u64, BufferInit)> {
        if let InitSpec::File(path) = self {
            let words = read_raw(path, max_bytes.min(MAX_ELEMENTS * 4), what)?;
            let bytes = bytemuck::cast_slice::<u32, u8>(&words).to_vec();
            return Ok((bytes.len() as u64, BufferInit::Bytes(bytes)));
        }
        let n = self.elements().unwrap_or(0);
        if let Some(why) = ty.odd(n as u64) {
            return Err(Error::InvalidInput(format!("{what}: {why}")));
        }
        let bytes = ty
            .size_of(n as u64)
            .filter(|&b| b > 0 && b <= max_bytes)
            .ok_or_else(|| {
                if n == 0 {
                    return Error::InvalidInput(format!("{what}: no elements"));
                }
                Error::TooLarge(format!(
                    "{what}: {n} elements; the simulated device's largest buffer is {max_bytes} \
                     bytes"
                ))
            })?;
        let mut rng = super::rng::SplitMix::new(seed);
        let init = match self {
            InitSpec::Zeros(_) => BufferInit::Zeroed,
            InitSpec::Uninit(_) => BufferInit::Poison,
            InitSpec::Iota(n) => {
                let v: Vec<u32> = (0..*n as u32)
                    .map(|i| match ty {
                        ElemType::F32 => (i as f32).to_bits(),
                        ElemType::F16 => f32_to_f16(i as f32) as u32,
                        _ => i,
                    })
                    .collect();
                BufferInit::Bytes(ty.bytes_of(&v))
            }
            InitSpec::Random(n) => {
                let v: Vec<u32> = (0..*n)
                    .map(|_| match ty {
                        ElemType::F32 => rng.next_f32_signed().to_bits(),
                        ElemType::F16 => f32_to_f16(rng.next_f32_signed()) as u32,
                        _ => rng.next_u32(),
                    })
                    .collect();
                BufferInit::Bytes(ty.bytes_of(&v))
            }
            InitSpec::Values(v) => BufferInit::Bytes(ty.bytes_of(v)),
            InitSpec::File(_) => unreachable!("read above"),
        };
        Ok((bytes, init))
    }
}

impl InitSpec {
    /// [`InitSpec::contents`] of a texture of `desc`: exactly its channel words, in the type
    /// of its channels; `random` gives values the format holds exactly
    /// ([`TextureDesc::random_words`]). An error names both sizes where the contents do not
    /// cover the texels.
    pub fn texture_contents(
        &self,
        desc: &TextureDesc,
        seed: u64,
        max_bytes: u64,
        what: &str,
    ) -> Result<(u64, BufferInit)> {
        desc.check()
            .map_err(|e| Error::InvalidInput(format!("{what}: {e}")))?;
        let want = desc.words();
        let mismatch = |n: u64| {
            Error::InvalidInput(format!(
                "{what}: {n} texel words given; a {} {} texture of {} holds {want} ({} a texel)",
                desc.format,
                desc.dim.name(),
                desc.size_text(),
                desc.format.channels()
            ))
        };
        if let Some(n) = self.elements().filter(|&n| n as u64 != want) {
            return Err(mismatch(n as u64));
        }
        if let InitSpec::Random(n) = self {
            if want * 4 > max_bytes {
                return Err(Error::TooLarge(format!(
                    "{what}: {want} texel words; the simulated device's largest buffer is \
                     {max_bytes} bytes"
                )));
            }
            let words = desc.random_words(*n, seed);
            return Ok((
                want * 4,
                BufferInit::Bytes(bytemuck::cast_slice(&words).to_vec()),
            ));
        }
        let (bytes, init) =
            self.contents(ElemType::of_texels(desc.format), seed, max_bytes, what)?;
        if bytes != want * 4 {
            return Err(mismatch(bytes / 4));
        }
        Ok((bytes, init))
    }
}

/// A texture's `INIT` for its `words` channel words: what [`InitSpec::parse`] takes, or
/// `zeros`, `random`, `iota` or `uninit` without a count (the texture's).
pub fn parse_texture_init(
    ty: ElemType,
    init: &str,
    words: u64,
) -> std::result::Result<InitSpec, String> {
    let init = init.trim();
    if matches!(init, "zeros" | "random" | "iota" | "uninit") {
        return InitSpec::parse(ty, &format!("{init}:{words}"));
    }
    InitSpec::parse(ty, init)
}

/// The words of a raw file of little-endian 4-byte elements, its size checked (a whole number
/// of elements, at least one, at most `max_bytes`) before it is read.
pub fn read_raw(path: &Path, max_bytes: u64, what: &str) -> Result<Vec<u32>> {
    let shown = path.display();
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
    {
        return Err(Error::InvalidInput(format!(
            "{what}: {shown} is a .npy file; the library reads raw little-endian words (wgsimd \
             check reads .npy)"
        )));
    }
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::InvalidInput(format!("{what}: {shown}: {e}")))?;
    if !meta.is_file() {
        return Err(Error::InvalidInput(format!(
            "{what}: {shown} is not a file"
        )));
    }
    let len = meta.len();
    if len == 0 || len % 4 != 0 {
        return Err(Error::InvalidInput(format!(
            "{what}: {shown} holds {len} bytes, not a whole number (at least one) of 4-byte \
             elements"
        )));
    }
    if len > max_bytes {
        return Err(Error::TooLarge(format!(
            "{what}: {shown} holds {len} bytes; the simulated device's largest buffer is \
             {max_bytes} bytes"
        )));
    }
    let bytes =
        std::fs::read(path).map_err(|e| Error::InvalidInput(format!("{what}: {shown}: {e}")))?;
    if bytes.len() as u64 != len {
        return Err(Error::InvalidInput(format!(
            "{what}: {shown} changed size while it was read"
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// `TYPE:INIT` (a binding's contents after its slot, or immediate data): the element type and
/// [`InitSpec::parse`] of the rest; the error says what is wrong.
pub fn parse_typed_init(s: &str) -> std::result::Result<(ElemType, InitSpec), String> {
    let (ty, init) = s.split_once(':').ok_or("no `:`")?;
    let ty: ElemType = ty.parse().map_err(|_| "unknown type".to_string())?;
    Ok((ty, InitSpec::parse(ty, init)?))
}

/// `I` (group 0) or `G:I`.
pub fn parse_slot(s: &str) -> Option<(u32, u32)> {
    let num = |t: &str| t.trim().parse::<u32>().ok();
    match s.split_once(':') {
        Some((g, i)) => Some((num(g)?, num(i)?)),
        None => Some((0, num(s)?)),
    }
}

/// `I` for group 0, else `G:I`: how bindings are named in messages and dumps.
pub fn slot_name(group: u32, binding: u32) -> String {
    if group == 0 {
        binding.to_string()
    } else {
        format!("{group}:{binding}")
    }
}
