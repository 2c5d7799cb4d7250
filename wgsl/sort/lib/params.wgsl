// include-only
// The params of the OneSweep stages of a GPU count. The prepare stage writes `SortParams` into
// the control blocks for host counts; for a GPU count, copy 0 of the control block holds the
// maximum count's blocks with SORT_PARAMS_DERIVED in `derive`, and each stage computes the
// params from the count word itself, so no prepare pass runs: that dispatch and the wait for it
// were 7 µs of a 2^20-key sort's 100 on the H200 (2026-11-27). The including stage binds
// `params_block` (its block) and `count_word` (word 0 of the same copy) and reads the params
// through `sort_n` and `sort_tiles`. (A private copy of the params set at the start of the
// stage made lavapipe's LLVM take over ten minutes compiling a OneSweep stage.)

// the sorter's maximum count: a larger count word is clamped to it
override MAX_COUNT: u32 = 0xffffffffu;

const SORT_PARAMS_DERIVED: u32 = 0xffffffffu;

// This run's key count.
fn sort_n() -> u32 {
    if params_block.derive == SORT_PARAMS_DERIVED {
        return min(count_word.x, MAX_COUNT);
    }
    return params_block.n;
}

// This run's tiles of TILE keys (the including stage's TILE).
fn sort_tiles() -> u32 {
    if params_block.derive == SORT_PARAMS_DERIVED {
        return (sort_n() + TILE - 1u) / TILE;
    }
    return params_block.tiles;
}
