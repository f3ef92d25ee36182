//! The bad-input table of contour-contact: every public function that takes a slice or an
//! index, fed wrong lengths, out-of-range rows, NaN/∞ and out-of-range physical parameters.
//! Each case must return an error whose message names the argument (no panic, no `Ok`), and
//! [`every_slice_or_index_fn_has_a_case`] proves that each such function of `src/` has a
//! case here (a new one without a case fails it).

use contour_contact::spatial_contact::{
    ContactGeometry, ContactSphere, Ground, MoreauJean, MoreauJeanConfig,
};
use contour_contact::test_models::BouncingBall;
use contour_contact::Lemke;
use contour_contact::{
    simulate, ContactConfig, ContactDynamics, ContactError, EntryLocation, FrictionMode,
    HuangSchemeConfig, Lcp, ModernConfig, Scheme, Simulator,
};
use contour_model::spatial::{SpatialInertia, Transform};
use contour_model::tree::{Joint, KinematicTree};
use contour_model::urdf::{UrdfCollision, UrdfGeometry};
use contour_model::{ConstraintKind, Mechanism};

/// One free-flying unit cube of 1 kg named `body`.
fn free_body() -> KinematicTree {
    let mut t = KinematicTree::new("free");
    t.add_body(
        "body",
        None,
        Joint::FreeFlyer,
        Transform::IDENTITY,
        SpatialInertia::from_mass_com_inertia(
            1.0,
            [0.0; 3],
            [
                [1.0 / 6.0, 0.0, 0.0],
                [0.0, 1.0 / 6.0, 0.0],
                [0.0, 0.0, 1.0 / 6.0],
            ],
        ),
    )
    .unwrap();
    t
}
use faer::MatMut;

/// A point mass in a corner: `q = (x, y)`, rows `φ₀ = y ≥ 0` (floor) and `φ₁ = x ≥ 0` (wall),
/// gravity along −y, and an applied force `u = (push, 0)`.
pub struct Corner {
    /// Mass \[kg\].
    pub mass: f64,
    /// Horizontal applied force \[N\].
    pub push: f64,
}

impl Default for Corner {
    fn default() -> Self {
        Self {
            mass: 1.0,
            push: -1.0,
        }
    }
}

impl Mechanism for Corner {
    fn name(&self) -> &str {
        "corner"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn constraint_kind(&self, _row: usize) -> ConstraintKind {
        ConstraintKind::Unilateral
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m[(0, 0)] = self.mass;
        m[(1, 1)] = self.mass;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h[0] = 0.0;
        h[1] = self.mass * 9.81;
    }
    fn applied_forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        u[0] = self.push;
        u[1] = 0.0;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi[0] = q[1];
        phi[1] = q[0];
    }
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 1)] = 1.0;
        j[(1, 0)] = 1.0;
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], rho: &mut [f64]) {
        rho.fill(0.0);
    }
}

const Q: [f64; 2] = [0.0, 0.0];
const QD: [f64; 2] = [-1.0, -2.0];

/// The workspace evaluated at the corner, moving into both walls.
fn evaluated() -> ContactDynamics {
    let mut d = ContactDynamics::new(&Corner::default());
    d.evaluate(&Corner::default(), 0.0, &Q, &QD).unwrap();
    d
}

type Call = Box<dyn Fn() -> Result<(), ContactError>>;

/// One case: the function (`file.rs:name`, as [`every_slice_or_index_fn_has_a_case`] lists
/// it), the bad input, the word the error must contain (the argument's name), the call.
pub struct Case {
    /// `file.rs:name`.
    pub func: &'static str,
    /// The bad input, in words.
    pub input: &'static str,
    /// A word the error message must contain.
    pub names: &'static str,
    /// The call.
    pub call: Call,
}

fn case(
    func: &'static str,
    input: &'static str,
    names: &'static str,
    call: impl Fn() -> Result<(), ContactError> + 'static,
) -> Case {
    Case {
        func,
        input,
        names,
        call: Box::new(call),
    }
}

fn accel(active: &'static [usize], qd: &'static [f64], nqdd: usize, nlam: usize) -> Call {
    Box::new(move || {
        let mut d = evaluated();
        d.accelerations(
            active,
            FrictionMode::None,
            qd,
            &mut vec![0.0; nqdd],
            &mut vec![0.0; nlam],
        )
    })
}

fn impact(rows: &'static [usize], e: &'static [f64], nqd: usize, nxi: usize) -> Call {
    Box::new(move || {
        let mut d = evaluated();
        let mut qd = vec![-1.0; nqd];
        d.impact(rows, e, &mut qd, &mut vec![0.0; nxi])
    })
}

