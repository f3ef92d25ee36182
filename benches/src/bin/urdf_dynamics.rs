//! Loads a URDF with Contour and prints, as JSON, the import report and `M`, RNEA and ABA at
//! the states given on standard input: the Contour side of `benches/peers/urdf_zoo.py`.
//!
//! Usage: `urdf_dynamics FILE.urdf [--strict] < states`, where `states` is
//!
//! ```text
//! N K
//! name_1 … name_N          (the joints, in the caller's order)
//! q  (N numbers)  ┐
//! q̇  (N numbers)  │ K times
//! q̈  (N numbers)  │
//! τ  (N numbers)  ┘
//! ```
//!
//! With `--mimic` the joints are the independent ones (those that mimic no other, Pinocchio's
//! `mimic=True` model) and the output is the reduced `M_y = Gᵀ M G`, `τ_y = Gᵀ RNEA(γ(y), G ẏ,
//! G ÿ)` and `ÿ` twice: from the explicit form (FDgq on [`MimicReduction`]) as `qdd` and from
//! the bilateral rows ([`Closure::Coupling`], the KKT system) as `qdd_rows`.
//!
//! With `N = K = 0` (or no input) only the report is printed. Output:
//! `{"status": "ok", "nv", "names", "warnings", "mimic", "states": [{"M", "tau", "qdd"}]}` with
//! `M` row-major and every vector in the caller's order, or
//! `{"status": "error", "message"}`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use contour::model::explicit::ExplicitDynamics;
use contour::model::tree::{Closure, ConstrainedTree, MimicReduction};
use contour::model::urdf::{import_urdf_file, UrdfOptions};
use contour::model::{ConstrainedDynamics, Controller, Mechanism, WithController};
use faer::Mat;
use std::io::Read;

fn json_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn json_vec(v: &[f64]) -> String {
    let items: Vec<String> = v
        .iter()
        .map(|x| {
            if x.is_finite() {
                format!("{x:e}")
            } else {
                "null".to_string()
            }
        })
        .collect();
    format!("[{}]", items.join(","))
}

/// Constant generalized forces.
struct Constant(Vec<f64>);

