// include-only
// Top-k by radix select (src/topk/select.rs): the keys, the rounds and the grids, which every
// stage of it shares (the prepare stage included).
//
// - Keys: element i of a row with value bits x has the 64-bit key (to_sortable(x),
//   COLS - 1 - i): the sort's order-preserving image of the value (shared/order), complemented
//   (DESCENDING) for the smallest. The k largest keys are the answer: the k largest (smallest) values, ties to the lower index.
//   Keys are unique in a row, so the k-th largest key is one element and exactly k keys reach it.
// - Rounds: round j fixes one 8-bit digit of the k-th largest key, from the top: rounds 0-3 the
//   value's (hi), rounds 4.. the index's (lo, LO_DIGITS bytes, enough for COLS - 1). A round
//   counts the digit of the candidates (the keys that agree with the digits fixed so far), and
//   topk/lib/select's `choose` finds the digit whose bucket holds the needed-th largest
//   candidate: the count above it is < needed <= the count up to it. When that bucket is all
//   needed (or it is the last round) the row is done: the answer is every key whose fixed
//   digits reach the prefix.
// - The head of the control block (shared/count) holds the run's rows.

//!include shared/count
//!include shared/order

override MAX_ROWS: u32 = 0xffffffffu;
override COLS: u32 = 1u;
override K: u32 = 1u;
// bytes of COLS - 1 (0 for rows of one)
override LO_DIGITS: u32 = 0u;
// the wide stages: elements per workgroup per step, and about how many workgroups in all
override CHUNK: u32 = 2048u;
override WIDE_WORKGROUPS: u32 = 2048u;
override MAX_DIM: u32 = 65535u;

const RADIX: u32 = 256u;

// This run's rows: the head's count word, clamped (shared/count).
fn run_rows(head: vec4<u32>) -> u32 {
    return run_count_of(head.x, head[COUNT_LIMIT], MAX_ROWS);
}

// Workgroups of the stages with one per row (the row stage strides past MAX_DIM rows).
fn rows_grid(rows: u32) -> u32 {
    return clamp(rows, 1u, MAX_DIM);
}

// Steps of CHUNK elements in a row.
fn chunks_of_row() -> u32 {
    return (COLS + CHUNK - 1u) / CHUNK;
}

// The wide stages' grid over elements: about WIDE_WORKGROUPS in all, at least one a row and at
// most one a chunk; never fewer for more rows (a GPU count's limit's grid covers its count's).
// Workgroup g takes row g % r (part_of) and strides over its chunks.
fn chunks_grid(rows: u32) -> u32 {
    let r = rows_grid(rows);
    return min(min(max(WIDE_WORKGROUPS, r), r * chunks_of_row()), MAX_DIM);
}

// Workgroup g of `groups` over `rows` rows: (row, first chunk, chunk stride).
fn part_of(g: u32, groups: u32, rows: u32) -> vec3<u32> {
    let r = rows_grid(rows);
    let row = g % r;
    return vec3<u32>(row, g / r, (groups - row + r - 1u) / r);
}

// The low key word of index i (lower indices larger), and back.
fn lo_of(i: u32) -> u32 {
    return COLS - 1u - i;
}

// Whether key (h, l) is above key (h2, l2).
fn key_above(h: u32, l: u32, h2: u32, l2: u32) -> bool {
    return h > h2 || (h == h2 && l > l2);
}

// A row's selection: the digits fixed so far (prefix under mask, hi and lo words), how many of
// the candidates are still to be taken, and whether it is done.
struct Sel {
    prefix: vec2<u32>,
    mask: vec2<u32>,
    needed: u32,
    done: u32,
}

fn fresh_sel() -> Sel {
    return Sel(vec2<u32>(0u), vec2<u32>(0u), K, 0u);
}

fn rounds() -> u32 {
    return 4u + LO_DIGITS;
}

// Round j's digit of key (h, l): the word and the shift.
fn digit_shift(j: u32) -> u32 {
    return select(8u * (LO_DIGITS + 3u - j), 24u - 8u * j, j < 4u);
}

fn digit_of(j: u32, h: u32, l: u32) -> u32 {
    return (select(l, h, j < 4u) >> digit_shift(j)) & 0xffu;
}

fn is_candidate(s: Sel, h: u32, l: u32) -> bool {
    return (h & s.mask.x) == s.prefix.x && (l & s.mask.y) == s.prefix.y;
}

// Whether key (h, l) is in a done row's answer: its fixed digits reach the prefix.
fn is_selected(s: Sel, h: u32, l: u32) -> bool {
    let top = h & s.mask.x;
    return top > s.prefix.x || (top == s.prefix.x && (l & s.mask.y) >= s.prefix.y);
}

// s after round j picked `pick` (choose's result).
fn narrow(s: Sel, j: u32, pick: vec4<u32>) -> Sel {
    var t = s;
    let sh = digit_shift(j);
    if j < 4u {
        t.prefix.x |= pick.x << sh;
        t.mask.x |= 0xffu << sh;
    } else {
        t.prefix.y |= pick.x << sh;
        t.mask.y |= 0xffu << sh;
    }
    t.needed = pick.y;
    t.done = select(pick.z, 1u, j + 1u >= rounds());
    return t;
}
