//! WGSL text before naga sees it: a size cap, reading a file no further than the cap, and
//! parsing and validation on a thread of their own with a large stack.
//!
//! naga's WGSL front end and validator recurse over the expression tree, so a long enough
//! expression (20,000 terms, 30,000 nested negations) overflows a thread's stack, which aborts
//! the process. The text is therefore capped ([`MAX_SOURCE_BYTES`]), its bracket nesting and
//! the operators of one statement and the statements of one function are bounded
//! ([`MAX_NESTING`], [`MAX_OPERATORS`], [`MAX_STATEMENTS`]: each an
//! `Error::Shader` naming the line and column), and naga runs on a thread with a
//! [`PARSE_STACK`]-byte stack, which those bounds keep it within.

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};

/// The largest WGSL text taken: 1 MiB (the largest kernel of this library is under 100 KiB).
pub const MAX_SOURCE_BYTES: usize = 1 << 20;
/// The deepest nesting of `(`, `[` and `{` taken (WGSL caps brace nesting in a function at
/// 127).
pub const MAX_NESTING: usize = 255;
/// The most operators one statement may hold (between `;`, `{` and `}`).
pub const MAX_OPERATORS: usize = 4096;
/// The most statements (`;`) one function may hold: naga's typifier grows a function's type
/// table in time quadratic in its expressions (40,000 statements took 4 s to parse, 20,000
/// 1.4 s, 10,000 0.4 s in a debug build).
pub const MAX_STATEMENTS: usize = 16384;
/// The stack of the thread naga parses and validates on: 256 MiB (reserved, not committed).
pub const PARSE_STACK: usize = 256 << 20;

/// Reads the WGSL file `path`, refusing one past [`MAX_SOURCE_BYTES`] without reading further
/// (`/dev/zero` is an error, not a process that grows until it is killed). Errors are
/// `Error::InvalidInput` naming the path.
pub fn read(path: &Path) -> Result<String> {
    let shown = path.display();
    let file =
        std::fs::File::open(path).map_err(|e| Error::InvalidInput(format!("{shown}: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::InvalidInput(format!("{shown}: {e}")))?;
    if bytes.len() > MAX_SOURCE_BYTES {
        return Err(Error::InvalidInput(format!(
            "{shown}: more than {MAX_SOURCE_BYTES} bytes; a WGSL file is at most that"
        )));
    }
    String::from_utf8(bytes).map_err(|_| Error::InvalidInput(format!("{shown}: not UTF-8 text")))
}

/// Checks `text` (named `name` in messages) against the size, nesting and operator bounds.
pub fn check(name: &str, text: &str) -> Result<()> {
    let err = |message: String| Error::Shader {
        name: name.into(),
        message,
    };
    if text.len() > MAX_SOURCE_BYTES {
        return Err(err(format!(
            "{name}: {} bytes of WGSL; at most {MAX_SOURCE_BYTES} are taken",
            text.len()
        )));
    }
    let (mut line, mut col) = (1usize, 0usize);
    let (mut depth, mut operators, mut statements) = (0usize, 0usize, 0usize);
    let mut block_comment = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        col += 1;
        if c == '\n' {
            line += 1;
            col = 0;
            continue;
        }
        let next = chars.peek().copied();
        if block_comment > 0 {
            if c == '*' && next == Some('/') {
                chars.next();
                col += 1;
                block_comment -= 1;
            } else if c == '/' && next == Some('*') {
                chars.next();
                col += 1;
                block_comment += 1;
            }
            continue;
        }
        match c {
            '/' if next == Some('/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        line += 1;
                        col = 0;
                        break;
                    }
                }
            }
            '/' if next == Some('*') => {
                chars.next();
                col += 1;
                block_comment = 1;
            }
            '(' | '[' | '{' => {
                if depth == 0 {
                    // a function's body (or a struct's members) starts
                    statements = 0;
                }
                depth += 1;
                if c == '{' {
                    operators = 0;
                }
                if depth > MAX_NESTING {
                    return Err(err(format!(
                        "{name}:{line}:{col}: brackets nested more than {MAX_NESTING} deep"
                    )));
                }
            }
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if c == '}' {
                    operators = 0;
                }
            }
            ';' => {
                operators = 0;
                if depth > 0 {
                    statements += 1;
                    if statements > MAX_STATEMENTS {
                        return Err(err(format!(
                            "{name}:{line}:{col}: more than {MAX_STATEMENTS} statements in one \
                             function"
                        )));
                    }
                }
            }
            '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '!' | '~' | '<' | '>' => {
                operators += 1;
                if operators > MAX_OPERATORS {
                    return Err(err(format!(
                        "{name}:{line}:{col}: more than {MAX_OPERATORS} operators in one \
                         statement"
                    )));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Runs `f` on a thread with a [`PARSE_STACK`]-byte stack (naga's parser and validator
/// recurse over expressions) and returns what it returns; an error where no thread can be
/// made.
pub fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T> {
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("wgsl-parse".into())
            .stack_size(PARSE_STACK)
            .spawn_scoped(s, f)
            .map_err(|e| Error::Sim(format!("no thread to parse WGSL on: {e}")))?;
        handle
            .join()
            .map_err(|_| Error::Sim("the WGSL parser panicked".into()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Comments are skipped: brackets and operators inside them count for nothing; the bounds
    /// name the line and column where they are passed.
    #[test]
    fn comments_do_not_count_and_errors_have_places() {
        let many = "+".repeat(MAX_OPERATORS * 2);
        let nested = "(".repeat(MAX_NESTING * 2);
        let text = format!("// {many}\n/* {nested} /* {many} */ */\nfn f() {{}}\n");
        check("t.wgsl", &text).unwrap();
        let text = format!(
            "fn f() {{\n  let x = 1{};\n}}\n",
            " + 1".repeat(MAX_OPERATORS + 1)
        );
        match check("t.wgsl", &text) {
            Err(Error::Shader { message, .. }) => {
                assert!(message.starts_with("t.wgsl:2:"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        let text = "x".repeat(MAX_SOURCE_BYTES + 1);
        assert!(matches!(check("t.wgsl", &text), Err(Error::Shader { .. })));
    }
}
