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
//!
//! [`RoundedRects`] goes further for rectangles of one size with rounded
//! corners: it paints them all into one texture, drawn as one quad.

use egui::emath::GuiRounding;
use egui::{Color32, ColorImage, Mesh, Painter, Pos2, Rect, Shape, TextureHandle, TextureOptions, Vec2};
use std::hash::{Hash, Hasher};

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

/// Rectangles of one size with rounded corners, painted on the CPU into one
/// texture and drawn as a single quad. The texture is made again only when
/// the rectangles or their colours change (for a hex view: when it scrolls
/// or a byte changes region). A software renderer pays several µs for each
/// small quad, whatever is in it, and hardly more than its pixels for a
/// big one: 350 cells of a hex view as quads (let alone as egui's rounded
/// rectangles) cost it a few ms a frame, as one picture almost nothing.
pub struct RoundedRects {
    rects: Vec<(Rect, Color32)>,
    size: Vec2,
    radius: f32,
}

/// What [`RoundedRects`] keeps between frames (in egui's temporary data).
#[derive(Clone)]
struct Picture {
    texture: TextureHandle,
    key: u64,
}

impl RoundedRects {
    /// For rectangles of `size` points with corners of `radius` points.
    pub fn new(size: Vec2, radius: f32) -> RoundedRects {
        RoundedRects { rects: Vec::new(), size, radius }
    }

    /// A rectangle of the size given to [`RoundedRects::new`] with its
    /// corner at `min`, in `colour` (premultiplied, as egui's).
    pub fn add(&mut self, min: Pos2, colour: Color32) {
        if colour != Color32::TRANSPARENT {
            self.rects.push((Rect::from_min_size(min, self.size), colour));
        }
    }

    /// The picture as a shape. `id` keeps its texture from frame to frame.
    /// Each rectangle covers the pixels egui would round it to.
    pub fn into_shape(self, painter: &Painter, id: egui::Id) -> Shape {
        let ppp = painter.pixels_per_point();
        let px = |v: f32| (v * ppp).round() as i64;
        let rects: Vec<PxRect> = self.rects.iter().map(|(r, c)| ([px(r.min.x), px(r.min.y), px(r.max.x), px(r.max.y)], *c)).collect();
        let (Some(x0), Some(y0), Some(x1), Some(y1)) = (
            rects.iter().map(|r| r.0[0]).min(),
            rects.iter().map(|r| r.0[1]).min(),
            rects.iter().map(|r| r.0[2]).max(),
            rects.iter().map(|r| r.0[3]).max(),
        ) else {
            return Shape::Noop;
        };
        let size = [(x1 - x0).max(1) as usize, (y1 - y0).max(1) as usize];
        let sprite = [(self.size.x * ppp).round().max(1.0) as usize, (self.size.y * ppp).round().max(1.0) as usize];
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (sprite, (self.radius * ppp).to_bits(), size).hash(&mut hasher);
        for ([a, b, c, d], colour) in &rects {
            ([a - x0, b - y0, c - x0, d - y0], colour).hash(&mut hasher);
        }
        let rect = Rect::from_min_size(Pos2::new(x0 as f32, y0 as f32) / ppp, Vec2::new(size[0] as f32, size[1] as f32) / ppp);
        let radius = self.radius * ppp;
        cached_picture(painter, id, hasher.finish(), "rounded-rects", rect, || {
            paint_rects(&rects, [x0, y0], size, &rounded_rect_image(sprite, radius))
        })
    }
}

/// A rectangle in physical pixels (left, top, right, bottom) and its colour.
type PxRect = ([i64; 4], Color32);

/// The rectangles in an image of `size` pixels whose corner is pixel
/// `origin`: each one the `sprite` (its alpha the shape's coverage,
/// stretched if the rectangle is bigger) in its colour.
/// The picture cached under `id` as an image shape over `rect` (points):
/// made again by `make` only when `key` (a hash of everything drawn in
/// it) differs from the cached one, reusing the texture.
fn cached_picture(painter: &Painter, id: egui::Id, key: u64, name: &str, rect: Rect, make: impl FnOnce() -> ColorImage) -> Shape {
    let ctx = painter.ctx();
    let old = ctx.data_mut(|d| d.get_temp::<Picture>(id));
    let texture = match old {
        Some(p) if p.key == key => p.texture,
        old => {
            let image = make();
            let texture = match old {
                Some(mut p) => {
                    p.texture.set(image, TextureOptions::NEAREST);
                    p.texture
                }
                None => ctx.load_texture(name, image, TextureOptions::NEAREST),
            };
            ctx.data_mut(|d| d.insert_temp(id, Picture { texture: texture.clone(), key }));
            texture
        }
    };
    Shape::image(texture.id(), rect, Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)), Color32::WHITE)
}

