// include-only
// The params of the OneSweep stages of a GPU count. The prepare stage writes `SortParams` into
// the control blocks for host counts; for a GPU count, copy 0 of the control block holds the
// maximum count's blocks with SORT_PARAMS_DERIVED in `derive`, and each stage computes the
// params from the count word itself, so no prepare pass runs: that dispatch and the wait for it
// were 7 µs of a 2^20-key sort's 100 on the H200 (2026-11-27). The including stage binds
// `params_block` (its block) and `count_word` (word 0 of the same copy), declares
// `var<private> params: SortParams` and calls `params = sort_params(TILE)` first.

// the sorter's maximum count: a larger count word is clamped to it
override MAX_COUNT: u32 = 0xffffffffu;

const SORT_PARAMS_DERIVED: u32 = 0xffffffffu;

// This run's params, for tiles of `tile` keys.
fn sort_params(tile: u32) -> SortParams {
    if params_block.derive == SORT_PARAMS_DERIVED {
        let n = min(count_word.x, MAX_COUNT);
        let tiles = (n + tile - 1u) / tile;
        return SortParams(n, tiles, tiles, 0u);
    }
    return params_block;
}
