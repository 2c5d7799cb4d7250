// include-only
// The head of a counted plan's control block (src/count.rs): word 0 the run's count, from the
// host or copied in from the caller's GPU word; word COUNT_LIMIT the most elements every range
// the recording binds holds, which the host writes with the head (0: no limit beyond the
// plan's maximum, as in a block only a pass of the plan fills). Every stage that reads a count
// reads it through run_count_of, so a count past the caller's ranges never reaches an index.

const COUNT_LIMIT: u32 = 2u;

// The count a run works on: the count word clamped to the limit and to `max_count` (the plan's
// maximum, MAX_COUNT of the including stage).
fn run_count_of(word: u32, limit: u32, max_count: u32) -> u32 {
    return min(min(word, max_count), select(0xffffffffu, limit, limit != 0u));
}
