//! Textures on the simulator: texel formats, a texture's shape, and how texels are held.
//!
//! Rules:
//! - **A texture is a plan buffer of texels** ([`Plan::texture`](crate::plan::Plan::texture)):
//!   texel `(x, y, z)` of a `W×H×D` texture is `channels` consecutive words from word
//!   `((z·H + y)·W + x)·channels`, each channel in its *shader-visible* type (f32 bits for
//!   float, unorm and snorm formats, u32 for uint, i32 for sint), already converted to what the
//!   format can hold. So the race, initialization and bounds checkers see texel words as they
//!   see buffer words, and a dump prints what `textureLoad` returns.
//! - **Conversion** ([`TexelFormat::encode`]) happens where a value enters a texel: the host's
//!   contents when the texture is declared, a `textureStore`. unorm and snorm channels are
//!   clamped to [0, 1] or [−1, 1] and rounded to the nearest of their 2^8 or 2^16 steps (NaN
//!   becomes 0); f16 channels are rounded to the nearest f16; 8- and 16-bit integer channels
//!   are clamped to their range; 32-bit channels are kept.
//! - **Reading** ([`TexelFormat::decode`]) fills the channels a format lacks as WGSL says:
//!   green and blue 0, alpha 1.
//! - **Only level 0** of a texture exists (one mip level, no array layers, one sample).
//! - **Sizes** follow WebGPU's default limits: at most 8192 texels a side in 1D and 2D, 2048
//!   in 3D, and at most [`MAX_WORDS`] words in all ([`TextureDesc::check`]).

use crate::error::{Error, Result};
use crate::ops::{f16_to_f32, f32_to_f16};

/// Most words a texture's texels may take: 2^30 (4 GiB), as a binding's elements.
pub const MAX_WORDS: u64 = 1 << 30;

/// How one channel is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Channel {
    Unorm8,
    Snorm8,
    Uint8,
    Sint8,
    Unorm16,
    Snorm16,
    Uint16,
    Sint16,
    Float16,
    Uint32,
    Sint32,
    Float32,
}

/// The type a shader sees a texel's channels as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleType {
    /// f32 (float, unorm and snorm formats).
    Float,
    /// i32.
    Sint,
    /// u32.
    Uint,
}

impl SampleType {
    /// The WGSL scalar's name.
    pub fn name(self) -> &'static str {
        match self {
            SampleType::Float => "f32",
            SampleType::Sint => "i32",
            SampleType::Uint => "u32",
        }
    }
}

impl Channel {
    fn sample(self) -> SampleType {
        use Channel::*;
        match self {
            Uint8 | Uint16 | Uint32 => SampleType::Uint,
            Sint8 | Sint16 | Sint32 => SampleType::Sint,
            _ => SampleType::Float,
        }
    }

    /// The word a shader-visible value `v` becomes in this channel.
    fn encode(self, v: u32) -> u32 {
        let f = f32::from_bits(v);
        let norm = |lo: f32, steps: f32| {
            if f.is_nan() {
                return 0f32.to_bits();
            }
            // (`+ 0.0`: a code of 0 reads back as +0, whatever the sign of what rounded to it)
            let code = (f.clamp(lo, 1.0) * steps).round() + 0.0;
            (code / steps).max(-1.0).to_bits()
        };
        let int = |lo: i64, hi: i64| (v as i32 as i64).clamp(lo, hi) as i32 as u32;
        match self {
            Channel::Unorm8 => norm(0.0, 255.0),
            Channel::Snorm8 => norm(-1.0, 127.0),
            Channel::Unorm16 => norm(0.0, 65535.0),
            Channel::Snorm16 => norm(-1.0, 32767.0),
            Channel::Uint8 => v.min(0xff),
            Channel::Uint16 => v.min(0xffff),
            Channel::Sint8 => int(-128, 127),
            Channel::Sint16 => int(-32768, 32767),
            Channel::Float16 => f16_to_f32(f32_to_f16(f)).to_bits(),
            Channel::Uint32 | Channel::Sint32 | Channel::Float32 => v,
        }
    }