fn paint_rects(rects: &[PxRect], origin: [i64; 2], size: [usize; 2], sprite: &ColorImage) -> ColorImage {
    let mut image = ColorImage::filled(size, Color32::TRANSPARENT);
    let [sw, sh] = sprite.size;
    for ([x0, y0, x1, y1], colour) in rects {
        let (w, h) = ((x1 - x0).max(0) as usize, (y1 - y0).max(0) as usize);
        let (left, top) = ((x0 - origin[0]) as usize, (y0 - origin[1]) as usize);
        for y in 0..h {
            for x in 0..w {
                let cover = sprite.pixels[y * sh / h * sw + x * sw / w].a() as u16;
                let [r, g, b, a] = colour.to_array().map(|v| (v as u16 * cover / 255) as u8);
                image.pixels[(top + y) * size[0] + left + x] = Color32::from_rgba_premultiplied(r, g, b, a);
            }
        }
    }
    image
}

/// A white rounded rectangle filling `size` pixels, corners of `radius`
/// pixels, each pixel's alpha its coverage (8x8 samples).
fn rounded_rect_image([w, h]: [usize; 2], radius: f32) -> ColorImage {
    let r = radius.clamp(0.0, w.min(h) as f32 / 2.0);
    const N: usize = 8;
    let inside = |x: f32, y: f32| {
        // Distance into the nearest corner's square, if in one.
        let cx = x.clamp(r, w as f32 - r);
        let cy = y.clamp(r, h as f32 - r);
        (x - cx).powi(2) + (y - cy).powi(2) <= r * r
    };
    let mut image = ColorImage::filled([w, h], Color32::TRANSPARENT);
    for y in 0..h {
        for x in 0..w {
            let mut hits = 0;
            for sy in 0..N {
                for sx in 0..N {
                    let (fx, fy) = (x as f32 + (sx as f32 + 0.5) / N as f32, y as f32 + (sy as f32 + 0.5) / N as f32);
                    hits += inside(fx, fy) as usize;
                }
            }
            image.pixels[y * w + x] = Color32::from_white_alpha((hits * 255 / (N * N)) as u8);
        }
    }
    image
}

/// Filled and outlined rounded rectangles and circles, painted on the CPU
/// into one texture that is drawn as one quad and kept while nothing in it
/// changes. egui tessellates a big rounded rectangle or a circle as a fan of
/// long thin triangles with a fringe, which is what a software renderer is
/// slowest at: the LCD module's four shapes cost llvmpipe about 3 ms a
/// frame, the push buttons' 20 about 2 ms. Coverage is the distance to the
/// edge, as egui's anti-aliasing fringe makes it (one pixel wide), and
/// rectangles are rounded to whole pixels as egui rounds them.
#[derive(Default)]
pub struct ShapePicture {
    items: Vec<Item>,
}

#[derive(Clone, Copy, Debug)]
enum Item {
    /// `rect_filled(rect, radius, colour)`.
    Rect { rect: Rect, radius: f32, colour: Color32 },
    /// `rect_stroke(rect, radius, (width, colour), StrokeKind::Inside)`.
    RectStroke { rect: Rect, radius: f32, width: f32, colour: Color32 },
    /// `circle_filled` (width 0) or `circle_stroke(center, radius, (width, colour))`.
    Circle { center: Pos2, radius: f32, width: f32, colour: Color32 },
}

impl ShapePicture {
    pub fn rect_filled(&mut self, rect: Rect, radius: f32, colour: Color32) {
        self.items.push(Item::Rect { rect, radius, colour });
    }

    /// An outline inside `rect` (egui's `StrokeKind::Inside`).
    pub fn rect_stroke(&mut self, rect: Rect, radius: f32, width: f32, colour: Color32) {
        self.items.push(Item::RectStroke { rect, radius, width, colour });
    }

    pub fn circle_filled(&mut self, center: Pos2, radius: f32, colour: Color32) {
        self.items.push(Item::Circle { center, radius, width: 0.0, colour });
    }

