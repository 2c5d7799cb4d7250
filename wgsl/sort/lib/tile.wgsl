// include-only
// The radix sort's tile: loading, stable ranking by warp-level multisplit, staging in digit
// order and the scatter, for the ranking stages (sort/scatter, sort/onesweep*).
//
// Sources: the ranking is the warp-level multisplit of Ashkiani et al. ("GPU Multisplit",
// PPoPP 2016) as CUB's BlockRadixRankMatch and Adinets & Merrill's Onesweep ("Onesweep: A
// Faster Least Significant Digit Radix Sort for GPUs", 2022) use it: one ballot per digit bit,
// the peers of a key are the AND/ANDNOT of the ballots, its rank among them a popcount.
//
// Rules:
// - The including stage declares `const KPT`, `const STAGE_KPT`, `const WG_SIZE` and the
//   bindings `params: SortParams` (uniform), `keys_in`, `vals_in`, `vals2_in` (read) and
//   `keys_out`, `vals_out`, `vals2_out` (read_write), all `array<u32>`; the functions here use
//   them.
// - A tile is TILE = WG_SIZE * KPT keys (the host reads TILE from the stage). Subgroup s owns
//   the contiguous keys [s * KPT * S, (s + 1) * KPT * S) of it (S = subgroup size); item j of
//   lane l is key (s * KPT + j) * S + l. Ranking items j = 0, 1, ... in order within each
//   subgroup, subgroups in order, therefore ranks keys in input order: the sort is stable.
// - Any subgroup size 4..128: ballots use all four words, nothing assumes a lane count.
//   Per-digit counters exist for RANK_ROWS rows; when there are more subgroups than rows
//   (subgroups of 4), consecutive subgroups share a row and take turns (phases separated by
//   barriers), which keeps the order.
// - Keys are ranked in their sortable form (sort/lib/keys.wgsl).

//!include shared/wg_ops
//!include sort/lib/sg
//!include sort/lib/keys

// WG_SIZE is a multiple of 128 so that subgroups of any size 4..128 are full, and at least
// RADIX: in per-digit steps the invocation of index (or scan rank) d < RADIX owns digit d, and
// the invocations above RADIX have none.
const_assert WG_SIZE >= RADIX && WG_SIZE % 128u == 0u;
// KPT: tile_rank calls rank_item once per item, by hand, for up to 32 items (see there), and
// the counters' 16-bit halves hold at most 65535 keys of a digit.
const_assert KPT >= 12u && KPT <= 32u;
// the host reads TILE from each stage (src/sort/plan.rs)
const TILE: u32 = WG_SIZE * KPT;
const_assert TILE < 65536u;
// The ranks of an invocation's items, two to a word (item j in half j % 2 of word j / 2: a
// rank is below TILE < 65536), so that a tile's ranks take half the registers they would
// through the look-back and the writes. An item without a key (in a partial tile) may get a
// rank of 65536 or more, which spills into the half above it: that half is item j + 1's, and
// an item's slot grows with j, so item j + 1 has no key either and its rank is never read.
const RANK_WORDS: u32 = (KPT + 1u) / 2u;
alias Ranks = array<u32, RANK_WORDS>;

fn rank_at(r: Ranks, j: u32) -> u32 {
    return (r[j / 2u] >> ((j % 2u) * 16u)) & 0xffffu;
}

// `word` with item j's half set to `rank`.
fn rank_set(word: u32, j: u32, rank: u32) -> u32 {
    let shift = (j % 2u) * 16u;
    return (word & ~(0xffffu << shift)) | (rank << shift);
}
// tile_mem holds STAGE_KPT keys per invocation (`const STAGE_KPT: u32` of the including stage,
// KPT or less): the ranking's counters and masks live in it, and the ranked tile is staged
// through it in STAGE_ROUNDS rounds (at most two), so a tile may hold more keys than the
// workgroup memory a stage can afford (tile_stage, tile_write).
const TILE_MEM: u32 = WG_SIZE * STAGE_KPT;
const STAGE_ROUNDS: u32 = (KPT + STAGE_KPT - 1u) / STAGE_KPT;
const_assert STAGE_KPT <= KPT && STAGE_ROUNDS <= 2u;
// tile_mem while ranking: RANK_ROWS rows of 16-bit rank counters (RADIX / 2 words each), then
// the tile's digit starts. The digit table lives in tile_mem because resident workgroups are
// bounded by workgroup memory: 1 KiB more cost the reduce-then-scan scatter 21% (H100,
// 2026-11-22: four passes at 2^28 keys 8.72 against 10.52 ms).
const COUNTER_ROWS: u32 = (TILE_MEM - RADIX) / (RADIX / 2u);
const START_AT: u32 = COUNTER_ROWS * RADIX / 2u;
const_assert START_AT + RADIX <= TILE_MEM;

// 1: rank by match masks (rank_item_match) instead of one ballot per digit bit. The masks take
// the top MATCH_WORDS words of tile_mem while ranking (one bit per invocation for each digit:
// WG_SIZE / 32 rows of RADIX words), which leaves the counters MATCH_ROWS rows below them; the
// digit starts at START_AT are written over the masks once ranking is done. The host sets it
// for OneSweep with real subgroups (the emulated ones need barriers between the steps): keys
// 26.8 against 25.2 Gkeys/s with ballots at 2^28. Reduce-then-scan's scatter ballots (7.18
// against 6.68 ms for four passes with masks). H100, 2026-11-23.
override RANK_MATCH: u32 = 0u;
const MATCH_WORDS: u32 = RADIX * (WG_SIZE / 32u);
// Items are matched two at a time (rank_items_match) where tile_mem holds a second set of
// masks below the first and still 8 counter rows, and KPT is even: item j + 1's masks are
// MATCH_WORDS below item j's, so the two items' workgroup-memory round trips overlap. OneSweep's
// large stages (5632 words of tile_mem) have the room: keys 31.07 against 30.71 Gkeys/s at
// 2^28 (H100, 2026-11-23).
const MATCH_PAIRS: bool = KPT % 2u == 0u && TILE_MEM >= 2u * MATCH_WORDS + 8u * (RADIX / 2u);
const MATCH_SETS: u32 = select(1u, 2u, MATCH_PAIRS);
const MATCH_AT: u32 = TILE_MEM - MATCH_WORDS;
const MATCH_ROWS: u32 = (TILE_MEM - MATCH_SETS * MATCH_WORDS) / (RADIX / 2u);
const_assert MATCH_ROWS >= 1u;
// counter rows in use: subgroups beyond them take turns (phases)
override RANK_ROWS: u32 = COUNTER_ROWS - (COUNTER_ROWS - MATCH_ROWS) * min(RANK_MATCH, 1u);

