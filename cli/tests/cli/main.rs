//! The `wgsimd` binary as users and scripts meet it: results in files and on the last stdout
//! line, one-line errors with a non-zero exit code, no panics. Behaviour tests run on the
//! simulator (`--backend sim`); the few that also need a GPU ask the binary for one and are
//! skipped without it (failed under `WGSIMD_REQUIRE_GPU=1`). One test binary for every command.

mod bench;
mod check;
mod check_f16;
mod common;
mod gemm;
mod histogram;
mod hostile;
mod pipeline;
mod reduce;
mod replay;
mod runs;
mod scan;
mod select;
mod sort;
mod textures;
mod topk;
