// include-only
// The predicate of a selection by value: `keep(x)` for each element, of type Element. A selection
// with a predicate of the caller's (src/select.rs) composes the marks stage with the caller's
// text in place of this file, after its own `alias Element = ...;`; this default keeps the
// nonzero words.

alias Element = u32;

fn keep(x: Element) -> bool {
    return x != 0u;
}
