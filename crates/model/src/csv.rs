//! Number formatting shared by the workspace's CSV writers (the simulation trajectory and the
//! sampled plan), so that every CSV file reads back bit for bit.

use std::io::Write;

/// Writes `x` in its shortest round-trip form: `{}` for `0` and `1e-5 ≤ |x| < 1e16`, `{:e}`
/// otherwise (both parse back to the same `f64` with `str::parse`).
pub fn write_f64(w: &mut impl Write, x: f64) -> std::io::Result<()> {
    let a = x.abs();
    if x == 0.0 || (1e-5..1e16).contains(&a) {
        write!(w, "{x}")
    } else {
        write!(w, "{x:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::write_f64;

    #[test]
    fn numbers_read_back_bit_for_bit() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -2.5e-7,
            1e-5,
            9.999e15,
            1e16,
            6.02e23,
            f64::MIN_POSITIVE,
            0.1 + 0.2,
        ] {
            let mut s = Vec::new();
            write_f64(&mut s, x).unwrap();
            let back: f64 = std::str::from_utf8(&s).unwrap().parse().unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{x}");
        }
        let mut s = Vec::new();
        write_f64(&mut s, 1e-7).unwrap();
        assert_eq!(s, b"1e-7");
    }
}
