fn main() {
    let k = wgsimd::kernel::load("gemm/coop8", wgsimd::kernel::Flavor::Subgroup).unwrap();
    let m = &k.module;
    for (h, f) in m.functions.iter() {
        if f.name.as_deref() == Some("store_c") || f.name.as_deref() == Some("store_staged") {
            println!("{:?} {:#?}", h, f.expressions);
            println!("{:#?}", f.body);
        }
    }
}
