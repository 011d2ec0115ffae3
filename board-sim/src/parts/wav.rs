//! Audio from pin edges: a square-wave renderer and a minimal WAV writer
//! (RIFF, PCM, 16-bit mono), enough to listen to what the buzzer played.

use std::io::{self, Write};

/// A sample rate that keeps files small and is plenty for a piezo.
pub const SAMPLE_RATE: u32 = 22_050;

/// Peak amplitude: headroom for the overshoot of the DC blocker.
const AMPLITUDE: f64 = 12_000.0;

/// Pole of the DC blocker; ~17 Hz at 22 kHz, below anything a buzzer plays.
const DC_POLE: f64 = 0.995;

/// Renders a pin that starts at `initial` and changes at `edges` (cycle,
/// level after) between cycles `start` and `end`, into samples at
/// `sample_rate`.
///
/// Each sample is the fraction of its interval the pin was high (a box
/// filter, so tones near the Nyquist rate alias less), passed through a DC
/// blocker, since a speaker does not reproduce a pin held high.
pub fn render_square_wave(
    edges: &[(u64, bool)],
    initial: bool,
    start: u64,
    end: u64,
    clock_hz: u32,
    sample_rate: u32,
) -> Vec<i16> {
    let cycles_per_sample = clock_hz as f64 / sample_rate as f64;
    let count = ((end.saturating_sub(start)) as f64 / cycles_per_sample) as usize;
    let mut i = edges.partition_point(|&(t, _)| t <= start);
    let mut level = i.checked_sub(1).map_or(initial, |j| edges[j].1);
    let (mut x_prev, mut y_prev) = (level as u8 as f64, 0.0);
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        let from = start as f64 + k as f64 * cycles_per_sample;
        let to = from + cycles_per_sample;
        let (mut high, mut at) = (0.0, from);
        while i < edges.len() && (edges[i].0 as f64) < to {
            let t = edges[i].0 as f64;
            if level {
                high += t - at;
            }
            at = t;
            level = edges[i].1;
            i += 1;
        }
        if level {
            high += to - at;
        }
        let x = high / cycles_per_sample;
        let y = x - x_prev + DC_POLE * y_prev;
        (x_prev, y_prev) = (x, y);
        out.push((y * AMPLITUDE).clamp(i16::MIN as f64, i16::MAX as f64) as i16);
    }
    out
}

/// Writes `samples` as a 16-bit mono PCM WAV file.
pub fn write_wav(mut w: impl Write, sample_rate: u32, samples: &[i16]) -> io::Result<()> {
    let data_len = u32::try_from(samples.len() * 2)
        .ok()
        .filter(|&n| n <= u32::MAX - 36)
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "too many samples for a WAV file",
            )
        })?;
    let (channels, bits) = (1u16, 16u16);
    let block_align = channels * bits / 8;
    w.write_all(b"RIFF")?;
    w.write_all(&(36 + data_len).to_le_bytes())?;
    w.write_all(b"WAVEfmt ")?;
    w.write_all(&16u32.to_le_bytes())?; // fmt chunk size
    w.write_all(&1u16.to_le_bytes())?; // PCM
    w.write_all(&channels.to_le_bytes())?;
    w.write_all(&sample_rate.to_le_bytes())?;
    w.write_all(&(sample_rate * block_align as u32).to_le_bytes())?; // byte rate
    w.write_all(&block_align.to_le_bytes())?;
    w.write_all(&bits.to_le_bytes())?;
    w.write_all(b"data")?;
    w.write_all(&data_len.to_le_bytes())?;
    let mut bytes = Vec::with_capacity(samples.len() * 2);
    samples
        .iter()
        .for_each(|s| bytes.extend_from_slice(&s.to_le_bytes()));
    w.write_all(&bytes)
}

/// [`write_wav`] into memory.
pub fn wav_bytes(sample_rate: u32, samples: &[i16]) -> Vec<u8> {
    let mut v = Vec::with_capacity(44 + samples.len() * 2);
    write_wav(&mut v, sample_rate, samples).expect("writing to a Vec cannot fail");
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    const HZ: u32 = 8_000_000;

    fn square(hz: u64, seconds: u64) -> Vec<(u64, bool)> {
        let half = HZ as u64 / hz / 2;
        (1..2 * hz * seconds)
            .map(|i| (i * half, i % 2 == 1))
            .collect()
    }

    #[test]
    fn header_is_a_valid_pcm_wav() {
        let samples = [0i16, 1000, -1000, i16::MAX, i16::MIN];
        let b = wav_bytes(SAMPLE_RATE, &samples);
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let u16_at = |i: usize| u16::from_le_bytes(b[i..i + 2].try_into().unwrap());
        assert_eq!(b.len(), 44 + 10);
        assert_eq!(&b[0..4], b"RIFF");
        assert_eq!(u32_at(4) as usize, b.len() - 8);
        assert_eq!(&b[8..16], b"WAVEfmt ");
        assert_eq!(u32_at(16), 16);
        assert_eq!(u16_at(20), 1, "PCM");
        assert_eq!(u16_at(22), 1, "mono");
        assert_eq!(u32_at(24), SAMPLE_RATE);
        assert_eq!(u32_at(28), SAMPLE_RATE * 2);
        assert_eq!(u16_at(32), 2);
        assert_eq!(u16_at(34), 16);
        assert_eq!(&b[36..40], b"data");
        assert_eq!(u32_at(40), 10);
        assert_eq!(i16::from_le_bytes([b[50], b[51]]), i16::MAX);
    }

    #[test]
    fn renders_the_tone_at_its_frequency() {
        let edges = square(1000, 1);
        let samples = render_square_wave(&edges, false, 0, HZ as u64, HZ, SAMPLE_RATE);
        assert_eq!(samples.len(), SAMPLE_RATE as usize);
        // Two zero crossings per period once the DC blocker has settled.
        let settled = &samples[SAMPLE_RATE as usize / 2..];
        let crossings = settled
            .windows(2)
            .filter(|w| (w[0] < 0) != (w[1] < 0))
            .count();
        assert!(
            (995..=1005).contains(&crossings),
            "{crossings} crossings in 0.5 s"
        );
        let peak = settled.iter().map(|s| s.unsigned_abs()).max().unwrap();
        assert!(peak > 5000, "audible: peak {peak}");
    }

    #[test]
    fn silence_renders_silent() {
        let samples = render_square_wave(&[], true, 0, HZ as u64 / 10, HZ, SAMPLE_RATE);
        assert!(samples.iter().all(|&s| s == 0));
    }
}
