//! The URDF elements that carry kinematics and dynamics, read from XML with `quick-xml`'s
//! streaming reader: `<robot name>`, `<link name>` with its `<inertial>`, and `<joint name
//! type>` with `<origin>`, `<parent>`, `<child>`, `<axis>`, `<limit>` and `<mimic>`.
//!
//! Every other element (visual and collision geometry, materials, textures, meshes,
//! transmissions, `<gazebo>` blocks, unknown tags) is skipped without being interpreted, so
//! its content never blocks an import. The reader is iterative (no recursion): the nesting
//! depth is bounded by [`MAX_DEPTH`] with a typed error instead of the stack. Every element
//! keeps the line of its start tag for the messages.

use super::visual::{UrdfGeometry, UrdfVisual};
use super::UrdfImportError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// The deepest element nesting accepted (the `<robot>` element is depth 1). Real robot
/// descriptions stay below 10 (`robot/link/visual/geometry/mesh` is 5).
pub const MAX_DEPTH: usize = 256;

/// `<inertial>`: mass, centre-of-mass pose and the inertia tensor about it.
#[derive(Debug, Clone, Default)]
pub(super) struct RawInertial {
    pub(super) xyz: [f64; 3],
    pub(super) rpy: [f64; 3],
    pub(super) mass: f64,
    /// `ixx ixy ixz iyy iyz izz`.
    pub(super) inertia: [f64; 6],
}

/// `<link>`.
#[derive(Debug, Clone)]
pub(super) struct RawLink {
    pub(super) name: String,
    pub(super) line: usize,
    pub(super) inertial: Option<RawInertial>,
}

/// `<mimic joint multiplier offset>`.
#[derive(Debug, Clone)]
pub(super) struct RawMimic {
    pub(super) joint: String,
    pub(super) multiplier: f64,
    pub(super) offset: f64,
}

/// `<limit lower upper velocity effort>` (absent attributes are 0, as in urdfdom).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RawLimit {
    pub(super) lower: f64,
    pub(super) upper: f64,
    pub(super) velocity: f64,
    pub(super) effort: f64,
}

/// `<joint>`.
#[derive(Debug, Clone)]
pub(super) struct RawJoint {
    pub(super) name: String,
    pub(super) line: usize,
    pub(super) kind: String,
    pub(super) xyz: [f64; 3],
    pub(super) rpy: [f64; 3],
    pub(super) parent: String,
    pub(super) child: String,
    pub(super) axis: [f64; 3],
    pub(super) limit: RawLimit,
    pub(super) mimic: Option<RawMimic>,
}

/// The `<robot>` element.
#[derive(Debug, Clone, Default)]
pub(super) struct RawRobot {
    pub(super) name: String,
    pub(super) links: Vec<RawLink>,
    pub(super) joints: Vec<RawJoint>,
    /// The links' `<visual>` (or `<collision>`) elements, read only by [`read_with_visuals`]
    /// ([`read_with_collisions`]).
    pub(super) visuals: Vec<UrdfVisual>,
}

/// Line numbers (1-based) of byte offsets, counted forward as the reader advances.
struct Lines<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
}

impl Lines<'_> {
    fn at(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        if offset >= self.pos {
            self.line += self.text[self.pos..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
        } else {
            self.line = 1 + self.text[..offset].iter().filter(|&&b| b == b'\n').count();
        }
        self.pos = offset;
        self.line
    }
}

fn parse_error(line: usize, message: impl Into<String>) -> UrdfImportError {
    UrdfImportError::Parse {
        line,
        message: message.into(),
    }
}

