//! SRAM: a map of the 4 KB coloured by region (.data, .bss, free, stack)
//! with the stack's high-water mark, a free-RAM gauge, the data symbols
//! with their values, and a hex view labelled by symbol.

use crate::app::paint::RoundedRects;
use crate::app::sim::{SimHandle, Snapshot};
use egui::{Color32, FontId, Pos2, Rect, RichText, Sense, Shape, Stroke, Vec2};
use emulator::device::{RAMEND, RAMSTART};
use emulator::loader::Space;

#[derive(Clone, Debug, Default)]
pub struct MemoryState {
    pub goto: String,
    pub show_io: bool,
    scroll_to_row: Option<usize>,
    /// SRAM of the previous stop, to highlight what changed.
    before: Option<(Vec<u8>, u64)>,
    shown: Option<(Vec<u8>, u64)>,
    pub message: Option<String>,
}

/// What a data-space address is used for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    RegistersIo,
    Data,
    Bss,
    Noinit,
    /// Static data of another section.
    Other,
    /// Never touched: between static data and the stack's high-water mark.
    Free,
    /// Used by the stack at some point, but above SP now.
    StackHistory,
    /// The live stack (above SP).
    Stack,
}

impl Region {
    pub fn colour(self) -> Color32 {
        match self {
            Region::RegistersIo => Color32::from_rgb(0x50, 0x50, 0x58),
            Region::Data => Color32::from_rgb(0x3b, 0x7d, 0xd8),
            Region::Bss => Color32::from_rgb(0x8a, 0x5c, 0xd6),
            Region::Noinit => Color32::from_rgb(0x5c, 0x9a, 0xa0),
            Region::Other => Color32::from_rgb(0x7a, 0x7a, 0x90),
            Region::Free => Color32::from_rgb(0x2c, 0x4a, 0x30),
            Region::StackHistory => Color32::from_rgb(0x8a, 0x5a, 0x20),
            Region::Stack => Color32::from_rgb(0xe8, 0x8a, 0x2a),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Region::RegistersIo => "registers/I/O",
            Region::Data => ".data",
            Region::Bss => ".bss",
            Region::Noinit => ".noinit",
            Region::Other => "static",
            Region::Free => "free (never used)",
            Region::StackHistory => "stack (used before)",
            Region::Stack => "stack (live)",
        }
    }
}

/// The region of `addr` given the sections, SP and the lowest SP seen.
pub fn region(snap: &Snapshot, addr: u16) -> Region {
    if addr < RAMSTART {
        return Region::RegistersIo;
    }
    for (name, start, end) in &snap.program.data_sections {
        if addr >= *start && addr < *end {
            return match name.as_str() {
                ".data" => Region::Data,
                ".bss" => Region::Bss,
                ".noinit" => Region::Noinit,
                _ => Region::Other,
            };
        }
    }
    if addr > snap.sp {
        Region::Stack
    } else if addr > snap.min_sp {
        Region::StackHistory
    } else if addr < snap.static_end() {
        Region::Other
    } else {
        Region::Free
    }
}

/// Bytes never touched by the stack (static end ..= min SP) and the bytes
/// free at all (static end ..= RAMEND).
pub fn free_ram(snap: &Snapshot) -> (u32, u32) {
    let end = snap.static_end() as u32;
    let total = (RAMEND as u32 + 1).saturating_sub(end);
    let never = (snap.min_sp as u32 + 1).saturating_sub(end);
    (never, total)
}

