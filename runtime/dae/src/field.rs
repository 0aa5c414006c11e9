//! The stabilized underlying vector fields of \[CHIN\] §2.3–2.4, with y eliminated.
//!
//! Index 2 (state x), with F₀ = f + B y₀ and y₀ from G(f + B y₀) + g_t = 0:
//!
//! | [`Index2`] | field | g satisfies |
//! |---|---|---|
//! | `Baumgarte` (2.41) | f + B y, y from G(f + B y) + g_t + γ g = 0 | g' = −γ g |
//! | `Normal` (2.43) with (2.45) | F₀ − γ Gᵀ(GGᵀ)⁻¹ g | g' = −γ g |
//! | `Transpose` (2.50) | F₀ − γ Gᵀ g | g' = −γ GGᵀ g |
//!
//! Index 3 (state z = (x, v), v = x'), with a₀ = f + B y₀ and y₀ from G(f + B y₀) + z = 0
//! (z the curvature term, [`SemiExplicit::curvature_into`]) and ġ = G v + g_t:
//!
//! | [`Index3`] | acceleration | g satisfies |
//! |---|---|---|
//! | `Baumgarte` | f + B y, y from G(f + B y) + z + 2γ ġ + γ² g = 0 | g'' + 2γ g' + γ² g = 0 |
//! | `GGt`: (2.58), P₁ = P₂ = GGᵀ | a₀ − Gᵀ(GGᵀ)⁻¹(2γ ġ + γ² g) | (2.60), the same |
//! | `Identity`: (2.58), P₁ = I, P₂⁻¹ = GGᵀ | a₀ − 2γ Gᵀ ġ − γ² Gᵀ GGᵀ g | (2.61) |
//! | `TwoStep`: (2.63)–(2.64) | see below | (ġ + γ g)' = −γ (ġ + γ g) |
//!
//! The two-step route first reduces to index 2 by Baumgarte, r = ġ + γ g = 0 (2.63c), so
//! y solves G(f + B y) + z + γ ġ = 0 (2.64c), then stabilizes r along the normal of its
//! manifold in (x, v): with H₂ = ∂r/∂(x, v) = [J + γ G, G] (J = ∂(G v + g_t)/∂x),
//! (x', v') = (v, f + B y) − γ H₂ᵀ(H₂H₂ᵀ)⁻¹ r, the (2.45) choice with the same γ, so that
//! r' = −γ r and g'' + 2γ g' + γ² g = 0 again, now with a position correction as well. The
//! thesis' (2.64) writes the multiplier form with Q = H₂ᵀ and a → 0 (projected invariants);
//! a positive gain keeps the result an ODE that any one-step method can take.

use nalgebra::DMatrix;

use crate::dense::solve_in_place;
use crate::error::DaeError;
use crate::problem::SemiExplicit;

/// The index-2 stabilizations (first-order problems).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index2 {
    /// Baumgarte (2.41): the correction along B.
    Baumgarte,
    /// (2.43) with S = Gᵀ(GGᵀ)⁻¹ (2.45): along the manifold's normal (recommended).
    Normal,
    /// (2.50): S = Gᵀ.
    Transpose,
}

/// The index-3 stabilizations (second-order problems).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index3 {
    /// Baumgarte, g'' + 2γ g' + γ² g = 0 through y.
    Baumgarte,
    /// (2.58) with P₁ = P₂ = GGᵀ.
    GGt,
    /// (2.58) with P₁ = I, P₂⁻¹ = GGᵀ.
    Identity,
    /// The two-step route (2.63)–(2.64).
    TwoStep,
}

/// A stabilization of either index, with its gain γ ≥ 0 (γ = 0 is the unstabilized F₀).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stabilization {
    /// For first-order problems.
    Index2(Index2, f64),
    /// For second-order problems.
    Index3(Index3, f64),
}

impl Stabilization {
    /// The gain γ.
    pub fn gamma(&self) -> f64 {
        match self {
            Stabilization::Index2(_, g) | Stabilization::Index3(_, g) => *g,
        }
    }
}

/// Relative pivot below which GB, GGᵀ or H₂H₂ᵀ counts as singular: a few ulps.
const SINGULAR: f64 = 8.0 * f64::EPSILON;

/// The stabilized vector field of one problem, with its workspace (no allocation per
/// evaluation).
#[derive(Clone, Debug)]
pub struct Field {
    stabilization: Stabilization,
    nx: usize,
    ny: usize,
    f: Vec<f64>,
    g: Vec<f64>,
    g_t: Vec<f64>,
    curvature: Vec<f64>,
    gdot: Vec<f64>,
    b: DMatrix<f64>,
    g_x: DMatrix<f64>,
    jac_v: DMatrix<f64>,
    square: DMatrix<f64>,
    column: DMatrix<f64>,
}

