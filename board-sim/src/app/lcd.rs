//! The 16x2 LCD: every dot of the 5x8 cells, with the backlight and a
//! contrast control like the trimmer on the real board.

use super::paint::ShapePicture;
use super::sim::Snapshot;
use egui::{Color32, ColorImage, Painter, Pos2, Rect, Sense, TextureHandle, TextureOptions, Vec2};
use std::hash::{Hash, Hasher};

/// The panel's look: which backlight module and the contrast trimmer.
#[derive(Clone, Debug)]
pub struct LcdStyle {
    pub blue: bool,
    /// 0..=1: how dark the lit dots are against the glass.
    pub contrast: f32,
}

impl Default for LcdStyle {
    fn default() -> Self {
        LcdStyle { blue: false, contrast: 0.85 }
    }
}

/// Glass colour, dot ink colour for the current backlight state.
pub fn colours(style: &LcdStyle, backlight: bool, powered: bool) -> (Color32, Color32) {
    match (style.blue, backlight && powered) {
        (false, true) => (Color32::from_rgb(0x9c, 0xd1, 0x3a), Color32::from_rgb(0x14, 0x24, 0x08)),
        (false, false) => (Color32::from_rgb(0x70, 0x7d, 0x52), Color32::from_rgb(0x1c, 0x24, 0x12)),
        (true, true) => (Color32::from_rgb(0x1f, 0x55, 0xe0), Color32::from_rgb(0xee, 0xf4, 0xff)),
        (true, false) => (Color32::from_rgb(0x14, 0x22, 0x4a), Color32::from_rgb(0x9a, 0xa8, 0xc8)),
    }
}

fn lerp(a: Color32, b: Color32, t: f32) -> Color32 {
    let t = t.clamp(0.0, 1.0);
    let m = |x: u8, y: u8| (x as f32 + (y as f32 - x as f32) * t).round() as u8;
    Color32::from_rgb(m(a.r(), b.r()), m(a.g(), b.g()), m(a.b(), b.b()))
}

/// Natural size of one dot and the gaps, before scaling.
const DOT: f32 = 4.0;
const DOT_GAP: f32 = 1.0;
const CELL_GAP: f32 = 3.5;
const ROW_GAP: f32 = 7.0;
const GLASS_MARGIN: f32 = 14.0;
const BEZEL: f32 = 12.0;

pub fn show(ui: &mut egui::Ui, snap: &Snapshot, style: &mut LcdStyle, dots: &mut DotsTexture) {
    let cell_w = 5.0 * DOT + 4.0 * DOT_GAP;
    let cell_h = 8.0 * DOT + 7.0 * DOT_GAP;
    let glass = Vec2::new(16.0 * cell_w + 15.0 * CELL_GAP + 2.0 * GLASS_MARGIN, 2.0 * cell_h + ROW_GAP + 2.0 * GLASS_MARGIN);
    let natural = glass + Vec2::splat(2.0 * BEZEL);
    let scale = (ui.available_width() / natural.x).clamp(0.6, 1.5);
    let (rect, _) = ui.allocate_exact_size(natural * scale, Sense::hover());
    let painter = ui.painter_at(rect);
    // The module, as one picture.
    let mut module = ShapePicture::default();
    // Bezel: the module's black frame on its PCB.
    module.rect_filled(rect, 8.0, Color32::from_rgb(0x0e, 0x10, 0x12));
    module.rect_stroke(rect, 8.0, 1.0, Color32::from_rgb(0x3a, 0x3f, 0x46));
    let glass_rect = rect.shrink(BEZEL * scale);
    let (bg, ink) = colours(style, snap.backlight, snap.powered);
    module.rect_filled(glass_rect, 3.0, bg);
    if snap.backlight && snap.powered {
        // A soft glow towards the edges, as the LED light guide gives.
        module.rect_stroke(glass_rect, 3.0, 3.0 * scale, lerp(bg, Color32::WHITE, 0.18));
    }
    painter.add(module.into_shape(&painter, ui.scope_id().with("lcd-module")));
    let on = lerp(bg, ink, style.contrast);
    // Unlit dots show faintly, more so at high contrast (like the real glass).
    let off = lerp(bg, ink, 0.06 + 0.10 * style.contrast);
    let origin = glass_rect.min + Vec2::splat(GLASS_MARGIN * scale);
    let show_dots = snap.powered && snap.display_on;
    dots.show(&painter, snap, origin, scale, [on, off], show_dots);
    for row in 0..2 {
        // One accessible node per line, so tests and screen readers can read it.
        let line_rect = Rect::from_min_size(
            Pos2::new(origin.x, origin.y + row as f32 * (cell_h + ROW_GAP) * scale),
            Vec2::new(16.0 * (cell_w + CELL_GAP) * scale, cell_h * scale),
        );
        let text = format!("LCD line {}: {}", row + 1, snap.lcd_text[row]);
        let r = ui.interact(line_rect, ui.scope_id().with(("lcd-line", row)), Sense::hover());
        r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, text.clone()));
        r.on_hover_text(format!("|{}|", snap.lcd_text[row]));
    }
    ui.horizontal(|ui| {
        ui.add(egui::Slider::new(&mut style.contrast, 0.2..=1.0).show_value(false).text("Contrast"));
        ui.separator();
        ui.selectable_value(&mut style.blue, false, "Yellow-green");
        ui.selectable_value(&mut style.blue, true, "Blue");
        ui.separator();
        let bl = if !snap.powered {
            "power off"
        } else if snap.backlight {
            "backlight on"
        } else {
            "backlight off"
        };
        ui.weak(bl);
    });
}