pub fn show(ui: &mut egui::Ui, snap: &Snapshot, state: &mut MemoryState, _sim: &SimHandle) {
    if !snap.running && state.shown.as_ref().is_none_or(|s| s.1 != snap.cycles) {
        state.before = state.shown.take();
        state.shown = Some((snap.sram.clone(), snap.cycles));
    }
    if snap.running {
        state.before = None;
        state.shown = None;
    }
    map(ui, snap);
    let (never, total) = free_ram(snap);
    let used = total - never;
    ui.horizontal(|ui| {
        ui.label("Stack + free RAM");
        ui.add(egui::ProgressBar::new(if total > 0 { used as f32 / total as f32 } else { 1.0 }).desired_width(200.0).text(format!("{used} / {total} B")));
    });
    ui.label(
        RichText::new(format!(
            "static data ends at 0x{:04x} · SP 0x{:04x} ({} bytes deep) · high-water 0x{:04x} ({} bytes) · {} bytes never touched",
            snap.static_end(),
            snap.sp,
            RAMEND - snap.sp,
            snap.min_sp,
            RAMEND - snap.min_sp,
            never
        ))
        .small(),
    );
    ui.add_space(4.0);
    egui::CollapsingHeader::new(format!("Symbols ({})", snap.program.data_symbols.len())).id_salt("data-symbols").default_open(false).show(ui, |ui| {
        egui::ScrollArea::vertical().id_salt("symbols").max_height(160.0).show(ui, |ui| {
            egui::Grid::new("symgrid").striped(true).num_columns(4).show(ui, |ui| {
                for s in &snap.program.data_symbols {
                    let bytes: Vec<String> = (0..s.size.min(8)).map(|i| format!("{:02x}", snap.sram.get((s.address + i) as usize).copied().unwrap_or(0))).collect();
                    ui.label(RichText::new(&s.name).monospace().small());
                    ui.monospace(format!("0x{:04x}", s.address));
                    ui.monospace(format!("{}", s.size));
                    ui.monospace(format!("{}{}", bytes.join(" "), if s.size > 8 { " …" } else { "" }));
                    ui.end_row();
                }
            });
        });
    });
    ui.horizontal(|ui| {
        let r = ui.add(egui::TextEdit::singleline(&mut state.goto).desired_width(160.0).hint_text("symbol or 0xaddr"));
        if ui.button("Go").clicked() || (r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter))) {
            match snap.program.resolve(&state.goto, Space::Data) {
                Some(a) if a <= RAMEND as u32 => {
                    let base = if state.show_io { 0 } else { RAMSTART as u32 };
                    state.scroll_to_row = Some((a.saturating_sub(base) / 16) as usize);
                    state.message = None;
                }
                _ => state.message = Some(format!("no data symbol or address `{}`", state.goto.trim())),
            }
        }
        ui.checkbox(&mut state.show_io, "registers & I/O");
    });
    if let Some(m) = &state.message {
        ui.colored_label(Color32::from_rgb(0xff, 0x90, 0x60), m);
    }
    let base = if state.show_io { 0 } else { RAMSTART };
    let before = state.before.as_ref().map(|b| &b.0);
    hex_view(
        ui,
        "sram-hex",
        &snap.sram,
        base,
        RAMEND,
        state.scroll_to_row.take(),
        |a| Some(region(snap, a).colour()),
        |a| snap.program.data_label(a),
        |a| before.is_some_and(|b| b.get(a as usize) != snap.sram.get(a as usize)),
    );
}

/// The 4 KB of SRAM as one coloured strip, with SP and the high-water mark.
fn map(ui: &mut egui::Ui, snap: &Snapshot) {
    let width = ui.available_width().max(200.0);
    let (rect, resp) = ui.allocate_exact_size(Vec2::new(width, 26.0), Sense::hover());
    let p = ui.painter_at(rect);
    let span = (RAMEND - RAMSTART + 1) as f32;
    let x_of = |a: u16| rect.left() + (a - RAMSTART) as f32 / span * rect.width();
    let mut start = RAMSTART;
    let mut cur = region(snap, RAMSTART);
    for a in RAMSTART..=RAMEND {
        let r = region(snap, a);
        if r != cur || a == RAMEND {
            let end = if a == RAMEND { RAMEND + 1 } else { a };
            p.rect_filled(Rect::from_x_y_ranges(x_of(start)..=rect.left() + (end - RAMSTART) as f32 / span * rect.width(), rect.y_range()), 0.0, cur.colour());
            start = a;
            cur = r;
        }
    }
    for (addr, colour, label) in [(snap.min_sp, Color32::from_rgb(0xff, 0x50, 0x50), "high-water"), (snap.sp, Color32::WHITE, "SP")] {
        if addr >= RAMSTART {
            let x = x_of(addr);
            p.line_segment([Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())], Stroke::new(2.0, colour));
            let _ = label;
        }
    }
    if let Some(h) = resp.hover_pos() {
        let a = RAMSTART + ((h.x - rect.left()) / rect.width() * span) as u16;
        let a = a.min(RAMEND);
        let lab = snap.program.data_label(a).map(|l| format!(" {l}")).unwrap_or_default();
        resp.on_hover_text(format!("0x{a:04x}: {}{lab}", region(snap, a).name()));
    }
    ui.horizontal_wrapped(|ui| {
        for r in [Region::Data, Region::Bss, Region::Free, Region::StackHistory, Region::Stack] {
            let (sw, _) = ui.allocate_exact_size(Vec2::splat(10.0), Sense::hover());
            ui.painter().rect_filled(sw, 2.0, r.colour());
            ui.label(RichText::new(r.name()).small());
        }
        ui.label(RichText::new("white line: SP, red line: high-water (min SP)").small());
    });
}

