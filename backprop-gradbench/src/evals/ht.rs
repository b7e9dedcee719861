//! `ht`: hand tracking's residuals, and their Jacobian in the 26 pose
//! parameters `theta` (and, with barycentric coordinates `us`, in each
//! correspondence's own two).
//!
//! The objective is written as three `#[differentiable]` functions, each a
//! stage of the model, and the Jacobian is assembled from their
//! vector-Jacobian products by the chain rule, exploiting the structure:
//!
//! 1. [`pose_transforms`]: `theta` → one 3 × 4 transform per bone (the
//!    rest pose times the bone's posed chain) and the global rotation and
//!    translation, as the rows of a `(bones + 1) × 12` array. A finger's
//!    bones depend on that finger's 4 angles only and the global row on
//!    `theta[0..6]` only, so rows whose dependencies are disjoint share one
//!    VJP (one upstream seeding an entry of each): 36 VJPs, not 276.
//! 2. [`skin_vertex`]: the transforms → one vertex's position, the weighted
//!    sum of its bones' transforms of its rest position, then the global
//!    transform; 3 VJPs per vertex that a correspondence reads.
//! 3. [`correspondence_error`]: three vertices and the barycentric
//!    coordinates → the residual against the observed point; 3 VJPs per
//!    correspondence, after one forward pass (`backward_each`).

use backprop::prelude::*;
use serde_json::{json, Value};

use super::Output;

/// The hand model: constants of every function here.
pub struct Model {
    /// Each bone's parent, `-1` for the root; parents come first.
    pub parents: Vec<i64>,
    /// Each bone's rest transform relative to its parent (`bones × 4 × 4`).
    pub base_relatives: Array3<f64>,
    /// The inverse of each bone's absolute rest transform (`bones × 4 × 4`).
    pub inverse_base_absolutes: Array3<f64>,
    /// One homogeneous rest position per row (`vertices × 4`).
    pub base_positions: Array2<f64>,
    /// Each vertex's bone weights (`vertices × bones`).
    pub weights: Array2<f64>,
    /// Each triangle's three vertices.
    pub triangles: Vec<[usize; 3]>,
    /// Whether the model's x axis is mirrored.
    pub is_mirrored: bool,
}

/// The 26 angles of `theta` as 3 per bone (the Euler angles about x, z,
/// then y), plus the global rotation and translation: `pose[[.., b + 3]]` is
/// bone `b`'s. Finger `f` (of 5) moves its bones `4f + 2` (two angles),
/// `4f + 3` and `4f + 4` (one each); the other bones stay in the rest pose.
/// Returns, for bone `b`, the index into `theta` of each of its pose
/// angles, or `None`.
fn pose_angles(bone: usize) -> [Option<usize>; 3] {
    if (2..22).contains(&bone) {
        let (finger, joint) = ((bone - 2) / 4, (bone - 2) % 4);
        match joint {
            0 => [Some(6 + 4 * finger), Some(7 + 4 * finger), None],
            1 | 2 => [Some(7 + 4 * finger + joint), None, None],
            _ => [None; 3],
        }
    } else {
        [None; 3]
    }
}

