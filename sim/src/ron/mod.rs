//! A reader of RON (Rusty Object Notation) values, enough for wgpu's API traces: the untyped
//! value tree of what the `ron` crate writes for serde data (structs, tuples, enum variants,
//! lists, maps, strings, numbers, booleans, chars), read without the `ron` crate, which the
//! library does not depend on.
//!
//! A value keeps the names the text gives it (`CreateBuffer(...)`, `Some(...)`, `Uniform`) and
//! whether its fields are named; readers of a trace look fields up by name or position. Input
//! is untrusted: nesting is limited ([`MAX_DEPTH`]), numbers that do not fit are errors, and
//! every error names its line and column.

use std::fmt;

/// Deepest nesting of values read (wgpu's traces nest about 10 deep).
pub const MAX_DEPTH: usize = 128;

/// A RON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i128),
    /// A float (`1.5`, `1e300`, `inf`, `NaN`).
    Float(f64),
    /// A string.
    Str(String),
    /// A char.
    Char(char),
    /// `[a, b, ...]`.
    List(Vec<Value>),
    /// `{k: v, ...}`.
    Map(Vec<(Value, Value)>),
    /// `Name`, `Name(...)`, `(...)`: a struct, tuple, unit or enum variant.
    Struct {
        /// The name written before it, if any.
        name: Option<String>,
        /// Its fields.
        fields: Fields,
    },
}

/// The fields of a [`Value::Struct`].
#[derive(Clone, Debug, PartialEq)]
pub enum Fields {
    /// `Name` alone.
    Unit,
    /// `(a, b)`.
    Tuple(Vec<Value>),
    /// `(x: a, y: b)`.
    Named(Vec<(String, Value)>),
}

impl Value {
    /// The name of a struct or variant.
    pub fn name(&self) -> Option<&str> {
        match self {
            Value::Struct { name, .. } => name.as_deref(),
            _ => None,
        }
    }

    /// The named field `key` of a struct.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Struct {
                fields: Fields::Named(f),
                ..
            } => f.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            // a newtype variant wrapping a struct: `Buffer((buffer: ..))`
            Value::Struct {
                fields: Fields::Tuple(t),
                ..
            } if t.len() == 1 => t[0].get(key),
            _ => None,
        }
    }

    /// Positional field `i` of a tuple struct or variant, or element `i` of a list.
    pub fn at(&self, i: usize) -> Option<&Value> {
        match self {
            Value::Struct {
                fields: Fields::Tuple(t),
                ..
            } => t.get(i),
            Value::List(l) => l.get(i),
            _ => None,
        }
    }

    /// An integer that fits a u64.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Int(i) => u64::try_from(*i).ok(),
            _ => None,
        }
    }

    /// A number as f64.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Bool(b) => Some(*b as u8 as f64),
            _ => None,
        }
    }

    /// A string's text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// A list's elements.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    /// `Some(x)` as `Some(&x)`, `None` as `None` (and anything else as itself: serde writes an
    /// `Option` field as `Some(..)` or `None`).
    pub fn some(&self) -> Option<&Value> {
        match self {
            Value::Struct {
                name: Some(n),
                fields: Fields::Unit,
            } if n == "None" => None,
            Value::Struct {
                name: Some(n),
                fields: Fields::Tuple(t),
            } if n == "Some" && t.len() == 1 => Some(&t[0]),
            other => Some(other),
        }
    }
}

/// A syntax error, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in bytes).
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

/// A reader over RON text.
pub struct Reader<'a> {
    text: &'a [u8],
    pos: usize,
    depth: usize,
}

type Res<T> = std::result::Result<T, ParseError>;

