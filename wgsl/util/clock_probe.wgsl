// The device clock's probe (src/gpu/clock.rs, GpuContext::probe_clock): one invocation reads
// the clock, reads it again until SPIN units have passed (at most MAX_READS reads, should the
// clock stand still), and writes the first and last reads and the count; the host times the
// pass with timestamp queries, which gives the clock's units per ns and whether the clock and
// the timestamps are one time line.
//!include shared/device_clock

// 10 ms where the clock counts ns: the pass's launch and end (a few µs) skew the rate under 0.1%
override SPIN: u32 = 10000000u;
// (a few hundred ms of reads at most, should the clock stand still: far from a GPU's watchdog)
const MAX_READS: u32 = 4000000u;

// first (lo, hi), last (lo, hi), reads
@group(0) @binding(0) var<storage, read_write> reads: array<u32, 5>;

@compute @workgroup_size(1)
fn main() {
    if !DEVICE_CLOCK {
        return;
    }
    let first = device_clock();
    var last = first;
    var n = 0u;
    for (; n < MAX_READS && last.x - first.x < SPIN; n++) {
        last = device_clock();
    }
    reads[0] = first.x;
    reads[1] = first.y;
    reads[2] = last.x;
    reads[3] = last.y;
    reads[4] = n;
}
