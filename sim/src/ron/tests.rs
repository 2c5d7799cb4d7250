//! The RON reader against what wgpu's trace writes, and what it refuses.

use super::*;

/// Parses `text` as one value, nothing but trivia after it.
fn parse(text: &str) -> std::result::Result<Value, ParseError> {
    let mut r = Reader::new(text);
    let v = r.value()?;
    if !r.at_end()? {
        return Err(r.error("text after the value"));
    }
    Ok(v)
}

#[test]
fn reads_what_ron_writes() {
    let v = parse(
        r##"CreateBuffer(PointerId(94708330638912), (
label: Some("src \"x\"\n"),
size: 400,
usage: "COPY_DST | STORAGE",
mapped_at_creation: false,
ratio: -1.5e3,
list: [1, 0x10, (2, 3),],
map: {"SCALE": 3.0, "N": inf},
unit: Uniform,
ch: 'x',
raw: r#"a"b"#,
/* a /* nested */ comment */ last: r#true, // end
))"##,
    )
    .unwrap();
    assert_eq!(v.name(), Some("CreateBuffer"));
    assert_eq!(
        v.at(0).unwrap().at(0).unwrap().as_u64(),
        Some(94708330638912)
    );
    let d = v.at(1).unwrap();
    assert_eq!(
        d.get("label").unwrap().some().unwrap().as_str(),
        Some("src \"x\"\n")
    );
    assert_eq!(d.get("size").unwrap().as_u64(), Some(400));
    assert_eq!(d.get("mapped_at_creation").unwrap().as_bool(), Some(false));
    assert_eq!(d.get("ratio").unwrap().as_f64(), Some(-1500.0));
    assert_eq!(d.get("list").unwrap().at(1).unwrap().as_u64(), Some(16));
    assert_eq!(d.get("unit").unwrap().name(), Some("Uniform"));
    assert_eq!(d.get("ch"), Some(&Value::Char('x')));
    assert_eq!(d.get("raw").unwrap().as_str(), Some("a\"b"));
    assert_eq!(d.get("last").unwrap().name(), Some("true"));
    let Value::Map(m) = d.get("map").unwrap() else {
        panic!()
    };
    assert_eq!(m[1].1.as_f64(), Some(f64::INFINITY));
}

/// Malformed text is an error with its position, never a panic; deep nesting stops at
/// the limit.
#[test]
fn malformed_text_is_an_error() {
    for text in [
        "",
        "(",
        "[1,",
        "(a: )",
        "\"abc",
        "r#\"abc",
        "'ab'",
        "/* open",
        "1 2",
        "{1}",
        "(a: 1 b: 2)",
        "99999999999999999999999999999999999999999",
        "\"\\q\"",
        "\"\\u{110000}\"",
        "@",
        "-",
        "0x",
        "1e",
        "b\"",
        "'",
        "'\\",
        "r#",
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    let deep = "[".repeat(100_000);
    let e = parse(&deep).unwrap_err();
    assert!(e.message.contains("nested deeper"), "{e}");
    let e = parse("(\n  a: 1,\n  b: ?)").unwrap_err();
    assert_eq!((e.line, e.col), (3, 6));
}
