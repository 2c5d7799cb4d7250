// Histogram with even bins, stage 1 (after the clear of the caller's counts): every sample's
// bin found exactly, counted in workgroup memory, and each workgroup's counts added to the
// caller's.
// - Bins: bin i holds the samples x with e_i <= x < e_(i+1), the edges e_i = lo + i*w in f64
//   and e_BINS = hi (src/histogram.rs); a sample below lo, at or above hi, or NaN is not
//   counted. The host turns the edges into `table` in the samples' own terms, so no float
//   arithmetic decides a bin here:
//   - KIND 0, bytes (four to a word): table[v] is byte v's bin, or NO_BIN; KIND 2, bytes whose
//     table is the identity (256 bins over [0, 256)): byte v's bin is v, no table read;
//   - KIND 1, 32-bit samples: table[i] is the least order key (key_of) of a sample at or above
//     e_i, for i in 0..=BINS; from NEVER_FROM on no sample reaches the edge. A sample's bin is
//     the last i whose threshold it reaches, found by binary search.
// - Grid: a capped grid (histogram/lib/params) strides over the vec4s of samples; workgroup 0
//   takes the samples past the last whole vec4. The caller's range may end with the count.

//!include histogram/lib/params

const NO_BIN: u32 = 0xffffffffu;
// 0: byte samples by table; 1: 32-bit samples by thresholds; 2: byte samples, each its own bin
override KIND: u32 = 1u;
// copies of the counts in workgroup memory: invocation i counts into copy i % COPIES, so
// invocations counting the same bin collide less (HistogramPolicy::byte_copies)
override COPIES: u32 = 1u;
// the counts' words in workgroup memory (an override: naga names array sizes that way)
override COUNTS_LEN: u32 = BINS * COPIES;
// 32-bit samples: 0 u32, 1 i32, 2 f32
override KEY: u32 = 0u;
override BINS: u32 = 1u;
override NEVER_FROM: u32 = 0xffffffffu;
override TABLE_LEN: u32 = BINS + 1u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> samples: array<vec4<u32>>;
// the same samples as words, for those past the last whole vec4
@group(0) @binding(2) var<storage, read> sample_words: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<u32>;
// the caller's counts, zeroed by the pass before
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;

// bin b's copy c at b * COPIES + c
var<workgroup> wg_counts: array<atomic<u32>, COUNTS_LEN>;
// this invocation's copy
var<private> copy: u32;
var<workgroup> wg_table: array<u32, TABLE_LEN>;

// A 32-bit sample's order key: u32 as is, i32 with the sign bit flipped, f32 with -0 taken as
// +0 (equal values), negatives' bits all flipped and the rest's sign bit set.
fn key_of(x: u32) -> u32 {
    if KEY == 1u {
        return x ^ 0x80000000u;
    }
    if KEY == 2u {
        if (x & 0x7fffffffu) == 0u {
            return 0x80000000u;
        }
        return select(x | 0x80000000u, ~x, (x & 0x80000000u) != 0u);
    }
    return x;
}

// Whether key k reaches edge i.
fn reaches(k: u32, i: u32) -> bool {
    return i < NEVER_FROM && k >= wg_table[i];
}

// The bin of a 32-bit sample, or NO_BIN.
fn bin_of(x: u32) -> u32 {
    if KEY == 2u && (x & 0x7fffffffu) > 0x7f800000u {
        return NO_BIN;
    }
    let k = key_of(x);
    if !reaches(k, 0u) || reaches(k, BINS) {
        return NO_BIN;
    }
    var lo = 0u;
    var hi = BINS;
    // (thresholds never decrease: the last edge reached)
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if reaches(k, mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

fn count_bin(b: u32) {
    if b != NO_BIN {
        atomicAdd(&wg_counts[b * COPIES + copy], 1u);
    }
}

// Sample j (0..PER_WORD) of word w.
fn count_sample(w: u32, j: u32) {
    if KIND == 2u {
        atomicAdd(&wg_counts[((w >> (8u * j)) & 0xffu) * COPIES + copy], 1u);
    } else if KIND == 0u {
        count_bin(wg_table[(w >> (8u * j)) & 0xffu]);
    } else {
        count_bin(bin_of(w));
    }
}

fn count_packed(w: u32) {
    for (var j = 0u; j < PER_WORD; j++) {
        count_sample(w, j);
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_samples(count_word);
    let grid = hist_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    // (bytes that are their own bins read no table)
    if KIND != 2u {
        for (var i = lid; i < TABLE_LEN; i += WG_SIZE) {
            wg_table[i] = table[i];
        }
    }
    copy = lid % COPIES;
    for (var i = lid; i < COUNTS_LEN; i += WG_SIZE) {
        atomicStore(&wg_counts[i], 0u);
    }
    // barrier: the table and the zeroed counts are in
    workgroupBarrier();
    // count: the grid sweeps the vec4s together, one per invocation per step
    let per_vec = 4u * PER_WORD;
    let full = n / per_vec;
    for (var v = wid.x * WG_SIZE + lid; v < full; v += grid * WG_SIZE) {
        let q = samples[v];
        count_packed(q.x);
        count_packed(q.y);
        count_packed(q.z);
        count_packed(q.w);
    }
    // the samples past the last whole vec4 (fewer than one vec4's)
    if wid.x == 0u {
        for (var e = full * per_vec + lid; e < n; e += WG_SIZE) {
            count_sample(sample_words[e / PER_WORD], e % PER_WORD);
        }
    }
    // barrier: this workgroup's counts are complete
    workgroupBarrier();
    for (var i = lid; i < BINS; i += WG_SIZE) {
        var c = 0u;
        for (var k = 0u; k < COPIES; k++) {
            c += atomicLoad(&wg_counts[i * COPIES + k]);
        }
        if c != 0u {
            atomicAdd(&counts[i], c);
        }
    }
}
