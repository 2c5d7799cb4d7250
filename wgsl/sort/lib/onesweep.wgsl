// include-only
// The OneSweep pass of the radix sort, one dispatch per digit (Adinets & Merrill 2022): count the
// tile's digits and publish the counts (tile 0 first scans the pass's global digit counts,
// stage 1's histogram, into the digits' first positions), rank the tile and stage it in digit
// order (sort/lib/tile.wgsl), find its digits' global offsets by decoupled look-back over the
// predecessors' published counts (Merrill & Garland, "Single-pass Parallel Prefix Scan with
// Decoupled Look-back", 2016), publish the inclusive prefix, write the staged tile out.
//
// Forward progress: tiles take their index from an atomic counter (so predecessors have at
// least started), and a predecessor that has published nothing after SPIN polls is not waited
// for: the workgroup counts that predecessor's digits from its keys itself (decoupled
// fallback), so no tile ever depends on another workgroup being scheduled.
//
// State (the stage's binding `state: array<atomic<u32>>`): [0, 1024) global digit counts per
// pass, [1024, 1088) tile counters (a ticket per pass, the last pass's arrivals), then from
// STATE_STATUS per pass tiles * 256 status words: 2 flag bits (aggregate, inclusive prefix)
// over a 30-bit count, so n < 2^30. The host reads STATE_COUNTERS and STATE_STATUS. The
// histogram stage zeroes the counters and status words of each run; the global counts are
// zeroed by the last pass's last tile to arrive (LAST_PASS), once every tile of the run is past
// its look-back, the last reader of them, so the next run's histogram finds them zeroed.
//
// The stages sort/onesweep (keys alone), sort/onesweep_pairs and sort/onesweep_small call
// onesweep_pass from their entry points, each with its own tile (`const KPT`, `const
// STAGE_KPT`, `const WG_SIZE`) and the bindings of sort/lib/tile.wgsl plus `state`.

//!include sort/lib/tile

override PASS: u32 = 0u;
override SPIN: u32 = 64u;
// predecessors read per look-back step: one window of independent loads per step. 4 against 8:
// 33.72 against 31.70 Gkeys/s at 2^28 (H100, 2026-11-23); wider windows took fewer steps but
// each cost more than its loads.
const LOOKBACK: u32 = 4u;
// 1: tiles in order of start from an atomic ticket; 0: tile = workgroup index (verification
// only: lets the simulator's unfair scheduler run a tile before its predecessors)
override TICKETS: u32 = 1u;
// 1: the sort's last digit pass, whose last tile zeroes the global counts
override LAST_PASS: u32 = 0u;
// 1: each digit first walks alone, without the workgroup's two barriers per step (see the
// look-back): 22.4 against 21.9 Gkeys/s at 2^28 (H100, 2026-11-22)
const SOLO_WALK: u32 = 1u;

const STATE_COUNTERS: u32 = 1024u;
const STATE_ARRIVED: u32 = STATE_COUNTERS + 32u;
const STATE_STATUS: u32 = 1088u;
const FLAG_AGGREGATE: u32 = 0x40000000u;
const FLAG_INCLUSIVE: u32 = 0x80000000u;
const VALUE_MASK: u32 = 0x3fffffffu;

var<workgroup> os_tile: u32;
// [fallback needed, still pending] for even and odd look-back steps, then "a solo walk stopped"
var<workgroup> os_flags: array<atomic<u32>, 5>;

// One look-back step of digit d's walk, from predecessor `pos` down with `acc` taken so far:
// read a window of LOOKBACK predecessors (independent loads: about one L2 round trip however
// far back the inclusive prefix is; one predecessor per step waited a round trip per
// predecessor, 0.84 ms per pass at 2^24 keys on the H100), walk it adding aggregates until an inclusive prefix, and if the walk stops at a
// predecessor that has published nothing, poll that one SPIN times (`poll`) or not. `silent`:
// it is still silent (pos is that predecessor).
struct LookStep {
    acc: u32,
    pos: u32,
    done: bool,
    silent: bool,
}