/// The value of attribute `key` of `e`, unescaped.
fn attr(e: &BytesStart<'_>, key: &str, line: usize) -> Result<Option<String>, UrdfImportError> {
    for a in e.attributes() {
        let a = a.map_err(|err| parse_error(line, err.to_string()))?;
        if a.key.as_ref() == key.as_bytes() {
            let v = a
                .unescape_value()
                .map_err(|err| parse_error(line, err.to_string()))?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

fn tag(e: &BytesStart<'_>) -> String {
    String::from_utf8_lossy(e.name().as_ref()).into_owned()
}

fn number(
    s: &str,
    what: &str,
    key: &str,
    owner: &str,
    line: usize,
) -> Result<f64, UrdfImportError> {
    s.trim().parse::<f64>().map_err(|_| {
        parse_error(
            line,
            format!("{owner}: <{what} {key}=\"{s}\">: not a number"),
        )
    })
}

fn opt_number(
    e: &BytesStart<'_>,
    key: &str,
    default: f64,
    owner: &str,
    line: usize,
) -> Result<f64, UrdfImportError> {
    match attr(e, key, line)? {
        Some(s) => number(&s, &tag(e), key, owner, line),
        None => Ok(default),
    }
}

fn triple(
    e: &BytesStart<'_>,
    key: &str,
    default: [f64; 3],
    owner: &str,
    line: usize,
) -> Result<[f64; 3], UrdfImportError> {
    let Some(s) = attr(e, key, line)? else {
        return Ok(default);
    };
    let mut out = [0.0; 3];
    let mut parts = s.split_whitespace();
    for o in &mut out {
        let p = parts.next().ok_or_else(|| {
            parse_error(
                line,
                format!("{owner}: <{} {key}=\"{s}\">: expected 3 numbers", tag(e)),
            )
        })?;
        *o = number(p, &tag(e), key, owner, line)?;
    }
    if parts.next().is_some() {
        return Err(parse_error(
            line,
            format!("{owner}: <{} {key}=\"{s}\">: expected 3 numbers", tag(e)),
        ));
    }
    Ok(out)
}

fn required(
    e: &BytesStart<'_>,
    key: &str,
    owner: &str,
    line: usize,
) -> Result<String, UrdfImportError> {
    attr(e, key, line)?.ok_or_else(|| {
        parse_error(
            line,
            format!("{owner}: <{}> has no '{key}' attribute", tag(e)),
        )
    })
}

/// Reads the robot description (see the module doc).
pub(super) fn read(s: &str) -> Result<RawRobot, UrdfImportError> {
    read_robot(s, None)
}

/// [`read`], and the links' `<visual>` elements (origin and geometry) into
/// [`RawRobot::visuals`].
pub(super) fn read_with_visuals(s: &str) -> Result<RawRobot, UrdfImportError> {
    read_robot(s, Some("visual"))
}

/// [`read`], and the links' `<collision>` elements (origin and geometry, the same reader as
/// the visuals') into [`RawRobot::visuals`].
pub(super) fn read_with_collisions(s: &str) -> Result<RawRobot, UrdfImportError> {
    read_robot(s, Some("collision"))
}

/// The `<geometry>` child `e` (`box`, `cylinder`, `capsule`, `sphere`, `mesh`) of a visual
/// of `owner`; `None` for an unknown shape.
fn geometry(
    e: &BytesStart<'_>,
    owner: &str,
    line: usize,
) -> Result<Option<UrdfGeometry>, UrdfImportError> {
    let num = |key: &str| -> Result<f64, UrdfImportError> {
        let v = required(e, key, owner, line)?;
        number(&v, &tag(e), key, owner, line)
    };
    Ok(Some(match tag(e).as_str() {
        "box" => {
            required(e, "size", owner, line)?;
            UrdfGeometry::Box {
                size: triple(e, "size", [0.0; 3], owner, line)?,
            }
        }
        "cylinder" => UrdfGeometry::Cylinder {
            radius: num("radius")?,
            length: num("length")?,
        },
        "capsule" => UrdfGeometry::Capsule {
            radius: num("radius")?,
            length: num("length")?,
        },
        "sphere" => UrdfGeometry::Sphere {
            radius: num("radius")?,
        },
        "mesh" => UrdfGeometry::Mesh {
            filename: required(e, "filename", owner, line)?,
            scale: triple(e, "scale", [1.0; 3], owner, line)?,
        },
        _ => return Ok(None),
    }))
}

/// `shapes`: the link child (`visual` or `collision`) whose origin and geometry are read.
fn read_robot(s: &str, shapes: Option<&str>) -> Result<RawRobot, UrdfImportError> {
    let mut reader = Reader::from_str(s);
    reader.config_mut().expand_empty_elements = true;
    let mut lines = Lines {
        text: s.as_bytes(),
        pos: 0,
        line: 1,
    };
    let mut robot: Option<RawRobot> = None;
    let mut done = false;
    // the open elements, innermost last
    let mut stack: Vec<String> = Vec::new();
    let mut link: Option<RawLink> = None;
    let mut joint: Option<RawJoint> = None;
    let mut inertial: Option<RawInertial> = None;
    // the open `<visual>`: its origin and geometry
    let mut visual: Option<([f64; 3], [f64; 3], Option<UrdfGeometry>)> = None;
    loop {
        let start = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = reader.read_event().map_err(|err| {
            let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
            parse_error(lines.at(at), err.to_string())
        })?;
        match event {
            Event::Start(e) => {
                let line = lines.at(start);
                let name = tag(&e);
                if stack.len() >= MAX_DEPTH {
                    return Err(UrdfImportError::TooDeep {
                        line,
                        depth: MAX_DEPTH,
                    });
                }
                let path: Vec<&str> = stack.iter().map(String::as_str).collect();
                match (path.as_slice(), name.as_str()) {
                    ([], "robot") if !done => {
                        robot = Some(RawRobot {
                            name: attr(&e, "name", line)?.unwrap_or_default(),
                            ..RawRobot::default()
                        });
                    }
                    ([], _) => {
                        return Err(parse_error(
                            line,
                            format!("the document element is <{name}>, expected one <robot>"),
                        ))
                    }
                    (["robot"], "link") => {
                        link = Some(RawLink {
                            name: required(&e, "name", "<link>", line)?,
                            line,
                            inertial: None,
                        });
                    }
                    (["robot"], "joint") => {
                        let name = required(&e, "name", "<joint>", line)?;
                        let owner = format!("joint '{name}'");
                        joint = Some(RawJoint {
                            kind: required(&e, "type", &owner, line)?,
                            name,
                            line,
                            xyz: [0.0; 3],
                            rpy: [0.0; 3],
                            parent: String::new(),
                            child: String::new(),
                            axis: [1.0, 0.0, 0.0],
                            limit: RawLimit::default(),
                            mimic: None,
                        });
                    }
                    (["robot", "link"], "inertial") => inertial = Some(RawInertial::default()),
                    (["robot", "link"], t) if shapes == Some(t) => {
                        visual = Some(([0.0; 3], [0.0; 3], None));
                    }
                    (["robot", "link", t], "origin") if shapes == Some(*t) => {
                        if let (Some(l), Some(v)) = (&link, &mut visual) {
                            let owner = format!("link '{}'", l.name);
                            v.0 = triple(&e, "xyz", [0.0; 3], &owner, line)?;
                            v.1 = triple(&e, "rpy", [0.0; 3], &owner, line)?;
                        }
                    }
                    (["robot", "link", t, "geometry"], _) if shapes == Some(*t) => {
                        if let (Some(l), Some(v)) = (&link, &mut visual) {
                            let owner = format!("link '{}'", l.name);
                            v.2 = geometry(&e, &owner, line)?;
                        }
                    }
                    (["robot", "link", "inertial"], child) => {
                        if let (Some(l), Some(i)) = (&link, &mut inertial) {
                            let owner = format!("link '{}'", l.name);
                            match child {
                                "origin" => {
                                    i.xyz = triple(&e, "xyz", [0.0; 3], &owner, line)?;
                                    i.rpy = triple(&e, "rpy", [0.0; 3], &owner, line)?;
                                }
                                "mass" => {
                                    let v = required(&e, "value", &owner, line)?;
                                    i.mass = number(&v, "mass", "value", &owner, line)?;
                                }
                                "inertia" => {
                                    for (k, key) in ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"]
                                        .iter()
                                        .enumerate()
                                    {
                                        i.inertia[k] = opt_number(&e, key, 0.0, &owner, line)?;
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    (["robot", "joint"], child) => {
                        if let Some(j) = &mut joint {
                            let owner = format!("joint '{}'", j.name);
                            match child {
                                "origin" => {
                                    j.xyz = triple(&e, "xyz", [0.0; 3], &owner, line)?;
                                    j.rpy = triple(&e, "rpy", [0.0; 3], &owner, line)?;
                                }
                                "parent" => j.parent = required(&e, "link", &owner, line)?,
                                "child" => j.child = required(&e, "link", &owner, line)?,
                                "axis" => {
                                    j.axis = triple(&e, "xyz", [1.0, 0.0, 0.0], &owner, line)?
                                }
                                "limit" => {
                                    j.limit = RawLimit {
                                        lower: opt_number(&e, "lower", 0.0, &owner, line)?,
                                        upper: opt_number(&e, "upper", 0.0, &owner, line)?,
                                        velocity: opt_number(&e, "velocity", 0.0, &owner, line)?,
                                        effort: opt_number(&e, "effort", 0.0, &owner, line)?,
                                    }
                                }
                                "mimic" => {
                                    j.mimic = Some(RawMimic {
                                        joint: required(&e, "joint", &owner, line)?,
                                        multiplier: opt_number(
                                            &e,
                                            "multiplier",
                                            1.0,
                                            &owner,
                                            line,
                                        )?,
                                        offset: opt_number(&e, "offset", 0.0, &owner, line)?,
                                    })
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
                stack.push(name);
            }
            Event::End(_) => {
                let line = lines.at(start);
                let Some(name) = stack.pop() else {
                    return Err(parse_error(line, "closing tag without an opening tag"));
                };
                let path: Vec<&str> = stack.iter().map(String::as_str).collect();
                match (path.as_slice(), name.as_str()) {
                    ([], "robot") => done = true,
                    (["robot"], "link") => {
                        if let (Some(r), Some(l)) = (&mut robot, link.take()) {
                            r.links.push(l);
                        }
                    }
                    (["robot"], "joint") => {
                        if let (Some(r), Some(j)) = (&mut robot, joint.take()) {
                            let owner = format!("joint '{}'", j.name);
                            if j.parent.is_empty() {
                                return Err(parse_error(j.line, format!("{owner}: no <parent>")));
                            }
                            if j.child.is_empty() {
                                return Err(parse_error(j.line, format!("{owner}: no <child>")));
                            }
                            r.joints.push(j);
                        }
                    }
                    (["robot", "link"], "inertial") => {
                        if let Some(l) = &mut link {
                            l.inertial = inertial.take();
                        }
                    }
                    (["robot", "link"], t) if shapes == Some(t) => {
                        if let (Some(r), Some(l), Some((xyz, rpy, Some(geometry)))) =
                            (&mut robot, &link, visual.take())
                        {
                            r.visuals.push(UrdfVisual {
                                link: l.name.clone(),
                                xyz,
                                rpy,
                                geometry,
                            });
                        }
                    }
                    _ => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err(parse_error(
            lines.at(s.len()),
            format!("unexpected end of file inside <{}>", stack.join("><")),
        ));
    }
    robot.ok_or_else(|| parse_error(1, "no <robot> element"))
}