// The smallest subgroup size the pipeline may run at (the host passes the adapter's minimum; the
// emulated flavour's 32). It fixes the ranking's phase count (enough phases for subgroups of
// SG_MIN; subgroups of any larger size take turns in fewer, and the rest of the phases do
// nothing): a constant loop bound ran the scatter 1% faster (H100, 2026-11-22: four passes at
// 2^28 keys 8.06 against 8.14 ms).
override SG_MIN: u32 = 1u;
override RANK_PHASES: u32 = (WG_SIZE / SG_MIN + RANK_ROWS - 1u) / RANK_ROWS;

override PAIRS: u32 = 0u;
// 1: a second value word travels too (vals2_in to vals2_out; with PAIRS), as 64-bit keys and
// segmented sorts carry the other half of their key and a value (src/sort/wide.rs)
override VALUES2: u32 = 0u;
// 1: the values are the keys' indices, made here instead of read (the first pass of a sort
// with an index payload) (with WIDE_IN, the second values are)
override INDEX_PAYLOAD: u32 = 0u;

// the staged key at position i of the tile, of digit d, goes to keys_out[digit_base[d] + i]:
// the digit's first output position minus its start in the tile (tile_set_base). Until then a
// stage may use it as per-digit counters (OneSweep counts its tile's and a silent
// predecessor's digits here), hence atomic.
var<workgroup> digit_base: array<atomic<u32>, RADIX>;
// the rank counters and digit starts while ranking (layout at RANK_ROWS), then the tile staged
// in digit order (atomic only so that the counters can be; the rest uses atomic loads and
// stores)
var<workgroup> tile_mem: array<atomic<u32>, TILE_MEM>;

// Position in the tile of item j of this invocation.
fn slot(inv: Inv, j: u32) -> u32 {
    return (rs_index(inv) * KPT + j) * rs_size(inv) + rs_lane(inv);
}

struct TileKeys {
    keys: array<u32, KPT>,   // sortable form
}

// load: the tile's keys in the subgroup-blocked, lane-striped layout. Full tiles load without
// per-item checks (FULL_TILES), and the keys are mapped to their sortable form after all loads
// are issued: with the mapping inside each item's bounds check, i32 and f32 keys' first OneSweep
// pass took 2.30 / 2.38 ms against 2.04 / 2.07 (H100, 2026-11-23, 2^28 keys).
fn tile_load(inv: Inv, start: u32, count: u32) -> TileKeys {
    var t: TileKeys;
    if WIDE_IN != 0u {
        return wide_tile_load(inv, start, count);
    }
    if FULL_TILES != 0u && count == TILE {
        for (var j = 0u; j < KPT; j++) {
            t.keys[j] = keys_in[start + slot(inv, j)];
        }
    } else {
        for (var j = 0u; j < KPT; j++) {
            let s = slot(inv, j);
            if s < count {
                t.keys[j] = keys_in[start + s];
            }
        }
    }
    if MAP_IN != 0u {
        for (var j = 0u; j < KPT; j++) {
            t.keys[j] = to_sortable(t.keys[j]);
        }
    }
    return t;
}

// 64-bit keys in the caller's layout (WIDE_IN, WIDE_OUT, WIDE_HALF of sort/lib/keys.wgsl): key
// i is keys_in[2i] (low) and keys_in[2i + 1] (high). Word `half` of its sortable image (the
// low word's depends on the high word's sign for f64; the high word's on itself alone).
fn wide_word_in(i: u32, half: u32) -> u32 {
    let k = wide_to_sortable(vec2<u32>(keys_in[2u * i], keys_in[2u * i + 1u]));
    return select(k.x, k.y, half != 0u);
}

// tile_load of the first pass of a sort of 64-bit keys (WIDE_IN): the sorted word of each key.
fn wide_tile_load(inv: Inv, start: u32, count: u32) -> TileKeys {
    var t: TileKeys;
    if FULL_TILES != 0u && count == TILE {
        for (var j = 0u; j < KPT; j++) {
            t.keys[j] = wide_word_in(start + slot(inv, j), WIDE_HALF);
        }
    } else {
        for (var j = 0u; j < KPT; j++) {
            let s = slot(inv, j);
            if s < count {
                t.keys[j] = wide_word_in(start + s, WIDE_HALF);
            }
        }
    }
    return t;
}

// WIDE_OUT with WIDE_HALF = 1, f64 keys: bit j says item j's key is negative, so its low word,
// the value written after the key, is complemented (write_key sets it, write_values_round
// reads it).
var<private> wide_negative: u32;

// write_key of the last pass of a sort of 64-bit keys (WIDE_OUT): sortable word `k` raw, as
// word WIDE_HALF of key `dst`, at tile position i. A low word goes out as if the key were not
// a negative f64; wide_write_other complements it where it was.
fn wide_write_key(dst: u32, k: u32, i: u32) {
    if WIDE_HALF != 0u {
        keys_out[2u * dst + 1u] = wide_high_from_sortable(k);
        if wide_low_flipped(k) {
            wide_negative |= 1u << (i / WG_SIZE);
        }
    } else {
        keys_out[2u * dst] = wide_low_unflipped(k);
    }
}

// The carried word `o` (sortable) of the key at place dst and tile position i, raw, into the
// caller's layout (WIDE_OUT), after wide_write_key wrote the key's sorted word.
fn wide_write_other(dst: u32, o: u32, i: u32) {
    if WIDE_HALF != 0u {
        let x = wide_low_unflipped(o);
        keys_out[2u * dst] = select(x, ~x, ((wide_negative >> (i / WG_SIZE)) & 1u) != 0u);
    } else {
        keys_out[2u * dst + 1u] = wide_high_from_sortable(o);
        if wide_low_flipped(o) {
            // (this invocation wrote that word in wide_write_key)
            keys_out[2u * dst] = ~keys_out[2u * dst];
        }
    }
}

fn popcount4(v: vec4<u32>) -> u32 {
    let c = countOneBits(v);
    return c.x + c.y + c.z + c.w;
}

// Lowest lane set in m (m != 0).
fn first_lane(m: vec4<u32>) -> u32 {
    if m.x != 0u {
        return firstTrailingBit(m.x);
    }
    if m.y != 0u {
        return 32u + firstTrailingBit(m.y);
    }
    if m.z != 0u {
        return 64u + firstTrailingBit(m.z);
    }
    return 96u + firstTrailingBit(m.w);
}

// Word w of the mask of lanes below `lane` (lane may be the subgroup size: all lanes).
fn lanes_below(lane: u32, w: u32) -> u32 {
    let lo = 32u * w;
    let part = select(0u, (1u << ((lane - lo) & 31u)) - 1u, lane >= lo);
    return select(part, 0xffffffffu, lane >= lo + 32u);
}

