//! The lint behind each crate's bad-input table: every public function of a crate's `src/`
//! that takes a slice or an index (a `[f64]`, `[usize]`, `&[…]`, `usize` or `Option<usize>`
//! parameter) —
//! `pub fn` items and the methods of `pub trait`s, outside `#[cfg(test)]` — listed as
//! `"file.rs:name"` (`"file.rs:Trait::name"` for trait methods), so that a test can prove each
//! has a bad-input case or a written exemption. A plain text scan (no parser): a signature is
//! the text from `fn name` to its parameter list's closing parenthesis, nesting included.

use std::collections::BTreeSet;
use std::path::Path;

/// `"file.rs:name"` of every such function under `src` (paths relative to `src`, `/`-separated).
pub fn slice_or_index_fns(src: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut files = Vec::new();
    collect(src, &mut files);
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        // the unit tests at the end of a file are not API
        let text = match text.find("#[cfg(test)]") {
            Some(i) => &text[..i],
            None => &text[..],
        };
        let rel = file
            .strip_prefix(src)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        for (name, params) in functions(text, "pub fn ") {
            if takes_slice_or_index(&params) {
                out.insert(format!("{rel}:{name}"));
            }
        }
        let mut rest = text;
        while let Some(i) = rest.find("pub trait ") {
            let after = &rest[i + "pub trait ".len()..];
            let trait_name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let Some(open) = after.find('{') else { break };
            let body = block(&after[open..]);
            for (name, params) in functions(body, "fn ") {
                if takes_slice_or_index(&params) {
                    out.insert(format!("{rel}:{trait_name}::{name}"));
                }
            }
            rest = &after[open + body.len().max(1)..];
        }
    }
    out
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The text of the `{…}` block starting at `s[0] == '{'`.
fn block(s: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &s[..=i];
                }
            }
            _ => {}
        }
    }
    s
}

/// `(name, parameter text)` of every `marker name(…)` in `text` (generics skipped; nested
/// parentheses inside the parameters kept).
fn functions(text: &str, marker: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(marker) {
        // `pub fn` only as a whole word (not `pub(crate) fn`, which does not contain it)
        let after = &rest[i + marker.len()..];
        rest = after;
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        let Some(open) = after.find('(') else { break };
        let mut depth = 0usize;
        let mut end = open;
        for (k, c) in after[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push((name, after[open + 1..end].to_string()));
    }
    out
}

fn takes_slice_or_index(params: &str) -> bool {
    params.contains("&[")
        || params.contains("&mut [")
        || params.contains("[f64]")
        || params.split(',').any(|p| {
            p.split(':')
                .nth(1)
                .is_some_and(|t| matches!(t.trim(), "usize" | "Option<usize>"))
        })
}

/// Runs a crate's bad-input table: every call must return an error whose message contains its
/// word (no panic, no `Ok`). Prints the table (`| function | input | message |`) and fails
/// with every case that does not.
pub fn check_cases<'a, E: std::fmt::Display + 'a>(
    krate: &str,
    cases: impl IntoIterator<Item = (&'a str, &'a str, &'a str, &'a dyn Fn() -> Result<(), E>)>,
) {
    let mut failures = Vec::new();
    let mut n = 0;
    for (func, input, names, call) in cases {
        n += 1;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)) {
            Err(_) => failures.push(format!("{func} ({input}): panicked")),
            Ok(Ok(())) => failures.push(format!("{func} ({input}): Ok")),
            Ok(Err(e)) => {
                let msg = e.to_string();
                println!("| `{func}` | {input} | {msg} |");
                if !msg.contains(names) {
                    failures.push(format!("{func} ({input}): `{msg}` lacks `{names}`"));
                }
            }
        }
    }
    println!("{krate} bad-input table: {n} cases");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The lint: every public function of `<manifest_dir>/src` taking a slice or an index is in
/// `covered` (a bad-input case or a written exemption) and the scan finds at least
/// `min_listed` of them; with `no_stale`, no covered name is unknown to the scan either.
pub fn check_coverage(
    manifest_dir: &str,
    covered: &BTreeSet<&str>,
    min_listed: usize,
    no_stale: bool,
) {
    let listed = slice_or_index_fns(&Path::new(manifest_dir).join("src"));
    assert!(
        listed.len() >= min_listed,
        "the scan found too little: {listed:?}"
    );
    let missing: Vec<_> = listed
        .iter()
        .filter(|f| !covered.contains(f.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "public functions without a bad-input case: {missing:?}"
    );
    if no_stale {
        let stale: Vec<_> = covered.iter().filter(|f| !listed.contains(**f)).collect();
        assert!(stale.is_empty(), "cases of unknown functions: {stale:?}");
    }
}