    /// A random value this channel holds exactly, from 64 random bits `r`: any code of a
    /// normalized or integer channel, a float in [−1, 1) (rounded to f16 for f16).
    fn random(self, r: u64) -> u32 {
        let unit = ((r >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0;
        match self {
            Channel::Unorm8 => ((r & 0xff) as f32 / 255.0).to_bits(),
            Channel::Snorm8 => self.encode(((r as u8 as i8) as f32 / 127.0).to_bits()),
            Channel::Unorm16 => ((r & 0xffff) as f32 / 65535.0).to_bits(),
            Channel::Snorm16 => self.encode(((r as u16 as i16) as f32 / 32767.0).to_bits()),
            Channel::Uint8 => r as u32 & 0xff,
            Channel::Uint16 => r as u32 & 0xffff,
            Channel::Sint8 => r as u8 as i8 as i32 as u32,
            Channel::Sint16 => r as u16 as i16 as i32 as u32,
            Channel::Uint32 | Channel::Sint32 => r as u32,
            Channel::Float16 | Channel::Float32 => self.encode(unit.to_bits()),
        }
    }
}

/// A texel format the simulator holds: WGSL's storage texel formats (`rgba8unorm`,
/// `rgba8snorm`, `rgba8uint`, `rgba8sint`, `rgba16uint`, `rgba16sint`, `rgba16float`,
/// `r32uint`, `r32sint`, `r32float`, `rg32uint`, `rg32sint`, `rg32float`, `rgba32uint`,
/// `rgba32sint`, `rgba32float`, `bgra8unorm`) and the other one-, two- and four-channel
/// formats of 8, 16 and 32 bits naga takes (`r8unorm`, `rg16float`, `r16float`, `rgba16unorm`,
/// ...); not the packed ones (`rgb10a2unorm`, `rg11b10ufloat`) nor `r64uint`. A sampled
/// texture (`texture_2d<f32>`) takes any format of its sample type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexelFormat {
    storage: naga::StorageFormat,
    name: &'static str,
    channels: u8,
    channel: Channel,
}

macro_rules! formats {
    ($($v:ident $name:literal $ch:literal $c:ident),* $(,)?) => {
        /// Every format held, by WGSL name.
        const FORMATS: &[TexelFormat] = &[$(TexelFormat {
            storage: naga::StorageFormat::$v,
            name: $name,
            channels: $ch,
            channel: Channel::$c,
        }),*];
    };
}

formats![
    R8Unorm "r8unorm" 1 Unorm8, R8Snorm "r8snorm" 1 Snorm8, R8Uint "r8uint" 1 Uint8,
    R8Sint "r8sint" 1 Sint8, R16Uint "r16uint" 1 Uint16, R16Sint "r16sint" 1 Sint16,
    R16Float "r16float" 1 Float16, R16Unorm "r16unorm" 1 Unorm16, R16Snorm "r16snorm" 1 Snorm16,
    R32Uint "r32uint" 1 Uint32, R32Sint "r32sint" 1 Sint32, R32Float "r32float" 1 Float32,
    Rg8Unorm "rg8unorm" 2 Unorm8, Rg8Snorm "rg8snorm" 2 Snorm8, Rg8Uint "rg8uint" 2 Uint8,
    Rg8Sint "rg8sint" 2 Sint8, Rg16Uint "rg16uint" 2 Uint16, Rg16Sint "rg16sint" 2 Sint16,
    Rg16Float "rg16float" 2 Float16, Rg16Unorm "rg16unorm" 2 Unorm16,
    Rg16Snorm "rg16snorm" 2 Snorm16, Rg32Uint "rg32uint" 2 Uint32, Rg32Sint "rg32sint" 2 Sint32,
    Rg32Float "rg32float" 2 Float32, Rgba8Unorm "rgba8unorm" 4 Unorm8,
    Rgba8Snorm "rgba8snorm" 4 Snorm8, Rgba8Uint "rgba8uint" 4 Uint8,
    Rgba8Sint "rgba8sint" 4 Sint8, Bgra8Unorm "bgra8unorm" 4 Unorm8,
    Rgba16Uint "rgba16uint" 4 Uint16, Rgba16Sint "rgba16sint" 4 Sint16,
    Rgba16Float "rgba16float" 4 Float16, Rgba16Unorm "rgba16unorm" 4 Unorm16,
    Rgba16Snorm "rgba16snorm" 4 Snorm16, Rgba32Uint "rgba32uint" 4 Uint32,
    Rgba32Sint "rgba32sint" 4 Sint32, Rgba32Float "rgba32float" 4 Float32,
];

impl TexelFormat {
    /// The format WGSL names `name` (`rgba8unorm`), if the simulator holds it.
    pub fn from_name(name: &str) -> Option<TexelFormat> {
        FORMATS.iter().find(|f| f.name == name.trim()).copied()
    }

