//! `board-sim play`: the board in a window, with a debugger.
//!
//! Architecture (egui style): all state lives in plain structs. The
//! emulator runs on its own thread ([`sim`]): the UI sends it [`Command`]s
//! and draws the latest [`Snapshot`] it published. Each panel is a module
//! with a `show` function that draws from the snapshot and the panel's own
//! small UI state, and returns or sends commands; none of them touches the
//! emulator.
//!
//! Repainting is on demand: under software rendering a frame of the whole
//! window costs several ms, so one is drawn only when there is something
//! new to show. The emulator thread wakes the window at once on a command,
//! a step or a stop, and while running when the board's look changes (LCD
//! dots, backlight, buzzer, button pins), [`RUNNING_FRAME`] after the change
//! ([`sim::WakePacer`]); input wakes it as usual. The counters that change
//! all the time while running (emulated time, cycles, and in the debugger
//! PC, registers, SRAM) are refreshed with those frames, or every
//! [`QUIET_FRAME`] when the board shows nothing new.

pub mod buttons;
pub mod chessboard;
pub mod debugger;
pub mod lcd;
pub mod paint;
pub mod sim;
pub mod status;

pub use sim::{Command, SimCore, SimHandle, Snapshot, Speed, Wake};

use egui::{Color32, RichText};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where `cargo xtask firmware` puts the firmware, relative to the workspace.
pub const DEFAULT_ELF: &str = "target/avr-none/avr/prodigy.elf";

/// While the emulator runs (1x, 10x), a change of the board's look is drawn
/// this long after it happens, with whatever else changed meanwhile; so at
/// most 20 frames a second. An LCD's liquid crystal takes longer than that
/// to switch.
pub const RUNNING_FRAME: Duration = Duration::from_millis(50);
/// Frame interval while it runs but nothing visible changes (only the
/// counters of the status bar and the debugger move).
pub const QUIET_FRAME: Duration = Duration::from_millis(500);
/// As [`RUNNING_FRAME`] at max speed: nobody follows the LCD at 500x real
/// time, and every frame painted is time the emulator could use.
pub const MAX_SPEED_FRAME: Duration = Duration::from_millis(100);

/// `--bench-seconds` measures from the first frame after this much time:
/// the start (fonts, shader compilation, the first glyphs, egui's opening
/// animations, a burst of frames) is not what the window costs while it runs.
pub const BENCH_WARMUP: Duration = Duration::from_secs(1);

/// What `board-sim play` was asked for.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    pub elf: Option<PathBuf>,
    pub mhz: f64,
    pub speed: Speed,
    pub paused: bool,
    /// Measure the window this many seconds (after [`BENCH_WARMUP`]), print
    /// emulated MHz, CPU time and frames, exit.
    pub bench_seconds: Option<f64>,
    /// Open with the debugger panel shown (the toolbar toggles it).
    pub debugger: bool,
}

/// The ELF to open: the argument, else the workspace's firmware build.
pub fn resolve_elf(arg: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = arg {
        if !p.exists() {
            return Err(format!("{}: no such file", p.display()));
        }
        return Ok(p.to_path_buf());
    }
    // The workspace root: this crate's parent (when run from the build tree),
    // else the current directory.
    let candidates = [Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(DEFAULT_ELF), PathBuf::from(DEFAULT_ELF)];
    candidates
        .iter()
        .find(|p| p.exists())
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .ok_or_else(|| format!("no firmware at {DEFAULT_ELF}: build it with cargo xtask firmware (or pass an ELF file)"))
}

