//! The status bar: run state, emulated time, cycles, speed.

use super::sim::Snapshot;
use egui::{Color32, RichText};

/// "12.345 s" / "1 min 02.500 s".
pub fn format_time(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.3} s")
    } else {
        let m = (seconds / 60.0).floor();
        format!("{m:.0} min {:06.3} s", seconds - m * 60.0)
    }
}

/// The run state in words.
pub fn state_text(snap: &Snapshot) -> (String, Color32) {
    if !snap.powered {
        return ("POWER OFF".into(), Color32::GRAY);
    }
    if snap.running {
        let what = snap.goal.clone().unwrap_or_else(|| "RUNNING".into());
        let sleeping = if snap.sleeping { " (asleep)" } else { "" };
        return (format!("{what}{sleeping}"), Color32::from_rgb(0x7c, 0xd9, 0x6a));
    }
    match &snap.last_stop {
        Some(why) => (format!("STOPPED: {why}"), Color32::from_rgb(0xff, 0xb0, 0x40)),
        None => ("PAUSED".into(), Color32::from_rgb(0xff, 0xd0, 0x60)),
    }
}

pub fn show(ui: &mut egui::Ui, snap: &Snapshot) {
    ui.horizontal(|ui| {
        let (text, colour) = state_text(snap);
        ui.label(RichText::new(text).strong().color(colour));
        ui.separator();
        ui.label(RichText::new(format_time(snap.seconds())).monospace()).on_hover_text("emulated time since power-on");
        ui.separator();
        ui.label(RichText::new(format!("{} cycles", group(snap.cycles))).monospace());
        ui.separator();
        ui.label(format!("speed {}", snap.speed.label()));
        if snap.running {
            ui.separator();
            ui.label(RichText::new(format!("{:.1} MHz emulated", snap.mhz)).monospace()).on_hover_text(format!("clock {} MHz", snap.clock_hz as f64 / 1e6));
            ui.separator();
            ui.label(RichText::new(format!("{:.2}x real time", snap.realtime)).monospace());
        }
        let n = snap.warning_count + snap.lcd_warning_count;
        if n > 0 {
            ui.separator();
            ui.colored_label(Color32::from_rgb(0xff, 0xb0, 0x40), format!("⚠ {n} warnings"));
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let name = snap.program.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            ui.weak(format!("{name}  ·  {} bytes of code", snap.program.flash_bytes));
        });
    });
}

/// 12345678 -> "12 345 678".
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats() {
        assert_eq!(super::group(12345678), "12 345 678");
        assert_eq!(super::group(12), "12");
        assert_eq!(super::format_time(1.5), "1.500 s");
        assert_eq!(super::format_time(62.5), "1 min 02.500 s");
    }
}