impl<'a> Reader<'a> {
    /// A reader at the start of `text`.
    pub fn new(text: &'a str) -> Reader<'a> {
        Reader {
            text: text.as_bytes(),
            pos: 0,
            depth: 0,
        }
    }

    /// An error at the reader's position.
    pub fn error_here(&self, message: impl Into<String>) -> ParseError {
        self.error(message)
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        let before = &self.text[..self.pos.min(self.text.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = before.len()
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1)
            + 1;
        ParseError {
            line,
            col,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn rest(&self) -> &[u8] {
        &self.text[self.pos.min(self.text.len())..]
    }

    /// Skips whitespace and comments; an unterminated block comment is an error.
    pub fn skip_trivia(&mut self) -> Res<()> {
        loop {
            while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
                self.pos += 1;
            }
            if self.rest().starts_with(b"//") {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.pos += 1;
                }
            } else if self.rest().starts_with(b"/*") {
                let start = self.pos;
                let mut depth = 0usize;
                loop {
                    if self.rest().starts_with(b"/*") {
                        depth += 1;
                        self.pos += 2;
                    } else if self.rest().starts_with(b"*/") {
                        depth -= 1;
                        self.pos += 2;
                        if depth == 0 {
                            break;
                        }
                    } else if self.peek().is_none() {
                        self.pos = start;
                        return Err(self.error("unterminated comment"));
                    } else {
                        self.pos += 1;
                    }
                }
            } else {
                return Ok(());
            }
        }
    }

    /// Whether only trivia is left.
    pub fn at_end(&mut self) -> Res<bool> {
        self.skip_trivia()?;
        Ok(self.peek().is_none())
    }

    /// Consumes `c` (after trivia) if it is next.
    pub fn eat(&mut self, c: u8) -> Res<bool> {
        self.skip_trivia()?;
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Consumes `c` (after trivia) or fails.
    pub fn expect(&mut self, c: u8) -> Res<()> {
        if self.eat(c)? {
            Ok(())
        } else {
            Err(self.error(format!("expected `{}`", c as char)))
        }
    }

    /// Reads one value.
    pub fn value(&mut self) -> Res<Value> {
        self.skip_trivia()?;
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!("values nested deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        let v = self.value_inner();
        self.depth -= 1;
        v
    }

    fn value_inner(&mut self) -> Res<Value> {
        let Some(c) = self.peek() else {
            return Err(self.error("expected a value, found the end"));
        };
        match c {
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                while !self.eat(b']')? {
                    items.push(self.value()?);
                    if !self.eat(b',')? {
                        self.expect(b']')?;
                        break;
                    }
                }
                Ok(Value::List(items))
            }
            b'{' => {
                self.pos += 1;
                let mut items = Vec::new();
                while !self.eat(b'}')? {
                    let k = self.value()?;
                    self.expect(b':')?;
                    let v = self.value()?;
                    items.push((k, v));
                    if !self.eat(b',')? {
                        self.expect(b'}')?;
                        break;
                    }
                }
                Ok(Value::Map(items))
            }
            b'(' => Ok(Value::Struct {
                name: None,
                fields: self.fields()?,
            }),
            b'"' => Ok(Value::Str(self.string()?)),
            b'\'' => self.char_lit(),
            b'-' | b'+' | b'0'..=b'9' | b'.' => self.number(),
            b'r' if self.at_raw_string() => Ok(Value::Str(self.raw_string()?)),
            b'b' if self.rest().get(1) == Some(&b'"') => {
                self.pos += 1;
                let s = self.string()?;
                Ok(Value::List(
                    s.chars().map(|c| Value::Int(c as u32 as i128)).collect(),
                ))
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                // (`r#true` is an identifier, not the keyword)
                let raw = self.rest().starts_with(b"r#");
                let name = self.ident()?;
                match name.as_str() {
                    "true" if !raw => return Ok(Value::Bool(true)),
                    "false" if !raw => return Ok(Value::Bool(false)),
                    "inf" if !raw => return Ok(Value::Float(f64::INFINITY)),
                    "NaN" if !raw => return Ok(Value::Float(f64::NAN)),
                    _ => {}
                }
                self.skip_trivia()?;
                let fields = if self.peek() == Some(b'(') {
                    self.fields()?
                } else {
                    Fields::Unit
                };
                Ok(Value::Struct {
                    name: Some(name),
                    fields,
                })
            }
            other => Err(self.error(format!("unexpected `{}`", other as char))),
        }
    }

    /// Whether a raw string (`r"..."`, `r#"..."#`) starts here, rather than an identifier.
    fn at_raw_string(&self) -> bool {
        let rest = self.rest();
        let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
        rest.get(1 + hashes) == Some(&b'"')
    }

    /// An identifier (`r#name` too).
    fn ident(&mut self) -> Res<String> {
        if self.rest().starts_with(b"r#") {
            self.pos += 2;
        }
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error("expected an identifier"));
        }
        Ok(String::from_utf8_lossy(&self.text[start..self.pos]).into_owned())
    }

    /// `( ... )`: named fields when the first item is `ident:` (not `::`), else positional.
    fn fields(&mut self) -> Res<Fields> {
        self.expect(b'(')?;
        self.skip_trivia()?;
        let save = self.pos;
        let named = if self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        {
            let _ = self.ident();
            self.skip_trivia()?;
            let colon = self.peek() == Some(b':') && self.rest().get(1) != Some(&b':');
            self.pos = save;
            colon
        } else {
            false
        };
        if named {
            let mut f = Vec::new();
            while !self.eat(b')')? {
                self.skip_trivia()?;
                let k = self.ident()?;
                self.expect(b':')?;
                let v = self.value()?;
                f.push((k, v));
                if !self.eat(b',')? {
                    self.expect(b')')?;
                    break;
                }
            }
            Ok(Fields::Named(f))
        } else {
            let mut t = Vec::new();
            while !self.eat(b')')? {
                t.push(self.value()?);
                if !self.eat(b',')? {
                    self.expect(b')')?;
                    break;
                }
            }
            Ok(Fields::Tuple(t))
        }
    }

    fn number(&mut self) -> Res<Value> {
        let start = self.pos;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        if self.rest().starts_with(b"inf") || self.rest().starts_with(b"NaN") {
            let neg = self.text[start] == b'-';
            let nan = self.rest().starts_with(b"NaN");
            self.pos += 3;
            return Ok(Value::Float(match (nan, neg) {
                (true, _) => f64::NAN,
                (false, true) => f64::NEG_INFINITY,
                (false, false) => f64::INFINITY,
            }));
        }
        let radix = match self.rest().get(..2) {
            Some(b"0x") => 16,
            Some(b"0o") => 8,
            Some(b"0b") => 2,
            _ => 10,
        };
        if radix != 10 {
            self.pos += 2;
        }
        let digits_start = self.pos;
        let mut float = false;
        while let Some(c) = self.peek() {
            let ok = match c {
                b'0'..=b'9' | b'_' => true,
                b'a'..=b'f' | b'A'..=b'F' if radix == 16 => true,
                b'.' if radix == 10 => {
                    float = true;
                    true
                }
                b'e' | b'E' if radix == 10 => {
                    float = true;
                    if matches!(self.rest().get(1), Some(b'-' | b'+')) {
                        self.pos += 1;
                    }
                    true
                }
                _ => false,
            };
            if !ok {
                break;
            }
            self.pos += 1;
        }
        // a type suffix (`1u32`, `2.0f64`): the value is the same
        if self.peek().is_some_and(|c| matches!(c, b'u' | b'i' | b'f')) {
            let s = self.pos;
            let _ = self.ident();
            let suffix = &self.text[s..self.pos];
            float |= suffix.starts_with(b"f");
        }
        let text: String = String::from_utf8_lossy(&self.text[digits_start..self.pos])
            .chars()
            .take_while(|c| !matches!(c, 'u' | 'i') && (radix == 16 || *c != 'f'))
            .filter(|&c| c != '_')
            .collect();
        let neg = self.text[start] == b'-';
        if float {
            let v: f64 = text
                .parse()
                .map_err(|_| self.error(format!("`{text}` is not a number")))?;
            return Ok(Value::Float(if neg { -v } else { v }));
        }
        let v = i128::from_str_radix(&text, radix)
            .map_err(|_| self.error(format!("`{text}` is not an integer that fits")))?;
        Ok(Value::Int(if neg { -v } else { v }))
    }

    fn string(&mut self) -> Res<String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                self.pos = start;
                return Err(self.error("unterminated string"));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.peek() else { continue };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'0' => out.push(0),
                        b'\\' | b'"' | b'\'' => out.push(e),
                        b'x' => {
                            let hex = self.take_hex(2)?;
                            out.push(hex as u8);
                        }
                        b'u' => {
                            self.expect(b'{')?;
                            let s = self.pos;
                            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                                self.pos += 1;
                            }
                            let hex = std::str::from_utf8(&self.text[s..self.pos]).unwrap_or("");
                            let ch = u32::from_str_radix(hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or_else(|| self.error("bad `\\u{...}` escape"))?;
                            self.expect(b'}')?;
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        other => {
                            return Err(self.error(format!("unknown escape `\\{}`", other as char)))
                        }
                    }
                }
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("a string is not UTF-8"))
    }

    fn take_hex(&mut self, n: usize) -> Res<u32> {
        let s = self.pos;
        let end = (s + n).min(self.text.len());
        let hex = std::str::from_utf8(&self.text[s..end]).unwrap_or("");
        self.pos = end;
        u32::from_str_radix(hex, 16).map_err(|_| self.error("bad hex escape"))
    }

    fn raw_string(&mut self) -> Res<String> {
        let start = self.pos;
        self.pos += 1;
        let mut hashes = 0;
        while self.peek() == Some(b'#') {
            hashes += 1;
            self.pos += 1;
        }
        if self.peek() != Some(b'"') {
            self.pos = start;
            return Err(self.error("bad raw string"));
        }
        self.pos += 1;
        let body = self.pos;
        let mut close = vec![b'"'];
        close.extend(std::iter::repeat_n(b'#', hashes));
        while !self.rest().starts_with(&close) {
            if self.peek().is_none() {
                self.pos = start;
                return Err(self.error("unterminated raw string"));
            }
            self.pos += 1;
        }
        let s = String::from_utf8(self.text[body..self.pos].to_vec())
            .map_err(|_| self.error("a string is not UTF-8"))?;
        self.pos += close.len();
        Ok(s)
    }

    fn char_lit(&mut self) -> Res<Value> {
        let start = self.pos;
        self.pos += 1;
        let rest = std::str::from_utf8(self.rest()).unwrap_or("");
        let mut chars = rest.chars();
        let c = match chars.next() {
            Some('\\') => match chars.next() {
                Some('n') => '\n',
                Some('t') => '\t',
                Some('r') => '\r',
                Some('0') => '\0',
                Some(c @ ('\\' | '\'' | '"')) => c,
                _ => {
                    self.pos = start;
                    return Err(self.error("unsupported char escape"));
                }
            },
            Some(c) => c,
            None => return Err(self.error("unterminated char")),
        };
        let used = rest.len() - chars.as_str().len();
        self.pos += used;
        if self.peek() != Some(b'\'') {
            self.pos = start;
            return Err(self.error("unterminated char"));
        }
        self.pos += 1;
        Ok(Value::Char(c))
    }
}

#[cfg(test)]
mod tests;