/// Loads the ELF (errors are one line) and opens the window.
pub fn run(opts: PlayOptions) -> Result<(), String> {
    if !(opts.mhz > 0.0 && opts.mhz <= 100.0) {
        return Err(format!("--mhz {} is out of range (0 < MHz <= 100)", opts.mhz));
    }
    let path = resolve_elf(opts.elf.as_deref())?;
    let clock_hz = (opts.mhz * 1e6).round() as u32;
    let debugger = opts.debugger;
    let bench = opts.bench_seconds.map(|s| Bench { seconds: s, opened: None, start: None, frames: 0, ui_time: Duration::ZERO });
    let mut setup = vec![Command::SetSpeed(opts.speed)];
    if opts.paused {
        setup.push(Command::Pause);
    }
    let sim = SimHandle::start(&path, clock_hz, setup)?;
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(format!("Chess Prodigy — {}", path.display()))
            .with_inner_size([1400.0, 880.0])
            .with_min_inner_size([900.0, 600.0])
            .with_drag_and_drop(true),
        // Dithering hides banding in gradients, and this window has none
        // (flat colours are left alone by it anyway); it costs every pixel
        // of every frame some arithmetic, which under software rendering
        // is about a fifth of the painting.
        dithering: false,
        ..Default::default()
    };
    let result = eframe::run_native(
        "board-sim",
        native,
        Box::new(move |cc| {
            let mut app = ProdigyApp::new(sim);
            app.bench = bench;
            app.ui.show_debugger = debugger;
            app.install(&cc.egui_ctx);
            Ok(Box::new(app))
        }),
    );
    result.map_err(|e| format!("cannot open the window: {e}"))
}

/// `--bench-seconds`: the window for a while after [`BENCH_WARMUP`], then
/// emulated MHz, CPU time and frames.
pub struct Bench {
    pub seconds: f64,
    /// The first frame.
    opened: Option<Instant>,
    /// Wall time, cycles and CPU seconds when the measurement started.
    start: Option<(Instant, u64, f64)>,
    frames: u64,
    /// Time spent in `show` (building the UI, not painting), after the warm-up.
    ui_time: Duration,
}

/// Which debugger tab is shown under the registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugTab {
    Memory,
    Eeprom,
    Breakpoints,
    Warnings,
}

/// The window's own state (nothing of the emulator's).
pub struct UiState {
    pub lcd: lcd::LcdStyle,
    pub lcd_dots: lcd::DotsTexture,
    pub buttons: buttons::ButtonsState,
    pub path_field: String,
    pub tab: DebugTab,
    pub disasm: debugger::disasm::DisasmState,
    pub breakpoints: debugger::breakpoints::BreakState,
    pub memory: debugger::memory::MemoryState,
    pub registers: debugger::registers::RegState,
    pub show_debugger: bool,
}

pub struct ProdigyApp {
    pub sim: SimHandle,
    pub snap: Arc<Snapshot>,
    pub ui: UiState,
    pub bench: Option<Bench>,
    #[cfg(feature = "audio")]
    audio: crate::audio::Audio,
    hooked: bool,
}

impl ProdigyApp {
    pub fn new(sim: SimHandle) -> ProdigyApp {
        let snap = sim.snapshot();
        ProdigyApp {
            ui: UiState {
                lcd: lcd::LcdStyle::default(),
                lcd_dots: Default::default(),
                buttons: buttons::ButtonsState::default(),
                path_field: snap.program.path.display().to_string(),
                tab: DebugTab::Memory,
                disasm: Default::default(),
                breakpoints: Default::default(),
                memory: Default::default(),
                registers: Default::default(),
                show_debugger: true,
            },
            snap,
            sim,
            bench: None,
            #[cfg(feature = "audio")]
            audio: crate::audio::Audio::open(),
            hooked: false,
        }
    }

    /// Style and repaint wake-ups; called once with the window's context.
    pub fn install(&mut self, ctx: &egui::Context) {
        if self.hooked {
            return;
        }
        self.hooked = true;
        let c = ctx.clone();
        self.sim.set_repaint(move |wake| match wake {
            Wake::Now => c.request_repaint(),
            // One frame: egui answers `request_repaint` with two (so that
            // layout settles), which a new picture on the LCD doesn't need.
            Wake::Look => c.request_repaint_after(Duration::from_millis(1)),
        });
        add_system_font(ctx);
        let mut visuals = egui::Visuals::dark();
        visuals.panel_fill = Color32::from_rgb(0x1e, 0x21, 0x27);
        visuals.window_fill = Color32::from_rgb(0x23, 0x26, 0x2d);
        visuals.extreme_bg_color = Color32::from_rgb(0x15, 0x17, 0x1b);
        visuals.faint_bg_color = Color32::from_rgb(0x25, 0x29, 0x30);
        ctx.set_visuals(visuals);
    }

    /// Sends a command and takes note of it for this frame.
    pub fn send(&self, cmd: Command) {
        self.sim.send(cmd);
    }