// 1: full tiles (every tile of a pass but its last) take loops without a per-item bounds
// check, and the ranking's final lookups have none at all. With the check, NVIDIA's compiler
// wraps each item of the staging and the write in a branch with a convergence barrier
// (BSSY/BSYNC), so no item's loads are issued before the previous item's store. 0: the checks
// everywhere. The host sets 1 for OneSweep (four passes at 2^28 keys 8.52 against 8.81 ms,
// H100, 2026-11-23) and for reduce-then-scan's keys alone (6.68 against 6.88 ms, 2026-11-22);
// reduce-then-scan's pairs keep the checks (18.2 against 18.8 Gkeys/s without them).
override FULL_TILES: u32 = 1u;

// Digit d's start in the ranked tile: read it after tile_rank, before tile_stage overwrites it.
fn tile_digit_start(d: u32) -> u32 {
    return atomicLoad(&tile_mem[START_AT + d]);
}

// The stage's share of the scatter: digit d's keys go to keys_out from position `first` on;
// `start` is tile_digit_start(d). Call for each digit d from its owner, invocation d (see
// WG_SIZE), before tile_write, whose first barrier makes it visible. Stored as `first` minus
// the digit's start (wrapping arithmetic).
fn tile_set_base(d: u32, first: u32, start: u32) {
    atomicStore(&digit_base[d], first - start);
}

// What each item of tile_rank's ranking needs: the masks of the lanes below this one and of
// all lanes, this subgroup's counter row, whether it is this subgroup's phase, whether the
// tile is full, and its key count.
struct RankItems {
    lt: vec4<u32>,
    all_lanes: vec4<u32>,
    row: u32,
    mine: bool,
    full: bool,
    count: u32,
    // RANK_MATCH only: this invocation's bit (1 << (g % 32), g = subgroup index × size + lane)
    // and its mask row's word for digit 0 (MATCH_AT + (g / 32) × RADIX); the subgroup's first
    // mask row's word for digit 0, its bits' offset in that word (subgroups under 32 lanes
    // share words) and its words per mask (size / 32, at least 1)
    bit: u32,
    mask_at: u32,
    sg_mask_at: u32,
    sg_shift: u32,
    words: u32,
}

// One item j of the ranking, key k: multisplit (the peers of a key: valid keys of this
// subgroup with its digit), then the leader of each peer group reserves the group's slots in
// the subgroup's counters (when it is the subgroup's phase). Counters are 16-bit halves (digit
// d in half d & 1 of word d / 2 of its row): at most TILE < 65536 keys per digit, so halves
// never carry into each other. Returns the key's rank among its digit's keys so far.
// Subgroup operations: call from uniform control flow. No branch around them: branches that
// skipped the items holding no key in a partial tile (a uniform condition) and the
// valid-lanes ballot in a full tile cost the full tiles 2% (H100, 2026-11-22: reduce-then-scan
// keys 30.0 against 29.3 Gkeys/s at 2^28 without them).
fn rank_item(inv: Inv, c: RankItems, k: u32, j: u32) -> u32 {
    if RANK_MATCH != 0u {
        return rank_item_match(inv, c, k, j);
    }
    let d = digit_of(k);
    let valid = slot(inv, j) < c.count;
    var peers = select(c.all_lanes, rs_ballot(inv, valid), !c.full);
    for (var b = 0u; b < BITS; b++) {
        let bit_set = ((d >> b) & 1u) != 0u;
        let bal = rs_ballot(inv, bit_set);
        peers &= select(~bal, bal, bit_set);
    }
    let below = popcount4(peers & c.lt);
    var base = 0u;
    if c.mine && valid && below == 0u {
        base = reserve_slots(c, d, peers);
    }
    return rs_shuffle(inv, base, peer_leader(inv, peers)) + below;
}

// rank_item by match masks (RANK_MATCH; CUB's BlockRadixRankMatch with WARP_MATCH_ATOMIC_OR):
// each invocation with a key sets its bit in its digit's mask word, reads back its subgroup's
// bits of that word (its peers: every lane that set one has the same digit), every peer reads
// the subgroup's counter for the digit (the peers' first slot), and then the peers' leader adds
// their count to it and clears their bits for the next item. No shuffle: the counter word is
// the broadcast (OneSweep keys 35.22 against 33.52 Gkeys/s at 2^28 with a returning atomicAdd
// and a shuffle; H100, 2026-11-23).
// It relies on the lanes of a subgroup seeing each other's atomics and loads on tile_mem in
// program order with no barrier between: the set, the reads, the add and the clear are each
// one instruction of the whole subgroup (the add and clear of its leaders), run in order, on
// SIMD hardware (and on lavapipe, and the simulator's lockstep). WGSL has no subgroup barrier
// to say so; the compiler reconverges the subgroup after the leaders' branch (NVIDIA:
// BSSY/BSYNC around it), so each item starts converged. The emulated subgroups, whose lanes
// are not one instruction stream, never take this path. Outside the subgroup's phase it returns
// at once (rank_phases keeps no rank from another phase, and the path holds no subgroup
// operation, so the return may diverge): where subgroups take turns, each ranks its keys once
// instead of in every phase (subgroups of 4: 6 phases). With one phase the test is a constant.
fn rank_item_match(inv: Inv, c: RankItems, k: u32, j: u32) -> u32 {
    if RANK_PHASES > 1u && !c.mine {
        return 0u;
    }
    let d = digit_of(k);
    let valid = c.full || slot(inv, j) < c.count;
    // set: only keys of this subgroup's phase
    match_set(c, c.mask_at + d, valid);
    // read: the subgroup's bits for digit d
    let at = c.sg_mask_at + d;
    let peers = match_peers(c, at);
    let below = popcount4(peers & c.lt);
    // the counter as it stands (every peer reads it, no shuffle), then the leader's add and clear
    let base = counter_get(c.row, d);
    match_take(c, at, d, peers, valid && below == 0u);
    return base + below;
}