impl Field {
    /// The field of `stabilization` for `problem`; the order of the problem must match the
    /// stabilization's index and γ must be finite and ≥ 0.
    pub fn new<P: SemiExplicit + ?Sized>(
        problem: &P,
        stabilization: Stabilization,
    ) -> Result<Self, DaeError> {
        let gamma = stabilization.gamma();
        if !(gamma.is_finite() && gamma >= 0.0) {
            return Err(DaeError::Invalid {
                option: "gamma",
                value: gamma.to_string(),
                reason: "must be finite and >= 0",
            });
        }
        let index3 = matches!(stabilization, Stabilization::Index3(..));
        if index3 != problem.second_order() {
            return Err(DaeError::Invalid {
                option: "stabilization",
                value: format!("{stabilization:?}"),
                reason: "an index-2 stabilization needs x' = f + B y, an index-3 one x'' = f + B y",
            });
        }
        let (nx, ny) = problem.dims();
        Ok(Self {
            stabilization,
            nx,
            ny,
            f: vec![0.0; nx],
            g: vec![0.0; ny],
            g_t: vec![0.0; ny],
            curvature: vec![0.0; ny],
            gdot: vec![0.0; ny],
            b: DMatrix::zeros(nx, ny),
            g_x: DMatrix::zeros(ny, nx),
            jac_v: DMatrix::zeros(ny, nx),
            square: DMatrix::zeros(ny, ny),
            column: DMatrix::zeros(ny, 1),
        })
    }

    /// The length of the state: nx (index 2) or 2 nx (index 3, z = (x, v)).
    pub fn len(&self) -> usize {
        match self.stabilization {
            Stabilization::Index2(..) => self.nx,
            Stabilization::Index3(..) => 2 * self.nx,
        }
    }

    /// Whether the state is empty (nx = 0).
    pub fn is_empty(&self) -> bool {
        self.nx == 0
    }

    /// The stabilization.
    pub fn stabilization(&self) -> Stabilization {
        self.stabilization
    }

    /// The field at (t, z) into `out` (both of length [`Field::len`]).
    pub fn eval_into<P: SemiExplicit + ?Sized>(
        &mut self,
        problem: &P,
        t: f64,
        z: &[f64],
        out: &mut [f64],
    ) -> Result<(), DaeError> {
        assert!(
            z.len() == self.len() && out.len() == self.len(),
            "Field::eval_into: z and out need length {}",
            self.len()
        );
        match self.stabilization {
            Stabilization::Index2(kind, gamma) => self.index2(problem, kind, gamma, t, z, out)?,
            Stabilization::Index3(kind, gamma) => self.index3(problem, kind, gamma, t, z, out)?,
        }
        if out.iter().all(|x| x.is_finite()) {
            Ok(())
        } else {
            Err(DaeError::NonFinite { what: "field", t })
        }
    }

    fn index2<P: SemiExplicit + ?Sized>(
        &mut self,
        problem: &P,
        kind: Index2,
        gamma: f64,
        t: f64,
        x: &[f64],
        out: &mut [f64],
    ) -> Result<(), DaeError> {
        problem.f_into(t, x, &[], &mut self.f);
        problem.b_into(t, x, &[], &mut self.b);
        problem.g_into(t, x, &mut self.g);
        problem.g_x_into(t, x, &mut self.g_x);
        problem.g_t_into(t, x, &mut self.g_t);
        for i in 0..self.ny {
            let gf: f64 = (0..self.nx).map(|j| self.g_x[(i, j)] * self.f[j]).sum();
            let baumgarte = if kind == Index2::Baumgarte {
                gamma * self.g[i]
            } else {
                0.0
            };
            self.column[(i, 0)] = -(gf + self.g_t[i] + baumgarte);
        }
        self.accelerate(t, out)?;
        match kind {
            Index2::Baumgarte => Ok(()),
            Index2::Normal => {
                self.column.column_mut(0).copy_from_slice(&self.g);
                self.solve_ggt(t)?;
                self.subtract_gt_column(gamma, out, 0);
                Ok(())
            }
            Index2::Transpose => {
                self.column.column_mut(0).copy_from_slice(&self.g);
                self.subtract_gt_column(gamma, out, 0);
                Ok(())
            }
        }
    }