/// `theta` → row `b` < bones: bone `b`'s posed transform (the top 3 rows of
/// `absolute_b · inverse_base_absolute_b`, row by row); row `bones`: the
/// global rotation (3 × 3, row by row) and translation.
#[differentiable(wrt(theta))]
pub fn pose_transforms(theta: &Array1<f64>, model: &Model) -> Array2<f64> {
    let bones = model.parents.len();
    let mut out = Array2::<f64>::zeros((bones + 1, 12));
    // Each bone's Euler angles (about x, z, y) in column `b + 3`, as
    // `pose_angles` says: finger f moves bones 4f + 2 (x and z), 4f + 3 and
    // 4f + 4 (x); the y angle is always 0.
    let mut pose = Array2::<f64>::zeros((3, bones + 3));
    for f in 0..5 {
        pose[[0, 5 + 4 * f]] = theta[6 + 4 * f];
        pose[[1, 5 + 4 * f]] = theta[7 + 4 * f];
        pose[[0, 6 + 4 * f]] = theta[8 + 4 * f];
        pose[[0, 7 + 4 * f]] = theta[9 + 4 * f];
    }
    let mut absolutes = Array2::<f64>::zeros((bones, 16));
    for b in 0..bones {
        let (tx, tz) = (pose[[0, b + 3]], pose[[1, b + 3]]);
        let (cx, sx, cz, sz) = (tx.cos(), tx.sin(), tz.cos(), tz.sin());
        // R = Rz · Ry · Rx with the y angle 0: Ry is the identity.
        let mut tr = Array2::<f64>::eye(4);
        tr[[0, 0]] = cz;
        tr[[0, 1]] = -sz * cx;
        tr[[0, 2]] = sz * sx;
        tr[[1, 0]] = sz;
        tr[[1, 1]] = cz * cx;
        tr[[1, 2]] = -cz * sx;
        tr[[2, 1]] = sx;
        tr[[2, 2]] = cx;
        let relative = model.base_relatives.index_axis(Axis(0), b).dot(&tr);
        let absolute = if model.parents[b] < 0 {
            relative
        } else {
            let parent = model.parents[b] as usize;
            absolutes
                .row(parent)
                .to_shape((4, 4))
                .unwrap()
                .dot(&relative)
        };
        absolutes.row_mut(b).assign(&absolute.to_shape(16).unwrap());
        let transform = absolute.dot(&model.inverse_base_absolutes.index_axis(Axis(0), b));
        out.row_mut(b)
            .assign(&transform.slice(s![0..3, ..]).to_shape(12).unwrap());
    }
    // The global rotation, from its angle-axis form.
    let norm = (theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]).sqrt();
    let mut rotation = Array2::<f64>::eye(3);
    if norm >= 1e-4 {
        let (x, y, z) = (theta[0] / norm, theta[1] / norm, theta[2] / norm);
        let (s, c) = (norm.sin(), norm.cos());
        rotation[[0, 0]] = x * x + (1.0 - x * x) * c;
        rotation[[0, 1]] = x * y * (1.0 - c) - z * s;
        rotation[[0, 2]] = x * z * (1.0 - c) + y * s;
        rotation[[1, 0]] = x * y * (1.0 - c) + z * s;
        rotation[[1, 1]] = y * y + (1.0 - y * y) * c;
        rotation[[1, 2]] = y * z * (1.0 - c) - x * s;
        rotation[[2, 0]] = x * z * (1.0 - c) - y * s;
        rotation[[2, 1]] = z * y * (1.0 - c) + x * s;
        rotation[[2, 2]] = z * z + (1.0 - z * z) * c;
    }
    out.slice_mut(s![bones, 0..9])
        .assign(&rotation.to_shape(9).unwrap());
    out.slice_mut(s![bones, 9..12])
        .assign(&theta.slice(s![3..6]));
    out
}

/// One vertex's position: the sum over bones of its weight times the bone's
/// transform of its rest position, mirrored if the model is, then rotated and
/// translated by the global row of `transforms`.
#[differentiable(wrt(transforms))]
pub fn skin_vertex(transforms: &Array2<f64>, model: &Model, v: usize) -> (f64, f64, f64) {
    let bones = transforms.nrows() - 1;
    let rest = model.base_positions.row(v);
    let (p0, p1, p2, p3) = (rest[0], rest[1], rest[2], rest[3]);
    let mut x = 0.0;
    let mut y = 0.0;
    let mut z = 0.0;
    for b in 0..bones {
        let w = model.weights[[v, b]];
        x += (transforms[[b, 0]] * p0
            + transforms[[b, 1]] * p1
            + transforms[[b, 2]] * p2
            + transforms[[b, 3]] * p3)
            * w;
        y += (transforms[[b, 4]] * p0
            + transforms[[b, 5]] * p1
            + transforms[[b, 6]] * p2
            + transforms[[b, 7]] * p3)
            * w;
        z += (transforms[[b, 8]] * p0
            + transforms[[b, 9]] * p1
            + transforms[[b, 10]] * p2
            + transforms[[b, 11]] * p3)
            * w;
    }
    if model.is_mirrored {
        x = -x;
    }
    let g = bones;
    (
        transforms[[g, 0]] * x
            + transforms[[g, 1]] * y
            + transforms[[g, 2]] * z
            + transforms[[g, 9]],
        transforms[[g, 3]] * x
            + transforms[[g, 4]] * y
            + transforms[[g, 5]] * z
            + transforms[[g, 10]],
        transforms[[g, 6]] * x
            + transforms[[g, 7]] * y
            + transforms[[g, 8]] * z
            + transforms[[g, 11]],
    )
}

