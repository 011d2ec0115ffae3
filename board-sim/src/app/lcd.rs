//! The 16x2 LCD: every dot of the 5x8 cells, with the backlight and a
//! contrast control like the trimmer on the real board.

use super::paint::Rects;
use super::sim::Snapshot;
use egui::{Color32, CornerRadius, Pos2, Rect, Sense, Stroke, StrokeKind, Vec2};

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

pub fn show(ui: &mut egui::Ui, snap: &Snapshot, style: &mut LcdStyle) {
    let cell_w = 5.0 * DOT + 4.0 * DOT_GAP;
    let cell_h = 8.0 * DOT + 7.0 * DOT_GAP;
    let glass = Vec2::new(16.0 * cell_w + 15.0 * CELL_GAP + 2.0 * GLASS_MARGIN, 2.0 * cell_h + ROW_GAP + 2.0 * GLASS_MARGIN);
    let natural = glass + Vec2::splat(2.0 * BEZEL);
    let scale = (ui.available_width() / natural.x).clamp(0.6, 1.5);
    let (rect, _) = ui.allocate_exact_size(natural * scale, Sense::hover());
    let painter = ui.painter_at(rect);
    // Bezel: the module's black frame on its PCB.
    painter.rect_filled(rect, CornerRadius::same(8), Color32::from_rgb(0x0e, 0x10, 0x12));
    painter.rect_stroke(rect, CornerRadius::same(8), Stroke::new(1.0, Color32::from_rgb(0x3a, 0x3f, 0x46)), StrokeKind::Inside);
    let glass_rect = rect.shrink(BEZEL * scale);
    let (bg, ink) = colours(style, snap.backlight, snap.powered);
    painter.rect_filled(glass_rect, CornerRadius::same(3), bg);
    if snap.backlight && snap.powered {
        // A soft glow towards the edges, as the LED light guide gives.
        painter.rect_stroke(glass_rect, CornerRadius::same(3), Stroke::new(3.0 * scale, lerp(bg, Color32::WHITE, 0.18)), StrokeKind::Inside);
    }
    let on = lerp(bg, ink, style.contrast);
    // Unlit dots show faintly, more so at high contrast (like the real glass).
    let off = lerp(bg, ink, 0.06 + 0.10 * style.contrast);
    let origin = glass_rect.min + Vec2::splat(GLASS_MARGIN * scale);
    let show_dots = snap.powered && snap.display_on;
    let mut dots = Rects::new(&painter);
    for row in 0..2 {
        for col in 0..16 {
            let cell = &snap.lcd_pixels[row * 16 + col];
            let cx = origin.x + col as f32 * (cell_w + CELL_GAP) * scale;
            let cy = origin.y + row as f32 * (cell_h + ROW_GAP) * scale;
            for (y, line) in cell.iter().enumerate() {
                for (x, &lit) in line.iter().enumerate() {
                    let p = Pos2::new(cx + x as f32 * (DOT + DOT_GAP) * scale, cy + y as f32 * (DOT + DOT_GAP) * scale);
                    let c = if show_dots && lit { on } else { off };
                    dots.add(Rect::from_min_size(p, Vec2::splat(DOT * scale)), c);
                }
            }
        }
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
    dots.paint(&painter);
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
