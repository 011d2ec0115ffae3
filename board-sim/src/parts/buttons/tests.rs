//! Key scripts, button levels and contact bounce.

use super::*;
use firmware::board::{Port, BUTTON_PORT};

const HZ: u32 = 8_000_000;
const MS: u64 = 8_000;

fn err(text: &str) -> ScriptError {
    KeyScript::parse(text).expect_err("the script should be rejected")
}

#[test]
fn scripts_parse_both_styles() {
    let s = KeyScript::parse(
        "# a comment\n\
         at 0.5s press UP\n\
         600ms release up   # trailing comment\n\
         100ms press ENTER; 150ms release ENTER\n",
    );
    // 100ms is before 600ms: statements must be in time order.
    assert_eq!(s.unwrap_err().line, 4);

    let s = KeyScript::parse(
        "100ms press ENTER; 150ms release ENTER\nat 0.5s press UP\n+250us release Up",
    )
    .unwrap();
    let steps: Vec<_> = s
        .steps()
        .iter()
        .map(|s| (s.at_ns, s.button, s.pressed, s.line))
        .collect();
    assert_eq!(
        steps,
        [
            (100_000_000, Button::Enter, true, 1),
            (150_000_000, Button::Enter, false, 1),
            (500_000_000, Button::Up, true, 2),
            (500_250_000, Button::Up, false, 3),
        ]
    );
}

#[test]
fn tap_and_hold_release_later() {
    let s =
        KeyScript::parse("at 1s tap MENU\nat 1.05s tap DOWN 20ms\nat 2s hold ENTER 1.5s").unwrap();
    let steps: Vec<_> = s
        .steps()
        .iter()
        .map(|s| (s.at_ns / 1_000_000, s.button, s.pressed))
        .collect();
    assert_eq!(
        steps,
        [
            (1000, Button::Menu, true),
            (1050, Button::Down, true),
            (1070, Button::Down, false),
            (1100, Button::Menu, false),
            (2000, Button::Enter, true),
            (3500, Button::Enter, false),
        ]
    );
}

#[test]
fn bad_scripts_name_the_line_and_the_problem() {
    let cases = [
        (
            "at 1s press UP\nat 2s press SELECT",
            2,
            "unknown button \"SELECT\"",
        ),
        ("\n\nat 1 press UP", 3, "bad time \"1\""),
        ("at 1s push UP", 1, "unknown action \"push\""),
        (
            "at 1s press UP\nat 2s press UP",
            2,
            "UP is already pressed (by line 1)",
        ),
        (
            "at 1s release DOWN",
            1,
            "DOWN is released at 1000ms but is not pressed",
        ),
        (
            "at 1s tap ENTER 2s\nat 2s press ENTER",
            2,
            "ENTER is already pressed",
        ),
        ("at 1s hold MENU", 1, "`hold` needs a duration"),
        ("at 1s press MENU 5ms", 1, "takes no duration"),
        ("at 1s press MENU now", 1, "bad time \"now\""),
        ("at 1s tap MENU 5ms extra", 1, "unexpected \"extra\""),
        ("at", 1, "expected `[at] TIME ACTION BUTTON [DURATION]`"),
        ("at 1.0000000001s press UP", 1, "finer than a nanosecond"),
    ];
    for (text, line, message) in cases {
        let e = err(text);
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(e.message.contains(message), "{text:?}: {e}");
    }
    assert_eq!(
        err("at 2x press UP").to_string().split(':').next(),
        Some("key script line 1")
    );
}

#[test]
fn pressed_buttons_pull_their_pin_low() {
    let script: KeyScript = "at 1ms press UP; at 2ms tap ENTER 2ms; at 3ms release UP"
        .parse()
        .unwrap();
    let b = Buttons::from_script(HZ, &script);
    assert_eq!(b.pin_levels(0), [None; 4]);
    assert_eq!(b.pin_levels(MS), [None, Some(false), None, None]);
    assert_eq!(
        b.pin_levels(2 * MS + 1),
        [None, Some(false), None, Some(false)]
    );
    assert_eq!(b.pin_levels(3 * MS), [None, None, None, Some(false)]);
    let drive = b.drive(2 * MS);
    let mask = Button::Up.pin().mask() | Button::Enter.pin().mask();
    assert_eq!(drive[BUTTON_PORT.index()], PortDrive { mask, levels: 0 });
    assert_eq!(drive[Port::C.index()], PortDrive::default());
    assert_eq!(b.state(Button::Up, 2 * MS), ButtonState::Pressed(MS));
    assert_eq!(b.state(Button::Up, 3 * MS), ButtonState::Released);
}

#[test]
fn next_change_walks_the_script_exactly() {
    let script: KeyScript = "at 1ms press UP; at 2ms tap ENTER 2ms; at 3ms release UP"
        .parse()
        .unwrap();
    let b = Buttons::from_script(HZ, &script);
    let mut seen = Vec::new();
    let mut now = 0;
    while let Some(next) = b.next_change(now) {
        seen.push(next / MS);
        now = next;
    }
    assert_eq!(seen, [1, 2, 3, 4]);
}

#[test]
fn manual_presses_merge_with_the_plan() {
    let mut b = Buttons::new(HZ);
    b.press(Button::Menu, 10);
    b.press(Button::Menu, 20); // already pressed: nothing changes
    b.release(Button::Menu, 30);
    assert_eq!(b.next_change(0), Some(10));
    assert_eq!(b.next_change(10), Some(30));
    assert_eq!(b.next_change(30), None);
    assert!(b.contact_closed(Button::Menu, 25));
}

#[test]
fn bounce_chatters_then_settles_repeatably() {
    let script: KeyScript = "at 10ms press DOWN; at 50ms release DOWN".parse().unwrap();
    let mut b = Buttons::from_script(HZ, &script);
    b.set_bounce(Some(Bounce::ms(5)));
    let changes = |b: &Buttons| {
        let mut out = Vec::new();
        let mut now = 0;
        while let Some(t) = b.next_change(now) {
            out.push((t, b.contact_closed(Button::Down, t)));
            now = t;
        }
        out
    };
    let c = changes(&b);
    assert!(c.len() > 6, "some chatter on both edges: {c:?}");
    assert_eq!(c[0], (10 * MS, true), "the first contact is at the press");
    let press_bounces = c.iter().filter(|&&(t, _)| t < 50 * MS).count();
    assert_eq!(press_bounces % 2, 1, "settles closed after the press");
    assert!(c
        .iter()
        .all(|&(t, _)| (10 * MS..=15 * MS).contains(&t) || (50 * MS..=55 * MS).contains(&t)));
    assert!(b.contact_closed(Button::Down, 30 * MS));
    assert!(!b.contact_closed(Button::Down, 60 * MS));
    assert_eq!(
        b.state(Button::Down, 12 * MS),
        ButtonState::Pressed(10 * MS),
        "the logical state does not bounce"
    );
    // Same seed, same chatter; another seed, other chatter.
    let mut again = Buttons::from_script(HZ, &script);
    again.set_bounce(Some(Bounce::ms(5)));
    assert_eq!(changes(&again), c);
    again.set_bounce(Some(Bounce {
        seed: 7,
        ..Bounce::ms(5)
    }));
    assert_ne!(changes(&again), c);
    // Off again: clean edges.
    b.set_bounce(None);
    assert_eq!(changes(&b), [(10 * MS, true), (50 * MS, false)]);
}
