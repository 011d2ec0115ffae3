//! Emulation speed on a CPU-heavy C program (sorting and CRCs).
//!
//! `cargo test -p emulator --release --test cpu_speed -- --ignored --nocapture`
//! prints emulated MHz (emulated cycles per wall-clock microsecond).

mod common;

use emulator::{Avr, Config, RunLimit, Stop};
use std::time::Instant;

pub const WORKLOAD: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include <stdint.h>

#define N 200
volatile uint16_t result;
uint16_t a[N];

static uint16_t crc16(const uint16_t *p, uint16_t n, uint16_t crc) {
    for (uint16_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (uint8_t b = 0; b < 16; b++) crc = (crc & 1) ? (crc >> 1) ^ 0xA001 : crc >> 1;
    }
    return crc;
}

static void sort(uint16_t *p, uint16_t n) {
    for (uint16_t i = 1; i < n; i++) {
        uint16_t v = p[i];
        uint16_t j = i;
        while (j > 0 && p[j - 1] > v) { p[j] = p[j - 1]; j--; }
        p[j] = v;
    }
}

int main(void) {
    uint16_t crc = 0xFFFF;
    uint32_t seed = 1;
    for (uint8_t round = 0; round < ROUNDS; round++) {
        for (uint16_t i = 0; i < N; i++) {
            seed = seed * 1103515245u + 12345u;
            a[i] = (uint16_t)(seed >> 16);
        }
        sort(a, N);
        crc = crc16(a, N, crc);
    }
    result = crc;
    cli();
    sleep_cpu();
    for (;;) {}
}
"#;

#[test]
#[ignore = "speed measurement; run in release with --ignored --nocapture"]
fn emulated_mhz() {
    let (elf, _) = common::compile_c(WORKLOAD, &["-DROUNDS=250"]);
    let mut avr = Avr::new(Config::default());
    avr.load_elf(&elf).unwrap();
    let start = Instant::now();
    let stop = avr.run(RunLimit::UntilSleep { max_cycles: 10_000_000_000 });
    let wall = start.elapsed();
    assert!(matches!(stop, Stop::Sleeping { .. }), "{stop:?}");
    let mhz = avr.cycles() as f64 / wall.as_secs_f64() / 1e6;
    println!("{} cycles in {:.3} s: {:.0} emulated MHz", avr.cycles(), wall.as_secs_f64(), mhz);
}

#[test]
fn workload_runs_to_sleep() {
    let (elf, _) = common::compile_c(WORKLOAD, &["-DROUNDS=1"]);
    let mut avr = Avr::new(Config::default());
    avr.load_elf(&elf).unwrap();
    let stop = avr.run(RunLimit::UntilSleep { max_cycles: 100_000_000 });
    assert!(matches!(stop, Stop::Sleeping { interrupts_enabled: false, .. }), "{stop:?}");
    assert!(avr.cycles() > 100_000);
    assert!(avr.warnings().is_empty(), "{:?}", avr.warnings());
}