/// The residual of one correspondence: the observed point minus the point
/// of barycentric coordinates `(u0, u1, 1 − u0 − u1)` in the triangle
/// `a b c`.
#[allow(clippy::too_many_arguments, reason = "one scalar per parameter")]
#[differentiable(backward_each, wrt(a0, a1, a2, b0, b1, b2, c0, c1, c2, u0, u1))]
pub fn correspondence_error(
    a0: f64,
    a1: f64,
    a2: f64,
    b0: f64,
    b1: f64,
    b2: f64,
    c0: f64,
    c1: f64,
    c2: f64,
    u0: f64,
    u1: f64,
    point: (f64, f64, f64),
) -> (f64, f64, f64) {
    let u2 = 1.0 - u0 - u1;
    (
        point.0 - (u0 * a0 + u1 * b0 + u2 * c0),
        point.1 - (u0 * a1 + u1 * b1 + u2 * c1),
        point.2 - (u0 * a2 + u1 * b2 + u2 * c2),
    )
}

/// The eval's input, parsed.
struct Input {
    theta: Array1<f64>,
    model: Model,
    correspondences: Vec<usize>,
    points: Vec<(f64, f64, f64)>,
    /// Empty for the "simple" variant.
    us: Vec<(f64, f64)>,
}

impl Input {
    /// Correspondence `i`'s triangle and barycentric coordinates; in the
    /// simple variant, its vertex three times with coordinates `(1, 0)`, so
    /// that the point is exactly the vertex.
    fn triangle(&self, i: usize) -> ([usize; 3], (f64, f64)) {
        if self.us.is_empty() {
            ([self.correspondences[i]; 3], (1.0, 0.0))
        } else {
            (self.model.triangles[self.correspondences[i]], self.us[i])
        }
    }
}

/// The residuals, 3 per correspondence.
fn objective(input: &Input) -> Vec<f64> {
    let transforms = pose_transforms(&input.theta, &input.model);
    let vertices = input.model.base_positions.nrows();
    let positions: Vec<(f64, f64, f64)> = (0..vertices)
        .map(|v| skin_vertex(&transforms, &input.model, v))
        .collect();
    let mut err = Vec::with_capacity(3 * input.correspondences.len());
    for i in 0..input.correspondences.len() {
        let ([a, b, c], (u0, u1)) = input.triangle(i);
        let (a, b, c) = (positions[a], positions[b], positions[c]);
        let e = correspondence_error(
            a.0,
            a.1,
            a.2,
            b.0,
            b.1,
            b.2,
            c.0,
            c.1,
            c.2,
            u0,
            u1,
            input.points[i],
        );
        err.extend([e.0, e.1, e.2]);
    }
    err
}

/// The indices of `theta` that row `row` of [`pose_transforms`] depends on:
/// a bone's own angles and its ancestors'; the global row's six.
fn dependencies(parents: &[i64]) -> Vec<Vec<usize>> {
    let mut deps: Vec<Vec<usize>> = Vec::with_capacity(parents.len() + 1);
    for (b, &parent) in parents.iter().enumerate() {
        let mut d: Vec<usize> = if parent < 0 {
            vec![]
        } else {
            deps[parent as usize].clone()
        };
        d.extend(pose_angles(b).into_iter().flatten());
        d.sort_unstable();
        d.dedup();
        deps.push(d);
    }
    deps.push((0..6).collect());
    deps
}

/// Rows of [`pose_transforms`] grouped so that no two rows of a group depend
/// on a common angle (greedy colouring); rows that depend on none are left
/// out (their derivative is zero).
fn disjoint_groups(deps: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(Vec<usize>, Vec<bool>)> = Vec::new();
    for (row, d) in deps.iter().enumerate().filter(|(_, d)| !d.is_empty()) {
        match groups
            .iter_mut()
            .find(|(_, used)| d.iter().all(|&j| !used[j]))
        {
            Some((rows, used)) => {
                rows.push(row);
                d.iter().for_each(|&j| used[j] = true);
            }
            None => {
                let mut used = vec![false; 26];
                d.iter().for_each(|&j| used[j] = true);
                groups.push((vec![row], used));
            }
        }
    }
    groups.into_iter().map(|(rows, _)| rows).collect()
}

