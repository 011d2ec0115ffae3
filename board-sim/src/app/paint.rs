//! Drawing many small rectangles cheaply.
//!
//! Every `Painter::rect_filled` becomes its own shape with an anti-aliasing
//! fringe (feathering): a dozen triangles, most of them thin slivers along
//! the edges. For a chessboard's squares or a hex view's hundreds of cells
//! that is thousands of triangles a frame, which is what a software
//! renderer (Mesa llvmpipe, the window under Xvfb or on a machine without a
//! GPU) spends most of its time on. [`Rects`] collects them into one mesh
//! of two triangles each instead. egui rounds filled rectangles to whole
//! pixels before it draws them, and a rectangle on pixel boundaries has no
//! partly covered pixels, so the fringe changed nothing: rounding the same
//! way here draws the same pixels.

use egui::emath::GuiRounding;
use egui::{Color32, Mesh, Painter, Rect, Shape};

/// Filled, square-cornered rectangles drawn as one mesh.
pub struct Rects {
    mesh: Mesh,
    pixels_per_point: f32,
}

impl Rects {
    pub fn new(painter: &Painter) -> Rects {
        Rects { mesh: Mesh::default(), pixels_per_point: painter.pixels_per_point() }
    }

    /// As `painter.rect_filled(rect, 0.0, colour)` would draw it.
    pub fn add(&mut self, rect: Rect, colour: Color32) {
        if colour == Color32::TRANSPARENT {
            return;
        }
        let r = rect.round_to_pixels(self.pixels_per_point);
        if r.is_positive() {
            self.mesh.add_colored_rect(r, colour);
        }
    }

    /// A rectangle whose corners are cut by one pixel: how egui draws a
    /// small corner radius (1..=2 points) at one pixel per point, close
    /// enough at other scales. Three rectangles, no overlap (colours may
    /// be translucent).
    pub fn add_rounded(&mut self, rect: Rect, colour: Color32) {
        if colour == Color32::TRANSPARENT {
            return;
        }
        let r = rect.round_to_pixels(self.pixels_per_point);
        let px = 1.0 / self.pixels_per_point;
        if r.width() <= 2.0 * px || r.height() <= 2.0 * px {
            return self.add(r, colour);
        }
        let mid = Rect::from_x_y_ranges(r.left() + px..=r.right() - px, r.y_range());
        let side = |x0: f32, x1: f32| Rect::from_x_y_ranges(x0..=x1, r.top() + px..=r.bottom() - px);
        self.mesh.add_colored_rect(mid, colour);
        self.mesh.add_colored_rect(side(r.left(), r.left() + px), colour);
        self.mesh.add_colored_rect(side(r.right() - px, r.right()), colour);
    }

    pub fn len(&self) -> usize {
        self.mesh.vertices.len() / 4
    }

    pub fn is_empty(&self) -> bool {
        self.mesh.is_empty()
    }

    /// Adds the mesh to `painter` (nothing if empty).
    pub fn paint(self, painter: &Painter) {
        if !self.mesh.is_empty() {
            painter.add(Shape::mesh(self.mesh));
        }
    }

    /// The mesh as a shape, to put in a slot reserved earlier with
    /// `painter.add(Shape::Noop)` (so that it lies under what was drawn since).
    pub fn into_shape(self) -> Shape {
        Shape::mesh(self.mesh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{pos2, vec2};

    #[test]
    fn rectangles_are_rounded_to_pixels_and_empty_ones_dropped() {
        let ctx = egui::Context::default();
        let painter = Painter::new(ctx, egui::LayerId::background(), Rect::EVERYTHING);
        let mut r = Rects::new(&painter);
        r.add(Rect::from_min_size(pos2(10.3, 4.6), vec2(3.76, 3.76)), Color32::RED);
        r.add(Rect::from_min_size(pos2(1.0, 1.0), vec2(0.2, 0.2)), Color32::RED);
        r.add(Rect::from_min_size(pos2(1.0, 1.0), vec2(5.0, 5.0)), Color32::TRANSPARENT);
        assert_eq!(r.len(), 1);
        let v: Vec<_> = r.mesh.vertices.iter().map(|v| v.pos).collect();
        assert_eq!((v[0], v[3]), (pos2(10.0, 5.0), pos2(14.0, 8.0)));
        r.add_rounded(Rect::from_min_size(pos2(0.0, 0.0), vec2(18.0, 15.0)), Color32::BLUE);
        assert_eq!(r.len(), 4);
        // The three parts cover the rectangle less its four corner pixels.
        let area: f32 = r.mesh.vertices.chunks(4).skip(1).map(|q| (q[3].pos - q[0].pos).x * (q[3].pos - q[0].pos).y).sum();
        assert_eq!(area, 18.0 * 15.0 - 4.0);
    }
}
