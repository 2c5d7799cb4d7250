//! Who a race report names: the invocation whose access completed the race and, as the second
//! party, another invocation that touched the word, never the first one again.

use super::{findings_at, line_of};
use crate::finding::FindingKind;

/// Every invocation reads a word, then invocation 0 overwrites it with no barrier between.
const WRITE_AFTER_READS: &str = "
var<workgroup> cell: array<u32, 4>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    let v = cell[0];
    if i == 0u { cell[0] = 7u; }
    out[i] = v;
}";

/// The write by the word's first reader races the other invocations' reads: the report at the
/// write names the writer and a reader at its read (the first toucher itself was once named as
/// the second party). Where subgroups interleave, reads after the write race it too, reported
/// at the read with the writer as the second party.
#[test]
fn a_write_after_others_read_names_a_reader() {
    let read = line_of(WRITE_AFTER_READS, "let v = cell[0]");
    let write = line_of(WRITE_AFTER_READS, "cell[0] = 7u");
    for s in [4, 32, 128] {
        let f = findings_at(WRITE_AFTER_READS, s, None, [1, 1, 1], &["0=u32:zeros:64"]);
        let races: Vec<_> = f
            .iter()
            .filter(|f| f.kind == FindingKind::WorkgroupRace)
            .collect();
        for r in &races {
            assert_eq!(r.parties.len(), 2, "at {s}: {r}");
            let (this, other) = (&r.parties[0], &r.parties[1]);
            assert_ne!(this.local_index, other.local_index, "at {s}: {r}");
            let (at, other_at) = (
                this.loc.as_ref().unwrap().line,
                other.loc.as_ref().unwrap().line,
            );
            assert_eq!(at, r.loc.as_ref().unwrap().line, "at {s}: {r}");
            // one party writes, the other reads
            let mut lines = [at, other_at];
            lines.sort();
            assert_eq!(lines, [read, write], "at {s}: {r}");
        }
        let at_write = races
            .iter()
            .find(|r| r.loc.as_ref().unwrap().line == write)
            .unwrap_or_else(|| panic!("at {s}: no race at the write: {f:#?}"));
        assert_eq!(at_write.parties[0].local_index, 0, "at {s}: {at_write}");
    }
}

/// The same with a barrier between the reads and the write, and a write of a word only its
/// writer reads: no race.
#[test]
fn a_write_behind_a_barrier_or_of_its_own_word_is_fine() {
    let behind =
        WRITE_AFTER_READS.replace("    if i == 0u", "    workgroupBarrier();\n    if i == 0u");
    let own = WRITE_AFTER_READS
        .replace("let v = cell[0];", "let v = cell[i % 4u];")
        .replace(
            "if i == 0u { cell[0] = 7u; }",
            "if i < 4u { cell[i] = v + 1u; }",
        )
        .replace("@workgroup_size(64)", "@workgroup_size(4)");
    for s in [4, 32, 128] {
        let f = findings_at(&behind, s, None, [1, 1, 1], &["0=u32:zeros:64"]);
        assert!(f.is_empty(), "at {s}: {f:#?}");
        let f = findings_at(&own, s, None, [1, 1, 1], &["0=u32:zeros:4"]);
        assert!(f.is_empty(), "at {s}: {f:#?}");
    }
}