/// The Jacobian, `3 × correspondences` rows of `(du0, du1,)? dtheta[26]`.
fn jacobian(input: &Input) -> Vec<Vec<f64>> {
    let model = &input.model;
    let bones = model.parents.len();
    let n_theta = input.theta.len();
    let deps = dependencies(&model.parents);
    // 1. d transforms / d theta, one VJP per group and entry.
    let transforms = pose_transforms(&input.theta, model);
    let mut d_transforms = Array3::<f64>::zeros((bones + 1, 12, n_theta));
    for group in disjoint_groups(&deps) {
        for e in 0..12 {
            let mut upstream = Array2::<f64>::zeros((bones + 1, 12));
            for &row in &group {
                upstream[[row, e]] = 1.0;
            }
            let (_, g) = pose_transforms_backward(&input.theta, model, &upstream);
            for &row in &group {
                for &j in &deps[row] {
                    d_transforms[[row, e, j]] = g.theta[j];
                }
            }
        }
    }
    // 2. d position / d theta for each vertex that a correspondence reads.
    let vertices = model.base_positions.nrows();
    let mut positions = vec![(0.0, 0.0, 0.0); vertices];
    let mut d_positions: Vec<Option<Array2<f64>>> = vec![None; vertices];
    for i in 0..input.correspondences.len() {
        for v in input.triangle(i).0 {
            if d_positions[v].is_some() {
                continue;
            }
            let mut dp = Array2::<f64>::zeros((3, n_theta));
            for (c, d_out) in [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
                .into_iter()
                .enumerate()
            {
                let (p, g) = skin_vertex_backward(&transforms, model, v, d_out);
                positions[v] = p;
                for row in (0..=bones).filter(|&r| r == bones || model.weights[[v, r]] != 0.0) {
                    for e in 0..12 {
                        let coefficient = g.transforms[[row, e]];
                        if coefficient != 0.0 {
                            for &j in &deps[row] {
                                dp[[c, j]] += coefficient * d_transforms[[row, e, j]];
                            }
                        }
                    }
                }
            }
            d_positions[v] = Some(dp);
        }
    }
    // 3. Each correspondence's 3 rows.
    let complicated = !input.us.is_empty();
    let mut rows = Vec::with_capacity(3 * input.correspondences.len());
    for i in 0..input.correspondences.len() {
        let ([a, b, c], (u0, u1)) = input.triangle(i);
        let (pa, pb, pc) = (positions[a], positions[b], positions[c]);
        let (_, gradients) = correspondence_error_backward_each(
            pa.0,
            pa.1,
            pa.2,
            pb.0,
            pb.1,
            pb.2,
            pc.0,
            pc.1,
            pc.2,
            u0,
            u1,
            input.points[i],
            [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)],
        );
        for g in gradients {
            let mut row = Vec::with_capacity(n_theta + 2);
            if complicated {
                row.extend([g.u0, g.u1]);
            }
            let start = row.len();
            row.resize(start + n_theta, 0.0);
            let through = [
                (a, [g.a0, g.a1, g.a2]),
                (b, [g.b0, g.b1, g.b2]),
                (c, [g.c0, g.c1, g.c2]),
            ];
            for (v, coefficients) in through {
                let dp = d_positions[v]
                    .as_ref()
                    .expect("every read vertex has its derivative");
                for (k, &coefficient) in coefficients.iter().enumerate() {
                    if coefficient != 0.0 {
                        for (r, &d) in row[start..].iter_mut().zip(dp.row(k)) {
                            *r += coefficient * d;
                        }
                    }
                }
            }
            rows.push(row);
        }
    }
    rows
}

fn list<'a>(v: &'a Value, name: &str) -> Result<&'a Vec<Value>, String> {
    v.get(name)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("ht: `{name}` is not a list"))
}

fn floats(v: &Value, name: &str) -> Result<Vec<f64>, String> {
    v.as_array()
        .ok_or_else(|| format!("ht: `{name}` holds a non-list"))?
        .iter()
        .map(|x| {
            x.as_f64()
                .ok_or_else(|| format!("ht: `{name}` holds a non-number"))
        })
        .collect()
}

/// A list of lists of `cols` numbers as a matrix.
fn matrix(items: &[Value], name: &str, cols: usize) -> Result<Array2<f64>, String> {
    let mut flat = Vec::with_capacity(items.len() * cols);
    for item in items {
        let row = floats(item, name)?;
        if row.len() != cols {
            return Err(format!(
                "ht: a row of `{name}` has {} numbers, not {cols}",
                row.len()
            ));
        }
        flat.extend(row);
    }
    Array2::from_shape_vec((items.len(), cols), flat).map_err(|e| e.to_string())
}

/// A list of 4 × 4 matrices, each a list of rows.
fn transforms_4x4(items: &[Value], name: &str) -> Result<Array3<f64>, String> {
    let mut flat = Vec::with_capacity(items.len() * 16);
    for item in items {
        let m = matrix(
            item.as_array()
                .ok_or_else(|| format!("ht: `{name}` holds a non-list"))?,
            name,
            4,
        )?;
        if m.nrows() != 4 {
            return Err(format!("ht: `{name}` holds a matrix that is not 4 × 4"));
        }
        flat.extend(m.iter());
    }
    Array3::from_shape_vec((items.len(), 4, 4), flat).map_err(|e| e.to_string())
}