    /// The format WGSL names `name`, or a message naming every format held.
    pub fn parse(name: &str) -> std::result::Result<TexelFormat, String> {
        TexelFormat::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = TexelFormat::names().collect();
            format!(
                "unknown texel format {name:?} (formats: {})",
                names.join(", ")
            )
        })
    }

    /// The format of a storage texture's declaration, if the simulator holds it.
    pub fn from_storage(storage: naga::StorageFormat) -> Option<TexelFormat> {
        FORMATS.iter().find(|f| f.storage == storage).copied()
    }

    /// Every format held, by WGSL name.
    pub fn names() -> impl Iterator<Item = &'static str> {
        FORMATS.iter().map(|f| f.name)
    }

    /// Its WGSL name.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// Channels a texel holds (1, 2 or 4), each one word in the simulator.
    pub fn channels(self) -> u32 {
        self.channels as u32
    }

    /// The type a shader reads and writes its channels as.
    pub fn sample_type(self) -> SampleType {
        self.channel.sample()
    }

    /// The word a shader-visible channel value (f32 bits, u32 or i32) becomes in a texel of
    /// this format (see the module's rules).
    pub fn encode(self, v: u32) -> u32 {
        self.channel.encode(v)
    }

    /// What `textureLoad` returns for a texel of this format holding `texel` (its channels'
    /// words): the four channels, those the format lacks filled with 0, 0, 1.
    pub fn decode(self, texel: &[u32]) -> [u32; 4] {
        let one = match self.sample_type() {
            SampleType::Float => 1f32.to_bits(),
            _ => 1,
        };
        let mut out = [0, 0, 0, one];
        for (o, &w) in out.iter_mut().zip(texel).take(self.channels as usize) {
            *o = w;
        }
        out
    }
}

impl std::fmt::Display for TexelFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A texture's dimensionality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureDim {
    /// `texture_1d`, `texture_storage_1d`.
    D1,
    /// `texture_2d`, `texture_storage_2d`.
    D2,
    /// `texture_3d`, `texture_storage_3d`.
    D3,
}

impl TextureDim {
    /// `1d`, `2d` or `3d`.
    pub fn name(self) -> &'static str {
        match self {
            TextureDim::D1 => "1d",
            TextureDim::D2 => "2d",
            TextureDim::D3 => "3d",
        }
    }

    /// Coordinates a texel is addressed by.
    pub fn coordinates(self) -> usize {
        match self {
            TextureDim::D1 => 1,
            TextureDim::D2 => 2,
            TextureDim::D3 => 3,
        }
    }
}

/// What a texture of a plan is: its format, dimensionality and size in texels (`[W, 1, 1]`
/// for 1D, `[W, H, 1]` for 2D). One mip level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureDesc {
    /// Texel format.
    pub format: TexelFormat,
    /// 1D, 2D or 3D.
    pub dim: TextureDim,
    /// Width, height, depth in texels.
    pub size: [u32; 3],
}

impl TextureDesc {
    /// A 1D texture of `w` texels.
    pub fn d1(format: TexelFormat, w: u32) -> TextureDesc {
        TextureDesc {
            format,
            dim: TextureDim::D1,
            size: [w, 1, 1],
        }
    }

    /// A 2D texture of `w × h` texels.
    pub fn d2(format: TexelFormat, w: u32, h: u32) -> TextureDesc {
        TextureDesc {
            format,
            dim: TextureDim::D2,
            size: [w, h, 1],
        }
    }

    /// A 3D texture of `w × h × d` texels.
    pub fn d3(format: TexelFormat, w: u32, h: u32, d: u32) -> TextureDesc {
        TextureDesc {
            format,
            dim: TextureDim::D3,
            size: [w, h, d],
        }
    }

