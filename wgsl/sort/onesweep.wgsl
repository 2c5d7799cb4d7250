// Radix sort, OneSweep stage 3, one dispatch per digit (Adinets & Merrill 2022): count the
// tile's digits and publish the counts, rank the tile (shared/sort_tile.wgsl), find its digits'
// global offsets by decoupled look-back over the predecessors' published counts (Merrill &
// Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016), publish the
// inclusive prefix, scatter.
//
// Forward progress: tiles take their index from an atomic counter (so predecessors have at
// least started), and a predecessor that has published nothing after SPIN polls is not waited
// for: the workgroup counts that predecessor's digits from its keys itself (decoupled
// fallback), so no tile ever depends on another workgroup being scheduled.
//
// State (one u32 buffer, cleared before the sort): [0, 1024) global digit offsets per pass,
// [1024, 1088) tile counters, then per pass tiles * 256 status words: 2 flag bits
// (1 = aggregate, 2 = inclusive prefix) over a 30-bit count, so n < 2^30.
//
// Built without runtime checks, like sort/scatter (same proof; 15.18 against 14.58 ms for the
// four passes at 2^28 keys on the H100).
// wgsimd: runtime checks off

//!include shared/sort_tile

override PASS: u32 = 0u;
override SPIN: u32 = 64u;
// predecessors read per look-back step
const LOOKBACK: u32 = 16u;
// 1: tiles in order of start from an atomic ticket; 0: tile = workgroup index (tests only: lets
// the simulator's unfair scheduler run a tile before its predecessors)
override TICKETS: u32 = 1u;
// 1: look back before ranking instead of after (SortPolicy::onesweep_early_lookback)
override EARLY_LOOKBACK: u32 = 0u;

const STATE_COUNTERS: u32 = 1024u;
const STATE_STATUS: u32 = 1088u;
const FLAG_AGGREGATE: u32 = 0x40000000u;
const FLAG_INCLUSIVE: u32 = 0x80000000u;
const VALUE_MASK: u32 = 0x3fffffffu;

@group(0) @binding(5) var<storage, read_write> state: array<atomic<u32>>;