    /// The whole window, inside `ui` (eframe's root or a test harness).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let t0 = Instant::now();
        let ctx = ui.ctx().clone();
        self.install(&ctx);
        self.snap = self.sim.snapshot();
        self.handle_input(&ctx);
        let snap = self.snap.clone();

        egui::Panel::top("toolbar").frame(unfilled(egui::Frame::side_top_panel(ui.style()))).show(ui, |ui| self.toolbar(ui, &snap));
        egui::Panel::bottom("status").frame(unfilled(egui::Frame::side_top_panel(ui.style()))).show(ui, |ui| status::show(ui, &snap));
        if self.ui.show_debugger {
            egui::Panel::right("debugger").frame(unfilled(egui::Frame::side_top_panel(ui.style()))).default_size(820.0).min_size(520.0).resizable(true).show(ui, |ui| {
                debugger::show(ui, &snap, &mut self.ui, &self.sim);
            });
        }
        egui::CentralPanel::default_margins().frame(unfilled(egui::Frame::central_panel(ui.style()))).show(ui, |ui| {
            egui::ScrollArea::vertical().id_salt("board").show(ui, |ui| {
                ui.add_space(6.0);
                lcd::show(ui, &snap, &mut self.ui.lcd, &mut self.ui.lcd_dots);
                ui.add_space(10.0);
                buttons::show(ui, &snap, &mut self.ui.buttons, &self.sim);
                ui.add_space(14.0);
                chessboard::show(ui, &snap);
            });
        });

        #[cfg(feature = "audio")]
        self.audio.set_tone(if snap.running { snap.tone } else { None });

        if let Some(b) = &mut self.bench {
            b.ui_time += t0.elapsed();
        }
        self.bench_tick(&ctx, &snap);
        if snap.running {
            // The counters; changes of the board's look wake us sooner.
            ctx.request_repaint_after(QUIET_FRAME);
        }
    }

    /// Keyboard (buttons, debugger keys) and dropped files.
    fn handle_input(&mut self, ctx: &egui::Context) {
        let typing = ctx.text_edit_focused();
        let events = ctx.input(|i| i.events.clone());
        for ev in &events {
            match ev {
                egui::Event::Key { key, pressed, repeat, modifiers, .. } => {
                    if let Some(b) = self.ui.buttons.button_for_key(*key) {
                        if typing {
                            continue;
                        }
                        if !*repeat {
                            self.ui.buttons.key_changed(b, *pressed, &self.sim);
                        }
                        continue;
                    }
                    if !*pressed || *repeat && !matches!(key, egui::Key::F10 | egui::Key::F11) {
                        continue;
                    }
                    match key {
                        egui::Key::F5 => self.send(if self.snap.running { Command::Pause } else { Command::Run }),
                        egui::Key::F10 => self.send(Command::StepOver),
                        egui::Key::F11 if modifiers.shift => self.send(Command::StepOut),
                        egui::Key::F11 => self.send(Command::StepInto),
                        _ => {}
                    }
                }
                egui::Event::WindowFocused(false) => self.ui.buttons.release_all(&self.sim),
                _ => {}
            }
        }
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        if let Some(path) = dropped.iter().map(|f| f.path().to_path_buf()).find(|p| !p.as_os_str().is_empty()) {
            self.ui.path_field = path.display().to_string();
            self.send(Command::Load(path));
        }
    }

    fn toolbar(&mut self, ui: &mut egui::Ui, snap: &Snapshot) {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            let power = if snap.powered { "Power off" } else { "Power on" };
            if ui.button(power).on_hover_text("Cold start: the LCD and chip power up again; EEPROM is kept").clicked() {
                self.send(Command::Power(!snap.powered));
            }
            if ui.add_enabled(snap.powered, egui::Button::new("Reset")).on_hover_text("The RESET pin: the chip restarts").clicked() {
                self.send(Command::Reset);
            }
            ui.separator();
            let (label, cmd) = if snap.running { ("Pause", Command::Pause) } else { ("Run", Command::Run) };
            if ui.add_enabled(snap.powered, egui::Button::new(label)).on_hover_text("F5").clicked() {
                self.send(cmd);
            }
            let paused = snap.powered && !snap.running;
            if ui.add_enabled(paused, egui::Button::new("Step into")).on_hover_text("F11: one instruction").clicked() {
                self.send(Command::StepInto);
            }
            if ui.add_enabled(paused, egui::Button::new("Step over")).on_hover_text("F10: over calls").clicked() {
                self.send(Command::StepOver);
            }
            if ui.add_enabled(paused, egui::Button::new("Step out")).on_hover_text("Shift+F11: until this function returns").clicked() {
                self.send(Command::StepOut);
            }
            ui.separator();
            ui.label("Speed");
            for s in [Speed::RealTime, Speed::Fast, Speed::Max] {
                if ui.selectable_label(snap.speed == s, s.label()).clicked() {
                    self.send(Command::SetSpeed(s));
                }
            }
            ui.separator();
            ui.label("ELF");
            let field = egui::TextEdit::singleline(&mut self.ui.path_field).desired_width(300.0).hint_text("path to an AVR ELF (or drop one here)");
            let r = ui.add(field);
            let enter = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.button("Load").clicked() || enter {
                self.send(Command::Load(PathBuf::from(self.ui.path_field.trim())));
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.toggle_value(&mut self.ui.show_debugger, "Debugger");
            });
        });
        if let Some(e) = &snap.error {
            ui.label(RichText::new(format!("⚠ {e}")).color(Color32::from_rgb(0xff, 0x80, 0x70)));
        }
        ui.add_space(2.0);
    }

    fn bench_tick(&mut self, ctx: &egui::Context, snap: &Snapshot) {
        let Some(bench) = &mut self.bench else { return };
        let now = Instant::now();
        match bench.start {
            None => {
                let opened = *bench.opened.get_or_insert(now);
                if now.duration_since(opened) >= BENCH_WARMUP {
                    bench.start = Some((now, snap.cycles, cpu_seconds()));
                    bench.frames = 0;
                    bench.ui_time = Duration::ZERO;
                }
            }
            Some((t0, c0, cpu0)) => {
                bench.frames += 1;
                let wall = now.duration_since(t0).as_secs_f64();
                if wall >= bench.seconds && bench.seconds >= 0.0 {
                    let cycles = snap.cycles.saturating_sub(c0);
                    let cpu = cpu_seconds() - cpu0;
                    println!(
                        "bench: {:.2} s wall at {}: {} cycles, {:.1} emulated MHz, {:.2} s CPU ({:.1}% of one core), {:.1} frames/s, {:.1} ms per frame building the UI",
                        wall,
                        snap.speed.label(),
                        cycles,
                        cycles as f64 / wall / 1e6,
                        cpu,
                        cpu / wall * 100.0,
                        bench.frames as f64 / wall,
                        bench.ui_time.as_secs_f64() * 1e3 / bench.frames.max(1) as f64
                    );
                    bench.seconds = -1.0;
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
            }
        }
    }
}