    /// `W`, `WxH` or `WxHxD` (a 1D, 2D or 3D texture) of `format`; the error says what is
    /// wrong.
    pub fn parse(format: TexelFormat, size: &str) -> std::result::Result<TextureDesc, String> {
        let sides: Option<Vec<u32>> = size.split('x').map(|s| s.trim().parse().ok()).collect();
        let desc = match sides.as_deref() {
            Some(&[w]) => TextureDesc::d1(format, w),
            Some(&[w, h]) => TextureDesc::d2(format, w, h),
            Some(&[w, h, d]) => TextureDesc::d3(format, w, h, d),
            _ => return Err(format!("size {size:?} is not W, WxH or WxHxD")),
        };
        desc.check().map_err(|e| e.to_string())?;
        Ok(desc)
    }

    /// Texels.
    pub fn texels(&self) -> u64 {
        self.size.iter().map(|&s| s as u64).product()
    }

    /// Words the texels take (texels × channels).
    pub fn words(&self) -> u64 {
        self.texels() * self.format.channels() as u64
    }

    /// The size as written: `W`, `WxH` or `WxHxD`.
    pub fn size_text(&self) -> String {
        let [w, h, d] = self.size;
        match self.dim {
            TextureDim::D1 => format!("{w}"),
            TextureDim::D2 => format!("{w}x{h}"),
            TextureDim::D3 => format!("{w}x{h}x{d}"),
        }
    }

