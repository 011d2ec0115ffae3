//! The buzzer through the sound card (`--features audio`): a square wave at
//! the frequency the window reports, from a source that reads it from an
//! atomic, so the UI thread only stores a number.
//!
//! Without an output device the window shows "no audio device" and stays
//! silent; nothing panics and nothing is printed per frame.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

static AVAILABLE: AtomicBool = AtomicBool::new(false);

/// Whether an output device was opened.
pub fn available() -> bool {
    AVAILABLE.load(Ordering::Relaxed)
}

pub struct Audio {
    /// f32 bits of the frequency; 0 = silent.
    tone: Arc<AtomicU32>,
    _stream: Option<rodio::OutputStream>,
}

impl Audio {
    /// Opens the default output device, or a silent stand-in.
    pub fn open() -> Audio {
        let tone = Arc::new(AtomicU32::new(0));
        if !output_possible() {
            return Audio { tone, _stream: None };
        }
        let stream = match rodio::OutputStreamBuilder::open_default_stream() {
            Ok(mut s) => {
                s.log_on_drop(false);
                s.mixer().add(Square { tone: tone.clone(), phase: 0.0, rate: 44_100 });
                AVAILABLE.store(true, Ordering::Relaxed);
                Some(s)
            }
            Err(_) => None,
        };
        Audio { tone, _stream: stream }
    }

    pub fn set_tone(&self, hz: Option<f32>) {
        self.tone.store(hz.unwrap_or(0.0).to_bits(), Ordering::Relaxed);
    }
}

/// A quiet square wave following `tone`.
struct Square {
    tone: Arc<AtomicU32>,
    phase: f32,
    rate: u32,
}

impl Iterator for Square {
    type Item = f32;
    fn next(&mut self) -> Option<f32> {
        let hz = f32::from_bits(self.tone.load(Ordering::Relaxed));
        if hz <= 0.0 {
            self.phase = 0.0;
            return Some(0.0);
        }
        self.phase = (self.phase + hz / self.rate as f32).fract();
        Some(if self.phase < 0.5 { 0.15 } else { -0.15 })
    }
}

impl rodio::Source for Square {
    fn current_span_len(&self) -> Option<usize> {
        None
    }
    fn channels(&self) -> rodio::ChannelCount {
        1
    }
    fn sample_rate(&self) -> rodio::SampleRate {
        self.rate
    }
    fn total_duration(&self) -> Option<Duration> {
        None
    }
}

/// Whether any sound output can exist. Probing ALSA on a machine with no
/// card and no sound server makes libasound print a screenful of errors,
/// so look first: a device node, or a PulseAudio/PipeWire socket.
fn output_possible() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    if std::path::Path::new("/dev/snd").exists() || std::env::var_os("PULSE_SERVER").is_some() {
        return true;
    }
    std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|dir| {
        let dir = std::path::Path::new(&dir);
        dir.join("pulse/native").exists() || dir.join("pipewire-0").exists()
    })
}