impl eframe::App for ProdigyApp {
    /// The panels' colour: they are drawn [`unfilled`].
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        visuals.panel_fill.to_normalized_gamma_f32()
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}

/// A panel frame without its fill. The window is cleared to the panel
/// colour ([`eframe::App::clear_color`]), so painting the panels' backgrounds
/// again only costs time: under software rendering, filling a 1400x880
/// window once is a good part of a frame, and nested panels filled it twice.
pub(crate) fn unfilled(f: egui::Frame) -> egui::Frame {
    f.fill(Color32::TRANSPARENT)
}

/// Whether a font with the chess glyphs (and box drawing...) was found.
pub static WIDE_FONT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// DejaVu Sans as a fallback font when the system has it: egui's own fonts
/// have no chess glyphs.
fn add_system_font(ctx: &egui::Context) {
    const CANDIDATES: [&str; 2] = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf"];
    let Some(bytes) = CANDIDATES.iter().find_map(|p| std::fs::read(p).ok()) else { return };
    ctx.add_font(egui::epaint::text::FontInsert {
        name: "DejaVuSans".into(),
        data: egui::FontData::from_owned(bytes),
        families: [egui::FontFamily::Proportional, egui::FontFamily::Monospace]
            .into_iter()
            .map(|family| egui::epaint::text::InsertFontFamily { family, priority: egui::epaint::text::FontPriority::Lowest })
            .collect(),
    });
    WIDE_FONT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// User + system CPU seconds of this process (Linux), 0 elsewhere.
pub fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let Some(rest) = stat.rsplit_once(')').map(|r| r.1) else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}