fn look_step(status: u32, d: u32, pos: u32, acc_in: u32, poll: bool) -> LookStep {
    var r = LookStep(acc_in, pos, false, false);
    // the window: predecessors pos, pos - 1, ..., pos - LOOKBACK + 1 (past tile 0 it reads
    // tile 0 again; the walk ignores those)
    var st: array<u32, LOOKBACK>;
    for (var j = 0u; j < LOOKBACK; j++) {
        st[j] = atomicLoad(&state[status + select(0u, pos - j, j <= pos) * RADIX + d]);
    }
    // walk it in order, with constant bounds, no break and no branches: the window stays in
    // registers (NVIDIA's compiler put a loop-indexed array of the GEMM in local memory), and
    // no load can sink into a branch of the walk, where each would wait for the one before
    // (written with branches, the look-back took 5.6 ms over the four passes at 2^28 keys on
    // the H100). j = the aggregates taken before the walk stopped.
    var j = 0u;
    var stop = false;
    for (var k = 0u; k < LOOKBACK; k++) {
        let s = st[k];
        let take = !stop && k <= pos && (s & (FLAG_AGGREGATE | FLAG_INCLUSIVE)) != 0u;
        let inclusive = take && (s & FLAG_INCLUSIVE) != 0u;
        r.acc += select(0u, s & VALUE_MASK, take);
        j += select(0u, 1u, take && !inclusive);
        r.done = r.done || inclusive;
        stop = stop || !take || inclusive;
    }
    if !r.done {
        r.pos = pos - j;
        // the walk stopped at a silent predecessor (j < LOOKBACK): poll it, or leave it to
        // the caller
        r.silent = j < LOOKBACK;
        if r.silent && poll {
            var s = atomicLoad(&state[status + r.pos * RADIX + d]);
            for (var spin = 0u; spin < SPIN && (s & (FLAG_AGGREGATE | FLAG_INCLUSIVE)) == 0u; spin++) {
                s = atomicLoad(&state[status + r.pos * RADIX + d]);
            }
            if (s & FLAG_INCLUSIVE) != 0u {
                r.acc += s & VALUE_MASK;
                r.done = true;
                r.silent = false;
            } else if (s & FLAG_AGGREGATE) != 0u {
                r.acc += s & VALUE_MASK;
                r.pos -= 1u;
                r.silent = false;
            }
        }
    }
    return r;
}

// Digit d's first output position the slow way, for the decoupled fallback on a silent tile 0:
// this pass's global counts of the digits below d, summed.
fn digits_below(d: u32) -> u32 {
    var sum = 0u;
    for (var e = 0u; e < d; e++) {
        sum += atomicLoad(&state[PASS * RADIX + e]);
    }
    return sum;
}

