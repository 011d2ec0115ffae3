//! Breakpoints (by function or address) and data watchpoints (by symbol,
//! address or range; read, write or both).

use crate::app::sim::{Command, SimHandle, Snapshot};
use egui::{Color32, RichText};
use emulator::debug::WatchKind;
use emulator::device::RAMEND;
use emulator::loader::Space;

#[derive(Clone, Debug)]
pub struct BreakState {
    pub bp_field: String,
    pub wp_field: String,
    pub wp_kind: WatchKind,
    pub message: Option<String>,
}

impl Default for BreakState {
    fn default() -> Self {
        BreakState { bp_field: String::new(), wp_field: String::new(), wp_kind: WatchKind::Write, message: None }
    }
}

/// Parses a watchpoint target: a data symbol (its whole size), an address,
/// or `0xSTART..0xEND` (inclusive).
pub fn parse_watch(snap: &Snapshot, text: &str) -> Option<std::ops::RangeInclusive<u16>> {
    let t = text.trim();
    if let Some((a, b)) = t.split_once("..") {
        let a = snap.program.resolve(a, Space::Data)?;
        let b = snap.program.resolve(b.trim_start_matches('='), Space::Data)?;
        return (a <= b && b <= RAMEND as u32).then_some(a as u16..=b as u16);
    }
    if let Some(s) = snap.program.data_symbol(t) {
        return Some(s.address..=s.address + s.size.max(1) - 1);
    }
    let a = snap.program.resolve(t, Space::Data)?;
    (a <= RAMEND as u32).then_some(a as u16..=a as u16)
}

pub fn show(ui: &mut egui::Ui, snap: &Snapshot, state: &mut BreakState, sim: &SimHandle) {
    ui.strong("Breakpoints");
    ui.horizontal(|ui| {
        let r = ui.add(egui::TextEdit::singleline(&mut state.bp_field).desired_width(220.0).hint_text("function or 0xaddr (bytes)"));
        let add = ui.button("Add breakpoint").clicked() || (r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)));
        if add {
            match snap.program.resolve(&state.bp_field, Space::Flash) {
                Some(byte) if byte % 2 == 0 && (byte as usize) < 0x10000 => {
                    sim.send(Command::AddBreakpoint(byte / 2));
                    state.message = None;
                }
                _ => state.message = Some(format!("no function or even flash address `{}`", state.bp_field.trim())),
            }
        }
        if ui.add_enabled(!snap.breakpoints.is_empty(), egui::Button::new("Clear all")).clicked() {
            sim.send(Command::ClearBreakpoints);
        }
    });
    if snap.breakpoints.is_empty() {
        ui.weak("none (click the gutter of the code view to set one)");
    }
    for &pc in &snap.breakpoints {
        ui.horizontal(|ui| {
            if ui.small_button("remove").clicked() {
                sim.send(Command::RemoveBreakpoint(pc));
            }
            ui.monospace(format!("0x{:04x}", pc * 2));
            if let Some((f, off)) = snap.program.function_at(pc * 2) {
                ui.label(RichText::new(if off == 0 { f.to_string() } else { format!("{f}+0x{off:x}") }).weak());
            }
        });
    }
    ui.add_space(8.0);
    ui.strong("Watchpoints");
    ui.horizontal(|ui| {
        ui.add(egui::TextEdit::singleline(&mut state.wp_field).desired_width(220.0).hint_text("symbol, 0xaddr or 0xa..0xb"));
        egui::ComboBox::from_id_salt("wp-kind").selected_text(kind_name(state.wp_kind)).show_ui(ui, |ui| {
            for k in [WatchKind::Write, WatchKind::Read, WatchKind::ReadWrite] {
                ui.selectable_value(&mut state.wp_kind, k, kind_name(k));
            }
        });
        if ui.button("Add watchpoint").clicked() {
            match parse_watch(snap, &state.wp_field) {
                Some(range) => {
                    sim.send(Command::AddWatchpoint(range, state.wp_kind));
                    state.message = None;
                }
                None => state.message = Some(format!("no data symbol, address or range `{}`", state.wp_field.trim())),
            }
        }
    });
    if snap.watchpoints.is_empty() {
        ui.weak("none");
    }
    for w in &snap.watchpoints {
        ui.horizontal(|ui| {
            if ui.small_button("remove").clicked() {
                sim.send(Command::RemoveWatchpoint(w.range.clone(), w.kind));
            }
            let (a, b) = (*w.range.start(), *w.range.end());
            ui.monospace(if a == b { format!("0x{a:04x}") } else { format!("0x{a:04x}..=0x{b:04x}") });
            ui.label(kind_name(w.kind));
            if let Some(l) = snap.program.data_label(a) {
                ui.label(RichText::new(l).weak());
            }
        });
    }
    if let Some(m) = &state.message {
        ui.colored_label(Color32::from_rgb(0xff, 0x90, 0x60), m);
    }
    ui.add_space(8.0);
    ui.weak("Breakpoints and watchpoints make the emulator check every instruction: it runs slower while any is set.");
}

fn kind_name(k: WatchKind) -> &'static str {
    match k {
        WatchKind::Read => "read",
        WatchKind::Write => "write",
        WatchKind::ReadWrite => "read/write",
    }
}
