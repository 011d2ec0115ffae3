//! The debugger: disassembly on the left; registers, then a tab for SRAM,
//! EEPROM, breakpoints/watchpoints and warnings on the right.

pub mod breakpoints;
pub mod disasm;
pub mod eeprom;
pub mod memory;
pub mod registers;
pub mod warnings;

use super::sim::{SimHandle, Snapshot};
use super::{unfilled, DebugTab, UiState};

pub fn show(ui: &mut egui::Ui, snap: &Snapshot, state: &mut UiState, sim: &SimHandle) {
    egui::Panel::left("disasm-column").frame(unfilled(egui::Frame::side_top_panel(ui.style()))).default_size(390.0).min_size(280.0).resizable(true).show(ui, |ui| {
        disasm::show(ui, snap, &mut state.disasm, sim);
    });
    egui::CentralPanel::default_margins().frame(unfilled(egui::Frame::central_panel(ui.style()))).show(ui, |ui| {
        registers::show(ui, snap, &mut state.registers);
        ui.separator();
        ui.horizontal(|ui| {
            let warn = snap.warning_count + snap.lcd_warning_count;
            let tabs = [
                (DebugTab::Memory, "SRAM".to_string()),
                (DebugTab::Eeprom, "EEPROM".to_string()),
                (DebugTab::Breakpoints, format!("Break/Watch ({})", snap.breakpoints.len() + snap.watchpoints.len())),
                (DebugTab::Warnings, if warn > 0 { format!("⚠ Warnings ({warn})") } else { "Warnings".to_string() }),
            ];
            for (tab, label) in tabs {
                ui.selectable_value(&mut state.tab, tab, label);
            }
        });
        ui.separator();
        match state.tab {
            DebugTab::Memory => memory::show(ui, snap, &mut state.memory, sim),
            DebugTab::Eeprom => eeprom::show(ui, snap),
            DebugTab::Breakpoints => breakpoints::show(ui, snap, &mut state.breakpoints, sim),
            DebugTab::Warnings => warnings::show(ui, snap, sim),
        }
    });
}