/// Rows of 16 bytes from `base` to `last`, with per-byte background and
/// a label column. Only the visible rows are laid out.
#[allow(clippy::too_many_arguments)]
pub fn hex_view(
    ui: &mut egui::Ui,
    id: &str,
    data: &[u8],
    base: u16,
    last: u16,
    scroll_to_row: Option<usize>,
    colour: impl Fn(u16) -> Option<Color32>,
    label: impl Fn(u16) -> Option<String>,
    changed: impl Fn(u16) -> bool,
) {
    const ROW_H: f32 = 16.0;
    const CELL_W: f32 = 20.0;
    let cell_size = Vec2::new(CELL_W - 2.0, ROW_H - 1.0);
    let rows = (last as usize + 1 - base as usize).div_ceil(16);
    let mut area = egui::ScrollArea::vertical().id_salt(id).auto_shrink([false, false]);
    if let Some(r) = scroll_to_row {
        area = area.vertical_scroll_offset(r as f32 * (ROW_H + ui.spacing().item_spacing.y));
    }
    let mono = FontId::monospace(12.0);
    area.show_rows(ui, ROW_H, rows, |ui, range| {
        // The cells' backgrounds, under the text: one picture in this slot.
        let under = ui.painter().add(Shape::Noop);
        let mut cells = RoundedRects::new(cell_size, 2.0);
        for row in range {
            let addr = base as usize + row * 16;
            let (rect, resp) = ui.allocate_exact_size(Vec2::new(ui.available_width(), ROW_H), Sense::hover());
            let p = ui.painter();
            p.text(rect.left_center(), egui::Align2::LEFT_CENTER, format!("{addr:04x}"), mono.clone(), Color32::from_gray(120));
            let x0 = rect.left() + 42.0;
            let mut ascii = String::new();
            for i in 0..16 {
                let a = addr + i;
                if a > last as usize {
                    break;
                }
                let v = data.get(a).copied().unwrap_or(0);
                let cell = Rect::from_min_size(Pos2::new(x0 + i as f32 * CELL_W + if i >= 8 { 6.0 } else { 0.0 }, rect.top()), cell_size);
                if let Some(c) = colour(a as u16) {
                    cells.add(cell.min, c.gamma_multiply(0.45));
                }
                let fg = if changed(a as u16) { Color32::from_rgb(0xff, 0xd0, 0x40) } else { Color32::from_gray(225) };
                p.text(cell.center(), egui::Align2::CENTER_CENTER, format!("{v:02x}"), mono.clone(), fg);
                ascii.push(if (0x20..0x7f).contains(&v) { v as char } else { '·' });
            }
            let xa = x0 + 16.0 * CELL_W + 12.0;
            // The first symbol that starts in this row (or covers its start).
            let lab = (0..16).find_map(|i| {
                let a = (addr + i) as u16;
                label(a).filter(|l| i == 0 || !l.contains('+'))
            });
            // The symbol column, else (or when there is room) the ASCII.
            let room = rect.right() - xa;
            match lab {
                Some(l) => {
                    let l = short_name(&l);
                    let max_chars = ((room / 7.0) as usize).max(4);
                    let l = if l.chars().count() > max_chars { format!("{}…", l.chars().take(max_chars - 1).collect::<String>()) } else { l };
                    p.text(Pos2::new(xa, rect.center().y), egui::Align2::LEFT_CENTER, l, FontId::proportional(12.0), Color32::from_rgb(0x8c, 0xc8, 0xff));
                }
                None => {
                    p.text(Pos2::new(xa, rect.center().y), egui::Align2::LEFT_CENTER, &ascii, mono.clone(), Color32::from_gray(150));
                }
            }
            if let Some(h) = resp.hover_pos() {
                let i = ((h.x - x0) / CELL_W).floor();
                if (0.0..16.0).contains(&i) {
                    let a = addr + i as usize;
                    let v = data.get(a).copied().unwrap_or(0);
                    let l = label(a as u16).map(|l| format!("\n{l}")).unwrap_or_default();
                    resp.on_hover_text(format!("0x{a:04x} = 0x{v:02x} ({v}){l}"));
                }
            }
        }
        let shape = cells.into_shape(ui.painter(), ui.scope_id().with("cells"));
        ui.painter().set(under, shape);
    });
}

/// The last two path segments of a symbol (`serial::RX+5`), for narrow columns.
pub fn short_name(name: &str) -> String {
    let parts: Vec<&str> = name.split("::").collect();
    if parts.len() <= 2 {
        name.to_string()
    } else {
        parts[parts.len() - 2..].join("::")
    }
}