// Items j and j + 1 by match masks at once (MATCH_PAIRS): rank_item_match for both, item
// j + 1 on the second set of masks (MATCH_WORDS below), each step issued for both items before
// the next step, so that their workgroup-memory round trips overlap. Item j's leaders add to
// the counters before item j + 1's peers read them (program order of the subgroup), which
// keeps the order. Returns at once outside the subgroup's phase, as rank_item_match.
fn rank_items_match(inv: Inv, c: RankItems, k0: u32, k1: u32, j: u32) -> vec2<u32> {
    if RANK_PHASES > 1u && !c.mine {
        return vec2<u32>(0u);
    }
    if PAIRS == 0u && c.mine && c.all_lanes.x == 0xffffffffu {
        return rank_items_match_wide(inv, c, k0, k1, j);
    }
    let d0 = digit_of(k0);
    let d1 = digit_of(k1);
    let v0 = c.full || slot(inv, j) < c.count;
    let v1 = c.full || slot(inv, j + 1u) < c.count;
    match_set(c, c.mask_at + d0, v0);
    match_set(c, c.mask_at - MATCH_WORDS + d1, v1);
    let at0 = c.sg_mask_at + d0;
    let at1 = c.sg_mask_at - MATCH_WORDS + d1;
    let p0 = match_peers(c, at0);
    let p1 = match_peers(c, at1);
    let below0 = popcount4(p0 & c.lt);
    let below1 = popcount4(p1 & c.lt);
    // item j + 1 reads its counter after item j's leaders have added to it
    let base0 = counter_get(c.row, d0);
    match_take(c, at0, d0, p0, v0 && below0 == 0u);
    let base1 = counter_get(c.row, d1);
    match_take(c, at1, d1, p1, v1 && below1 == 0u);
    return vec2<u32>(base0 + below0, base1 + below1);
}

// rank_items_match for subgroups of 32 lanes or more in their phase, without branches around
// the set and the clear (keys alone: 35.97 against 35.21 Gkeys/s at 2^28; pairs were slower
// with it, 25.54 against 26.24, and keep the general steps; H100, 2026-11-23): each
// invocation's mask words are its subgroup's alone, so every invocation sets its bit and
// clears its word with a plain store after the reads. An invocation without a key (key 0,
// partial tiles) may join digit 0's peers, but only above every lane with a key (the tile's
// keys are a prefix in slot order), so its rank is never read and the counts it adds when it
// leads land in counters that only later items and subgroups of its row use, which hold no
// key either. That needs the counts taken first (tile_count, OneSweep, the only tile with
// MATCH_PAIRS): in tile_rank's order the inflated counters would enter the row scan. (The
// peers and ranks repeat rank_items_match's lines on purpose: the two bodies are what was
// measured; NVIDIA's compiler has turned changes of code shape alone into 5–30% either way
// in this kernel.)
fn rank_items_match_wide(inv: Inv, c: RankItems, k0: u32, k1: u32, j: u32) -> vec2<u32> {
    let d0 = digit_of(k0);
    let d1 = digit_of(k1);
    let set0 = c.mask_at + d0;
    let set1 = c.mask_at - MATCH_WORDS + d1;
    atomicOr(&tile_mem[set0], c.bit);
    atomicOr(&tile_mem[set1], c.bit);
    let at0 = c.sg_mask_at + d0;
    let at1 = c.sg_mask_at - MATCH_WORDS + d1;
    let p0 = match_peers(c, at0);
    let p1 = match_peers(c, at1);
    let below0 = popcount4(p0 & c.lt);
    let below1 = popcount4(p1 & c.lt);
    let base0 = counter_get(c.row, d0);
    if below0 == 0u {
        counter_add(c.row, d0, popcount4(p0));
    }
    let base1 = counter_get(c.row, d1);
    if below1 == 0u {
        counter_add(c.row, d1, popcount4(p1));
    }
    atomicStore(&tile_mem[set0], 0u);
    atomicStore(&tile_mem[set1], 0u);
    return vec2<u32>(base0 + below0, base1 + below1);
}

// The match-mask steps of one item (rank_item_match). set: this invocation's bit in the mask
// word at `at` (its digit's, in its own mask row), if it has a key in this subgroup's phase.
fn match_set(c: RankItems, at: u32, valid: bool) {
    if c.mine && valid {
        atomicOr(&tile_mem[at], c.bit);
    }
}

// read: the subgroup's bits of the mask at `at` (its first mask row's word for the digit; a
// subgroup over 32 lanes has one word per 32), i.e. the peers.
fn match_peers(c: RankItems, at: u32) -> vec4<u32> {
    var peers = vec4<u32>((atomicLoad(&tile_mem[at]) >> c.sg_shift) & c.all_lanes.x, 0u, 0u, 0u);
    if c.words > 1u {
        peers.y = atomicLoad(&tile_mem[at + RADIX]);
    }
    if c.words > 2u {
        peers.z = atomicLoad(&tile_mem[at + 2u * RADIX]);
        peers.w = atomicLoad(&tile_mem[at + 3u * RADIX]);
    }
    return peers;
}

// take: the peers' leader (`leads`: a valid key with no peer below it) adds their count to the
// subgroup's counter for digit d and clears their bits in the mask word at `at` (every peer has
// read both: those reads were steps of the subgroup before this).
fn match_take(c: RankItems, at: u32, d: u32, peers: vec4<u32>, leads: bool) {
    if c.mine && leads {
        counter_add(c.row, d, popcount4(peers));
        atomicAnd(&tile_mem[at], ~(c.all_lanes.x << c.sg_shift));
        for (var w = 1u; w < c.words; w++) {
            atomicStore(&tile_mem[at + w * RADIX], 0u);
        }
    }
}

// The peers' slots in the subgroup's counter for digit d (half d & 1 of word d / 2 of its
// row); returns the count before them. The peers' leader calls it, in its subgroup's phase.
fn reserve_slots(c: RankItems, d: u32, peers: vec4<u32>) -> u32 {
    let half = counter_shift(d);
    let old = atomicAdd(&tile_mem[counter_at(c.row, d)], popcount4(peers) << half);
    return (old >> half) & 0xffffu;
}

// Digit d's counter in counter row `row` is the 16-bit half at bit counter_shift(d) of word
// counter_at(row, d) of tile_mem (at most TILE < 65536 keys per digit, so halves never carry
// into each other).
fn counter_at(row: u32, d: u32) -> u32 {
    return row * (RADIX / 2u) + d / 2u;
}

fn counter_shift(d: u32) -> u32 {
    return 16u * (d & 1u);
}

// Digit d's counter in `row` as it stands.
fn counter_get(row: u32, d: u32) -> u32 {
    return (atomicLoad(&tile_mem[counter_at(row, d)]) >> counter_shift(d)) & 0xffffu;
}

// Adds n to digit d's counter in `row`.
fn counter_add(row: u32, d: u32, n: u32) {
    atomicAdd(&tile_mem[counter_at(row, d)], n << counter_shift(d));
}

// The lane that holds a key's slots base: the lowest of its peers (itself if it has none).
fn peer_leader(inv: Inv, peers: vec4<u32>) -> u32 {
    return select(rs_lane(inv), first_lane(peers), any(peers != vec4<u32>(0u)));
}