/// The 1,280 dots as one texture, made again only when they change.
///
/// Drawn as rectangles, even as one mesh ([`super::paint::Rects`]), they
/// cost a software renderer a few ms every frame (tiny triangles are what
/// it is slowest at); one textured rectangle costs almost nothing. Each dot
/// covers the whole pixels egui would round its rectangle to, and the
/// texture lies on whole pixels, so the picture is the same.
#[derive(Default)]
pub struct DotsTexture {
    texture: Option<TextureHandle>,
    /// Hash of what the texture shows: the dots, their colours, and where
    /// they fall within pixels.
    key: u64,
}

impl DotsTexture {
    /// Draws the dots with the first at `origin`, `scale` times their
    /// natural size, lit ones (when `lit`) in `colours[0]`, the others in
    /// `colours[1]`.
    fn show(&mut self, painter: &Painter, snap: &Snapshot, origin: Pos2, scale: f32, colours: [Color32; 2], lit: bool) {
        let ppp = painter.pixels_per_point();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (&snap.lcd_pixels, lit, colours, [origin.x, origin.y, scale, ppp].map(f32::to_bits)).hash(&mut h);
        let key = h.finish();
        // The texture's corner, on a pixel boundary.
        let corner = (origin * ppp).floor();
        if self.texture.is_none() || key != self.key {
            let image = dots_image(&snap.lcd_pixels, origin, scale, ppp, colours, lit);
            match &mut self.texture {
                Some(t) => t.set(image, TextureOptions::NEAREST),
                None => self.texture = Some(painter.ctx().load_texture("lcd-dots", image, TextureOptions::NEAREST)),
            }
            self.key = key;
        }
        if let Some(t) = &self.texture {
            let uv = Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0));
            painter.image(t.id(), Rect::from_min_size(corner / ppp, t.size_vec2() / ppp), uv, Color32::WHITE);
        }
    }
}

/// Where dot `dot` (0..5 across, 0..8 down) of cell `cell` (0..16 across,
/// 0..2 down) starts and ends, in physical pixels from `corner`, with the
/// first dot at `origin` (all along one axis): computed and rounded as
/// egui rounds the dot's rectangle (`Rect::round_to_pixels`).
fn dot_span(origin: f32, scale: f32, ppp: f32, corner: f32, pitch: f32, cell: usize, dot: usize) -> (usize, usize) {
    let start = origin + cell as f32 * pitch * scale + dot as f32 * (DOT + DOT_GAP) * scale;
    let px = |at: f32| ((at * ppp).round() - corner).max(0.0) as usize;
    (px(start), px(start + DOT * scale))
}

