//! `wgsimd kernels --out DIR`: every shipped stage as one composed WGSL file, for reading,
//! porting or feeding the exact kernels to other tools.
//!
//! Each stage of `wgsimd::kernel::composed_stages` goes to `DIR/ALGORITHM/STAGE.wgsl` (the
//! subgroup flavour, or the one text where both flavours compose alike) and, where the
//! workgroup-memory flavour differs, `DIR/ALGORITHM/STAGE.portable.wgsl`: includes resolved,
//! overrides left as `override` declarations with their WGSL defaults, a header comment saying
//! which. Each file is written atomically (a temporary file beside it, renamed over it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;

/// Arguments of `wgsimd kernels`.
#[derive(clap::Args, Debug)]
pub struct KernelsArgs {
    /// Folder to write into (made if missing; files of the same names are replaced).
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs the command: writes the files and prints how many, and where.
pub fn run(args: &KernelsArgs) -> anyhow::Result<ExitCode> {
    let stages = wgsimd::kernel::composed_stages()?;
    for stage in &stages {
        write(&args.out.join(&stage.path), &stage.text())?;
    }
    println!(
        "wrote {} kernel files to {}",
        stages.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes `text` to `path` atomically, making its folder first.
fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path.parent().expect("a file under the output folder");
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        // what a new file gets (the umask applies), not the temporary file's 0600
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    tmp.write_all(text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
