// include-only
// Parts of the input combined in order by the operator (shared/operator): a part is (begins a
// segment, holds a value, its value, the segment of its last beginning). A beginning starts the
// value over, so a segmented scan over parts gives each segment's `op` over its elements in
// input order; without beginnings it is a plain ordered scan. A part may hold no value (an
// invocation past the count), so no identity is needed.
//!include shared/operator

struct Part {
    head: u32,
    some: u32,
    value: u32,
    run: u32,
}

fn op_words(a: u32, b: u32) -> u32 {
    return bitcast<u32>(op(bitcast<T>(a), bitcast<T>(b)));
}

fn no_part() -> Part {
    return Part(0u, 0u, 0u, 0u);
}

// `a` then `b`: a beginning in `b` starts over.
fn then(a: Part, b: Part) -> Part {
    if b.head != 0u {
        return b;
    }
    if b.some == 0u {
        return a;
    }
    if a.some == 0u {
        return Part(a.head, 1u, b.value, a.run);
    }
    return Part(a.head, 1u, op_words(a.value, b.value), a.run);
}

// `value` added after `a` (no beginning).
fn then_value(a: Part, value: u32) -> Part {
    return then(a, Part(0u, 1u, value, 0u));
}

var<workgroup> parts_head: array<u32, WG_SIZE>;
var<workgroup> parts_some: array<u32, WG_SIZE>;
var<workgroup> parts_value: array<u32, WG_SIZE>;
var<workgroup> parts_run: array<u32, WG_SIZE>;

fn load_part(i: u32) -> Part {
    return Part(parts_head[i], parts_some[i], parts_value[i], parts_run[i]);
}

fn store_part(i: u32, p: Part) {
    parts_head[i] = p.head;
    parts_some[i] = p.some;
    parts_value[i] = p.value;
    parts_run[i] = p.run;
}

// Every invocation's part combined in order after `carry`: returns what comes before the
// invocation's own part (its exclusive prefix) and sets `parts_total` to the combination of all
// (the next carry). Called in workgroup-uniform control flow.
var<private> parts_total: Part;

fn combine_parts(lid: u32, carry: Part, own: Part) -> Part {
    store_part(lid, own);
    // inclusive scan of the parts (Hillis-Steele)
    for (var d = 1u; d < WG_SIZE; d <<= 1u) {
        workgroupBarrier();  // the last step's writes are complete
        var mine = load_part(lid);
        if lid >= d {
            mine = then(load_part(lid - d), mine);
        }
        workgroupBarrier();  // every read of this step is complete
        store_part(lid, mine);
    }
    workgroupBarrier();  // the scan is complete
    parts_total = then(carry, load_part(WG_SIZE - 1u));
    var before = carry;
    if lid > 0u {
        before = then(carry, load_part(lid - 1u));
    }
    workgroupBarrier();  // every read is complete before the arrays are written again
    return before;
}