impl Controller for Constant {
    fn forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        for (u, c) in u.iter_mut().zip(&self.0) {
            *u += c;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = &args[1];
    let options = if args.iter().any(|a| a == "--strict") {
        UrdfOptions::strict()
    } else {
        UrdfOptions::default()
    };
    let import = match import_urdf_file(path, &options) {
        Ok(i) => i,
        Err(e) => {
            println!(
                "{{\"status\": \"error\", \"message\": {}}}",
                json_str(&e.to_string())
            );
            return;
        }
    };
    let tree = &import.tree;
    let n = tree.dof();
    let mimic_mode = args.iter().any(|a| a == "--mimic");
    let reduction = MimicReduction::new(n, &import.mimic, 0.1).unwrap();
    // the coordinates the caller's states address, and their positions in y
    let (coords, y_index): (Vec<usize>, Vec<usize>) = if mimic_mode {
        (
            reduction.independent().to_vec(),
            (0..reduction.independent().len()).collect(),
        )
    } else {
        ((0..n).collect(), (0..n).collect())
    };
    let names: Vec<String> = coords
        .iter()
        .map(|&k| import.limits.names[k].clone())
        .collect();
    let names = &names;
    let warnings: Vec<String> = import
        .warnings
        .iter()
        .map(|w| json_str(&w.to_string()))
        .collect();
    let mimic: Vec<String> = import
        .mimic
        .iter()
        .map(|m| {
            format!(
                "[{}, {}, {:e}, {:e}]",
                json_str(&m.joint),
                json_str(&m.master),
                m.multiplier,
                m.offset
            )
        })
        .collect();
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap_or(0);
    let mut tok = input.split_whitespace();
    let nn: usize = tok.next().map_or(0, |t| t.parse().unwrap());
    let kk: usize = tok.next().map_or(0, |t| t.parse().unwrap());
    let mut states = Vec::new();
    if kk > 0 {
        let given: Vec<&str> = (0..nn).map(|_| tok.next().unwrap()).collect();
        // perm[i] = Contour's index of the caller's joint i
        let perm: Option<Vec<usize>> = given
            .iter()
            .map(|g| names.iter().position(|n| n == g))
            .collect();
        let Some(perm) = perm.filter(|p| p.len() == coords.len()) else {
            println!(
                "{{\"status\": \"error\", \"message\": \"joint sets differ: Contour has {} coordinates\"}}",
                coords.len()
            );
            return;
        };
        let ny = coords.len();
        let mut read = || -> Vec<f64> {
            let given: Vec<f64> = (0..nn)
                .map(|_| tok.next().unwrap().parse().unwrap())
                .collect();
            let mut out = vec![0.0; ny];
            for (i, &p) in perm.iter().enumerate() {
                out[y_index[p]] = given[i];
            }
            out
        };
        let mut g = Mat::zeros(n, ny);
        if mimic_mode {
            reduction.gamma_matrix(g.as_mut());
        } else {
            g = Mat::identity(n, n);
        }
        let rows: Vec<Closure> = import.mimic.iter().map(Closure::from).collect();
        let closed = ConstrainedTree::new(tree.clone(), rows).unwrap();
        let mut m = Mat::zeros(n, n);
        let (mut tau, mut qdd) = (vec![0.0; n], vec![0.0; n]);
        let (mut q, mut qd, mut qdda) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        for _ in 0..kk {
            let (y, yd, ydd, ty) = (read(), read(), read(), read());
            if mimic_mode {
                reduction.expand(&y, &mut q);
                reduction.expand_rate(&yd, &mut qd);
                reduction.expand_rate(&ydd, &mut qdda);
            } else {
                (q, qd, qdda) = (y.clone(), yd.clone(), ydd.clone());
            }
            // τ on the independent coordinates, none on the following ones (Gᵀ τ = τ_y)
            let mut t_full = vec![0.0; n];
            for (j, &k) in coords.iter().enumerate() {
                t_full[k] = ty[j];
            }
            tree.mass_matrix(&q, m.as_mut());
            let rnea = tree.inverse_dynamics(&q, &qd, &qdda, &mut tau);
            let m_y = g.transpose() * &m * &g;
            let tau_y: Vec<f64> = (0..ny)
                .map(|j| (0..n).map(|k| g[(k, j)] * tau[k]).sum())
                .collect();
            let (aba, aba_rows) = if mimic_mode {
                let mech = WithController::new(tree.clone(), Constant(t_full.clone()));
                let mut fd = ExplicitDynamics::new(&mech, &reduction).unwrap();
                let a = fd.accelerations(&mech, &reduction, 0.0, &q, &qd, &mut qdd);
                let explicit: Vec<f64> = coords.iter().map(|&k| qdd[k]).collect();
                let mech = WithController::new(closed.clone(), Constant(t_full.clone()));
                let mut cd = ConstrainedDynamics::new(&mech);
                let mut lambda = vec![0.0; mech.n_constraints()];
                let b = cd.accelerations(&mech, 0.0, &q, &qd, &mut qdd, &mut lambda);
                let rows: Vec<f64> = coords.iter().map(|&k| qdd[k]).collect();
                ((explicit, a.is_ok()), (rows, b.is_ok()))
            } else {
                let a = tree.forward_dynamics(&q, &qd, &t_full, &mut qdd);
                ((qdd.clone(), a.is_ok()), (qdd.clone(), a.is_ok()))
            };
            let mut mm = Vec::with_capacity(nn * nn);
            for &pi in &perm {
                for &pj in &perm {
                    mm.push(m_y[(y_index[pi], y_index[pj])]);
                }
            }
            let back = |x: &[f64], ok: bool| -> Vec<f64> {
                perm.iter()
                    .map(|&p| if ok { x[y_index[p]] } else { f64::NAN })
                    .collect()
            };
            states.push(format!(
                "{{\"M\": {}, \"tau\": {}, \"qdd\": {}, \"qdd_rows\": {}}}",
                json_vec(&mm),
                json_vec(&back(&tau_y, rnea.is_ok())),
                json_vec(&back(&aba.0, aba.1)),
                json_vec(&back(&aba_rows.0, aba_rows.1))
            ));
        }
    }
    println!(
        "{{\"status\": \"ok\", \"nv\": {n}, \"names\": [{}], \"warnings\": [{}], \"mimic\": [{}], \"states\": [{}]}}",
        names.iter().map(|s| json_str(s)).collect::<Vec<_>>().join(", "),
        warnings.join(", "),
        mimic.join(", "),
        states.join(", ")
    );
}
