//! The view of an animation: an orthographic projection of the drawing's points onto the
//! screen.
//!
//! A planar drawing is seen as written (x to the right, y up). A spatial drawing is seen from a
//! direction given by an azimuth and an elevation about its vertical axis (the drawing's `up`,
//! z unless the model says otherwise): the world is first turned into a frame whose Z is that
//! axis (right-handed: up z → (x, y, z), up y → (x, −z, y), up x → (y, z, x)), then the
//! camera looks from d = (cos e cos a, cos e sin a, sin e) towards the origin, with the screen's
//! right r = (−sin a, cos a, 0) and up u = d × r. Presets: `front` (a = −90°, e = 0: X right,
//! Z up), `side` (a = 0°, e = 0), `top` (a = −90°, e = 90°: X right, Y up) and `iso`
//! (a = −45°, e = 30°), or `AZ,EL` in degrees. Depth is the coordinate along d (larger is
//! nearer), by which segments are drawn far to near. Tested in `cli/tests/animate.rs` (the
//! CLI's library has no unit tests).

/// How a frame's points are projected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// 2: a planar drawing, seen as written; 3: a spatial one.
    pub dimension: usize,
    /// The drawing's vertical axis (0 = x, 1 = y, 2 = z).
    pub up: usize,
    /// Azimuth about the vertical [rad].
    pub azimuth: f64,
    /// Elevation above the horizontal plane [rad].
    pub elevation: f64,
}

/// The named views and their (azimuth, elevation) in degrees.
pub const PRESETS: [(&str, f64, f64); 4] = [
    ("iso", -45.0, 30.0),
    ("front", -90.0, 0.0),
    ("side", 0.0, 0.0),
    ("top", -90.0, 90.0),
];

/// Parse `--view`: a preset name or `AZ,EL` in degrees (elevation within ±90°).
pub fn parse_view(text: &str) -> Result<(f64, f64), &'static str> {
    if let Some(&(_, az, el)) = PRESETS.iter().find(|p| p.0 == text) {
        return Ok((az, el));
    }
    let bad = "a view is iso, front, side, top, or AZ,EL in degrees (e.g. 30,20)";
    let (az, el) = text.split_once(',').ok_or(bad)?;
    let az: f64 = az.trim().parse().map_err(|_| bad)?;
    let el: f64 = el.trim().parse().map_err(|_| bad)?;
    if !az.is_finite() || !(-90.0..=90.0).contains(&el) {
        return Err("the azimuth must be finite and the elevation within -90..=90 degrees");
    }
    Ok((az, el))
}

impl Camera {
    /// A planar drawing's camera.
    pub fn planar() -> Camera {
        Camera {
            dimension: 2,
            up: 1,
            azimuth: 0.0,
            elevation: 0.0,
        }
    }

    /// A spatial drawing's camera from (azimuth, elevation) in degrees.
    pub fn spatial(up: usize, (azimuth, elevation): (f64, f64)) -> Camera {
        Camera {
            dimension: 3,
            up,
            azimuth: azimuth.to_radians(),
            elevation: elevation.to_radians(),
        }
    }

    /// The world point in the frame whose Z is the vertical (module docs).
    pub fn upright(&self, p: [f64; 3]) -> [f64; 3] {
        match self.up {
            0 => [p[1], p[2], p[0]],
            1 => [p[0], -p[2], p[1]],
            _ => p,
        }
    }

    /// Screen (right, up) and depth (towards the camera) of a world point.
    pub fn project(&self, p: [f64; 3]) -> (f64, f64, f64) {
        if self.dimension == 2 {
            return (p[0], p[1], 0.0);
        }
        let [x, y, z] = self.upright(p);
        let (sa, ca) = self.azimuth.sin_cos();
        let (se, ce) = self.elevation.sin_cos();
        let right = -sa * x + ca * y;
        let up = -se * ca * x - se * sa * y + ce * z;
        let depth = ce * ca * x + ce * sa * y + se * z;
        (right, up, depth)
    }
}