fn modern(m: ModernConfig) -> Result<(), ContactError> {
    simulate(
        &BouncingBall::default(),
        0.0,
        &[1.0],
        &[0.0],
        ContactConfig::new(1.0, Scheme::Modern(m)),
    )
    .map(|_| ())
}

fn huang_eps(eps: f64) -> Result<(), ContactError> {
    let cfg = ContactConfig::new(
        3.0,
        Scheme::Huang(HuangSchemeConfig {
            entry: EntryLocation::HuangInterpolation { eps },
            ..HuangSchemeConfig::default()
        }),
    );
    simulate(&BouncingBall::default(), 0.0, &[1.0], &[0.0], cfg).map(|_| ())
}

/// Every case of the table.
pub fn cases() -> Vec<Case> {
    let c = Corner::default;
    vec![
        // ContactDynamics::evaluate
        case("dynamics.rs:evaluate", "q of length 3", "q", move || {
            ContactDynamics::new(&c()).evaluate(&c(), 0.0, &[0.0; 3], &QD)
        }),
        case("dynamics.rs:evaluate", "q of length 1", "q", move || {
            ContactDynamics::new(&c()).evaluate(&c(), 0.0, &[0.0], &QD)
        }),
        case("dynamics.rs:evaluate", "qd of length 1", "qd", move || {
            ContactDynamics::new(&c()).evaluate(&c(), 0.0, &Q, &[0.0])
        }),
        case("dynamics.rs:evaluate", "qd of length 3", "qd", move || {
            ContactDynamics::new(&c()).evaluate(&c(), 0.0, &Q, &[0.0; 3])
        }),
        case("dynamics.rs:evaluate", "q = (NaN, 0)", "q", move || {
            ContactDynamics::new(&c()).evaluate(&c(), 0.0, &[f64::NAN, 0.0], &QD)
        }),
        case("dynamics.rs:evaluate", "t = inf", "t", move || {
            ContactDynamics::new(&c()).evaluate(&c(), f64::INFINITY, &Q, &QD)
        }),
        case(
            "dynamics.rs:evaluate",
            "a 1-DOF mechanism in a 2-DOF workspace",
            "mech.dof()",
            move || ContactDynamics::new(&c()).evaluate(&BouncingBall::default(), 0.0, &Q, &QD),
        ),
        case(
            "dynamics.rs:evaluate",
            "u = 1e300 on m = 1e-10 (M⁻¹u overflows)",
            "not finite",
            move || {
                let m = Corner {
                    mass: 1e-10,
                    push: 1e300,
                };
                ContactDynamics::new(&m).evaluate(&m, 0.0, &Q, &QD)
            },
        ),
        // ContactDynamics::accelerations
        case(
            "dynamics.rs:accelerations",
            "qdd of length 1",
            "qdd",
            accel(&[0], &QD, 1, 2),
        ),
        case(
            "dynamics.rs:accelerations",
            "qdd of length 3",
            "qdd",
            accel(&[0], &QD, 3, 2),
        ),
        case(
            "dynamics.rs:accelerations",
            "lambda of length 3",
            "lambda",
            accel(&[0], &QD, 2, 3),
        ),
        case(
            "dynamics.rs:accelerations",
            "lambda of length 1",
            "lambda",
            accel(&[0], &QD, 2, 1),
        ),
        case(
            "dynamics.rs:accelerations",
            "active row 5",
            "active",
            accel(&[5], &QD, 2, 2),
        ),
        case(
            "dynamics.rs:accelerations",
            "active rows [0, 0]",
            "active",
            accel(&[0, 0], &QD, 2, 2),
        ),
        case(
            "dynamics.rs:accelerations",
            "qd of length 1",
            "qd",
            accel(&[0], &[0.0], 2, 2),
        ),
        case(
            "dynamics.rs:accelerations",
            "qd = (inf, 0)",
            "qd",
            accel(&[0], &[f64::INFINITY, 0.0], 2, 2),
        ),
        case(
            "dynamics.rs:accelerations",
            "Slip { mu: NaN }",
            "mu",
            || {
                let mut d = evaluated();
                d.accelerations(
                    &[0],
                    FrictionMode::Slip { mu: f64::NAN },
                    &QD,
                    &mut [0.0; 2],
                    &mut [0.0; 2],
                )
            },
        ),
        case("dynamics.rs:accelerations", "Slip { mu: -1 }", "mu", || {
            let mut d = evaluated();
            d.accelerations(
                &[0],
                FrictionMode::Slip { mu: -1.0 },
                &QD,
                &mut [0.0; 2],
                &mut [0.0; 2],
            )
        }),
        case(
            "dynamics.rs:accelerations",
            "before any evaluate",
            "evaluate",
            move || {
                ContactDynamics::new(&c()).accelerations(
                    &[0],
                    FrictionMode::None,
                    &QD,
                    &mut [0.0; 2],
                    &mut [0.0; 2],
                )
            },
        ),
        // ContactDynamics::contact_lcp
        case("dynamics.rs:contact_lcp", "cands row 2", "cands", || {
            evaluated().contact_lcp(&[2], &mut [0.0; 2])
        }),
        case(
            "dynamics.rs:contact_lcp",
            "lambda of length 1",
            "lambda",
            || evaluated().contact_lcp(&[0], &mut [0.0; 1]),
        ),
        // ContactDynamics::impact
        case(
            "dynamics.rs:impact",
            "e of length 1 for 2 rows",
            "e",
            impact(&[0, 1], &[0.5], 2, 2),
        ),
        case(
            "dynamics.rs:impact",
            "xi of length 1 for 2 rows",
            "xi",
            impact(&[0, 1], &[0.5, 0.5], 2, 1),
        ),
        case(
            "dynamics.rs:impact",
            "qd of length 3",
            "qd",
            impact(&[0], &[0.5], 3, 1),
        ),
        case(
            "dynamics.rs:impact",
            "qd of length 1",
            "qd",
            impact(&[0], &[0.5], 1, 1),
        ),
        case(
            "dynamics.rs:impact",
            "rows [7]",
            "rows",
            impact(&[7], &[0.5], 2, 1),
        ),
        case(
            "dynamics.rs:impact",
            "e = -1",
            "e",
            impact(&[0], &[-1.0], 2, 1),
        ),
        case(
            "dynamics.rs:impact",
            "e = NaN",
            "e",
            impact(&[0], &[f64::NAN], 2, 1),
        ),
        case(
            "dynamics.rs:impact",
            "e = 2",
            "e",
            impact(&[0], &[2.0], 2, 1),
        ),
        // ContactDynamics::project
        case("dynamics.rs:project", "active row 9", "active", move || {
            let (mut q, mut qd) = (Q, QD);
            evaluated().project(&c(), 0.0, &[9], &mut q, &mut qd, 3)
        }),
        case("dynamics.rs:project", "q of length 1", "q", move || {
            let mut qd = QD;
            evaluated().project(&c(), 0.0, &[0], &mut [0.0], &mut qd, 3)
        }),
        case("dynamics.rs:project", "qd = (NaN, 0)", "qd", move || {
            let mut q = Q;
            evaluated().project(&c(), 0.0, &[0], &mut q, &mut [f64::NAN, 0.0], 3)
        }),
        // normal_velocity, kinetic_energy
        case(
            "dynamics.rs:normal_velocity",
            "row 2",
            "row index 2",
            || evaluated().normal_velocity(2, &QD).map(|_| ()),
        ),
        case(
            "dynamics.rs:normal_velocity",
            "qd of length 1",
            "qd",
            || evaluated().normal_velocity(0, &[0.0]).map(|_| ()),
        ),
        case("dynamics.rs:kinetic_energy", "qd of length 3", "qd", || {
            evaluated().kinetic_energy(&[0.0; 3]).map(|_| ())
        }),
        case(
            "dynamics.rs:kinetic_energy",
            "qd = (1e200, 1e200) (energy overflows)",
            "kinetic energy",
            || evaluated().kinetic_energy(&[1e200, 1e200]).map(|_| ()),
        ),
        // index1_residual
        case(
            "dynamics.rs:index1_residual",
            "active row 3",
            "active",
            || {
                evaluated().index1_residual(
                    &[3],
                    0.0,
                    &QD,
                    &[0.0; 2],
                    &[0.0],
                    &mut [0.0; 2],
                    &mut [0.0],
                )
            },
        ),
        case(
            "dynamics.rs:index1_residual",
            "lam of length 2 for 1 row",
            "lam",
            || {
                evaluated().index1_residual(
                    &[0],
                    0.0,
                    &QD,
                    &[0.0; 2],
                    &[0.0; 2],
                    &mut [0.0; 2],
                    &mut [0.0],
                )
            },
        ),
        case(
            "dynamics.rs:index1_residual",
            "r_v of length 1",
            "r_v",
            || {
                evaluated().index1_residual(
                    &[0],
                    0.0,
                    &QD,
                    &[0.0; 2],
                    &[0.0],
                    &mut [0.0],
                    &mut [0.0],
                )
            },
        ),
        case(
            "dynamics.rs:index1_residual",
            "vdot of length 3",
            "vdot",
            || {
                evaluated().index1_residual(
                    &[0],
                    0.0,
                    &QD,
                    &[0.0; 3],
                    &[0.0],
                    &mut [0.0; 2],
                    &mut [0.0],
                )
            },
        ),
        case("dynamics.rs:index1_residual", "mu = NaN", "mu", || {
            evaluated().index1_residual(
                &[0],
                f64::NAN,
                &QD,
                &[0.0; 2],
                &[0.0],
                &mut [0.0; 2],
                &mut [0.0],
            )
        }),
        // Lcp
        case(
            "lcp.rs:new",
            "capacity 1e9 (allocates for 12), a size-13 problem",
            "13",
            || {
                let mut lcp = Lcp::new(1_000_000_000);
                lcp.solve(&[1.0; 169], &[1.0; 13], &mut [0.0; 13], &mut [0.0; 13])
            },
        ),
        case("lcp.rs:solve", "a of length 3 for k = 2", "a", || {
            Lcp::new(2).solve(&[1.0; 3], &[1.0; 2], &mut [0.0; 2], &mut [0.0; 2])
        }),
        case("lcp.rs:solve", "w of length 1 for k = 2", "w", || {
            Lcp::new(2).solve(&[1.0; 4], &[1.0; 2], &mut [0.0; 2], &mut [0.0; 1])
        }),
        case("lcp.rs:solve", "b = (NaN, 1)", "lcp data", || {
            Lcp::new(2).solve(&[1.0; 4], &[f64::NAN, 1.0], &mut [0.0; 2], &mut [0.0; 2])
        }),
        // Lemke
        case(
            "lcp/lemke.rs:new",
            "capacity 0, b = (NaN, 1)",
            "lcp data",
            || Lemke::new(0).solve(&[1.0; 4], &[f64::NAN, 1.0], &mut [0.0; 2], &mut [0.0; 2]),
        ),
        case("lcp/lemke.rs:solve", "a of length 3 for n = 2", "a", || {
            Lemke::new(2).solve(&[1.0; 3], &[1.0; 2], &mut [0.0; 2], &mut [0.0; 2])
        }),
        case("lcp/lemke.rs:solve", "z of length 1 for n = 2", "z", || {
            Lemke::new(2).solve(&[1.0; 4], &[1.0; 2], &mut [0.0; 1], &mut [0.0; 2])
        }),
        // 3-D contact
        case(
            "spatial_contact/geometry.rs:add_sphere",
            "body 9",
            "body",
            || {
                ContactGeometry::new()
                    .add_sphere(&free_body(), 9, [0.0; 3], 0.1)
                    .map(|_| ())
            },
        ),
        case(
            "spatial_contact/geometry.rs:add_sphere",
            "radius -1",
            "radius",
            || {
                ContactGeometry::new()
                    .add_sphere(&free_body(), 0, [0.0; 3], -1.0)
                    .map(|_| ())
            },
        ),
        case(
            "spatial_contact/geometry.rs:add_box",
            "body 9",
            "body",
            || {
                ContactGeometry::new()
                    .add_box(&free_body(), 9, &Transform::IDENTITY, [0.1; 3])
                    .map(|_| ())
            },
        ),
        case(
            "spatial_contact/geometry.rs:add_capsule",
            "length NaN",
            "length",
            || {
                ContactGeometry::new()
                    .add_capsule(&free_body(), 0, &Transform::IDENTITY, 0.1, f64::NAN)
                    .map(|_| ())
            },
        ),
        case(
            "spatial_contact/geometry.rs:from_urdf_collisions",
            "a sphere of radius -1",
            "radius",
            || {
                let c = UrdfCollision {
                    link: "body".into(),
                    xyz: [0.0; 3],
                    rpy: [0.0; 3],
                    geometry: UrdfGeometry::Sphere { radius: -1.0 },
                };
                ContactGeometry::from_urdf_collisions(&free_body(), &[c]).map(|_| ())
            },
        ),
        case(
            "spatial_contact/geometry.rs:sphere_contact",
            "q of length 3",
            "q",
            || {
                let t = free_body();
                let s = ContactSphere {
                    body: 0,
                    center: [0.0; 3],
                    radius: 0.1,
                };
                Ground::default()
                    .sphere_contact(&t, &mut t.data(), &[0.0; 3], &s)
                    .map(|_| ())
            },
        ),
        case(
            "spatial_contact/geometry.rs:contact_rows",
            "jacobian scratch 3 x 7",
            "point jacobian",
            || {
                let t = free_body();
                let q = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
                let (mut jp, mut rows) = (faer::Mat::zeros(3, 7), faer::Mat::zeros(3, 6));
                Ground::default().contact_rows(
                    &t,
                    &mut t.data(),
                    &q,
                    0,
                    [0.0; 3],
                    jp.as_mut(),
                    rows.as_mut(),
                )
            },
        ),
        case(
            "spatial_contact/moreau_jean.rs:step",
            "tau of length 7",
            "tau",
            || {
                let t = free_body();
                let mut mj = MoreauJean::new(
                    &t,
                    ContactGeometry::new(),
                    Ground::default(),
                    MoreauJeanConfig::default(),
                )?;
                let mut q = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
                mj.step(&mut q, &mut [0.0; 6], &[0.0; 7]).map(|_| ())
            },
        ),
        // Simulator::settle
        case(
            "simulation/events.rs:settle",
            "exiting row 5",
            "exiting",
            || {
                let b = BouncingBall::default();
                let mut s = Simulator::new(
                    &b,
                    0.0,
                    &[1.0],
                    &[0.0],
                    ContactConfig::new(1.0, Scheme::default()),
                )?;
                s.settle(0.0, Some(5), None)
            },
        ),
        case("simulation/events.rs:settle", "t = NaN", "t", || {
            let b = BouncingBall::default();
            let mut s = Simulator::new(
                &b,
                0.0,
                &[1.0],
                &[0.0],
                ContactConfig::new(1.0, Scheme::default()),
            )?;
            s.settle(f64::NAN, None, None)
        }),
        // Simulator::new / simulate
        case("simulation/mod.rs:new", "q0 of length 2", "q0", || {
            Simulator::new(
                &BouncingBall::default(),
                0.0,
                &[1.0, 0.0],
                &[0.0],
                ContactConfig::new(1.0, Scheme::default()),
            )
            .map(|_| ())
        }),
        case("simulation/mod.rs:simulate", "qd0 = NaN", "qd0", || {
            simulate(
                &BouncingBall::default(),
                0.0,
                &[1.0],
                &[f64::NAN],
                ContactConfig::new(1.0, Scheme::default()),
            )
            .map(|_| ())
        }),
        case(
            "simulation/mod.rs:simulate",
            "Huang eps = NaN",
            "eps",
            || huang_eps(f64::NAN),
        ),
        case(
            "simulation/mod.rs:simulate",
            "Huang eps = -1",
            "eps",
            || huang_eps(-1.0),
        ),
        case(
            "simulation/mod.rs:simulate",
            "Huang eps = +inf",
            "eps",
            || huang_eps(f64::INFINITY),
        ),
        case(
            "simulation/mod.rs:simulate",
            "restitution = -1",
            "restitution",
            || {
                let mut cfg = ContactConfig::new(1.0, Scheme::default());
                cfg.restitution = -1.0;
                simulate(&BouncingBall::default(), 0.0, &[1.0], &[0.0], cfg).map(|_| ())
            },
        ),
        case(
            "simulation/mod.rs:simulate",
            "atol = 1e-300",
            "floor",
            || {
                modern(ModernConfig {
                    atol: 1e-300,
                    ..ModernConfig::default()
                })
            },
        ),
        case(
            "simulation/mod.rs:simulate",
            "rtol = 1e-16",
            "floor",
            || {
                modern(ModernConfig {
                    rtol: 1e-16,
                    ..ModernConfig::default()
                })
            },
        ),
    ]
}

/// Every case is an error naming its argument.
#[test]
fn every_case_is_an_error_naming_the_argument() {
    let cases = cases();
    crate::pub_fn_scan::check_cases(
        "contour-contact",
        cases
            .iter()
            .map(|c| (c.func, c.input, c.names, &*c.call as &dyn Fn() -> _)),
    );
}

/// The lint: each public function of `src/` taking a slice or an index has a case above.
#[test]
fn every_slice_or_index_fn_has_a_case() {
    let covered: std::collections::BTreeSet<&str> = cases().iter().map(|c| c.func).collect();
    crate::pub_fn_scan::check_coverage(env!("CARGO_MANIFEST_DIR"), &covered, 10, true);
}
