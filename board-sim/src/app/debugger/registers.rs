//! Registers, pointer pairs, PC/SP and the SREG flags; values that changed
//! since the previous stop are highlighted.

use crate::app::sim::Snapshot;
use egui::{Color32, RichText};

#[derive(Clone, Debug, Default)]
pub struct RegState {
    /// Registers of the last paused snapshot drawn, and its cycle.
    shown: Option<([u8; 32], u8, u64)>,
    /// Registers and SREG before the latest stop.
    before: Option<([u8; 32], u8)>,
}

pub const FLAGS: [char; 8] = ['C', 'Z', 'N', 'V', 'S', 'H', 'T', 'I'];

pub fn show(ui: &mut egui::Ui, snap: &Snapshot, state: &mut RegState) {
    if snap.running {
        state.shown = None;
        state.before = None;
    } else {
        match state.shown {
            Some((regs, sreg, cycles)) if cycles != snap.cycles => {
                state.before = Some((regs, sreg));
                state.shown = Some((snap.regs, snap.sreg, snap.cycles));
            }
            None => state.shown = Some((snap.regs, snap.sreg, snap.cycles)),
            _ => {}
        }
    }
    let changed = |i: usize| state.before.is_some_and(|(r, _)| r[i] != snap.regs[i]);
    let accent = Color32::from_rgb(0xff, 0xc8, 0x50);
    ui.horizontal(|ui| {
        ui.strong("PC");
        let fun = snap.program.function_at(snap.pc * 2).map(|(n, off)| if off == 0 { n.to_string() } else { format!("{n}+0x{off:x}") });
        ui.label(RichText::new(format!("0x{:04x}", snap.pc * 2)).monospace().color(accent));
        if let Some(f) = fun {
            ui.label(RichText::new(f).monospace().weak()).on_hover_text("function containing PC");
        }
    });
    ui.horizontal(|ui| {
        ui.strong("SP");
        ui.monospace(format!("0x{:04x}", snap.sp));
        ui.strong("min SP");
        ui.monospace(format!("0x{:04x}", snap.min_sp)).on_hover_text("stack high-water mark (lowest SP since reset)");
        ui.strong("cycle");
        ui.monospace(super::super::status::group(snap.cycles));
        if snap.sleeping {
            ui.label(RichText::new("SLEEP").color(Color32::LIGHT_BLUE));
        }
    });
    ui.horizontal(|ui| {
        ui.strong("SREG");
        ui.monospace(format!("0x{:02x}", snap.sreg));
        for bit in (0..8).rev() {
            let set = snap.sreg & (1 << bit) != 0;
            let was = state.before.map(|(_, s)| s & (1 << bit) != 0);
            let mut t = RichText::new(FLAGS[bit].to_string()).monospace().strong();
            t = if set { t.color(Color32::BLACK).background_color(if was == Some(false) { accent } else { Color32::from_rgb(0x7c, 0xd9, 0x6a) }) } else { t.weak() };
            ui.label(t).on_hover_text(flag_name(bit));
        }
    });
    egui::Grid::new("regs").spacing([10.0, 2.0]).show(ui, |ui| {
        for row in 0..4 {
            for col in 0..8 {
                let i = row * 8 + col;
                let t = RichText::new(format!("r{i:<2} {:02x}", snap.regs[i])).monospace();
                ui.label(if changed(i) { t.color(accent) } else { t });
            }
            ui.end_row();
        }
    });
    ui.horizontal(|ui| {
        for (name, lo) in [("X", 26usize), ("Y", 28), ("Z", 30)] {
            let v = u16::from_le_bytes([snap.regs[lo], snap.regs[lo + 1]]);
            ui.strong(name);
            let label = snap.program.data_label(v).map(|l| format!(" {l}")).unwrap_or_default();
            ui.monospace(format!("0x{v:04x}")).on_hover_text(format!("r{}:r{}{label}", lo + 1, lo));
        }
    });
}

fn flag_name(bit: usize) -> &'static str {
    ["carry", "zero", "negative", "two's complement overflow", "sign (N xor V)", "half carry", "bit copy storage (T)", "global interrupt enable"][bit]
}