var<workgroup> os_tile: u32;
// [fallback needed, still pending] for even and odd look-back steps
var<workgroup> os_flags: array<atomic<u32>, 4>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
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
    // prefix at once. The counters are tile_mem[FREE_AT..], which the ranking leaves alone: the
    // fallback counts there too, until the scatter stages the tile.
    let d = inv.lid;
    atomicStore(&tile_mem[FREE_AT + d], 0u);
    // barrier: the counters are cleared before anyone counts
    workgroupBarrier();
    for (var j = 0u; j < KPT; j++) {
        if slot(inv, j) < count {
            atomicAdd(&tile_mem[FREE_AT + digit_of(t.keys[j])], 1u);
        }
    }
    // barrier: the tile's counts are complete
    workgroupBarrier();
    let total = atomicLoad(&tile_mem[FREE_AT + d]);
    let status = STATE_STATUS + PASS * params.tiles * RADIX;
    let global = atomicLoad(&state[PASS * RADIX + d]);
    if tile == 0u {
        atomicStore(&state[status + d], FLAG_INCLUSIVE | (global + total));
    } else {
        atomicStore(&state[status + tile * RADIX + d], FLAG_AGGREGATE | total);
    }
    // rank here (EARLY_LOOKBACK = 0, the default: CUB's order, the ranking overlaps the
    // predecessors' look-backs; 6% faster on the H100 with 12 keys per invocation) or after the
    // look-back (1: this tile's inclusive prefix is published sooner; SortPolicy::
    // onesweep_early_lookback)
    var rank: array<u32, KPT>;
    if EARLY_LOOKBACK == 0u {
        rank = tile_rank(inv, t, count);
    }
    if d < 4u {
        atomicStore(&os_flags[d], 0u);
    }
    atomicStore(&tile_mem[FREE_AT + d], 0u);
    // barrier: flags and fallback counters are cleared
    workgroupBarrier();
    // look back (decoupled, Merrill & Garland): each digit's invocation walks its predecessors
    // from tile - 1 down, adding aggregates until it meets an inclusive prefix. A step reads a
    // window of LOOKBACK predecessors at once (independent loads, so a step costs about one L2
    // round trip however far back the inclusive prefix is; one predecessor per step made the
    // H100 wait a round trip per predecessor: 0.84 ms per pass at 2^24 keys, against 0.18 ms
    // for a reduce-then-scan scatter). A walk stops early at a predecessor that has published
    // nothing yet and polls it SPIN times; if it is still silent, the invocation asks for the
    // fallback on that tile. The workgroup then counts the highest requested tile's keys itself
    // (uniform: one tile for all digits), the invocations stuck on it step past it, and those
    // stuck lower retry in the next step, so every step makes progress without waiting for any
    // other workgroup.
    var acc = select(0u, global, tile == 0u);
    var done = tile == 0u;
    // the next predecessor to look at
    var pos = tile - 1u;
    var step = 0u;
    loop {
        let par = (step & 1u) * 2u;
        var need = false;
        if !done {
            // read the window: predecessors pos, pos - 1, ..., pos - LOOKBACK + 1 (those >= 0)
            var st: array<u32, LOOKBACK>;
            for (var j = 0u; j < LOOKBACK; j++) {
                if j <= pos {
                    st[j] = atomicLoad(&state[status + (pos - j) * RADIX + d]);
                }
            }
            // walk it in order, with constant bounds and no break so the window can stay in
            // registers (NVIDIA's compiler put a loop-indexed array of the GEMM in local
            // memory); j = the aggregates taken before the walk stopped
            var j = 0u;
            var stop = false;
            for (var k = 0u; k < LOOKBACK; k++) {
                let s = st[k];
                if !stop {
                    if k > pos || (s & (FLAG_AGGREGATE | FLAG_INCLUSIVE)) == 0u {
                        stop = true;
                    } else {
                        acc += s & VALUE_MASK;
                        if (s & FLAG_INCLUSIVE) != 0u {
                            done = true;
                            stop = true;
                        } else {
                            j += 1u;
                        }
                    }
                }
            }
            if !done {
                pos -= j;
                if j < LOOKBACK {
                    // stopped at a silent predecessor (pos): poll it, then ask for the fallback
                    var s = atomicLoad(&state[status + pos * RADIX + d]);
                    for (var spin = 0u; spin < SPIN && (s & (FLAG_AGGREGATE | FLAG_INCLUSIVE)) == 0u; spin++) {
                        s = atomicLoad(&state[status + pos * RADIX + d]);
                    }
                    if (s & FLAG_INCLUSIVE) != 0u {
                        acc += s & VALUE_MASK;
                        done = true;
                    } else if (s & FLAG_AGGREGATE) != 0u {
                        acc += s & VALUE_MASK;
                        pos -= 1u;
                    } else {
                        need = true;
                        atomicMax(&os_flags[par], pos + 1u);
                    }
                }
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
                atomicAdd(&tile_mem[FREE_AT + digit_of(k)], 1u);
            }
            // barrier: the predecessor's counts are complete
            workgroupBarrier();
            if need && pos == f {
                acc += atomicLoad(&tile_mem[FREE_AT + d]);
                if f == 0u {
                    acc += global;
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
        if fb != 0u {
            atomicStore(&tile_mem[FREE_AT + d], 0u);
        }
        step += 1u;
        if !pending {
            break;
        }
    }
    // publish the inclusive prefix
    if tile != 0u {
        atomicStore(&state[status + tile * RADIX + d], FLAG_INCLUSIVE | (acc + total));
    }
    if EARLY_LOOKBACK != 0u {
        rank = tile_rank(inv, t, count);
    }
    tile_set_base(d, acc);
    // scatter
    tile_scatter(inv, t, rank, start, count);
}
