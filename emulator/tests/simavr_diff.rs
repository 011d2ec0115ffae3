//! Differential tests against simavr.
//!
//! simavr cannot print cycle counts or dump memory, but it can trace a
//! register to a VCD file with timestamps. Each program streams its results
//! as nibbles through GPIOR0 (bit 4 toggles on every write so each write
//! is a value change the VCD records). We run the same ELF on both and
//! compare the stream of values and the cycle distance between consecutive
//! writes, which covers every instruction executed in between. The test
//! programs use no peripherals, so only the CPU core is compared.
//!
//! The `.mmcu` section (simavr's metadata) is linked at 0x910000, where
//! simavr expects it: left to the default linker script it would sit
//! between `.text` and the `.data` image, and simavr, which places `.data`
//! right after `.text`, would then initialise `.data` with the wrong bytes.

mod common;

use emulator::{Access, Avr, Config, RunLimit, Stop, WatchKind};
use std::process::Command;

const PRELUDE: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include <stdint.h>
#include "avr/avr_mcu_section.h"
AVR_MCU(8000000, "atmega644");
AVR_MCU_VCD_FILE("trace.vcd", 1000);
const struct avr_mmcu_vcd_trace_t _trace[] _MMCU_ = {
    { AVR_MCU_VCD_SYMBOL("GPIOR0"), .what = (void*)&GPIOR0, },
};
static uint8_t toggle;
static void emit_nibble(uint8_t n) { toggle ^= 0x10; GPIOR0 = (n & 15) | toggle; }
static void emit8(uint8_t b) { emit_nibble(b >> 4); emit_nibble(b); }
static void emit16(uint16_t v) { emit8(v >> 8); emit8(v); }
static void emit32(uint32_t v) { emit16(v >> 16); emit16(v); }
static void finish(void) { cli(); sleep_cpu(); }
"#;

const SORT_CRC: &str = r#"
#define N 64
uint16_t a[N];
static uint16_t crc16(const uint8_t *p, uint16_t n) {
    uint16_t crc = 0xFFFF;
    while (n--) {
        crc ^= *p++;
        for (uint8_t b = 0; b < 8; b++) crc = (crc & 1) ? (crc >> 1) ^ 0xA001 : crc >> 1;
    }
    return crc;
}
int main(void) {
    uint32_t seed = 7;
    for (uint8_t i = 0; i < N; i++) { seed = seed * 1103515245u + 12345u; a[i] = seed >> 16; }
    for (uint8_t i = 1; i < N; i++) {
        uint16_t v = a[i]; uint8_t j = i;
        while (j > 0 && a[j - 1] > v) { a[j] = a[j - 1]; j--; }
        a[j] = v;
    }
    emit16(a[0]); emit16(a[N / 2]); emit16(a[N - 1]);
    emit16(crc16((const uint8_t *)a, sizeof a));
    finish();
}
"#;

const ARITHMETIC: &str = r#"
volatile int32_t x = -123456789;
volatile uint16_t y = 4321;
volatile float f = 3.25f;
int main(void) {
    int32_t acc = 1;
    for (int16_t i = 1; i < 40; i++) {
        acc = acc * 31 + x / i - (int32_t)y * i;
        acc ^= acc >> 7;
        emit8((uint8_t)(acc % 251));
    }
    emit32((uint32_t)acc);
    float g = f;
    for (uint8_t i = 0; i < 10; i++) g = g * 1.5f - 0.75f / (i + 1);
    union { float f; uint32_t u; } bits = { g };
    emit32(bits.u);
    int8_t s = -77;
    emit16((uint16_t)((int16_t)s * (int16_t)y));
    emit16(y / 7);
    emit16(y % 7);
    finish();
}
"#;

/// (cycle, value) of every GPIOR0 write in our emulator, plus the total cycles.
fn ours(elf: &[u8]) -> (Vec<(u64, u8)>, u64) {
    let mut avr = Avr::new(Config::default());
    avr.load_elf(elf).unwrap();
    avr.add_watchpoint(0x3E..=0x3E, WatchKind::Write);
    let mut writes = Vec::new();
    loop {
        match avr.run(RunLimit::UntilSleep { max_cycles: 50_000_000 }) {
            Stop::Watchpoint { addr: 0x3E, kind: Access::Write, .. } => {
                writes.push((avr.cycles(), avr.read_data(0x3E).unwrap()));
            }
            Stop::Sleeping { .. } => return (writes, avr.cycles()),
            other => panic!("unexpected stop {other:?}"),
        }
    }
}