// rank: each key's position in the tile sorted stably by digit. Leaves the digit starts for
// tile_set_base. Uniform control flow only.
fn tile_rank(inv: Inv, t: TileKeys, count: u32) -> Ranks {
    let rr = rank_rows(inv);
    // barrier: nobody still reads tile_mem (a previous tile's staging)
    workgroupBarrier();
    rank_clear(inv, rr.x);
    // barrier: counters are cleared before any leader adds to them
    workgroupBarrier();
    var rank = rank_phases(inv, t, count);
    // barrier: the counts are complete
    workgroupBarrier();
    rank_scan(inv, rr.x, false);
    // barrier: row prefixes and digit starts are visible
    workgroupBarrier();
    // (with FULL_TILES, unconditional: an item without a key has key 0, an in-bounds lookup,
    // and a rank nobody uses)
    for (var j = 0u; j < KPT; j++) {
        if FULL_TILES != 0u || slot(inv, j) < count {
            rank[j / 2u] += counter_get(rr.y, digit_of(t.keys[j])) << ((j % 2u) * 16u);
        }
    }
    return rank;
}

// The counter rows in use, this subgroup's row and its phase in it (subgroups beyond
// RANK_ROWS share rows and take turns).
fn rank_rows(inv: Inv) -> vec3<u32> {
    let n_sg = rs_count(inv);
    let rows = min(n_sg, RANK_ROWS);
    let per_row = (n_sg + rows - 1u) / rows;
    return vec3<u32>(rows, rs_index(inv) / per_row, rs_index(inv) % per_row);
}

// Zero the counter rows in use (8 of 22 with subgroups of 32) and the match masks.
fn rank_clear(inv: Inv, rows: u32) {
    for (var i = inv.lid; i < rows * RADIX / 2u; i += WG_SIZE) {
        atomicStore(&tile_mem[i], 0u);
    }
    if RANK_MATCH != 0u {
        for (var i = TILE_MEM - MATCH_SETS * MATCH_WORDS + inv.lid; i < TILE_MEM; i += WG_SIZE) {
            atomicStore(&tile_mem[i], 0u);
        }
    }
}

