//! Seeded fuzz of URDF import: 400 mutations of the shipped `ARM7_URDF` (deleted,
//! duplicated and garbled attributes, numbers replaced by NaN, ±inf, huge, negative or empty
//! values, deleted lines, truncation) from a fixed seed. Every case must return `Ok` or a typed
//! `UrdfImportError` without panicking, and an `Ok` tree must give a finite mass matrix.

use contour_model::models::ARM7_URDF;
use contour_model::testing::SplitMix64;
use contour_model::tree::KinematicTree;
use contour_model::Mechanism;
use faer::Mat;

const NUMBERS: [&str; 12] = [
    "NaN", "nan", "inf", "-inf", "1e308", "1e400", "-1", "0", "", "abc", "1e-320", "-0",
];

/// Byte ranges of the numbers in `s` (digits with sign, dot and exponent).
fn numbers(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start_ok = i == 0 || matches!(b[i - 1], b'"' | b' ');
        if start_ok && (b[i].is_ascii_digit() || b[i] == b'-') {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b'e' | b'-')) {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of the attributes ` key="value"` in `s`.
fn attributes(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(eq) = s[from..].find("=\"") {
        let eq = from + eq;
        let start = s[..eq].rfind(' ').unwrap_or(eq);
        let end = s[eq + 2..].find('"').map_or(s.len(), |e| eq + 2 + e + 1);
        out.push((start, end));
        from = end.min(s.len());
        if from >= s.len() {
            break;
        }
    }
    out
}

fn pick(rng: &mut SplitMix64, n: usize) -> usize {
    (rng.next_u64() % n.max(1) as u64) as usize
}

fn mutate(rng: &mut SplitMix64, text: &str) -> String {
    let mut s = text.to_string();
    let ops = 1 + pick(rng, 3);
    for _ in 0..ops {
        match pick(rng, 7) {
            0 | 1 => {
                let nums = numbers(&s);
                if let Some(&(a, b)) = nums.get(pick(rng, nums.len())) {
                    let v = NUMBERS[pick(rng, NUMBERS.len())];
                    s.replace_range(a..b, v);
                }
            }
            2 => {
                let at = attributes(&s);
                if let Some(&(a, b)) = at.get(pick(rng, at.len())) {
                    s.replace_range(a..b, "");
                }
            }
            3 => {
                let at = attributes(&s);
                if let Some(&(a, b)) = at.get(pick(rng, at.len())) {
                    let dup = s[a..b].to_string();
                    s.insert_str(b, &dup);
                }
            }
            4 => {
                // garble one ASCII character
                let i = pick(rng, s.len());
                if i < s.len() && s.is_char_boundary(i) && s.is_char_boundary(i + 1) {
                    let c = (b'!' + pick(rng, 90) as u8) as char;
                    s.replace_range(i..i + 1, &c.to_string());
                }
            }
            5 => {
                let lines: Vec<&str> = s.lines().collect();
                let k = pick(rng, lines.len());
                s = lines
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != k)
                    .map(|(_, l)| *l)
                    .collect::<Vec<_>>()
                    .join("\n");
            }
            _ => {
                let mut i = pick(rng, s.len());
                while !s.is_char_boundary(i) {
                    i -= 1;
                }
                s.truncate(i);
            }
        }
    }
    s
}

#[test]
fn fuzzed_arm7_urdf_never_panics() {
    let mut rng = SplitMix64::new(0x17_17_17);
    let (mut ok, mut err, mut panics, mut bad_ok) = (0, 0, 0, 0);
    let cases = 400;
    for case in 0..cases {
        let text = mutate(&mut rng, ARM7_URDF);
        let r = std::panic::catch_unwind(|| {
            KinematicTree::from_urdf_str(&text).map(|tree| {
                let n = tree.dof();
                let mut m = Mat::<f64>::zeros(n, n);
                tree.mass_matrix(&vec![0.1; n], m.as_mut());
                (0..n).all(|i| (0..n).all(|j| m[(i, j)].is_finite()))
            })
        });
        match r {
            Ok(Ok(true)) => ok += 1,
            Ok(Ok(false)) => {
                bad_ok += 1;
                println!("case {case}: Ok with a non-finite mass matrix");
            }
            Ok(Err(_)) => err += 1,
            Err(_) => {
                panics += 1;
                println!("case {case}: panic");
            }
        }
    }
    println!("{cases} cases: {ok} Ok, {err} typed errors, {panics} panics, {bad_ok} wrong Ok");
    assert_eq!(panics, 0);
    assert_eq!(bad_ok, 0);
    assert!(
        err > cases / 4,
        "the mutations should mostly be caught: {err}"
    );
}