fn index(v: &Value, name: &str, below: usize) -> Result<usize, String> {
    match v.as_u64() {
        Some(i) if (i as usize) < below => Ok(i as usize),
        _ => Err(format!(
            "ht: `{name}` holds an index that is not below {below}"
        )),
    }
}

fn parse(input: &Value) -> Result<Input, String> {
    let theta = floats(input.get("theta").unwrap_or(&Value::Null), "theta")?;
    if theta.len() != 26 {
        return Err("ht: `theta` must have 26 numbers".into());
    }
    let data = input.get("data").ok_or("ht: the input has no `data`")?;
    let m = data.get("model").ok_or("ht: `data` has no `model`")?;
    let parents: Vec<i64> = list(m, "parents")?
        .iter()
        .map(|p| p.as_i64().ok_or("ht: `parents` holds a non-integer"))
        .collect::<Result<_, _>>()?;
    let bones = parents.len();
    if bones != 22 {
        return Err("ht: the model must have 22 bones (wrist, 5 fingers of 4, forearm)".into());
    }
    if parents
        .iter()
        .enumerate()
        .any(|(b, &p)| p >= b as i64 || p < -1)
    {
        return Err("ht: each bone's parent must come before it".into());
    }
    let base_positions = matrix(list(m, "base_positions")?, "base_positions", 4)?;
    let vertices = base_positions.nrows();
    let weights = matrix(list(m, "weights")?, "weights", bones)?;
    if weights.nrows() != vertices {
        return Err("ht: `weights` must have one row per vertex".into());
    }
    let triangles = list(m, "triangles")?
        .iter()
        .map(|t| match t.as_array().map(Vec::as_slice) {
            Some([a, b, c]) => Ok([
                index(a, "triangles", vertices)?,
                index(b, "triangles", vertices)?,
                index(c, "triangles", vertices)?,
            ]),
            _ => Err("ht: a triangle is not 3 vertices".to_string()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let base_relatives = transforms_4x4(list(m, "base_relatives")?, "base_relatives")?;
    let inverse_base_absolutes =
        transforms_4x4(list(m, "inverse_base_absolutes")?, "inverse_base_absolutes")?;
    if base_relatives.dim().0 != bones || inverse_base_absolutes.dim().0 != bones {
        return Err("ht: one base transform per bone".into());
    }
    let is_mirrored = m
        .get("is_mirrored")
        .and_then(Value::as_bool)
        .ok_or("ht: `is_mirrored` is not a bool")?;
    let us_list = input
        .get("us")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let bound = if us_list.is_empty() {
        vertices
    } else {
        triangles.len()
    };
    let correspondences = list(data, "correspondences")?
        .iter()
        .map(|c| index(c, "correspondences", bound))
        .collect::<Result<Vec<_>, _>>()?;
    let points = matrix(list(data, "points")?, "points", 3)?;
    if points.nrows() != correspondences.len() {
        return Err("ht: one point per correspondence".into());
    }
    let us = matrix(&us_list, "us", 2)?;
    if !us_list.is_empty() && us.nrows() != correspondences.len() {
        return Err("ht: `us` must be empty or one pair per correspondence".into());
    }
    Ok(Input {
        theta: Array1::from(theta),
        model: Model {
            parents,
            base_relatives,
            inverse_base_absolutes,
            base_positions,
            weights,
            triangles,
            is_mirrored,
        },
        correspondences,
        points: points
            .rows()
            .into_iter()
            .map(|r| (r[0], r[1], r[2]))
            .collect(),
        us: us.rows().into_iter().map(|r| (r[0], r[1])).collect(),
    })
}

/// Parses `input` and returns one evaluation of `function`: `objective`
/// (the residuals) or `jacobian` (one list per residual: `d/du0, d/du1`
/// when `us` is given, then `d/dtheta`), as the `manual` tool sends them.
pub fn prepare(function: &str, input: &Value) -> Result<super::Prepared, String> {
    let i = parse(input)?;
    match function {
        "objective" => Ok(Box::new(move || {
            let r = objective(&i);
            Output::later(move || json!(r))
        })),
        "jacobian" => Ok(Box::new(move || {
            let j = jacobian(&i);
            Output::later(move || json!(j))
        })),
        _ => Err(format!("ht: no function `{function}`")),
    }
}