    /// An outline centred on the circle, as egui's `circle_stroke`.
    pub fn circle_stroke(&mut self, center: Pos2, radius: f32, width: f32, colour: Color32) {
        if width > 0.0 {
            self.items.push(Item::Circle { center, radius, width, colour });
        }
    }

    /// The picture as a shape. `id` keeps its texture from frame to frame.
    pub fn into_shape(self, painter: &Painter, id: egui::Id) -> Shape {
        let ppp = painter.pixels_per_point();
        let items: Vec<Item> = self.items.iter().map(|i| i.in_pixels(ppp)).collect();
        let Some(bounds) = items.iter().map(Item::bounds).reduce(|a, b| a.union(b)) else {
            return Shape::Noop;
        };
        let origin = bounds.min.floor();
        let size = [(bounds.max.x - origin.x).ceil().max(1.0) as usize, (bounds.max.y - origin.y).ceil().max(1.0) as usize];
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        size.hash(&mut hasher);
        for item in &items {
            item.hash_from(origin, &mut hasher);
        }
        let rect = Rect::from_min_size(origin / ppp, Vec2::new(size[0] as f32, size[1] as f32) / ppp);
        cached_picture(painter, id, hasher.finish(), "shapes", rect, || paint_shapes(&items, origin, size))
    }
}

impl Item {
    /// In physical pixels, rectangles on whole pixels.
    fn in_pixels(&self, ppp: f32) -> Item {
        let px = |r: Rect| Rect::from_min_max((r.min * ppp).round(), (r.max * ppp).round());
        match *self {
            Item::Rect { rect, radius, colour } => Item::Rect { rect: px(rect), radius: radius * ppp, colour },
            Item::RectStroke { rect, radius, width, colour } => Item::RectStroke { rect: px(rect), radius: radius * ppp, width: width * ppp, colour },
            Item::Circle { center, radius, width, colour } => Item::Circle { center: center * ppp, radius: radius * ppp, width: width * ppp, colour },
        }
    }

    /// What it covers, with a pixel for the soft edge.
    fn bounds(&self) -> Rect {
        match *self {
            Item::Rect { rect, .. } | Item::RectStroke { rect, .. } => rect.expand(1.0),
            Item::Circle { center, radius, width, .. } => Rect::from_center_size(center, Vec2::splat(2.0 * (radius + width / 2.0 + 1.0))),
        }
    }

    fn hash_from(&self, origin: Pos2, h: &mut impl Hasher) {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        match *self {
            Item::Rect { rect, radius, colour } => (0, bits(&[rect.min.x - origin.x, rect.min.y - origin.y, rect.max.x - origin.x, rect.max.y - origin.y, radius]), colour).hash(h),
            Item::RectStroke { rect, radius, width, colour } => {
                (1, bits(&[rect.min.x - origin.x, rect.min.y - origin.y, rect.max.x - origin.x, rect.max.y - origin.y, radius, width]), colour).hash(h)
            }
            Item::Circle { center, radius, width, colour } => (2, bits(&[center.x - origin.x, center.y - origin.y, radius, width]), colour).hash(h),
        }
    }

    /// How much of the pixel centred at `p` it covers, 0..=1.
    fn coverage(&self, p: Pos2) -> f32 {
        let cover = |d: f32| (0.5 - d).clamp(0.0, 1.0);
        match *self {
            Item::Rect { rect, radius, .. } => cover(rounded_rect_distance(p, rect, radius)),
            Item::RectStroke { rect, radius, width, .. } => {
                let inner = rect.shrink(width);
                let hole = if inner.is_positive() { cover(rounded_rect_distance(p, inner, (radius - width).max(0.0))) } else { 0.0 };
                (cover(rounded_rect_distance(p, rect, radius)) - hole).max(0.0)
            }
            Item::Circle { center, radius, width, .. } => {
                let d = p.distance(center);
                if width == 0.0 {
                    cover(d - radius)
                } else {
                    (cover(d - radius - width / 2.0) - cover(d - radius + width / 2.0)).max(0.0)
                }
            }
        }
    }

    fn colour(&self) -> Color32 {
        match *self {
            Item::Rect { colour, .. } | Item::RectStroke { colour, .. } | Item::Circle { colour, .. } => colour,
        }
    }
}