// The pass, for the stage's entry point.
fn onesweep_pass(inv: Inv, wid: vec3<u32>, nwg: vec3<u32>) {
    // tile index in order of start
    if inv.lid == 0u {
        if TICKETS != 0u {
            os_tile = atomicAdd(&state[STATE_COUNTERS + PASS], 1u);
        } else {
            os_tile = wid.x + wid.y * nwg.x;
        }
    }
    let tile = workgroupUniformLoad(&os_tile);
    if tile >= params.tiles {
        return;
    }
    let start = tile * TILE;
    let count = min(TILE, params.n - start);
    // load
    let t = tile_load(inv, start, count);
    // count the tile's digits first and publish them before ranking (CUB's "early counts"), so
    // successors looking back rarely find this tile silent: tile 0 publishes its inclusive
    // prefix at once. Each subgroup counts into its row of the ranking's counters (tile_count),
    // which the ranking then starts from: its reservations are the keys' final positions.
    // invocation d < RADIX owns digit d; the rest (WG_SIZE > RADIX) own none
    let d = inv.lid;
    let owner = d < RADIX;
    // the digit's first output position: the exclusive scan of this pass's global digit counts.
    // Only tile 0 needs it (every other tile's look-back ends at an inclusive prefix that holds
    // it, or, rarely, in a fallback on tile 0: digits_below), so tile 0's workgroup takes it
    // itself, in scan order and then by digit through digit_base (free until tile_count's
    // scan). (A dispatch of its own cost 14 µs per sort, the scan in every workgroup 3.5% at
    // 2^28 keys; H100, 2026-11-23.)
    var global = 0u;
    if tile == 0u {
        let r = inv_rank(inv);
        var c = 0u;
        if r < RADIX {
            c = atomicLoad(&state[PASS * RADIX + r]);
        }
        let s = wg_scan_add_u32(inv, c).x;
        if r < RADIX {
            atomicStore(&digit_base[r], s);
        }
        // barrier: tile 0's digit starts are in (tile is uniform)
        workgroupBarrier();
        if owner {
            global = atomicLoad(&digit_base[d]);
        }
    }
    tile_count(inv, t, count);
    var total = 0u;
    var dstart = 0u;
    let status = STATE_STATUS + PASS * params.tiles * RADIX;
    if owner {
        let c = tile_counted_digit(d, count);
        dstart = c.x;
        total = c.y;
        if tile == 0u {
            atomicStore(&state[status + d], FLAG_INCLUSIVE | (global + total));
        } else {
            atomicStore(&state[status + tile * RADIX + d], FLAG_AGGREGATE | total);
        }
    }
    // rank and stage the tile before the look-back (CUB's order: the ranking overlaps the
    // predecessors' look-backs; 33.49 against 30.72 Gkeys/s at 2^28 looking back first, H100,
    // 2026-11-23). Staging first leaves only the ranks (pairs), the window and, with two
    // staging rounds, the keys in registers while it waits.
    let rank = tile_rank_counted(inv, t, count);
    tile_stage(inv, t, rank, count);
    if d < 5u {
        atomicStore(&os_flags[d], 0u);
    }
    if owner {
        atomicStore(&digit_base[d], 0u);
    }
    // barrier: flags and fallback counters are cleared
    workgroupBarrier();
    // look back (decoupled, Merrill & Garland): each digit's invocation walks its predecessors
    // from tile - 1 down in steps (look_step), adding aggregates until it meets an inclusive
    // prefix. A walk stuck at a silent predecessor asks for the fallback on that tile: the
    // workgroup then counts the highest requested tile's keys itself (uniform: one tile for all
    // digits), the invocations stuck on it step past it, and those stuck lower retry in the
    // next step, so every step makes progress without waiting for any other workgroup.
    var acc = select(0u, global, tile == 0u);
    var done = tile == 0u || !owner;
    // the next predecessor to look at
    var pos = tile - 1u;
    // first each digit walks alone, without barriers, until it is done or meets a silent
    // predecessor (no subgroup operations or barriers inside, so the walks may differ in
    // length). It does not poll: the workgroup's steps do, so the poll loop is inlined once.
    // Inlined twice, it made NVIDIA's compiler put the first pass's per-item arrays in local
    // memory for f32 and i32 keys (144 bytes per invocation), and once the keys pass is 1%
    // faster (22.57 against 22.40 Gkeys/s at 2^28 on the H100, 2026-11-22).
    var silent = false;
    while SOLO_WALK != 0u && !done && !silent {
        let w = look_step(status, d, pos, acc, false);
        acc = w.acc;
        pos = w.pos;
        done = w.done;
        silent = w.silent;
    }
    // keys alone: a digit whose walk is done publishes its inclusive prefix at once (digits are
    // independent: no barrier), so successors' walks meet it sooner, and the workgroup's steps
    // run only if a walk stopped at a silent predecessor (one barrier to find out, where the
    // steps take two): keys 38.44 against 36.00 Gkeys/s at 2^28; pairs got slower with it
    // (25.24 against 26.24), so they keep the workgroup's steps and publish after them (H100,
    // 2026-11-23).
    let early = PAIRS == 0u;
    let published = early && done;
    if published && tile != 0u && owner {
        atomicStore(&state[status + tile * RADIX + d], FLAG_INCLUSIVE | (acc + total));
    }
    if !done {
        atomicOr(&os_flags[4], 1u);
    }
    if early {
        // barrier: the walks that stopped at a silent predecessor have said so
        workgroupBarrier();
    }
    // then the workgroup's steps, with the fallback (one step and two barriers when no walk
    // got stuck)
    if !early || atomicLoad(&os_flags[4]) != 0u {
        var step = 0u;
        loop {
            let par = (step & 1u) * 2u;
            var need = false;
            if !done {
                let w = look_step(status, d, pos, acc, true);
                acc = w.acc;
                pos = w.pos;
                done = w.done;
                if w.silent {
                    need = true;
                    atomicMax(&os_flags[par], pos + 1u);
                }
            }
            // barrier: fallback requests are in
            workgroupBarrier();
            let fb = atomicLoad(&os_flags[par]);
            // the other parity's flags were last read before this step's first barrier
            if inv.lid == 0u {
                atomicStore(&os_flags[2u - par], 0u);
                atomicStore(&os_flags[3u - par], 0u);
            }
            if fb != 0u {
                // decoupled fallback: count the predecessor's digits from its keys (a full tile)
                let f = fb - 1u;
                for (var j = 0u; j < KPT; j++) {
                    var k = keys_in[f * TILE + j * WG_SIZE + inv.lid];
                    if MAP_IN != 0u {
                        k = to_sortable(k);
                    }
                    if WIDE_IN != 0u {
                        // (keys_in holds two words a key: k was not a key)
                        k = wide_word_in(f * TILE + j * WG_SIZE + inv.lid, WIDE_HALF);
                    }
                    atomicAdd(&digit_base[digit_of(k)], 1u);
                }
                // barrier: the predecessor's counts are complete
                workgroupBarrier();
                if need && pos == f {
                    acc += atomicLoad(&digit_base[d]);
                    if f == 0u {
                        acc += digits_below(d);
                        done = true;
                    } else {
                        pos -= 1u;
                    }
                }
            }
            if !done {
                atomicOr(&os_flags[par + 1u], 1u);
            }
            // barrier: pending flags are in; fallback counts have been read
            workgroupBarrier();
            let pending = atomicLoad(&os_flags[par + 1u]) != 0u;
            if fb != 0u && owner {
                atomicStore(&digit_base[d], 0u);
            }
            step += 1u;
            if !pending {
                break;
            }
        }
        if !published && tile != 0u && owner {
            atomicStore(&state[status + tile * RADIX + d], FLAG_INCLUSIVE | (acc + total));
        }
    }
    if owner {
        tile_set_base(d, acc, dstart);
    }
    // scatter
    tile_write(inv, t, rank, start, count);
    if LAST_PASS != 0u {
        // the tile's look-back, the last read of the global counts, ended before
        // tile_write's barriers
        if inv.lid == 0u {
            os_tile = atomicAdd(&state[STATE_ARRIVED], 1u);
        }
        if workgroupUniformLoad(&os_tile) + 1u == params.tiles {
            // every tile has arrived: the global counts zeroed for the next run
            for (var i = inv.lid; i < STATE_COUNTERS; i += WG_SIZE) {
                atomicStore(&state[i], 0u);
            }
        }
    }
}
