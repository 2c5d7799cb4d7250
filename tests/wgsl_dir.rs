//! `WGSIMD_WGSL_DIR` (development: kernel variants measured with one build): files under that
//! folder replace the embedded ones of the same path, everything else stays embedded, and a
//! broken replacement is a typed shader error. A test binary of its own, because the folder is
//! read once per process.
use wgsimd::error::Error;
use wgsimd::kernel::{self, Flavor};
use wgsimd::sort::{self, Strategy};

#[test]
fn a_wgsl_dir_replaces_only_the_files_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("wgsl");
    // OneSweep's keys stage with 20 keys per invocation instead of 32 (staged whole)
    let stage = std::fs::read_to_string(repo.join("sort/onesweep.wgsl")).unwrap();
    let kpt = "const KPT: u32 = 32u;";
    let stage_kpt = "const STAGE_KPT: u32 = 22u;";
    assert!(
        stage.contains(stage_kpt),
        "the stage's STAGE_KPT line moved"
    );
    assert!(stage.contains(kpt), "the stage's KPT line moved");
    std::fs::create_dir_all(dir.path().join("sort")).unwrap();
    std::fs::write(
        dir.path().join("sort/onesweep.wgsl"),
        stage
            .replace(kpt, "const KPT: u32 = 20u;")
            .replace(stage_kpt, "const STAGE_KPT: u32 = 20u;"),
    )
    .unwrap();
    // a stage that no longer parses
    std::fs::create_dir_all(dir.path().join("util")).unwrap();
    std::fs::write(dir.path().join("util/copy.wgsl"), "fn main(\n").unwrap();
    // before any kernel is loaded: the folder is read once per process
    std::env::set_var("WGSIMD_WGSL_DIR", dir.path());

    assert_eq!(
        sort::tile_keys(Strategy::OneSweep, false).unwrap(),
        256 * 20
    );
    // not in the folder: embedded
    assert_eq!(sort::tile_keys(Strategy::OneSweep, true).unwrap(), 8192);
    assert_eq!(
        sort::tile_keys(Strategy::ReduceThenScan, false).unwrap(),
        3072
    );
    let broken = kernel::load("util/copy", Flavor::Subgroup).unwrap_err();
    assert!(matches!(broken, Error::Shader { .. }), "{broken}");
}