/// The picture of the dots, transparent between them, from the pixel
/// boundary at or before `origin`.
fn dots_image(cells: &[[[bool; 5]; 8]], origin: Pos2, scale: f32, ppp: f32, [on, off]: [Color32; 2], lit: bool) -> ColorImage {
    let pitch = Vec2::new(5.0 * DOT + 4.0 * DOT_GAP + CELL_GAP, 8.0 * DOT + 7.0 * DOT_GAP + ROW_GAP);
    let corner = (origin * ppp).floor();
    let span_x = |cell, dot| dot_span(origin.x, scale, ppp, corner.x, pitch.x, cell, dot);
    let span_y = |cell, dot| dot_span(origin.y, scale, ppp, corner.y, pitch.y, cell, dot);
    let (width, height) = (span_x(15, 4).1.max(1), span_y(1, 7).1.max(1));
    let mut image = ColorImage::filled([width, height], Color32::TRANSPARENT);
    for (i, cell) in cells.iter().enumerate().take(32) {
        let (row, col) = (i / 16, i % 16);
        for (y, line) in cell.iter().enumerate() {
            let (y0, y1) = span_y(row, y);
            for (x, &dot) in line.iter().enumerate() {
                let (x0, x1) = span_x(col, x);
                let c = if lit && dot { on } else { off };
                for py in y0..y1.min(height) {
                    image.pixels[py * width + x0.min(width)..py * width + x1.min(width)].fill(c);
                }
            }
        }
    }
    image
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::emath::GuiRounding;

    /// The texture has the pixels egui draws for the dots as rectangles
    /// (`rect_filled` rounds them to whole pixels), at odd scales and
    /// positions.
    #[test]
    fn the_dots_texture_matches_the_rectangles_egui_would_draw() {
        let mut cells = vec![[[false; 5]; 8]; 32];
        cells[0][0] = [true, false, true, false, true];
        cells[17][7] = [true; 5];
        let (on, off) = (Color32::from_rgb(10, 20, 30), Color32::from_rgb(200, 210, 220));
        for (origin, scale, ppp) in [(Pos2::new(27.1, 67.1), 0.94, 1.0), (Pos2::new(30.0, 80.0), 1.5, 1.0), (Pos2::new(13.37, 41.9), 0.6, 2.0)] {
            let corner = (origin * ppp).floor();
            let image = dots_image(&cells, origin, scale, ppp, [on, off], true);
            let mut expected = ColorImage::filled(image.size, Color32::TRANSPARENT);
            let (cell_w, cell_h) = (5.0 * DOT + 4.0 * DOT_GAP, 8.0 * DOT + 7.0 * DOT_GAP);
            for (i, cell) in cells.iter().enumerate() {
                let cx = origin.x + (i % 16) as f32 * (cell_w + CELL_GAP) * scale;
                let cy = origin.y + (i / 16) as f32 * (cell_h + ROW_GAP) * scale;
                for (y, line) in cell.iter().enumerate() {
                    for (x, &lit) in line.iter().enumerate() {
                        let p = Pos2::new(cx + x as f32 * (DOT + DOT_GAP) * scale, cy + y as f32 * (DOT + DOT_GAP) * scale);
                        let r = Rect::from_min_size(p, Vec2::splat(DOT * scale)).round_to_pixels(ppp);
                        let (min, max) = ((r.min * ppp - corner).round(), (r.max * ppp - corner).round());
                        for py in min.y as usize..max.y as usize {
                            for px in min.x as usize..max.x as usize {
                                expected.pixels[py * image.size[0] + px] = if lit { on } else { off };
                            }
                        }
                    }
                }
            }
            assert!(image.pixels == expected.pixels, "at {origin:?} x{scale} ({ppp} px/pt)");
            assert_eq!(image.pixels.iter().filter(|&&c| c == on).count(), expected.pixels.iter().filter(|&&c| c == on).count());
            assert!(image.pixels.contains(&on) && image.pixels.contains(&off));
        }
    }
}
