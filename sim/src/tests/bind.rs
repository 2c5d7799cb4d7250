//! `--bind` specs: sizes are checked before anything is allocated, and no input panics.

use super::request;
use crate::check::{check, BindSpec, ElemType, InitSpec, MAX_ELEMENTS};
use crate::error::Error;

fn parse(s: &str) -> Result<BindSpec, String> {
    s.parse::<BindSpec>().map_err(|e| e.to_string())
}

#[test]
fn a_count_past_the_maximum_is_an_error_not_an_allocation() {
    // 2^62 elements: 2^64 bytes, which once overflowed a capacity computation
    let e = parse("0=u32:random:4611686018427387904").unwrap_err();
    assert!(
        e.contains("more than the 1073741824 a binding may have"),
        "{e}"
    );
    // a count whose byte size wraps to 16 (2^62 + 4 elements) once made a 16-byte buffer
    for init in ["zeros", "uninit", "iota", "random"] {
        let e = parse(&format!("1=f32:{init}:4611686018427387908")).unwrap_err();
        assert!(e.contains("a binding may have"), "{init}: {e}");
    }
    let e = parse(&format!("0=u32:zeros:{}", MAX_ELEMENTS + 1)).unwrap_err();
    assert!(e.contains("a binding may have"), "{e}");
    let e = parse("0=u32:zeros:99999999999999999999999").unwrap_err();
    assert!(e.contains("count is not a number"), "{e}");
    // the largest count parses (nothing is allocated by parsing)
    let b = parse(&format!("0=u32:zeros:{MAX_ELEMENTS}")).unwrap();
    assert_eq!(b.init, InitSpec::Zeros(MAX_ELEMENTS as usize));
}

#[test]
fn a_binding_larger_than_the_device_is_refused_before_it_is_made() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() { out[0] = 1u; }";
    // within the parser's maximum, past the simulated H100's 2 GiB buffers: an error, and
    // quickly (the random contents are never generated)
    let mut req = request(src, 32, None, [1, 1, 1], &[]);
    req.binds = vec![parse(&format!("0=u32:random:{MAX_ELEMENTS}")).unwrap()];
    let start = std::time::Instant::now();
    match check(&req) {
        Err(Error::TooLarge(m)) => assert!(m.contains("largest buffer"), "{m}"),
        other => panic!("expected TooLarge, got {:?}", other.map(|r| r.findings)),
    }
    assert!(start.elapsed().as_secs() < 5);
    // a spec built by hand with any count is checked too
    req.binds = vec![BindSpec {
        group: 0,
        binding: 0,
        ty: ElemType::U32,
        init: InitSpec::Zeros(usize::MAX / 2),
        texture: None,
    }];
    assert!(matches!(check(&req), Err(Error::TooLarge(_))));
}

#[test]
fn malformed_specs_are_errors() {
    for s in [
        "",
        "=",
        "0",
        "0=",
        "0=u32",
        "0=u32:",
        "0=u32:zeros",
        "0=u32:zeros:",
        "0=u32:zeros:-1",
        "0=u32:zeros:0",
        "0=u32:[",
        "0=u32:[]",
        "0=u32:[1,x]",
        "0=u64:zeros:4",
        "-1=u32:zeros:4",
        "0=u32:bogus:4",
        "0=i32:[2147483648]",
        "0=u32:[4294967296]",
        "0=u32:zeros:4:5",
    ] {
        let e = parse(s).expect_err(s);
        assert!(e.starts_with("invalid input: --bind"), "{s:?}: {e}");
    }
    assert_eq!(
        parse("3 = f32 : [1.5, -2, inf]").unwrap().init,
        InitSpec::Values(vec![
            1.5f32.to_bits(),
            (-2.0f32).to_bits(),
            f32::INFINITY.to_bits()
        ])
    );
}
