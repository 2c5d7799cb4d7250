//! Embeds every file under `wgsl/` into the library (see `src/kernel.rs`), so kernels are
//! composed from the same text on every platform and no list of files is kept by hand.

use std::{env, fs, path::Path};

fn collect(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read wgsl dir")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            collect(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "wgsl") {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push(rel);
        }
    }
}

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("wgsl");
    println!("cargo:rerun-if-changed=wgsl");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut src = String::from("/// Every WGSL file under `wgsl/`, by path relative to it.\npub static WGSL_FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed=wgsl/{f}");
        let abs = root.join(f);
        src.push_str(&format!(
            "    ({f:?}, include_str!({:?})),\n",
            abs.to_string_lossy()
        ));
    }
    src.push_str("];\n");
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("wgsl_files.rs"),
        src,
    )
    .unwrap();
}