/// Signed distance from `p` to the edge of `rect` with corners of `radius`
/// (negative inside).
fn rounded_rect_distance(p: Pos2, rect: Rect, radius: f32) -> f32 {
    let r = radius.min(rect.width() / 2.0).min(rect.height() / 2.0).max(0.0);
    let q = (p - rect.center()).abs() - (rect.size() / 2.0 - Vec2::splat(r));
    q.max(Vec2::ZERO).length() + q.x.max(q.y).min(0.0) - r
}

/// The items one over the other (premultiplied colours), in an image of
/// `size` pixels whose corner is at `origin`.
fn paint_shapes(items: &[Item], origin: Pos2, size: [usize; 2]) -> ColorImage {
    let mut acc = vec![[0.0f32; 4]; size[0] * size[1]];
    for item in items {
        let b = item.bounds();
        let (x0, y0) = (((b.min.x - origin.x).floor().max(0.0)) as usize, ((b.min.y - origin.y).floor().max(0.0)) as usize);
        let (x1, y1) = (((b.max.x - origin.x).ceil() as usize).min(size[0]), ((b.max.y - origin.y).ceil() as usize).min(size[1]));
        let src = item.colour().to_array().map(|v| v as f32 / 255.0);
        for y in y0..y1 {
            for x in x0..x1 {
                let cover = item.coverage(origin + Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
                if cover > 0.0 {
                    let dst = &mut acc[y * size[0] + x];
                    let keep = 1.0 - src[3] * cover;
                    for c in 0..4 {
                        dst[c] = src[c] * cover + dst[c] * keep;
                    }
                }
            }
        }
    }
    let pixels = acc.iter().map(|c| {
        let [r, g, b, a] = c.map(|v| (v * 255.0).round().clamp(0.0, 255.0) as u8);
        Color32::from_rgba_premultiplied(r, g, b, a)
    });
    ColorImage::new(size, pixels.collect())
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
    }

    #[test]
    fn rounded_rectangles_are_painted_in_their_colours_with_soft_corners() {
        let sprite = rounded_rect_image([4, 3], 1.0);
        let blue = Color32::from_rgb(0, 0, 200).gamma_multiply(0.5);
        let rects = [([10, 20, 14, 23], blue), ([15, 20, 19, 23], Color32::RED)];
        let img = paint_rects(&rects, [10, 20], [9, 3], &sprite);
        let at = |x: usize, y: usize| img.pixels[y * 9 + x];
        assert_eq!((at(1, 1), at(6, 1)), (blue, Color32::RED));
        assert_eq!(at(4, 1), Color32::TRANSPARENT, "the gap between them");
        let corner = at(0, 0);
        assert!(corner.a() < blue.a() && corner.b() < blue.b() && corner.a() > 0, "{corner:?}");
        assert_eq!(at(5, 0).a(), at(8, 2).a(), "every corner alike");
    }

    #[test]
    fn the_picture_is_made_again_only_when_something_changes() {
        let ctx = egui::Context::default();
        let painter = Painter::new(ctx.clone(), egui::LayerId::background(), Rect::EVERYTHING);
        let id = egui::Id::unique("test-cells");
        let shape = |colour: Color32, x: f32| {
            let mut r = RoundedRects::new(vec2(18.0, 15.0), 2.0);
            r.add(pos2(x, 4.6), colour);
            r.add(pos2(x + 20.0, 4.6), colour);
            r.into_shape(&painter, id)
        };
        let Shape::Mesh(m) = shape(Color32::RED, 10.3) else { panic!("an image") };
        assert_eq!((m.vertices[0].pos, m.vertices[3].pos), (pos2(10.0, 5.0), pos2(48.0, 20.0)), "on whole pixels");
        assert_made_again_only_when_it_changes(&ctx, id, shape, 10.3, 11.0);
        assert!(matches!(RoundedRects::new(vec2(18.0, 15.0), 2.0).into_shape(&painter, id), Shape::Noop));
    }

    /// `shape(colour, x)` drawn red at `x`: the cached picture is kept when
    /// drawn again, and when moved to `moved` (whole pixels away), and made
    /// again in blue.
    fn assert_made_again_only_when_it_changes(ctx: &egui::Context, id: egui::Id, shape: impl Fn(Color32, f32) -> Shape, x: f32, moved: f32) {
        let key = || ctx.data_mut(|d| d.get_temp::<Picture>(id)).map(|p| p.key);
        let _ = shape(Color32::RED, x);
        let k = key();
        assert!(k.is_some(), "a picture is cached");
        let _ = shape(Color32::RED, x);
        assert_eq!(key(), k);
        let _ = shape(Color32::RED, moved);
        assert_eq!(key(), k, "moved by whole pixels: the same picture");
        let _ = shape(Color32::BLUE, moved);
        assert_ne!(key(), k);
    }

    #[test]
    fn shapes_are_painted_one_over_the_other_with_soft_round_edges() {
        let mut pic = ShapePicture::default();
        let dark = Color32::from_rgb(14, 16, 18);
        let grey = Color32::from_rgb(58, 63, 70);
        pic.rect_filled(Rect::from_min_max(pos2(0.0, 0.0), pos2(40.0, 20.0)), 8.0, dark);
        pic.rect_stroke(Rect::from_min_max(pos2(0.0, 0.0), pos2(40.0, 20.0)), 8.0, 1.0, grey);
        pic.circle_filled(pos2(30.5, 10.5), 3.0, Color32::RED);
        let items: Vec<Item> = pic.items.iter().map(|i| i.in_pixels(1.0)).collect();
        let img = paint_shapes(&items, pos2(-1.0, -1.0), [42, 22]);
        let at = |x: i32, y: i32| img.pixels[((y + 1) * 42 + x + 1) as usize];
        assert_eq!(at(10, 10), dark, "inside");
        assert_eq!((at(10, 0), at(0, 10), at(39, 10), at(10, 19)), (grey, grey, grey, grey), "the outline is the outermost pixel, crisp");
        assert_eq!((at(-1, 10), at(40, 10)), (Color32::TRANSPARENT, Color32::TRANSPARENT));
        assert_eq!(at(0, 0), Color32::TRANSPARENT, "the corner is cut away");
        assert!(at(2, 2).a() > 0 && at(2, 2).a() < 255, "the round corner's soft edge: {:?}", at(2, 2));
        assert_eq!(at(30, 10), Color32::RED, "the circle on top");
        assert!(at(33, 10).r() > dark.r() && at(33, 10) != Color32::RED, "its soft edge");
    }

    #[test]
    fn the_shape_picture_is_made_again_only_when_something_changes() {
        let ctx = egui::Context::default();
        let painter = Painter::new(ctx.clone(), egui::LayerId::background(), Rect::EVERYTHING);
        let id = egui::Id::unique("test-shapes");
        let shape = |colour: Color32, dx: f32| {
            let mut p = ShapePicture::default();
            p.rect_filled(Rect::from_min_size(pos2(10.3 + dx, 5.0), vec2(40.0, 20.0)), 8.0, colour);
            p.circle_filled(pos2(20.5 + dx, 10.0), 4.0, Color32::WHITE);
            p.into_shape(&painter, id)
        };
        assert!(matches!(shape(Color32::RED, 0.0), Shape::Mesh(_)));
        assert_made_again_only_when_it_changes(&ctx, id, shape, 0.0, 3.0);
        assert!(matches!(ShapePicture::default().into_shape(&painter, id), Shape::Noop));
    }

    #[test]
    fn the_rounded_sprite_is_opaque_inside_and_soft_only_at_the_corners() {
        let img = rounded_rect_image([18, 15], 2.0);
        let alpha = |x: usize, y: usize| img.pixels[y * 18 + x].a();
        assert_eq!(alpha(9, 7), 255);
        // Straight edges are crisp: the rectangle ends on pixel boundaries.
        assert_eq!((alpha(0, 7), alpha(17, 7), alpha(9, 0), alpha(9, 14)), (255, 255, 255, 255));
        // The corner pixel is mostly outside the 2-pixel arc, its neighbours mostly inside.
        assert!(alpha(0, 0) < 100 && alpha(1, 0) > 150 && alpha(0, 1) > 150, "{} {} {}", alpha(0, 0), alpha(1, 0), alpha(0, 1));
        assert_eq!((alpha(17, 14), alpha(0, 14), alpha(17, 0)), (alpha(0, 0), alpha(0, 0), alpha(0, 0)));
        // Premultiplied white.
        assert!(img.pixels.iter().all(|c| c.r() == c.a() && c.g() == c.a() && c.b() == c.a()));
    }
}