    /// An [`Error::InvalidInput`] for a side of 0, past WebGPU's default limits (8192 in 1D
    /// and 2D, 2048 in 3D), or sides a dimensionality does not have; an [`Error::TooLarge`]
    /// past [`MAX_WORDS`].
    pub fn check(&self) -> Result<()> {
        let (limit, sides) = match self.dim {
            TextureDim::D1 => (8192, 1),
            TextureDim::D2 => (8192, 2),
            TextureDim::D3 => (2048, 3),
        };
        let bad = self.size[..sides].iter().any(|&s| s == 0 || s > limit)
            || self.size[sides..].iter().any(|&s| s != 1);
        if !bad && self.words() > MAX_WORDS {
            return Err(Error::TooLarge(format!(
                "a {} {} texture of {}: {} words of texels; the simulator holds at most                  {MAX_WORDS}",
                self.format,
                self.dim.name(),
                self.size_text(),
                self.words()
            )));
        }
        if bad {
            return Err(Error::InvalidInput(format!(
                "a {} texture of {:?} texels: each side must be 1 to {limit}{}",
                self.dim.name(),
                self.size,
                if sides < 3 {
                    " (and the sides it lacks 1)"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }

    /// `n` random channel values the format holds exactly (any code of a normalized or
    /// integer channel; floats in [−1, 1)), from `seed`.
    pub fn random_words(&self, n: usize, seed: u64) -> Vec<u32> {
        let mut rng = crate::rng::SplitMix::new(seed);
        (0..n)
            .map(|_| self.format.channel.random(rng.next_u64()))
            .collect()
    }
}

/// A texture variable an entry point uses, as the module declares it.
#[derive(Clone, Debug)]
pub struct ReflectedTexture {
    /// `@group(G)`.
    pub group: u32,
    /// `@binding(N)`.
    pub binding: u32,
    /// The WGSL variable name.
    pub name: String,
    /// Its dimensionality, `None` for cube textures.
    pub dim: Option<TextureDim>,
    /// An array of layers.
    pub arrayed: bool,
    /// naga's class: sampled, storage (format and access), depth, external.
    pub class: naga::ImageClass,
}

impl ReflectedTexture {
    /// The texture variables of `module` whose uses `uses` (naga's per-global usage for one
    /// entry point) are not empty, by group, then binding.
    pub(crate) fn of_entry(
        module: &naga::Module,
        uses: &naga::valid::FunctionInfo,
    ) -> Vec<ReflectedTexture> {
        let mut out: Vec<ReflectedTexture> = module
            .global_variables
            .iter()
            .filter(|(h, _)| !uses[*h].is_empty())
            .filter_map(|(_, g)| {
                let rb = g.binding.as_ref()?;
                let naga::TypeInner::Image {
                    dim,
                    arrayed,
                    class,
                } = module.types[g.ty].inner
                else {
                    return None;
                };
                Some(ReflectedTexture {
                    group: rb.group,
                    binding: rb.binding,
                    name: g.name.clone().unwrap_or_default(),
                    dim: match dim {
                        naga::ImageDimension::D1 => Some(TextureDim::D1),
                        naga::ImageDimension::D2 => Some(TextureDim::D2),
                        naga::ImageDimension::D3 => Some(TextureDim::D3),
                        naga::ImageDimension::Cube => None,
                    },
                    arrayed,
                    class,
                })
            })
            .collect();
        out.sort_by_key(|t| (t.group, t.binding));
        out
    }

    /// Whether the shader may write it (a storage texture with `write` or `read_write`).
    pub fn writes(&self) -> bool {
        class_writes(self.class)
    }

    /// The type as WGSL writes it (`texture_2d<f32>`, `texture_storage_2d<rgba8unorm, write>`).
    pub fn wgsl_type(&self) -> String {
        let dim = self.dim.map_or("cube", |d| d.name());
        let array = if self.arrayed { "_array" } else { "" };
        match self.class {
            naga::ImageClass::Sampled { kind, multi } => {
                let ms = if multi { "multisampled_" } else { "" };
                let t = match kind {
                    naga::ScalarKind::Sint => "i32",
                    naga::ScalarKind::Uint => "u32",
                    _ => "f32",
                };
                format!("texture_{ms}{dim}{array}<{t}>")
            }
            naga::ImageClass::Storage { format, access } => {
                let name = TexelFormat::from_storage(format).map_or("?", |f| f.name);
                let access = match (
                    access.contains(naga::StorageAccess::LOAD),
                    access.contains(naga::StorageAccess::STORE),
                ) {
                    (true, true) => "read_write",
                    (true, false) => "read",
                    _ => "write",
                };
                format!("texture_storage_{dim}{array}<{name}, {access}>")
            }
            naga::ImageClass::Depth { .. } => format!("texture_depth_{dim}{array}"),
            naga::ImageClass::External => "texture_external".into(),
        }
    }

    /// Whether a texture of `desc` may be bound to it; the error says why not.
    pub fn accepts(&self, desc: &TextureDesc) -> std::result::Result<(), String> {
        let ty = self.wgsl_type();
        let unsupported = |what: &str| {
            Err(format!(
                "`{}` is {what}, which the simulator does not run",
                self.name
            ))
        };
        let Some(dim) = self.dim else {
            return unsupported(&format!("a cube texture ({ty})"));
        };
        if self.arrayed {
            return unsupported(&format!("a texture array ({ty})"));
        }
        let format = desc.format;
        match self.class {
            naga::ImageClass::Sampled { multi: true, .. } => {
                return unsupported(&format!("multisampled ({ty})"))
            }
            naga::ImageClass::Depth { .. } => {
                return unsupported(&format!("a depth texture ({ty})"))
            }
            naga::ImageClass::External => return unsupported("an external texture"),
            naga::ImageClass::Storage {
                format: declared, ..
            } => {
                if TexelFormat::from_storage(declared) != Some(format) {
                    return Err(format!(
                        "`{}` is a {ty}; the texture bound is {format}",
                        self.name
                    ));
                }
            }
            naga::ImageClass::Sampled { kind, .. } => {
                let want = match kind {
                    naga::ScalarKind::Sint => SampleType::Sint,
                    naga::ScalarKind::Uint => SampleType::Uint,
                    _ => SampleType::Float,
                };
                if format.sample_type() != want {
                    return Err(format!(
                        "`{}` is a {ty}; the texture bound is {format}, whose texels are read \
                         as {}",
                        self.name,
                        format.sample_type().name()
                    ));
                }
            }
        }
        if dim != desc.dim {
            return Err(format!(
                "`{}` is a {ty}; the texture bound is {} ({})",
                self.name,
                desc.dim.name(),
                desc.size_text()
            ));
        }
        Ok(())
    }
}

/// Whether a texture of `class` may be written (a storage texture with `write` or `read_write`).
pub(crate) fn class_writes(class: naga::ImageClass) -> bool {
    matches!(class, naga::ImageClass::Storage { access, .. }
        if access.contains(naga::StorageAccess::STORE))
}