/// (cycle, value) of every GPIOR0 change simavr traced.
fn simavr(elf_path: &std::path::Path) -> Vec<(u64, u8)> {
    common::require_tool("simavr");
    let dir = elf_path.parent().unwrap();
    let out = Command::new("simavr")
        .args(["-m", "atmega644", "-f", "8000000"])
        .arg(elf_path)
        .current_dir(dir)
        .output()
        .expect("run simavr (run `cargo xtask setup`)");
    assert!(out.status.success(), "simavr failed: {}", String::from_utf8_lossy(&out.stderr));
    let vcd = std::fs::read_to_string(dir.join("trace.vcd")).expect("simavr wrote no trace.vcd");
    parse_vcd(&vcd, 8_000_000)
}

fn parse_vcd(vcd: &str, clock_hz: u64) -> Vec<(u64, u8)> {
    let mut unit_ps: u64 = 1;
    let mut time: u64 = 0;
    let mut changes = Vec::new();
    let mut in_timescale = false;
    for token in vcd.split_whitespace() {
        if token == "$timescale" {
            in_timescale = true;
            continue;
        }
        if in_timescale {
            if token == "$end" {
                in_timescale = false;
                continue;
            }
            let digits: String = token.chars().take_while(|c| c.is_ascii_digit()).collect();
            let unit = &token[digits.len()..];
            let scale = match unit {
                "s" => 1_000_000_000_000,
                "ms" => 1_000_000_000,
                "us" => 1_000_000,
                "ns" => 1_000,
                "ps" => 1,
                other => panic!("unknown VCD unit {other}"),
            };
            unit_ps = digits.parse::<u64>().unwrap_or(1) * scale;
        } else if let Some(t) = token.strip_prefix('#') {
            time = t.parse().unwrap();
        } else if let Some(bits) = token.strip_prefix('b') {
            if let Ok(v) = u8::from_str_radix(bits, 2) {
                let ps_per_cycle = 1_000_000_000_000 / clock_hz;
                let cycle = (time * unit_ps + ps_per_cycle / 2) / ps_per_cycle;
                changes.push((cycle, v));
            }
        }
    }
    changes
}

fn compare(name: &str, source: &str) {
    let (elf, path) = common::compile_c(&format!("{PRELUDE}\n{source}"), &["-I/usr/include/simavr", "-Wl,--section-start=.mmcu=0x910000"]);
    let (mine, total) = ours(&elf);
    let theirs = simavr(&path);
    assert!(mine.len() > 4, "{name}: the program emitted too little");
    let values = |w: &[(u64, u8)]| w.iter().map(|&(_, v)| v).collect::<Vec<_>>();
    assert_eq!(values(&mine), values(&theirs), "{name}: results differ from simavr");
    let deltas = |w: &[(u64, u8)]| w.windows(2).map(|p| p[1].0 - p[0].0).collect::<Vec<_>>();
    let (dm, dt) = (deltas(&mine), deltas(&theirs));
    for (i, (a, b)) in dm.iter().zip(&dt).enumerate() {
        assert_eq!(a, b, "{name}: cycles between writes {i} and {} differ: ours {a}, simavr {b}", i + 1);
    }
    // The first write comes after the C startup code; compare it too (the
    // offset of the write within the OUT instruction may differ by one).
    let first = mine[0].0 as i64 - theirs[0].0 as i64;
    assert!(first.abs() <= 1, "{name}: first write at cycle {} vs simavr {}", mine[0].0, theirs[0].0);
    eprintln!("{name}: {} writes, {} cycles, identical to simavr", mine.len(), total);
}

#[test]
fn sort_and_crc_match_simavr() {
    compare("sort+crc", SORT_CRC);
}

#[test]
fn integer_and_float_arithmetic_match_simavr() {
    compare("arithmetic", ARITHMETIC);
}
