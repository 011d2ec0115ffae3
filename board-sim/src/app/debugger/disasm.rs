//! The disassembly of the whole program (made once per load), around PC:
//! click a row to put the cursor there, click the gutter (or press F9) to
//! toggle a breakpoint, "Run to cursor" runs until PC gets there.

use crate::app::sim::{Command, ListingRow, SimHandle, Snapshot};
use egui::{Color32, FontId, Pos2, Rect, Sense, Vec2};
use emulator::loader::Space;

#[derive(Clone, Debug)]
pub struct DisasmState {
    /// Scroll to PC whenever the CPU stops somewhere new.
    pub follow_pc: bool,
    /// The selected instruction (word address).
    pub cursor: Option<u32>,
    pub goto: String,
    /// PC and cycle of the last stop scrolled to.
    last_stop: Option<(u32, u64)>,
    scroll_to_row: Option<usize>,
    pub message: Option<String>,
}

impl Default for DisasmState {
    fn default() -> Self {
        DisasmState { follow_pc: true, cursor: None, goto: String::new(), last_stop: None, scroll_to_row: None, message: None }
    }
}

const ROW_H: f32 = 17.0;

pub fn show(ui: &mut egui::Ui, snap: &Snapshot, state: &mut DisasmState, sim: &SimHandle) {
    let program = snap.program.clone();
    ui.horizontal(|ui| {
        ui.heading("Code");
        ui.checkbox(&mut state.follow_pc, "follow PC");
        if ui.button("PC").on_hover_text("scroll to PC").clicked() {
            state.scroll_to_row = program.row(snap.pc);
        }
    });
    ui.horizontal(|ui| {
        let r = ui.add(egui::TextEdit::singleline(&mut state.goto).desired_width(150.0).hint_text("function or 0xaddr"));
        if ui.button("Go").clicked() || (r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter))) {
            match program.resolve(&state.goto, Space::Flash) {
                Some(byte) => {
                    state.cursor = Some(byte / 2);
                    state.scroll_to_row = program.row(byte / 2);
                    state.message = None;
                }
                None => state.message = Some(format!("no function or address `{}`", state.goto.trim())),
            }
        }
        let paused = snap.powered && !snap.running;
        let cur = state.cursor;
        if ui.add_enabled(cur.is_some() && snap.powered, egui::Button::new("Run to cursor")).clicked() {
            if let Some(pc) = cur {
                sim.send(Command::RunTo(pc));
            }
        }
        if ui.add_enabled(cur.is_some(), egui::Button::new("Toggle breakpoint")).on_hover_text("F9: breakpoint at the cursor").clicked() || (cur.is_some() && !ui.ctx().text_edit_focused() && ui.input(|i| i.key_pressed(egui::Key::F9))) {
            if let Some(pc) = cur {
                toggle(snap, sim, pc);
            }
        }
        let _ = paused;
    });
    if let Some(m) = &state.message {
        ui.colored_label(Color32::from_rgb(0xff, 0x90, 0x60), m);
    }
    // Follow PC: on every new stop while paused.
    if !snap.running && state.follow_pc && state.last_stop != Some((snap.pc, snap.cycles)) {
        state.last_stop = Some((snap.pc, snap.cycles));
        state.scroll_to_row = program.row(snap.pc);
    }
    let rows = program.listing.len();
    let mut area = egui::ScrollArea::vertical().id_salt("disasm").auto_shrink([false, false]);
    if let Some(row) = state.scroll_to_row.take() {
        let visible = ui.available_height();
        area = area.vertical_scroll_offset((row as f32 * (ROW_H + ui.spacing().item_spacing.y) - visible / 3.0).max(0.0));
    }
    let mono = FontId::monospace(12.5);
    let pc_bg = Color32::from_rgb(0x4a, 0x40, 0x12);
    let cursor_bg = Color32::from_rgb(0x24, 0x3a, 0x5a);
    area.show_rows(ui, ROW_H, rows, |ui, range| {
        for i in range {
            let width = ui.available_width();
            let (rect, resp) = ui.allocate_exact_size(Vec2::new(width, ROW_H), Sense::click());
            let p = ui.painter();
            match &program.listing[i] {
                ListingRow::Label { name, pc } => {
                    p.text(rect.left_center() + Vec2::new(4.0, 0.0), egui::Align2::LEFT_CENTER, format!("{name}:"), mono.clone(), Color32::from_rgb(0x8c, 0xc8, 0xff));
                    if resp.clicked() {
                        state.cursor = Some(*pc);
                    }
                }
                ListingRow::Instr { pc, text, .. } => {
                    let pc = *pc;
                    let is_pc = pc == snap.pc && snap.powered;
                    if is_pc {
                        p.rect_filled(rect, 0.0, pc_bg);
                    } else if state.cursor == Some(pc) {
                        p.rect_filled(rect, 0.0, cursor_bg);
                    } else if resp.hovered() {
                        p.rect_filled(rect, 0.0, Color32::from_gray(40));
                    }
                    let gutter = Rect::from_min_size(rect.min, Vec2::new(18.0, ROW_H));
                    let has_bp = snap.breakpoints.contains(&pc);
                    if has_bp {
                        p.circle_filled(gutter.center(), 5.0, Color32::from_rgb(0xe0, 0x40, 0x40));
                    } else if resp.hovered() && resp.hover_pos().is_some_and(|h| gutter.contains(h)) {
                        p.circle_stroke(gutter.center(), 5.0, egui::Stroke::new(1.0, Color32::from_rgb(0xe0, 0x40, 0x40)));
                    }
                    if is_pc {
                        let c = gutter.right_center() + Vec2::new(7.0, 0.0);
                        p.add(egui::Shape::convex_polygon(vec![c + Vec2::new(-5.0, -5.0), c + Vec2::new(5.0, 0.0), c + Vec2::new(-5.0, 5.0)], Color32::from_rgb(0xff, 0xd0, 0x40), egui::Stroke::NONE));
                    }
                    let x = rect.left() + 34.0;
                    p.text(Pos2::new(x, rect.center().y), egui::Align2::LEFT_CENTER, format!("{:04x}", pc * 2), mono.clone(), Color32::from_gray(120));
                    let (ins, comment) = text.split_once('\t').unwrap_or((text.as_str(), ""));
                    p.text(Pos2::new(x + 46.0, rect.center().y), egui::Align2::LEFT_CENTER, ins, mono.clone(), Color32::from_rgb(0xe6, 0xe6, 0xe6));
                    let (ops, note) = comment.split_once("\t;").map(|(o, n)| (o, Some(n))).unwrap_or((comment, None));
                    p.text(Pos2::new(x + 100.0, rect.center().y), egui::Align2::LEFT_CENTER, ops.replace('\t', " "), mono.clone(), Color32::from_rgb(0xc8, 0xd8, 0xa8));
                    if let Some(n) = note {
                        p.text(Pos2::new(x + 220.0, rect.center().y), egui::Align2::LEFT_CENTER, format!(";{n}"), mono.clone(), Color32::from_gray(125));
                    }
                    if resp.clicked() {
                        if resp.interact_pointer_pos().is_some_and(|h| gutter.contains(h)) {
                            toggle(snap, sim, pc);
                        } else {
                            state.cursor = Some(pc);
                        }
                    }
                    resp.context_menu(|ui| {
                        if ui.button("Run to here").clicked() {
                            sim.send(Command::RunTo(pc));
                            ui.close();
                        }
                        if ui.button(if has_bp { "Remove breakpoint" } else { "Set breakpoint" }).clicked() {
                            toggle(snap, sim, pc);
                            ui.close();
                        }
                    });
                }
            }
        }
    });
}

fn toggle(snap: &Snapshot, sim: &SimHandle, pc: u32) {
    if snap.breakpoints.contains(&pc) {
        sim.send(Command::RemoveBreakpoint(pc));
    } else {
        sim.send(Command::AddBreakpoint(pc));
    }
}
