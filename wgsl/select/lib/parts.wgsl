// include-only
// Parts of the input combined in order by the operator (shared/operator): a part is (begins a
// segment, holds a value, its value, how many segments begin in it). A beginning starts the
// value over, so a segmented scan over parts gives each segment's `op` over its elements in
// input order; without beginnings it is a plain ordered scan. A part may hold no value (an
// invocation past the count), so no identity is needed.
//!include shared/operator

struct Part {
    head: u32,
    some: u32,
    value: u32,
    heads: u32,
}

fn op_words(a: u32, b: u32) -> u32 {
    return bitcast<u32>(op(bitcast<T>(a), bitcast<T>(b)));
}

fn no_part() -> Part {
    return Part(0u, 0u, 0u, 0u);
}

// `a` then `b`: a beginning in `b` starts over.
fn then(a: Part, b: Part) -> Part {
    let heads = a.heads + b.heads;
    if b.head != 0u {
        return Part(1u, b.some, b.value, heads);
    }
    if b.some == 0u {
        return Part(a.head, a.some, a.value, heads);
    }
    if a.some == 0u {
        return Part(a.head, 1u, b.value, heads);
    }
    return Part(a.head, 1u, op_words(a.value, b.value), heads);
}

// `value` added after `a` (no beginning).
fn then_value(a: Part, value: u32) -> Part {
    return then(a, Part(0u, 1u, value, 0u));
}

// Storage for parts in workgroup memory, by slot.
var<workgroup> parts_head: array<u32, WG_SIZE>;
var<workgroup> parts_some: array<u32, WG_SIZE>;
var<workgroup> parts_value: array<u32, WG_SIZE>;
var<workgroup> parts_begun: array<u32, WG_SIZE>;

fn load_part(i: u32) -> Part {
    return Part(parts_head[i], parts_some[i], parts_value[i], parts_begun[i]);
}

fn store_part(i: u32, p: Part) {
    parts_head[i] = p.head;
    parts_some[i] = p.some;
    parts_value[i] = p.value;
    parts_begun[i] = p.heads;
}

// What `combine_parts` (select/lib/combine: by subgroups, or without them) sets to the
// combination of every part after the carry.
var<private> parts_total: Part;

//!include select/lib/combine