// The items' ranks: each key's slot in its subgroup's counter for its digit plus its place
// among its peers (rank_item, rank_items_match), in phases (see RANK_ROWS). After rank_clear
// and a barrier; the counters are complete after the next barrier.
fn rank_phases(inv: Inv, t: TileKeys, count: u32) -> Ranks {
    let lane = rs_lane(inv);
    let rr = rank_rows(inv);
    let row = rr.y;
    let my_phase = rr.z;
    // lanes below this one, and all lanes of the subgroup, as four-word masks
    let lt = vec4<u32>(lanes_below(lane, 0u), lanes_below(lane, 1u), lanes_below(lane, 2u), lanes_below(lane, 3u));
    let size = rs_size(inv);
    let all_lanes = vec4<u32>(lanes_below(size, 0u), lanes_below(size, 1u), lanes_below(size, 2u), lanes_below(size, 3u));
    let g = rs_index(inv) * size + lane;
    let sg_g = rs_index(inv) * size;
    let full = count == TILE;
    // per item (rank_item), items in order, or per pair of items (rank_items_match, where
    // MATCH_PAIRS); subgroups of 4, which share rows and take turns, redo the ballots in each
    // phase. The items (pairs) are called one by one with literal indices:
    // written as a loop over j, NVIDIA's compiler kept the loop rolled and read t.keys[j] and
    // wrote rank[j] through 12-way chains of compares and predicated moves, half of the
    // loop's instructions (reduce-then-scan keys 26.2 against 29.4 Gkeys/s at 2^28, H100,
    // 2026-11-22). Items 12..31
    // exist only where the stage's KPT has them (a constant condition; `j % KPT` keeps the
    // index of a dead item in bounds for the validator).
    var rank: Ranks;
    for (var phase = 0u; phase < RANK_PHASES; phase++) {
        if phase > 0u {
            // barrier: the previous phase's reservations are complete before this phase's
            // subgroups add
            workgroupBarrier();
        }
        let c = RankItems(
            lt, all_lanes, row, my_phase == phase, full, count,
            1u << (g % 32u), MATCH_AT + (g / 32u) * RADIX,
            MATCH_AT + (sg_g / 32u) * RADIX, sg_g % 32u, max(size / 32u, 1u),
        );
        if RANK_MATCH != 0u && MATCH_PAIRS {
            {
                let r = rank_items_match(inv, c, t.keys[0u], t.keys[1u], 0u);
                rank[0u] = select(rank[0u], r.x | (r.y << 16u), c.mine);
            }
            {
                let r = rank_items_match(inv, c, t.keys[2u], t.keys[3u], 2u);
                rank[1u] = select(rank[1u], r.x | (r.y << 16u), c.mine);
            }
            {
                let r = rank_items_match(inv, c, t.keys[4u], t.keys[5u], 4u);
                rank[2u] = select(rank[2u], r.x | (r.y << 16u), c.mine);
            }
            {
                let r = rank_items_match(inv, c, t.keys[6u], t.keys[7u], 6u);
                rank[3u] = select(rank[3u], r.x | (r.y << 16u), c.mine);
            }
            {
                let r = rank_items_match(inv, c, t.keys[8u], t.keys[9u], 8u);
                rank[4u] = select(rank[4u], r.x | (r.y << 16u), c.mine);
            }
            {
                let r = rank_items_match(inv, c, t.keys[10u], t.keys[11u], 10u);
                rank[5u] = select(rank[5u], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 13u {
                let r = rank_items_match(inv, c, t.keys[12u % KPT], t.keys[13u % KPT], 12u % KPT);
                rank[6u % RANK_WORDS] = select(rank[6u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 15u {
                let r = rank_items_match(inv, c, t.keys[14u % KPT], t.keys[15u % KPT], 14u % KPT);
                rank[7u % RANK_WORDS] = select(rank[7u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 17u {
                let r = rank_items_match(inv, c, t.keys[16u % KPT], t.keys[17u % KPT], 16u % KPT);
                rank[8u % RANK_WORDS] = select(rank[8u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 19u {
                let r = rank_items_match(inv, c, t.keys[18u % KPT], t.keys[19u % KPT], 18u % KPT);
                rank[9u % RANK_WORDS] = select(rank[9u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 21u {
                let r = rank_items_match(inv, c, t.keys[20u % KPT], t.keys[21u % KPT], 20u % KPT);
                rank[10u % RANK_WORDS] = select(rank[10u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 23u {
                let r = rank_items_match(inv, c, t.keys[22u % KPT], t.keys[23u % KPT], 22u % KPT);
                rank[11u % RANK_WORDS] = select(rank[11u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 25u {
                let r = rank_items_match(inv, c, t.keys[24u % KPT], t.keys[25u % KPT], 24u % KPT);
                rank[12u % RANK_WORDS] = select(rank[12u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 27u {
                let r = rank_items_match(inv, c, t.keys[26u % KPT], t.keys[27u % KPT], 26u % KPT);
                rank[13u % RANK_WORDS] = select(rank[13u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 29u {
                let r = rank_items_match(inv, c, t.keys[28u % KPT], t.keys[29u % KPT], 28u % KPT);
                rank[14u % RANK_WORDS] = select(rank[14u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
            if KPT > 31u {
                let r = rank_items_match(inv, c, t.keys[30u % KPT], t.keys[31u % KPT], 30u % KPT);
                rank[15u % RANK_WORDS] = select(rank[15u % RANK_WORDS], r.x | (r.y << 16u), c.mine);
            }
        } else {
            rank[0u] = select(rank[0u], rank_set(rank[0u], 0u, rank_item(inv, c, t.keys[0u], 0u)), c.mine);
            rank[0u] = select(rank[0u], rank_set(rank[0u], 1u, rank_item(inv, c, t.keys[1u], 1u)), c.mine);
            rank[1u] = select(rank[1u], rank_set(rank[1u], 2u, rank_item(inv, c, t.keys[2u], 2u)), c.mine);
            rank[1u] = select(rank[1u], rank_set(rank[1u], 3u, rank_item(inv, c, t.keys[3u], 3u)), c.mine);
            rank[2u] = select(rank[2u], rank_set(rank[2u], 4u, rank_item(inv, c, t.keys[4u], 4u)), c.mine);
            rank[2u] = select(rank[2u], rank_set(rank[2u], 5u, rank_item(inv, c, t.keys[5u], 5u)), c.mine);
            rank[3u] = select(rank[3u], rank_set(rank[3u], 6u, rank_item(inv, c, t.keys[6u], 6u)), c.mine);
            rank[3u] = select(rank[3u], rank_set(rank[3u], 7u, rank_item(inv, c, t.keys[7u], 7u)), c.mine);
            rank[4u] = select(rank[4u], rank_set(rank[4u], 8u, rank_item(inv, c, t.keys[8u], 8u)), c.mine);
            rank[4u] = select(rank[4u], rank_set(rank[4u], 9u, rank_item(inv, c, t.keys[9u], 9u)), c.mine);
            rank[5u] = select(rank[5u], rank_set(rank[5u], 10u, rank_item(inv, c, t.keys[10u], 10u)), c.mine);
            rank[5u] = select(rank[5u], rank_set(rank[5u], 11u, rank_item(inv, c, t.keys[11u], 11u)), c.mine);
            if KPT > 12u {
                rank[6u % RANK_WORDS] = select(rank[6u % RANK_WORDS], rank_set(rank[6u % RANK_WORDS], 12u % KPT, rank_item(inv, c, t.keys[12u % KPT], 12u % KPT)), c.mine);
            }
            if KPT > 13u {
                rank[6u % RANK_WORDS] = select(rank[6u % RANK_WORDS], rank_set(rank[6u % RANK_WORDS], 13u % KPT, rank_item(inv, c, t.keys[13u % KPT], 13u % KPT)), c.mine);
            }
            if KPT > 14u {
                rank[7u % RANK_WORDS] = select(rank[7u % RANK_WORDS], rank_set(rank[7u % RANK_WORDS], 14u % KPT, rank_item(inv, c, t.keys[14u % KPT], 14u % KPT)), c.mine);
            }
            if KPT > 15u {
                rank[7u % RANK_WORDS] = select(rank[7u % RANK_WORDS], rank_set(rank[7u % RANK_WORDS], 15u % KPT, rank_item(inv, c, t.keys[15u % KPT], 15u % KPT)), c.mine);
            }
            if KPT > 16u {
                rank[8u % RANK_WORDS] = select(rank[8u % RANK_WORDS], rank_set(rank[8u % RANK_WORDS], 16u % KPT, rank_item(inv, c, t.keys[16u % KPT], 16u % KPT)), c.mine);
            }
            if KPT > 17u {
                rank[8u % RANK_WORDS] = select(rank[8u % RANK_WORDS], rank_set(rank[8u % RANK_WORDS], 17u % KPT, rank_item(inv, c, t.keys[17u % KPT], 17u % KPT)), c.mine);
            }
            if KPT > 18u {
                rank[9u % RANK_WORDS] = select(rank[9u % RANK_WORDS], rank_set(rank[9u % RANK_WORDS], 18u % KPT, rank_item(inv, c, t.keys[18u % KPT], 18u % KPT)), c.mine);
            }
            if KPT > 19u {
                rank[9u % RANK_WORDS] = select(rank[9u % RANK_WORDS], rank_set(rank[9u % RANK_WORDS], 19u % KPT, rank_item(inv, c, t.keys[19u % KPT], 19u % KPT)), c.mine);
            }
            if KPT > 20u {
                rank[10u % RANK_WORDS] = select(rank[10u % RANK_WORDS], rank_set(rank[10u % RANK_WORDS], 20u % KPT, rank_item(inv, c, t.keys[20u % KPT], 20u % KPT)), c.mine);
            }
            if KPT > 21u {
                rank[10u % RANK_WORDS] = select(rank[10u % RANK_WORDS], rank_set(rank[10u % RANK_WORDS], 21u % KPT, rank_item(inv, c, t.keys[21u % KPT], 21u % KPT)), c.mine);
            }
            if KPT > 22u {
                rank[11u % RANK_WORDS] = select(rank[11u % RANK_WORDS], rank_set(rank[11u % RANK_WORDS], 22u % KPT, rank_item(inv, c, t.keys[22u % KPT], 22u % KPT)), c.mine);
            }
            if KPT > 23u {
                rank[11u % RANK_WORDS] = select(rank[11u % RANK_WORDS], rank_set(rank[11u % RANK_WORDS], 23u % KPT, rank_item(inv, c, t.keys[23u % KPT], 23u % KPT)), c.mine);
            }
            if KPT > 24u {
                rank[12u % RANK_WORDS] = select(rank[12u % RANK_WORDS], rank_set(rank[12u % RANK_WORDS], 24u % KPT, rank_item(inv, c, t.keys[24u % KPT], 24u % KPT)), c.mine);
            }
            if KPT > 25u {
                rank[12u % RANK_WORDS] = select(rank[12u % RANK_WORDS], rank_set(rank[12u % RANK_WORDS], 25u % KPT, rank_item(inv, c, t.keys[25u % KPT], 25u % KPT)), c.mine);
            }
            if KPT > 26u {
                rank[13u % RANK_WORDS] = select(rank[13u % RANK_WORDS], rank_set(rank[13u % RANK_WORDS], 26u % KPT, rank_item(inv, c, t.keys[26u % KPT], 26u % KPT)), c.mine);
            }
            if KPT > 27u {
                rank[13u % RANK_WORDS] = select(rank[13u % RANK_WORDS], rank_set(rank[13u % RANK_WORDS], 27u % KPT, rank_item(inv, c, t.keys[27u % KPT], 27u % KPT)), c.mine);
            }
            if KPT > 28u {
                rank[14u % RANK_WORDS] = select(rank[14u % RANK_WORDS], rank_set(rank[14u % RANK_WORDS], 28u % KPT, rank_item(inv, c, t.keys[28u % KPT], 28u % KPT)), c.mine);
            }
            if KPT > 29u {
                rank[14u % RANK_WORDS] = select(rank[14u % RANK_WORDS], rank_set(rank[14u % RANK_WORDS], 29u % KPT, rank_item(inv, c, t.keys[29u % KPT], 29u % KPT)), c.mine);
            }
            if KPT > 30u {
                rank[15u % RANK_WORDS] = select(rank[15u % RANK_WORDS], rank_set(rank[15u % RANK_WORDS], 30u % KPT, rank_item(inv, c, t.keys[30u % KPT], 30u % KPT)), c.mine);
            }
            if KPT > 31u {
                rank[15u % RANK_WORDS] = select(rank[15u % RANK_WORDS], rank_set(rank[15u % RANK_WORDS], 31u % KPT, rank_item(inv, c, t.keys[31u % KPT], 31u % KPT)), c.mine);
            }
        }
    }
    return rank;
}

// Per digit pair (p = 2 digits, one counter word per row), in scan order so the pairs' scan is
// the digits' scan: the pair's totals, their exclusive prefix over the tile (the digit starts,
// to tile_mem at START_AT, or to digit_base where `in_base`), then each row's word becomes the
// digit start plus the rows before it (both halves at once: at most TILE, so halves never
// carry). Needs a barrier after.
fn rank_scan(inv: Inv, rows: u32, in_base: bool) {
    let p = inv_rank(inv);
    let owner = p < RADIX / 2u;
    var total = 0u;
    if owner {
        for (var r = 0u; r < rows; r++) {
            total += atomicLoad(&tile_mem[r * (RADIX / 2u) + p]);
        }
    }
    let lo = total & 0xffffu;
    let sc = wg_scan_add_u32(inv, select(0u, lo + (total >> 16u), owner));
    if owner {
        if in_base {
            atomicStore(&digit_base[2u * p], sc.x);
            atomicStore(&digit_base[2u * p + 1u], sc.x + lo);
        } else {
            atomicStore(&tile_mem[START_AT + 2u * p], sc.x);
            atomicStore(&tile_mem[START_AT + 2u * p + 1u], sc.x + lo);
        }
        var run = sc.x | ((sc.x + lo) << 16u);
        for (var r = 0u; r < rows; r++) {
            let c = atomicLoad(&tile_mem[r * (RADIX / 2u) + p]);
            atomicStore(&tile_mem[r * (RADIX / 2u) + p], run);
            run += c;
        }
    }
}

// The ranking with the counts taken first (OneSweep; CUB's BlockRadixRankMatchEarlyCounts):
// tile_count counts each subgroup's keys into its counter row and turns the rows into the
// digits' starts in the tile plus the rows before (rank_scan), leaving the digit starts in
// digit_base (tile_counted_digit); then tile_rank_counted ranks the items against those rows,
// so each reservation returns the key's final position and no lookup follows. tile_mem must be
// free when tile_count starts. Keys 33.69 against 31.89 Gkeys/s at 2^28 with tile_rank's
// lookup (H100, 2026-11-23).
fn tile_count(inv: Inv, t: TileKeys, count: u32) {
    let rr = rank_rows(inv);
    rank_clear(inv, rr.x);
    // barrier: counters are cleared before anyone counts
    workgroupBarrier();
    // count: all keys of the subgroups sharing a row, whatever their phase (full tiles without
    // per-item checks: with them the count cost OneSweep 2%, H100, 2026-11-23)
    if FULL_TILES != 0u && count == TILE {
        for (var j = 0u; j < KPT; j++) {
            counter_add(rr.y, digit_of(t.keys[j]), 1u);
        }
    } else {
        for (var j = 0u; j < KPT; j++) {
            if slot(inv, j) < count {
                counter_add(rr.y, digit_of(t.keys[j]), 1u);
            }
        }
    }
    // barrier: the rows' counts are complete
    workgroupBarrier();
    rank_scan(inv, rr.x, true);
    // barrier: row prefixes and digit starts are visible
    workgroupBarrier();
}

// Digit d's start in the counted tile (x) and its key count (y), after tile_count, until
// digit_base is set or reused.
fn tile_counted_digit(d: u32, count: u32) -> vec2<u32> {
    let s = atomicLoad(&digit_base[d]);
    let next = select(count, atomicLoad(&digit_base[min(d + 1u, RADIX - 1u)]), d + 1u < RADIX);
    return vec2<u32>(s, next - s);
}

// The final ranks after tile_count (uniform control flow only); tile_stage's barrier ends it.
fn tile_rank_counted(inv: Inv, t: TileKeys, count: u32) -> Ranks {
    return rank_phases(inv, t, count);
}

// stage: the tile's keys in tile_mem in digit order (after tile_rank; with one round the keys
// are not needed in registers after this, only the ranks, for the values), or with
// STAGE_ROUNDS = 2 those of the first round, the tile's first TILE_MEM positions (tile_write
// stages the rest).
fn tile_stage(inv: Inv, t: TileKeys, rank: Ranks, count: u32) {
    // barrier: the ranking is done with tile_mem (reservations, lookups, digit starts)
    workgroupBarrier();
    stage_round(inv, t.keys, rank, count, 0u);
}

// Stages the items whose rank lies in round r's positions [r * TILE_MEM, (r + 1) * TILE_MEM)
// (all of them with one round) at their rank's place in tile_mem: keys, or values.
// (Full tiles take a loop without per-item checks: FULL_TILES.)
fn stage_round(inv: Inv, items: array<u32, KPT>, rank: Ranks, count: u32, r: u32) {
    if FULL_TILES != 0u && count == TILE {
        for (var j = 0u; j < KPT; j++) {
            // (a rank below the round wraps to a large number)
            let at = rank_at(rank, j) - r * TILE_MEM;
            if STAGE_ROUNDS == 1u || at < TILE_MEM {
                atomicStore(&tile_mem[at], items[j]);
            }
        }
    } else {
        for (var j = 0u; j < KPT; j++) {
            let at = rank_at(rank, j) - r * TILE_MEM;
            if slot(inv, j) < count && (STAGE_ROUNDS == 1u || at < TILE_MEM) {
                atomicStore(&tile_mem[at], items[j]);
            }
        }
    }
}

// Writes the staged key at tile position i, word i - r * TILE_MEM of tile_mem in round r, to
// its place in keys_out; returns the place.
fn write_key(i: u32, r: u32) -> u32 {
    let k = atomicLoad(&tile_mem[i - r * TILE_MEM]);
    let dst = atomicLoad(&digit_base[digit_of(k)]) + i;
    if WIDE_OUT != 0u {
        wide_write_key(dst, k, i);
        return dst;
    }
    keys_out[dst] = select(k, from_sortable(k), MAP_OUT != 0u);
    return dst;
}

// The tile's values in the keys' layout (items without a key hold 0).
fn tile_values(inv: Inv, start: u32, count: u32) -> array<u32, KPT> {
    var v: array<u32, KPT>;
    if WIDE_IN != 0u {
        // the first pass of a sort of 64-bit keys: the other word of each key, from keys_in
        for (var j = 0u; j < KPT; j++) {
            let s = slot(inv, j);
            if s < count {
                v[j] = wide_word_in(start + s, 1u - WIDE_HALF);
            }
        }
        return v;
    }
    if INDEX_PAYLOAD != 0u {
        for (var j = 0u; j < KPT; j++) {
            v[j] = start + slot(inv, j);
        }
    } else if FULL_TILES != 0u && count == TILE {
        for (var j = 0u; j < KPT; j++) {
            v[j] = vals_in[start + slot(inv, j)];
        }
    } else {
        for (var j = 0u; j < KPT; j++) {
            let s = slot(inv, j);
            if s < count {
                v[j] = vals_in[start + s];
            }
        }
    }
    return v;
}

// scatter: write the staged tile's runs of equal digits to digit_base[d] + position:
// consecutive invocations, consecutive addresses; then the values the same way, loaded only
// now, so no registers hold them through the ranking and the look-back (loaded before the
// look-back, OneSweep's pairs passes needed 165-167 registers, one workgroup per SM: 20.48
// against 28.29 Gkeys/s at 2^28, H100, 2026-11-25). After tile_stage and tile_set_base. With
// STAGE_ROUNDS = 2 the keys `t` and their ranks stage the second round here, once the first
// is written.
fn tile_write(inv: Inv, t: TileKeys, rank: Ranks, start: u32, count: u32) {
    // barrier: the tile (its first round) is staged in digit order and digit_base is set
    workgroupBarrier();
    var dst: array<u32, KPT>;
    write_round(inv, &dst, count, 0u);
    if STAGE_ROUNDS > 1u {
        // barrier: the first round's keys were read from tile_mem
        workgroupBarrier();
        stage_round(inv, t.keys, rank, count, 1u);
        // barrier: the second round is staged
        workgroupBarrier();
        write_round(inv, &dst, count, 1u);
    }
    if PAIRS != 0u {
        let v = tile_values(inv, start, count);
        for (var r = 0u; r < STAGE_ROUNDS; r++) {
            // barrier: every key (the previous round's values) was read from tile_mem before
            // values overwrite it
            workgroupBarrier();
            stage_round(inv, v, rank, count, r);
            // barrier: the values are staged
            workgroupBarrier();
            write_values_round(inv, dst, count, r);
        }
    }
    if VALUES2 != 0u {
        // the second value word, the same way, loaded only once the first is written
        let v = tile_values2(inv, start, count);
        for (var r = 0u; r < STAGE_ROUNDS; r++) {
            // barrier: the first values (the previous round's second ones) were read from
            // tile_mem
            workgroupBarrier();
            stage_round(inv, v, rank, count, r);
            // barrier: the second values are staged
            workgroupBarrier();
            write_values2_round(inv, dst, count, r);
        }
    }
}

// The tile's second value words in the keys' layout (items without a key hold 0).
fn tile_values2(inv: Inv, start: u32, count: u32) -> array<u32, KPT> {
    var v: array<u32, KPT>;
    if WIDE_IN != 0u && INDEX_PAYLOAD != 0u {
        // the first pass of a sort of 64-bit keys with the index payload: the indices
        for (var j = 0u; j < KPT; j++) {
            v[j] = start + slot(inv, j);
        }
        return v;
    }
    for (var j = 0u; j < KPT; j++) {
        let s = slot(inv, j);
        if s < count {
            v[j] = vals2_in[start + s];
        }
    }
    return v;
}

// The second values of round r's items to the places their keys went (write_round).
fn write_values2_round(inv: Inv, dst: array<u32, KPT>, count: u32, r: u32) {
    for (var j = 0u; j < KPT; j++) {
        let i = j * WG_SIZE + inv.lid;
        if i < count && (STAGE_ROUNDS == 1u || j / STAGE_KPT == r) {
            vals2_out[dst[j]] = atomicLoad(&tile_mem[i - r * TILE_MEM]);
        }
    }
}

// The keys of tile positions j * WG_SIZE + lid for the items j of round r (all with one round;
// with two, j below or from STAGE_KPT), each item's place to `dst`.
fn write_round(inv: Inv, dst: ptr<function, array<u32, KPT>>, count: u32, r: u32) {
    if FULL_TILES != 0u && count == TILE {
        for (var j = 0u; j < KPT; j++) {
            if STAGE_ROUNDS == 1u || j / STAGE_KPT == r {
                (*dst)[j] = write_key(j * WG_SIZE + inv.lid, r);
            }
        }
    } else {
        for (var j = 0u; j < KPT; j++) {
            let i = j * WG_SIZE + inv.lid;
            if i < count && (STAGE_ROUNDS == 1u || j / STAGE_KPT == r) {
                (*dst)[j] = write_key(i, r);
            }
        }
    }
}

// The values of round r's items to the places their keys went (write_round).
fn write_values_round(inv: Inv, dst: array<u32, KPT>, count: u32, r: u32) {
    if WIDE_OUT != 0u {
        // the last pass of a sort of 64-bit keys: the carried word into the caller's keys
        for (var j = 0u; j < KPT; j++) {
            let i = j * WG_SIZE + inv.lid;
            if i < count && (STAGE_ROUNDS == 1u || j / STAGE_KPT == r) {
                wide_write_other(dst[j], atomicLoad(&tile_mem[i - r * TILE_MEM]), i);
            }
        }
        return;
    }
    if FULL_TILES != 0u && count == TILE {
        for (var j = 0u; j < KPT; j++) {
            if STAGE_ROUNDS == 1u || j / STAGE_KPT == r {
                vals_out[dst[j]] = atomicLoad(&tile_mem[j * WG_SIZE + inv.lid - r * TILE_MEM]);
            }
        }
    } else {
        for (var j = 0u; j < KPT; j++) {
            let i = j * WG_SIZE + inv.lid;
            if i < count && (STAGE_ROUNDS == 1u || j / STAGE_KPT == r) {
                vals_out[dst[j]] = atomicLoad(&tile_mem[i - r * TILE_MEM]);
            }
        }
    }
}