    fn index3<P: SemiExplicit + ?Sized>(
        &mut self,
        problem: &P,
        kind: Index3,
        gamma: f64,
        t: f64,
        z: &[f64],
        out: &mut [f64],
    ) -> Result<(), DaeError> {
        let nx = self.nx;
        let (x, v) = z.split_at(nx);
        problem.f_into(t, x, v, &mut self.f);
        problem.b_into(t, x, v, &mut self.b);
        problem.g_into(t, x, &mut self.g);
        problem.g_x_into(t, x, &mut self.g_x);
        problem.g_t_into(t, x, &mut self.g_t);
        problem.curvature_into(t, x, v, &mut self.curvature);
        for i in 0..self.ny {
            let gv: f64 = (0..nx).map(|j| self.g_x[(i, j)] * v[j]).sum();
            self.gdot[i] = gv + self.g_t[i];
            let gf: f64 = (0..nx).map(|j| self.g_x[(i, j)] * self.f[j]).sum();
            let baumgarte = match kind {
                Index3::Baumgarte => 2.0 * gamma * self.gdot[i] + gamma * gamma * self.g[i],
                Index3::TwoStep => gamma * self.gdot[i],
                Index3::GGt | Index3::Identity => 0.0,
            };
            self.column[(i, 0)] = -(gf + self.curvature[i] + baumgarte);
        }
        out[..nx].copy_from_slice(v);
        self.accelerate(t, &mut out[nx..])?;
        match kind {
            Index3::Baumgarte => {}
            Index3::GGt => {
                for i in 0..self.ny {
                    self.column[(i, 0)] = 2.0 * gamma * self.gdot[i] + gamma * gamma * self.g[i];
                }
                self.solve_ggt(t)?;
                self.subtract_gt_column(1.0, out, nx);
            }
            Index3::Identity => {
                // 2γ ġ + γ² GGᵀ g
                for i in 0..self.ny {
                    let ggt_g: f64 = (0..self.ny)
                        .map(|k| {
                            let gik: f64 =
                                (0..nx).map(|j| self.g_x[(i, j)] * self.g_x[(k, j)]).sum();
                            gik * self.g[k]
                        })
                        .sum();
                    self.column[(i, 0)] = 2.0 * gamma * self.gdot[i] + gamma * gamma * ggt_g;
                }
                self.subtract_gt_column(1.0, out, nx);
            }
            Index3::TwoStep => self.two_step(problem, gamma, t, x, v, out)?,
        }
        Ok(())
    }

    /// (x', v') −= γ H₂ᵀ(H₂H₂ᵀ)⁻¹ r with r = ġ + γ g and H₂ = [J + γ G, G].
    fn two_step<P: SemiExplicit + ?Sized>(
        &mut self,
        problem: &P,
        gamma: f64,
        t: f64,
        x: &[f64],
        v: &[f64],
        out: &mut [f64],
    ) -> Result<(), DaeError> {
        let (nx, ny) = (self.nx, self.ny);
        problem.velocity_jacobian_into(t, x, v, &mut self.jac_v);
        // jac_v becomes the position block J + γ G of H₂.
        self.jac_v += gamma * &self.g_x;
        for i in 0..ny {
            for k in 0..ny {
                self.square[(i, k)] = (0..nx)
                    .map(|j| {
                        self.jac_v[(i, j)] * self.jac_v[(k, j)]
                            + self.g_x[(i, j)] * self.g_x[(k, j)]
                    })
                    .sum();
            }
            self.column[(i, 0)] = self.gdot[i] + gamma * self.g[i];
        }
        solve_in_place(&mut self.square, &mut self.column, SINGULAR).map_err(|pivot| {
            DaeError::Singular {
                what: "H2 H2^T",
                t,
                pivot,
            }
        })?;
        for j in 0..nx {
            let (mut dx, mut dv) = (0.0, 0.0);
            for i in 0..ny {
                dx += self.jac_v[(i, j)] * self.column[(i, 0)];
                dv += self.g_x[(i, j)] * self.column[(i, 0)];
            }
            out[j] -= gamma * dx;
            out[nx + j] -= gamma * dv;
        }
        Ok(())
    }

    /// out = f + B y with y = (GB)⁻¹ column (column holds the right side).
    fn accelerate(&mut self, t: f64, out: &mut [f64]) -> Result<(), DaeError> {
        let (nx, ny) = (self.nx, self.ny);
        for i in 0..ny {
            for k in 0..ny {
                self.square[(i, k)] = (0..nx).map(|j| self.g_x[(i, j)] * self.b[(j, k)]).sum();
            }
        }
        solve_in_place(&mut self.square, &mut self.column, SINGULAR).map_err(|pivot| {
            DaeError::Singular {
                what: "G B",
                t,
                pivot,
            }
        })?;
        for j in 0..nx {
            out[j] = self.f[j]
                + (0..ny)
                    .map(|k| self.b[(j, k)] * self.column[(k, 0)])
                    .sum::<f64>();
        }
        Ok(())
    }

    /// column ← (GGᵀ)⁻¹ column.
    fn solve_ggt(&mut self, t: f64) -> Result<(), DaeError> {
        let (nx, ny) = (self.nx, self.ny);
        for i in 0..ny {
            for k in 0..ny {
                self.square[(i, k)] = (0..nx).map(|j| self.g_x[(i, j)] * self.g_x[(k, j)]).sum();
            }
        }
        solve_in_place(&mut self.square, &mut self.column, SINGULAR).map_err(|pivot| {
            DaeError::Singular {
                what: "G G^T",
                t,
                pivot,
            }
        })
    }

    /// out[offset..] −= scale Gᵀ column.
    fn subtract_gt_column(&self, scale: f64, out: &mut [f64], offset: usize) {
        for j in 0..self.nx {
            let gtw: f64 = (0..self.ny)
                .map(|i| self.g_x[(i, j)] * self.column[(i, 0)])
                .sum();
            out[offset + j] -= scale * gtw;
        }
    }
}
